//! A soak of the executor: many turns of mixed calls, with plugins coming
//! and going, checking that nothing is lost and nothing is left behind.
//!
//! ```text
//! cargo bench -p registry-core --bench soak                            # 100,000 calls
//! REGISTRY_SOAK_CALLS=5000 cargo bench -p registry-core --bench soak   # a quick run
//! ```
//!
//! It is not a timed measurement (no criterion, no divan, no timing
//! assertion; the wall time it prints is for information). It runs
//! `REGISTRY_SOAK_CALLS` (default 100,000) tool calls through the real
//! executor (`registry.executor()...build()`, `Executor::run_turn`) on a
//! two-worker tokio runtime, in turns of 1 to 16 calls chosen by a seeded
//! xorshift, so every run makes the same turns. The calls mix:
//!
//! - `soak_read`: concurrency-safe and read-only, succeeds;
//! - `soak_bump`: not concurrency-safe, writes (allowed by an allow rule),
//!   succeeds, each call a batch of its own;
//! - `soak_guarded` with an `open-…` key: allowed, succeeds; with a
//!   `secret-…` key: denied by the content deny rule
//!   `soak_guarded(secret:*)` in the permission context, never runs;
//! - `soak_boom`: its body panics (the panic becomes the call's error);
//! - `soak_stall`: runs a child process (`sleep`) far past the executor's
//!   20 ms per-call timeout;
//! - `soak_big`: returns more than its 1,000-character cap, so the result
//!   is spilled to a file in a fresh temporary directory;
//! - every 250 calls a plugin registers a runtime tool (`soak_plugin`,
//!   made with `ToolBuilder`), the executor is rebuilt to see it, a turn
//!   calls it among the others, then the plugin leaves: the executor built
//!   before it left must refuse the tool ("no longer available"), and the
//!   one rebuilt after must not know it.
//!
//! What it proves, each check a panic (so a non-zero exit) with a message
//! naming the turn and the call when it fails:
//!
//! - every call gets exactly one result, ids one-to-one in call order;
//! - every result is the kind expected of its call (success, denied, error,
//!   timeout, spilled), with the expected text; each tool body ran exactly
//!   as often as calls that should reach it (a denied call or a call of a
//!   departed plugin never runs); the session's metrics agree;
//! - every spill file is named by its result's text and holds the whole
//!   output; after the soak every file in the spill directory belongs to a
//!   spilled result, one file per result;
//! - resident memory (`VmRSS`, sampled every 1,000 calls) grows by less
//!   than 1 MiB from the end of a warm-up (the first 10% of calls) to the
//!   end;
//! - no tokio task outlives its turn (the runtime's alive-task count is
//!   back at its baseline after every turn), and no child process is left
//!   running (each stopped `soak_stall` call's `sleep` is killed when the
//!   executor drops the call; a killed child not yet reaped is dead and
//!   is not counted).
//!
//! Linux only: memory and children are read from `/proc`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use registry_core::catalog::{BaseTools, PluginGuard};
use registry_core::execute::ExecutorConfig;
use registry_core::permission::{PermissionPolicy, RuleBehavior, RuleSource};
use registry_core::session::Session;
use registry_core::{
    Executor, Flags, PermissionContent, PermissionContext, PermissionMode, Tool, ToolBuilder,
    ToolCall, ToolCallResult, ToolContext, ToolOutput, ToolRegistry, tool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Calls in a full run.
const DEFAULT_CALLS: usize = 100_000;
/// A fixed seed: every run makes the same turns, so a failure reproduces.
const SEED: u64 = 0x5eed_f00d_50a4_2025;
/// The executor's per-call timeout: short, so the stalling calls cost
/// little wall time, and far longer than any other body takes (they never
/// await anything, and `tokio::time::timeout` polls the body before its
/// deadline, so a ready body is never timed out however late it is polled).
const TIMEOUT: Duration = Duration::from_millis(20);
/// How long a stalling body would sleep if the timeout did not stop it:
/// long enough that it cannot finish inside any turn by luck.
const STALL: Duration = Duration::from_secs(5);
/// `soak_big`'s result cap, in characters.
const BIG_CAP: usize = 1_000;
/// A plugin comes and goes every this many calls.
const PLUGIN_EVERY: usize = 250;
/// RSS is sampled every this many calls.
const SAMPLE_EVERY: usize = 1_000;
/// The allowed RSS growth from the end of the warm-up to the end.
const MAX_GROWTH_KIB: u64 = 1024;
/// What every planned panic says, so the panic hook can keep them quiet.
const PLANNED_PANIC: &str = "soak: planned panic";

#[derive(Deserialize, JsonSchema)]
struct NumberInput {
    /// The call's number in the soak.
    n: u64,
}

#[derive(Deserialize, JsonSchema)]
struct KeyInput {
    /// What the call opens; `secret-…` keys are denied by a rule.
    key: String,
}

/// How many times each body ran, by [`Body`].
static RUNS: [AtomicU64; Body::COUNT] = [const { AtomicU64::new(0) }; Body::COUNT];

/// The tool bodies whose runs are counted.
#[derive(Clone, Copy)]
enum Body {
    Read,
    Bump,
    Guarded,
    Boom,
    Stall,
    Big,
    Plugin,
}

impl Body {
    const COUNT: usize = 7;

    fn ran(self) {
        RUNS[self as usize].fetch_add(1, Ordering::Relaxed);
    }

    fn runs(self) -> u64 {
        RUNS[self as usize].load(Ordering::Relaxed)
    }
}

/// Read something (concurrency-safe).
#[tool(name = "soak_read", read_only = true, concurrency_safe = true, rule_of_two = [])]
struct SoakRead;

impl Tool for SoakRead {
    type Input = NumberInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: NumberInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Body::Read.ran();
        Ok(format!("read {}", input.n))
    }
}

// The soak's tools touch only this process's counters: nothing the Rule
// of Two counts (`rule_of_two = []`), so its checks see every call run.

/// Bump a counter (writes, runs alone).
#[tool(name = "soak_bump", destructive = false, rule_of_two = [])]
struct SoakBump;

impl Tool for SoakBump {
    type Input = NumberInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: NumberInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Body::Bump.ran();
        Ok(format!("bumped {}", input.n))
    }
}

/// Open a key; content rules see the key.
#[tool(name = "soak_guarded", read_only = true, concurrency_safe = true, rule_of_two = [])]
struct SoakGuarded;

impl Tool for SoakGuarded {
    type Input = KeyInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: KeyInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Body::Guarded.ran();
        Ok(format!("opened {}", input.key))
    }

    fn permission_content(&self, input: &KeyInput) -> Option<PermissionContent> {
        Some(PermissionContent::text(&input.key))
    }
}

/// Panic.
#[tool(name = "soak_boom", read_only = true, concurrency_safe = true, rule_of_two = [])]
struct SoakBoom;

impl Tool for SoakBoom {
    type Input = NumberInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: NumberInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Body::Boom.ran();
        panic!("{PLANNED_PANIC} {}", input.n);
    }
}

/// Sleep past the timeout.
#[tool(name = "soak_stall", read_only = true, concurrency_safe = true, rule_of_two = [])]
struct SoakStall;

impl Tool for SoakStall {
    type Input = NumberInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, _input: NumberInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Body::Stall.ran();
        // A real child process that outlives the timeout unless the
        // executor drops the call's future when it stops the call
        // (`kill_on_drop` kills it then): a turn that detached timed-out
        // calls instead would leave one `sleep` per stall.
        // An hour: it never ends on its own while the soak watches.
        let child = tokio::process::Command::new("sleep")
            .arg("3600")
            .kill_on_drop(true)
            .spawn();
        match child {
            Ok(mut child) => {
                let _ = child.wait().await;
            }
            Err(_) => tokio::time::sleep(STALL).await,
        }
        Ok("stall finished".to_owned())
    }
}

/// Return more than the cap.
#[tool(
    name = "soak_big",
    read_only = true,
    concurrency_safe = true,
    max_result_chars = 1000,
    rule_of_two = []
)]
struct SoakBig;

impl Tool for SoakBig {
    type Input = NumberInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: NumberInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Body::Big.ran();
        Ok(big_text(input.n))
    }
}

/// `soak_big`'s output for call `n`: 80 lines, about 1,600 characters,
/// different per call, so a spill file can be checked against its call.
fn big_text(n: u64) -> String {
    let text: String = (0..80)
        .map(|line| format!("{n:010} line {line:04}\n"))
        .collect();
    debug_assert!(text.chars().count() > BIG_CAP);
    text
}

/// The plugin tool of plugin `k`: concurrency-safe for even `k`, so it
/// sometimes shares a batch and sometimes runs alone.
fn plugin_tool(k: usize) -> registry_core::ToolHandle {
    ToolBuilder::new("soak_plugin", "Echo `n` (a plugin tool).")
        .read_only(true)
        .concurrency_safe(k.is_multiple_of(2))
        .build(move |args, _cx| async move {
            Body::Plugin.ran();
            Ok(ToolOutput::text(format!("plugin {k} echo {}", args["n"])))
        })
        .expect("the plugin tool is well-formed")
}

/// xorshift64*: tiny, deterministic, good enough to mix calls.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (the slight modulo bias does not matter here).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// What a call is, and so what its result must be.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Call {
    Read,
    Bump,
    Open,
    Secret,
    Boom,
    Stall,
    Big,
    /// The current plugin's tool, through an executor built after it came.
    Plugin,
    /// The plugin's tool through the executor built before it left.
    PluginGone,
    /// The plugin's tool through an executor built after it left.
    PluginMissing,
}

/// The ordinary calls and their weights (out of 100). Stalls are rare:
/// each costs up to one timeout of wall time.
const MIX: [(Call, usize); 7] = [
    (Call::Read, 39),
    (Call::Bump, 16),
    (Call::Open, 10),
    (Call::Secret, 10),
    (Call::Boom, 10),
    (Call::Big, 14),
    (Call::Stall, 1),
];

impl Call {
    const ALL: [Call; 10] = [
        Call::Read,
        Call::Bump,
        Call::Open,
        Call::Secret,
        Call::Boom,
        Call::Stall,
        Call::Big,
        Call::Plugin,
        Call::PluginGone,
        Call::PluginMissing,
    ];

    fn pick(rng: &mut Rng) -> Call {
        let total: usize = MIX.iter().map(|(_, w)| w).sum();
        let mut roll = rng.below(total);
        for (call, weight) in MIX {
            if roll < weight {
                return call;
            }
            roll -= weight;
        }
        unreachable!("the roll is below the total weight")
    }

    fn expected(self) -> Kind {
        match self {
            Call::Read | Call::Bump | Call::Open | Call::Plugin => Kind::Success,
            Call::Secret => Kind::Denied,
            Call::Boom | Call::PluginGone | Call::PluginMissing => Kind::Error,
            Call::Stall => Kind::Timeout,
            Call::Big => Kind::Spilled,
        }
    }

    fn tool_call(self, n: u64) -> ToolCall {
        let (name, input) = match self {
            Call::Read => ("soak_read", json!({ "n": n })),
            Call::Bump => ("soak_bump", json!({ "n": n })),
            Call::Open => ("soak_guarded", json!({ "key": format!("open-{n}") })),
            Call::Secret => ("soak_guarded", json!({ "key": format!("secret-{n}") })),
            Call::Boom => ("soak_boom", json!({ "n": n })),
            Call::Stall => ("soak_stall", json!({ "n": n })),
            Call::Big => ("soak_big", json!({ "n": n })),
            Call::Plugin | Call::PluginGone | Call::PluginMissing => {
                ("soak_plugin", json!({ "n": n }))
            }
        };
        ToolCall::new(call_id(n), name, input)
    }
}

/// Call `n`'s id: letters and digits only, so it appears as written in
/// its spill file's name.
fn call_id(n: u64) -> String {
    format!("s{n}")
}

/// What a result turned out to be.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Success,
    Denied,
    Error,
    Timeout,
    Spilled,
}

impl Kind {
    const ALL: [Kind; 5] = [
        Kind::Success,
        Kind::Denied,
        Kind::Error,
        Kind::Timeout,
        Kind::Spilled,
    ];

    /// Read from the result alone, before comparing with the call.
    fn of(result: &ToolCallResult) -> Kind {
        let text = result.content();
        match (result.is_error(), result.spilled_to().is_some()) {
            (false, true) => Kind::Spilled,
            (false, false) => Kind::Success,
            (true, _) if text.starts_with("permission to run ") => Kind::Denied,
            (true, _) if text.contains(" timed out after ") => Kind::Timeout,
            (true, _) => Kind::Error,
        }
    }
}

/// A set of call numbers, allocated once for the whole soak, so the
/// soak's own bookkeeping does not grow while memory is watched.
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Self {
        Bits(vec![0; len.div_ceil(64)])
    }

    /// Sets bit `n`; `false` when it was already set.
    fn insert(&mut self, n: usize) -> bool {
        let (word, bit) = (n / 64, 1u64 << (n % 64));
        let fresh = self.0[word] & bit == 0;
        self.0[word] |= bit;
        fresh
    }

    fn contains(&self, n: usize) -> bool {
        self.0
            .get(n / 64)
            .is_some_and(|word| word & (1 << (n % 64)) != 0)
    }
}

/// Everything the soak counts.
struct Tally {
    results: usize,
    by_kind: [u64; Kind::ALL.len()],
    by_call: [u64; Call::ALL.len()],
    turns: u64,
    spilled: Bits,
    spill_count: u64,
}

/// The executor's settings and the objects every rebuilt executor shares,
/// as one conversation's runtime would keep them.
struct Setup {
    registry: ToolRegistry,
    permissions: PermissionContext,
    policy: PermissionPolicy,
    session: Arc<Session>,
    config: ExecutorConfig,
    spill_dir: PathBuf,
}

impl Setup {
    /// An executor over the plugins registered now.
    fn executor(&self) -> Executor {
        self.registry
            .executor()
            .permissions(self.permissions.clone())
            .policy(self.policy.clone())
            .session(Arc::clone(&self.session))
            .config(self.config.clone())
            .build()
    }
}

fn main() {
    let calls = match std::env::var("REGISTRY_SOAK_CALLS") {
        Ok(n) => n
            .trim()
            .replace('_', "")
            .parse()
            .expect("REGISTRY_SOAK_CALLS must be a number of calls"),
        Err(_) => DEFAULT_CALLS,
    };
    assert!(calls >= 1, "REGISTRY_SOAK_CALLS must be at least 1");
    quiet_planned_panics();
    // Two workers, as on the machine this runs on. Turns run on the
    // `block_on` thread itself, not spawned: the executor promises to spawn
    // nothing, so the alive-task count must stay exactly at its baseline,
    // with no join-handle race to allow for.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(soak(calls));
}

/// Keeps the thousands of planned panics off stderr; every other panic
/// (a failed check above all) still prints.
fn quiet_planned_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied());
        if message.is_some_and(|m| m.starts_with(PLANNED_PANIC)) {
            return;
        }
        default(info);
    }));
}

async fn soak(target: usize) {
    let started = Instant::now();
    let temp = tempfile::tempdir().expect("a temporary directory");
    // A directory the executor creates itself on the first spill.
    let spill_dir = temp.path().join("spill");
    let mut permissions = PermissionContext::new();
    permissions
        .add_rule(RuleSource::Project, RuleBehavior::Allow, "soak_bump")
        .expect("allow rule");
    permissions
        .add_rule(
            RuleSource::Project,
            RuleBehavior::Deny,
            "soak_guarded(secret:*)",
        )
        .expect("deny rule");
    let setup = Setup {
        registry: ToolRegistry::new(BaseTools::linked(&Flags::new()).expect("the tool list")),
        permissions,
        policy: PermissionPolicy::new(PermissionMode::Default),
        session: Arc::new(Session::new()),
        config: ExecutorConfig::new().timeout(TIMEOUT).spill_dir(&spill_dir),
        spill_dir,
    };
    let handle = tokio::runtime::Handle::current();
    let baseline_tasks = handle.metrics().num_alive_tasks();

    let mut rng = Rng(SEED);
    let mut tally = Tally {
        results: 0,
        by_kind: [0; Kind::ALL.len()],
        by_call: [0; Call::ALL.len()],
        turns: 0,
        spilled: Bits::new(target),
        spill_count: 0,
    };
    let warmup = target / 10;
    // Allocated once (see `Bits`): (calls done, VmRSS in KiB).
    let mut samples: Vec<(usize, u64)> = Vec::with_capacity(target / SAMPLE_EVERY + 4);
    let mut next_sample = SAMPLE_EVERY;
    let mut after_warmup: Option<u64> = None;
    let mut plugins = 0usize;
    let mut next_plugin = PLUGIN_EVERY;
    let mut executor = setup.executor();
    let mut done = 0usize;

    while done < target {
        let remaining = target - done;
        // A plugin turn needs room for the two calls after its plugin left.
        let plugin_turn = done >= next_plugin && remaining >= 3;
        let room = if plugin_turn {
            remaining - 2
        } else {
            remaining
        };
        let size = (1 + rng.below(16)).min(room);
        let plugin_at = plugin_turn.then(|| rng.below(size));
        let mut guard: Option<PluginGuard> = None;
        if plugin_turn {
            let owner = format!("soak-plugin-{plugins}");
            let registered = setup
                .registry
                .plugins()
                .register(owner, plugin_tool(plugins))
                .expect("the plugin registers");
            guard = Some(registered);
            // The executor indexes its pool once: rebuild it to see the
            // plugin, as a runtime does before the next request.
            executor = setup.executor();
        }
        let turn: Vec<(Call, u64)> = (0..size)
            .map(|i| {
                let call = if plugin_at == Some(i) {
                    Call::Plugin
                } else {
                    Call::pick(&mut rng)
                };
                (call, (done + i) as u64)
            })
            .collect();
        run_checked(&executor, &setup, &turn, plugins, &mut tally).await;
        done += size;
        check_tasks(&handle, baseline_tasks, &tally);

        if let Some(guard) = guard {
            assert!(
                guard.dispose(),
                "plugin {plugins}'s tool was already gone before its guard was disposed"
            );
            // The executor built while the plugin was here must refuse its
            // tool now, without running it...
            let turn = [(Call::PluginGone, done as u64)];
            run_checked(&executor, &setup, &turn, plugins, &mut tally).await;
            done += 1;
            check_tasks(&handle, baseline_tasks, &tally);
            // ...and one built after it left must not know the tool.
            executor = setup.executor();
            let turn = [(Call::PluginMissing, done as u64)];
            run_checked(&executor, &setup, &turn, plugins, &mut tally).await;
            done += 1;
            check_tasks(&handle, baseline_tasks, &tally);
            plugins += 1;
            next_plugin = done + PLUGIN_EVERY;
        }

        let warmed = after_warmup.is_none() && done >= warmup;
        if done >= next_sample || warmed || done == target {
            let rss = rss_kib();
            samples.push((done, rss));
            if warmed {
                after_warmup = Some(rss);
            }
            while next_sample <= done {
                next_sample += SAMPLE_EVERY;
            }
            let children = children_after_kills();
            assert_eq!(
                children, 0,
                "{children} child process(es) alive after {done} calls: a stopped call's child outlived its turn"
            );
        }
    }

    // The end of the run, before the final checks allocate anything.
    let (_, rss_end) = *samples.last().expect("the last turn took a sample");
    let rss_warm = after_warmup.expect("the warm-up ended");
    let rss_max = samples
        .iter()
        .filter(|(at, _)| *at >= warmup)
        .map(|(_, rss)| *rss)
        .max()
        .unwrap_or(rss_end);
    let growth = rss_end as i64 - rss_warm as i64;
    let wall = started.elapsed();

    assert_eq!(
        tally.results, target,
        "{} results for {target} calls",
        tally.results
    );
    check_bodies(&tally);
    check_metrics(&setup.session, &tally);
    let files = check_spill_dir(&setup.spill_dir, &tally);
    let tasks = handle.metrics().num_alive_tasks();
    assert_eq!(
        tasks, baseline_tasks,
        "{tasks} tokio tasks alive at the end, {baseline_tasks} before the soak"
    );
    let children = children_after_kills();
    assert_eq!(children, 0, "{children} child process(es) alive at the end");

    println!(
        "soak: {target} calls in {} turns (seed {SEED:#x})",
        tally.turns
    );
    print!("results:");
    for kind in Kind::ALL {
        print!(" {kind:?} {}", tally.by_kind[kind as usize]);
    }
    println!();
    print!("calls:");
    for call in Call::ALL {
        print!(" {call:?} {}", tally.by_call[call as usize]);
    }
    println!();
    println!("plugins: {plugins} registered, called and removed");
    println!(
        "rss (KiB): start {}, after warm-up ({warmup} calls) {rss_warm}, max after warm-up {rss_max}, end {rss_end}, growth {growth:+} (limit {MAX_GROWTH_KIB}); {} samples",
        samples.first().map_or(0, |s| s.1),
        samples.len()
    );
    println!("tokio tasks alive: {tasks} (baseline {baseline_tasks})");
    println!(
        "spill files: {files} for {} spilled results",
        tally.spill_count
    );
    println!("child processes: {children}");
    println!("wall time: {:.1} s (informational)", wall.as_secs_f64());

    // Last, so the report above is printed even when memory grew.
    assert!(
        growth < MAX_GROWTH_KIB as i64,
        "resident memory grew by {growth} KiB (from {rss_warm} KiB after the warm-up to {rss_end} KiB at the end), limit {MAX_GROWTH_KIB} KiB; samples (calls, KiB): {samples:?}"
    );
    drop(temp);
}

/// Runs one turn and checks every result against its call.
async fn run_checked(
    executor: &Executor,
    setup: &Setup,
    turn: &[(Call, u64)],
    plugin: usize,
    tally: &mut Tally,
) {
    let calls: Vec<ToolCall> = turn.iter().map(|&(call, n)| call.tool_call(n)).collect();
    let results = executor.run_turn(calls).await;
    let t = tally.turns;
    tally.turns += 1;
    assert_eq!(
        results.len(),
        turn.len(),
        "turn {t}: {} results for {} calls {turn:?}",
        results.len(),
        turn.len()
    );
    for (i, (&(call, n), result)) in turn.iter().zip(&results).enumerate() {
        let id = call_id(n);
        let at = || format!("turn {t}, call #{i} ({call:?}, id {id})");
        assert_eq!(result.id(), id, "{}: result out of order or lost", at());
        let kind = Kind::of(result);
        assert_eq!(
            kind,
            call.expected(),
            "{}: wrong kind of result: {:?}",
            at(),
            result.content()
        );
        let text = result.content();
        let ok = match call {
            Call::Read => text == format!("read {n}"),
            Call::Bump => text == format!("bumped {n}"),
            Call::Open => text == format!("opened open-{n}"),
            Call::Plugin => text == format!("plugin {plugin} echo {n}"),
            Call::Secret => text.starts_with(
                "permission to run `soak_guarded` was denied: this call of `soak_guarded` (`secret-",
            ),
            Call::Boom => {
                text.starts_with("tool `soak_boom` failed: ")
                    && text.contains(&format!("{PLANNED_PANIC} {n}"))
            }
            Call::Stall => {
                text == format!(
                    "tool `soak_stall` timed out after {} ms and was stopped",
                    TIMEOUT.as_millis()
                )
            }
            Call::PluginGone => text.contains(&format!(
                "no longer available: its plugin `soak-plugin-{plugin}` was removed"
            )),
            Call::PluginMissing => text == "no such tool: `soak_plugin`",
            Call::Big => {
                check_spill(result, &setup.spill_dir, n, &at);
                let index = usize::try_from(n).expect("a call number");
                assert!(tally.spilled.insert(index), "{}: spilled twice", at());
                tally.spill_count += 1;
                true
            }
        };
        assert!(ok, "{}: unexpected text: {text:?}", at());
        if call != Call::Big {
            assert!(
                result.spilled_to().is_none() && result.binary_spills().is_empty(),
                "{}: a result that fits was spilled",
                at()
            );
        }
        tally.by_kind[kind as usize] += 1;
        tally.by_call[call as usize] += 1;
        tally.results += 1;
    }
}

/// A spilled result names its file, which is in the spill directory, is
/// named after the call, and holds the whole output.
fn check_spill(result: &ToolCallResult, dir: &Path, n: u64, at: &dyn Fn() -> String) {
    let path = result.spilled_to().expect("a spilled result");
    assert_eq!(
        path.parent(),
        Some(dir),
        "{}: spilled outside the dir",
        at()
    );
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .expect("a spill file name");
    assert_eq!(
        spill_call(name),
        Some(n),
        "{}: spill file {name} is not named after its call",
        at()
    );
    let shown = path.display().to_string();
    assert!(
        result.content().contains(&shown),
        "{}: the result does not name its spill file {shown}: {:?}",
        at(),
        result.content()
    );
    let saved = std::fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("{}: spill file {shown}: {err}", at()));
    assert!(
        saved == big_text(n),
        "{}: spill file {shown} holds the wrong text",
        at()
    );
}

/// The call number in a spill file's name,
/// `call-{index}-s{n}-{hash}-{process}-{seq}.txt`.
fn spill_call(name: &str) -> Option<u64> {
    let rest = name.strip_prefix("call-")?;
    let (_index, rest) = rest.split_once('-')?;
    let (id, _) = rest.split_once('-')?;
    id.strip_prefix('s')?.parse().ok()
}

/// Every file in the spill directory belongs to a spilled result, one file
/// per result; returns how many there are.
fn check_spill_dir(dir: &Path, tally: &Tally) -> u64 {
    let mut seen = Bits::new(tally.spilled.0.len() * 64);
    let mut files = 0;
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        // No spill at all (a very short run): no directory either.
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            assert_eq!(tally.spill_count, 0, "spilled results but no spill dir");
            return 0;
        }
        Err(err) => panic!("reading the spill dir {}: {err}", dir.display()),
    };
    for entry in entries {
        let entry = entry.expect("a spill dir entry");
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let n = spill_call(&name)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or_else(|| panic!("spill dir holds {name}, which no call's result names"));
        assert!(
            tally.spilled.contains(n),
            "spill file {name} belongs to call {n}, whose result was not spilled"
        );
        assert!(
            seen.insert(n),
            "call {n} has two spill files (one is {name})"
        );
        files += 1;
    }
    assert_eq!(
        files, tally.spill_count,
        "{files} spill files for {} spilled results",
        tally.spill_count
    );
    files
}

/// Each body ran exactly as often as calls that should reach it.
fn check_bodies(tally: &Tally) {
    let calls = |call: Call| tally.by_call[call as usize];
    let expect = [
        ("soak_read", Body::Read, calls(Call::Read)),
        ("soak_bump", Body::Bump, calls(Call::Bump)),
        // Denied calls never reach the body.
        ("soak_guarded", Body::Guarded, calls(Call::Open)),
        ("soak_boom", Body::Boom, calls(Call::Boom)),
        ("soak_stall", Body::Stall, calls(Call::Stall)),
        ("soak_big", Body::Big, calls(Call::Big)),
        // Nor do calls of a plugin that left.
        ("soak_plugin", Body::Plugin, calls(Call::Plugin)),
    ];
    for (tool, body, calls) in expect {
        assert_eq!(
            body.runs(),
            calls,
            "`{tool}`'s body ran {} times for {calls} calls that should reach it",
            body.runs()
        );
    }
}

/// The session's per-tool metrics agree with what the soak saw.
fn check_metrics(session: &Session, tally: &Tally) {
    let metrics = session.metrics();
    let calls = |call: Call| tally.by_call[call as usize];
    let of = |tool: &str| {
        metrics
            .get(tool)
            .copied()
            .unwrap_or_else(|| panic!("no session metrics for `{tool}`"))
    };
    let guarded = of("soak_guarded");
    assert_eq!(
        guarded.denied,
        calls(Call::Secret),
        "denied calls: {guarded:?}"
    );
    let stall = of("soak_stall");
    assert_eq!(stall.timeouts, calls(Call::Stall), "timeouts: {stall:?}");
    let big = of("soak_big");
    assert_eq!(big.spilled, calls(Call::Big), "spills: {big:?}");
    let boom = of("soak_boom");
    assert_eq!(boom.errors, calls(Call::Boom), "panics: {boom:?}");
    let bump = of("soak_bump");
    assert_eq!(
        (bump.calls, bump.errors),
        (calls(Call::Bump), 0),
        "{bump:?}"
    );
}

/// No task the turn started is still alive. `num_alive_tasks` is a stable
/// runtime metric since tokio 1.39 (the lock file has 1.54); it counts
/// spawned tasks only, so the `block_on` future running the soak is not in
/// it and the baseline is whatever was alive before the first turn.
fn check_tasks(handle: &tokio::runtime::Handle, baseline: usize, tally: &Tally) {
    let alive = handle.metrics().num_alive_tasks();
    assert_eq!(
        alive,
        baseline,
        "after turn {}: {alive} tokio tasks alive, {baseline} before the soak",
        tally.turns - 1
    );
}

/// This process's resident memory, in KiB (`VmRSS` in `/proc/self/status`).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status (Linux)");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line in /proc/self/status")
}

/// How many processes have this one as their parent: every
/// `/proc/<pid>/stat` whose fourth field (after the parenthesised command
/// name, which may itself hold spaces and parentheses) is our pid.
/// Live children, once any just killed have had time to die: a `SIGKILL`
/// is sent when a stopped call is dropped, but the child dies when the
/// kernel next schedules it, which on a loaded machine can take a moment.
/// A child that was never killed runs for an hour, so a second's grace
/// cannot hide one.
fn children_after_kills() -> usize {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let alive = children();
        if alive == 0 || Instant::now() >= deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn children() -> usize {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        panic!("/proc is not readable (the soak needs Linux)");
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter(|stat| {
            let after_name = stat.rfind(')').map_or("", |end| &stat[end + 1..]);
            // State, then parent pid. A zombie (`Z`) is dead, only not
            // yet reaped (tokio reaps killed children in the background).
            let mut fields = after_name.split_whitespace();
            let state = fields.next();
            state != Some("Z") && fields.next().and_then(|ppid| ppid.parse().ok()) == Some(me)
        })
        .count()
}
