//! The enforcement oracle: every attack of `enforcement/cases.rs` run for
//! real through the executor and the real `run_command`, under dash and
//! bash, in every permission mode, with the guards on; its effect on disk
//! (or in its output) is the verdict, never its text.
//!
//! - With the guards off (the same executor, [`GuardsOff`] in the
//!   context, no rule, `bypass`), each case must do its damage under every
//!   shell its table says: so the oracle can fail.
//! - With the guards on, in every mode (asking modes answered "yes" by an
//!   approver: the worst case, a person who approves everything), the
//!   victim survives every case of the deny-`rm`, own-file and
//!   destroy-without-`rm` tables, and no case of the read table prints the
//!   secret. The hidden-from-allowed table runs without an approver in
//!   every mode but `bypass`, where nothing but deny rules stops a
//!   program and this table has none.
//! - A connection to a loopback listener outside the allow list never
//!   arrives, from any of several clients.
//!
//! Runs only where [`registry_sandbox::probe`] reports every guard (CI
//! sets `REGISTRY_SANDBOX_REQUIRED`, which turns a missing guard into a
//! failure).

#[path = "enforcement/cases.rs"]
mod cases;

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::sync::Arc;

use cases::{Case, Shells};
use registry_core::permission::RuleOfTwo;
use registry_core::permission::{
    Approval, ApprovalRequest, Approver, JudgeFuture, RuleBehavior, RuleSource,
};
use registry_core::{
    Flags, PermissionContext, PermissionMode, ToolCall, ToolContext, ToolRegistry,
    catalog::BaseTools,
};
use registry_examples::Sandbox;
use registry_examples::tools::run_command::Shell;
use registry_sandbox::{GuardsOff, NetworkAllow};
use serde_json::json;
use tokio::sync::Semaphore;

const SECRET: &str = "TOPSECRET-4711";

/// A person who approves everything.
struct Yes;

impl Approver for Yes {
    fn approve<'a>(&'a self, _: &'a ApprovalRequest) -> JudgeFuture<'a, Approval> {
        Box::pin(async { Approval::AllowOnce })
    }
}

fn guarded() -> bool {
    let machine = registry_sandbox::probe();
    let all = machine.exec_guard.is_ok() && machine.path_rules_hold() && machine.network.is_ok();
    if !all {
        assert!(
            std::env::var_os("REGISTRY_SANDBOX_REQUIRED").is_none(),
            "REGISTRY_SANDBOX_REQUIRED is set but this machine lacks a guard:\n{machine}"
        );
        eprintln!("SKIPPED: this machine lacks a guard:\n{machine}");
    }
    all
}

fn registry() -> Arc<ToolRegistry> {
    Arc::new(ToolRegistry::new(
        BaseTools::linked(&Flags::new()).expect("catalog"),
    ))
}

fn rules(lines: &[(RuleBehavior, &str)]) -> PermissionContext {
    let mut cx = PermissionContext::new();
    for (behavior, rule) in lines {
        cx.add_rule(RuleSource::Project, *behavior, rule)
            .expect("rule");
    }
    cx
}

fn shells(which: Shells) -> &'static [Shell] {
    match which {
        Shells::Sh => &[Shell::Sh],
        Shells::Bash => &[Shell::Bash],
        Shells::Both => &[Shell::Sh, Shell::Bash],
    }
}

/// How one run is set up.
#[derive(Clone)]
struct Setup {
    rules: PermissionContext,
    mode: PermissionMode,
    approver: bool,
    guards: bool,
    network: Vec<NetworkAllow>,
}

/// What one run left behind.
struct Effect {
    victim: Option<String>,
    text: String,
}

/// Runs `case` as one `run_command` call in a fresh directory.
async fn run(registry: Arc<ToolRegistry>, setup: Setup, shell: Shell, case: Case) -> Effect {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::write(root.join("victim.txt"), "precious\n").expect("victim");
    std::fs::write(root.join("secret.txt"), format!("{SECRET}\n")).expect("secret");
    if !case.setup.is_empty() {
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(case.setup)
            .current_dir(root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("setup");
        assert!(status.success(), "setup of {:?} failed", case.command);
    }
    let mut context: ToolContext = Sandbox::new(root).expect("sandbox").context().with(shell);
    if !setup.guards {
        context = context.with(GuardsOff);
    }
    if !setup.network.is_empty() {
        context = context.with(setup.network.clone());
    }
    let mut builder = registry
        .executor()
        .permissions(setup.rules.clone())
        .mode(setup.mode)
        // A runtime that runs a shell in bypass mode names it unattended.
        .rule_of_two(RuleOfTwo::new().allow_unattended("run_command"))
        .context(context);
    if setup.approver {
        builder = builder.approver(Arc::new(Yes));
    }
    let executor = builder.build();
    let call = ToolCall::new(
        "call-1",
        "run_command",
        json!({ "command": case.command, "timeout_secs": 10 }),
    );
    let results = executor.run_turn(vec![call]).await;
    Effect {
        victim: std::fs::read_to_string(root.join("victim.txt")).ok(),
        text: results[0].content().to_owned(),
    }
}

/// What a table's damage is.
#[derive(Clone, Copy)]
enum Damage {
    /// `victim.txt` gone or changed.
    Victim,
    /// The secret in the call's result.
    Secret,
}

impl Damage {
    fn done(self, effect: &Effect) -> bool {
        match self {
            Damage::Victim => effect.victim.as_deref() != Some("precious\n"),
            Damage::Secret => effect.text.contains(SECRET),
        }
    }
}

/// Runs a table: the unguarded baseline, then every mode guarded.
fn oracle(
    table: &'static [Case],
    rule_lines: &[(RuleBehavior, &str)],
    modes: &[PermissionMode],
    approver: bool,
    damage: Damage,
) {
    if !guarded() {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let registry = registry();
    let guarded_rules = rules(rule_lines);
    let mut runs = Vec::new();
    for case in table {
        for &shell in shells(case.shells) {
            runs.push((
                case,
                shell,
                None,
                Setup {
                    rules: PermissionContext::new(),
                    mode: PermissionMode::Bypass,
                    approver: false,
                    guards: false,
                    network: Vec::new(),
                },
            ));
            for &mode in modes {
                runs.push((
                    case,
                    shell,
                    Some(mode),
                    Setup {
                        rules: guarded_rules.clone(),
                        mode,
                        approver,
                        guards: true,
                        network: Vec::new(),
                    },
                ));
            }
        }
    }
    // A few at a time: each run is a process tree of its own.
    let limit = Arc::new(Semaphore::new(4));
    let outcomes = runtime.block_on(async {
        let mut tasks = Vec::new();
        for (case, shell, mode, setup) in runs {
            let (registry, limit) = (Arc::clone(&registry), Arc::clone(&limit));
            tasks.push(tokio::spawn(async move {
                let _permit = limit.acquire().await.expect("semaphore");
                let effect = run(registry, setup, shell, *case).await;
                (case, shell, mode, effect)
            }));
        }
        let mut outcomes = Vec::new();
        for task in tasks {
            outcomes.push(task.await.expect("run"));
        }
        outcomes
    });
    let mut failures = Vec::new();
    let mut classes: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    // How each guarded run ended: refused before it ran (the reading),
    // stopped by the exec guard, or ran with the filesystem and network
    // guards holding.
    let mut endings: BTreeMap<&str, usize> = BTreeMap::new();
    for (case, shell, mode, effect) in &outcomes {
        let entry = classes.entry(case.class).or_default();
        match mode {
            None => {
                entry.0 += 1;
                if !damage.done(effect) {
                    failures.push(format!(
                        "[{}] {:?} did no damage unguarded under {shell:?}: not a test\n  {}",
                        case.class,
                        case.command,
                        excerpt(&effect.text)
                    ));
                }
            }
            Some(mode) => {
                entry.1 += 1;
                let ending = if effect.text.contains("was stopped when it started") {
                    "stopped by the exec guard"
                } else if effect.text.starts_with("permission to run") {
                    "refused before running"
                } else {
                    "ran under the guards"
                };
                *endings.entry(ending).or_default() += 1;
                if damage.done(effect) {
                    failures.push(format!(
                        "[{}] {:?} did its damage in {mode} under {shell:?}\n  {}",
                        case.class,
                        case.command,
                        excerpt(&effect.text)
                    ));
                }
            }
        }
    }
    eprintln!(
        "enforcement oracle: {} cases; (unguarded runs, guarded runs) per class: {classes:?}; guarded runs: {endings:?}",
        table.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn excerpt(text: &str) -> String {
    text.chars()
        .take(400)
        .collect::<String>()
        .replace('\n', "\n  ")
}

const ASKED: [PermissionMode; 6] = PermissionMode::ALL;

#[test]
fn a_denied_program_never_starts() {
    oracle(
        cases::DENY_RM,
        &[(RuleBehavior::Deny, "run_command(rm:*)")],
        &ASKED,
        true,
        Damage::Victim,
    );
}

#[test]
fn a_file_the_command_writes_runs_under_the_same_rules() {
    oracle(
        cases::OWN_FILE,
        &[(RuleBehavior::Deny, "run_command(rm:*)")],
        &ASKED,
        true,
        Damage::Victim,
    );
}

#[test]
fn an_allow_rule_never_runs_a_hidden_program() {
    oracle(
        cases::HIDDEN_FROM_ALLOWED,
        &[(RuleBehavior::Allow, "run_command(ls:*)")],
        &[
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::Plan,
            PermissionMode::DontAsk,
            PermissionMode::Auto,
        ],
        false,
        Damage::Victim,
    );
}

#[test]
fn a_path_rule_holds_for_every_program() {
    oracle(
        cases::DESTROY_WITHOUT_RM,
        &[
            (RuleBehavior::Deny, "edit_file(victim.txt)"),
            (RuleBehavior::Deny, "write_file(victim.txt)"),
        ],
        &ASKED,
        true,
        Damage::Victim,
    );
}

#[test]
fn a_denied_read_returns_nothing_of_the_file() {
    oracle(
        cases::READ_DENIED,
        &[(RuleBehavior::Deny, "read_file(secret.txt)")],
        &ASKED,
        true,
        Damage::Secret,
    );
}

/// Clients that connect to `127.0.0.1:PORT`, each printing `connected`
/// when it did.
const CLIENTS: &[&str] = &[
    "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", PORT), 2); print(\"connected\")'",
    "bash -c 'exec 3<>/dev/tcp/127.0.0.1/PORT && echo connected'",
    "perl -MIO::Socket::INET -e 'IO::Socket::INET->new(PeerAddr => \"127.0.0.1:PORT\", Timeout => 2) and print \"connected\\n\"'",
    "node -e 'require(\"net\").connect(PORT, \"127.0.0.1\").on(\"connect\", () => { console.log(\"connected\"); process.exit(0) }).on(\"error\", () => process.exit(1))'",
    // curl's exit code 7 is "could not connect"; 28, a timeout after
    // connecting (the listener never answers).
    "curl -s -m 2 http://127.0.0.1:PORT/; [ $? -eq 28 ] && echo connected",
    "python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.settimeout(2); s.connect((\"::ffff:127.0.0.1\", PORT)); print(\"connected\")'",
];

#[test]
fn a_connection_outside_the_allow_list_never_arrives() {
    if !guarded() {
        return;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let registry = registry();
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let allowed = TcpListener::bind("127.0.0.1:0").expect("allowed listener");
    let allowed_port = allowed.local_addr().expect("addr").port();
    let mut failures = Vec::new();
    for client in CLIENTS {
        let command: &'static str =
            Box::leak(client.replace("PORT", &port.to_string()).into_boxed_str());
        let case = Case {
            class: "network",
            command,
            setup: "",
            shells: Shells::Sh,
        };
        let bypass = |guards: bool, network: Vec<NetworkAllow>| Setup {
            rules: PermissionContext::new(),
            mode: PermissionMode::Bypass,
            approver: false,
            guards,
            network,
        };
        // Unguarded, the client reaches the listener.
        let effect = runtime.block_on(run(
            Arc::clone(&registry),
            bypass(false, Vec::new()),
            Shell::Sh,
            case,
        ));
        let arrived = std::iter::from_fn(|| listener.accept().ok()).count();
        if !effect.text.contains("connected") || arrived == 0 {
            failures.push(format!(
                "{command:?} did not connect unguarded: {}",
                excerpt(&effect.text)
            ));
        }
        // Guarded: the network off, and an allow list naming another port.
        for network in [
            Vec::new(),
            vec![NetworkAllow::new("127.0.0.1", allowed_port)],
        ] {
            let listed = !network.is_empty();
            let effect = runtime.block_on(run(
                Arc::clone(&registry),
                bypass(true, network),
                Shell::Sh,
                case,
            ));
            let arrived = std::iter::from_fn(|| listener.accept().ok()).count();
            if arrived > 0 || effect.text.contains("\nconnected") {
                failures.push(format!(
                    "{command:?} connected with the guards on (allow list: {listed}): {}",
                    excerpt(&effect.text)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
