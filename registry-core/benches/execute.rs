//! The executor against the floor.
//!
//! `cargo bench -p registry-core --bench execute`
//!
//! - `trivial`: one trivial call through the whole executor, against the
//!   floor (deserialize the same JSON into the input type and call the
//!   same function directly) and against `prepare` + `run`. All three run
//!   inside the same current-thread `block_on`, so its cost is shared.
//!   `executor_one_hook` is the executor's call with one hook that says
//!   nothing: the cost of a hook.
//! - `sleeps`: ten calls that each sleep 20 ms, concurrency-safe (one
//!   batch: about 20 ms of wall time) and unsafe (ten batches: about
//!   200 ms).
//! - `mixed`: turns of 10, 100 and 1,000 mixed safe and unsafe calls; the
//!   time per call should not grow with the turn.
//!
//! Under `cargo test --benches` divan runs every benchmark once.
//!
//! Each timed body is one `#[inline(never)]` function (`floor_once`,
//! `prepare_run_once`, `executor_once`, `turn_once`), so instruction
//! counts are read per call from callgrind's inclusive cost of that
//! function, free of divan's own loop and of building the inputs:
//!
//! ```text
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!     target/release/deps/execute-* trivial --sample-count 10 --sample-size 100
//! callgrind_annotate --inclusive=yes /tmp/cg.out | grep _once
//! ```

use std::sync::Arc;
use std::time::Duration;

use divan::Bencher;
use divan::counter::ItemsCount;
use registry_core::{
    Executor, PermissionContext, Tool, ToolCall, ToolContext, ToolHandle, ToolRegistry,
    catalog::BaseTools, tool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

fn main() {
    divan::main();
}

#[derive(Deserialize, JsonSchema)]
struct EchoInput {
    /// Path relative to the workspace.
    path: String,
    /// First line, 1-based.
    offset: Option<u32>,
}

/// Echo the path.
#[tool(name = "echo", concurrency_safe = true, read_only = true)]
struct Echo;

impl Tool for Echo {
    type Input = EchoInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EchoInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(match input.offset {
            Some(offset) => format!("{}:{offset}", input.path),
            None => input.path,
        })
    }
}

#[derive(Deserialize, JsonSchema)]
struct SleepInput {
    /// Milliseconds.
    ms: u64,
    /// Whether the call may share a batch.
    safe: bool,
}

/// Sleep.
#[tool(name = "sleep", concurrency_safe = |i: &SleepInput| i.safe, read_only = true)]
struct Sleep;

impl Tool for Sleep {
    type Input = SleepInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: SleepInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        if input.ms > 0 {
            tokio::time::sleep(Duration::from_millis(input.ms)).await;
        }
        Ok(String::new())
    }
}

fn executor() -> Executor {
    let base = BaseTools::__from_handles(vec![ToolHandle::new(Echo), ToolHandle::new(Sleep)])
        .expect("bench tools");
    let registry = Arc::new(ToolRegistry::new(base));
    let cx = PermissionContext::new();
    let _pool = registry.assemble_tool_pool(&cx);
    registry.executor().permissions(cx).build()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime")
}

fn args() -> Value {
    json!({ "path": "src/lib.rs", "offset": 3 })
}

/// The floor: serde straight into the input type, then the body.
#[inline(never)]
fn floor_once(rt: &tokio::runtime::Runtime, cx: &ToolContext, args: Value) -> String {
    rt.block_on(async {
        let input: EchoInput = serde_json::from_value(args).unwrap();
        Echo.call(input, cx).await.unwrap()
    })
}

/// `prepare` + `run`: the handle's own path, no executor.
#[inline(never)]
fn prepare_run_once(
    rt: &tokio::runtime::Runtime,
    cx: &ToolContext,
    echo: &ToolHandle,
    args: Value,
) -> String {
    rt.block_on(async {
        let call = echo.prepare(args).unwrap();
        call.run(cx).await.unwrap().into_string()
    })
}

/// One whole turn through the executor.
#[inline(never)]
fn turn_once(
    rt: &tokio::runtime::Runtime,
    exec: &Executor,
    calls: Vec<ToolCall>,
) -> Vec<registry_core::ToolCallResult> {
    rt.block_on(exec.run_turn(calls))
}

/// One trivial call through the executor (a turn of one call).
#[inline(never)]
fn executor_once(
    rt: &tokio::runtime::Runtime,
    exec: &Executor,
    calls: Vec<ToolCall>,
) -> Vec<registry_core::ToolCallResult> {
    turn_once(rt, exec, calls)
}

mod trivial {
    //! Each variant gets its input built outside the timed part (the JSON
    //! arguments; for the executor, the `ToolCall` a provider response
    //! would already have been parsed into), so the three time the same
    //! thing: from parsed JSON to the tool's text.

    use super::*;

    #[divan::bench]
    fn floor(bencher: Bencher) {
        let rt = runtime();
        let cx = ToolContext::new();
        bencher
            .with_inputs(args)
            .bench_local_values(|args| floor_once(&rt, &cx, args));
    }

    #[divan::bench]
    fn prepare_run(bencher: Bencher) {
        let rt = runtime();
        let cx = ToolContext::new();
        let echo = ToolHandle::new(Echo);
        bencher
            .with_inputs(args)
            .bench_local_values(|args| prepare_run_once(&rt, &cx, &echo, args));
    }

    #[divan::bench]
    fn executor(bencher: Bencher) {
        let rt = runtime();
        let exec = super::executor();
        bencher
            .with_inputs(|| vec![ToolCall::new("toolu_1", "echo", args())])
            .bench_local_values(|calls| executor_once(&rt, &exec, calls));
    }

    /// The same call with one hook that says nothing before or after:
    /// what a hook costs on the hot path (its two boxed answers, the
    /// input kept for the after side, the timeouts around them).
    #[divan::bench]
    fn executor_one_hook(bencher: Bencher) {
        struct Quiet;
        impl registry_core::execute::CallHook for Quiet {
            fn name(&self) -> &str {
                "quiet"
            }
        }
        let rt = runtime();
        let base = BaseTools::__from_handles(vec![ToolHandle::new(Echo)]).expect("bench tools");
        let exec = ToolRegistry::new(base).executor().hook(Quiet).build();
        bencher
            .with_inputs(|| vec![ToolCall::new("toolu_1", "echo", args())])
            .bench_local_values(|calls| executor_once(&rt, &exec, calls));
    }
}

mod walked {
    //! A tool whose schema needs both walks (a list of structs, an
    //! optional field that refuses `null`, sent as `null`): what `prepare`
    //! costs when the argument plan cannot skip anything.

    use super::*;

    #[derive(Deserialize, JsonSchema)]
    pub(super) struct Edit {
        old: String,
        new: String,
    }

    #[derive(Deserialize, JsonSchema)]
    pub(super) struct EditInput {
        path: String,
        edits: Vec<Edit>,
        #[serde(default)]
        dry_run: bool,
    }

    /// Apply edits.
    #[tool(name = "edit")]
    pub(super) struct EditTool;

    impl Tool for EditTool {
        type Input = EditInput;
        type Output = String;
        type Error = std::convert::Infallible;

        async fn call(&self, input: EditInput, _cx: &ToolContext) -> Result<String, Self::Error> {
            let changed: usize = input.edits.iter().map(|e| e.old.len() + e.new.len()).sum();
            Ok(format!("{} {changed} {}", input.path, input.dry_run))
        }
    }

    fn edit_args() -> Value {
        json!({
            "path": "src/lib.rs",
            "edits": [{ "old": "a", "new": "b" }, { "old": "c", "new": "d" }],
            "dry_run": null
        })
    }

    #[divan::bench]
    fn prepare(bencher: Bencher) {
        let edit = ToolHandle::new(EditTool);
        bencher
            .with_inputs(edit_args)
            .bench_local_values(|args| super::prepare_once(&edit, args));
    }
}

/// `prepare` alone, for the `walked` bench.
#[inline(never)]
fn prepare_once(tool: &ToolHandle, args: Value) -> registry_core::input::PreparedCall {
    tool.prepare(args).unwrap()
}

mod sleeps {
    use super::*;

    fn ten(safe: bool) -> Vec<ToolCall> {
        (0..10)
            .map(|k| ToolCall::new(format!("c{k}"), "sleep", json!({ "ms": 20, "safe": safe })))
            .collect()
    }

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn ten_safe_20ms(bencher: Bencher) {
        let rt = runtime();
        let exec = super::executor();
        bencher.bench_local(|| turn_once(&rt, &exec, ten(true)));
    }

    #[divan::bench(sample_count = 3, sample_size = 1)]
    fn ten_unsafe_20ms(bencher: Bencher) {
        let rt = runtime();
        let exec = super::executor();
        bencher.bench_local(|| turn_once(&rt, &exec, ten(false)));
    }
}

mod mixed {
    use super::*;

    /// Runs of three safe calls, then one unsafe: a plan of many batches.
    fn turn(n: usize) -> Vec<ToolCall> {
        (0..n)
            .map(|k| {
                if k % 4 == 3 {
                    ToolCall::new(format!("c{k}"), "sleep", json!({ "ms": 0, "safe": false }))
                } else {
                    ToolCall::new(format!("c{k}"), "echo", json!({ "path": "a.rs" }))
                }
            })
            .collect()
    }

    #[divan::bench(args = [10, 100, 1_000])]
    fn per_call(bencher: Bencher, n: usize) {
        let rt = runtime();
        let exec = super::executor();
        bencher
            .counter(ItemsCount::new(n))
            .with_inputs(|| turn(n))
            .bench_local_values(|calls| turn_once(&rt, &exec, calls));
    }
}
