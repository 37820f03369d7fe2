//! Interoperability with MCP peers nobody here wrote, from npm (pinned in
//! `.ci/run`): the official TypeScript SDK as a client of `mcp_server`
//! over stdio and streamable HTTP (`scripts/mcp_ts_client.mjs` holds the
//! checks), and `@modelcontextprotocol/server-everything` imported through
//! `McpImport`: its tools, its tool that needs the Tasks extension
//! (called to completion, cancelled, timed out), its progress, structured content, resource links, images,
//! annotations, and the `list_changed` it sends right after `initialize`.
//!
//! The packages are found in `$REGISTRY_MCP_NODE_MODULES`, else in the
//! `target/node-mcp/node_modules` that `.ci/run` fills. Without them the
//! tests are skipped with a loud message, so `cargo test` on a fresh
//! machine passes; `.ci/run` sets `REGISTRY_MCP_NODE_REQUIRED=1` whenever
//! Node.js exists, and then missing packages fail instead.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use registry_core::mcp::{McpImport, McpServerConfig, StderrTo};
use registry_core::permission::RuleOfTwo;
use registry_core::{
    Executor, PermissionContext, PermissionMode, ToolCall, ToolCallResult, ToolRegistry,
    catalog::BaseTools, execute::ExecEvent, session::Session,
};
use serde_json::{Value, json};

fn node_modules() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("REGISTRY_MCP_NODE_MODULES").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/node-mcp/node_modules")),
    ];
    candidates.into_iter().flatten().find(|dir| {
        dir.join("@modelcontextprotocol/sdk").is_dir()
            && dir.join("@modelcontextprotocol/server-everything").is_dir()
    })
}

/// The node_modules to use, or `None` after saying loudly why not.
pub(crate) fn packages(test: &str) -> Option<PathBuf> {
    let required = std::env::var_os("REGISTRY_MCP_NODE_REQUIRED").is_some_and(|v| v == "1");
    let found = node_modules();
    if found.is_none() {
        assert!(
            !required,
            "REGISTRY_MCP_NODE_REQUIRED=1 but no node_modules with the MCP packages: set REGISTRY_MCP_NODE_MODULES or run .ci/run"
        );
        use std::io::Write;
        let _ = std::io::stderr().write_all(
            format!(
                "\n!!! SKIPPED: {test}: no node_modules with @modelcontextprotocol/sdk and server-everything.\n\
                 !!! Run .ci/run (it installs them pinned into target/node-mcp),\n\
                 !!! or set REGISTRY_MCP_NODE_MODULES.\n\n"
            )
            .as_bytes(),
        );
    }
    found
}

#[test]
fn the_official_typescript_sdk_lists_and_calls_our_server() {
    let Some(modules) = packages("MCP TypeScript interop") else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/mcp_ts_client.mjs");
    let workspace = tempfile::tempdir().unwrap();
    let output = Command::new("node")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_mcp_server"))
        .arg(workspace.path())
        .env("REGISTRY_MCP_NODE_MODULES", &modules)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the TypeScript client failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    let summary: Value = serde_json::from_str(stdout.trim().lines().last().unwrap_or(""))
        .unwrap_or_else(|err| panic!("no summary line ({err}):\n{stdout}"));
    for transport in ["stdio", "http"] {
        assert!(summary[transport]["pages"].as_u64() >= Some(2), "{summary}");
    }
}

struct Everything {
    import: McpImport,
    registry: Arc<ToolRegistry>,
    executor: Executor,
}

async fn everything(
    modules: &Path,
    configure: impl FnOnce(McpServerConfig) -> McpServerConfig,
) -> Everything {
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(Vec::new()).unwrap(),
    ));
    let entry = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    let config = McpServerConfig::command(
        "everything",
        "node",
        [entry.display().to_string(), "stdio".to_owned()],
    )
    .stderr(StderrTo::Discard)
    .trusted(true);
    let import = McpImport::connect(registry.plugins(), configure(config))
        .await
        .expect("server-everything imports");
    let rules = PermissionContext::new();
    let pool = registry.assemble_tool_pool(&rules);
    let session = Arc::new(Session::new());
    for tool in pool.iter() {
        session.discover(tool.name());
    }
    let executor = registry
        .executor()
        .permissions(rules)
        .mode(PermissionMode::Bypass)
        // server-everything's tools say little of themselves (no hints
        // but `readOnlyHint` on some): each brings all three Rule of Two
        // properties, which bypass mode runs only for tools named.
        .rule_of_two(pool.iter().fold(RuleOfTwo::new(), |rule, tool| {
            rule.allow_unattended(tool.name())
        }))
        .session(session)
        .build();
    Everything {
        import,
        registry,
        executor,
    }
}

async fn call(executor: &Executor, tool: &str, args: Value) -> (ToolCallResult, Vec<String>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let name = format!("mcp__everything__{tool}");
    let result = executor
        .run_turn_streaming(vec![ToolCall::new("c", name, args)], tx)
        .await
        .pop()
        .unwrap();
    let mut progress = Vec::new();
    while let Ok(event) = rx.try_recv() {
        if let ExecEvent::Progress { message, .. } = event {
            progress.push(message);
        }
    }
    (result, progress)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_is_imported_with_all_it_sends() {
    let Some(modules) = packages("server-everything import") else {
        return;
    };
    let e = everything(&modules, |c| c.call_timeout(Duration::from_millis(1_500))).await;
    let tools = e.import.tools();
    for expected in [
        "echo",
        "get-sum",
        "get-structured-content",
        "trigger-long-running-operation",
    ] {
        assert!(
            tools.contains_key(&format!("mcp__everything__{expected}")),
            "{expected} missing from {tools:?}"
        );
    }
    // A tool that needs the Tasks extension is imported like any other
    // (`server_everything_task_tool_*` call it).
    assert!(
        tools.contains_key("mcp__everything__simulate-research-query"),
        "refused: {:?}",
        e.import.refused()
    );
    assert!(e.import.refused().is_empty(), "{:?}", e.import.refused());
    // Annotations: believed from a trusted server, and kept as sent.
    let echo = e.registry.plugins().get("mcp__everything__echo").unwrap();
    assert!(*echo.spec().posture().idempotent().value());
    assert!(!*echo.spec().posture().open_world().value());
    let definition = e.import.definition("mcp__everything__echo").unwrap();
    assert_eq!(definition["annotations"]["idempotentHint"], json!(true));

    let (result, _) = call(&e.executor, "echo", json!({ "message": "hi" })).await;
    assert_eq!(result.content(), "Echo: hi");
    let (result, _) = call(
        &e.executor,
        "get-structured-content",
        json!({ "location": "Chicago" }),
    )
    .await;
    assert!(
        result.content().contains("temperature"),
        "{}",
        result.content()
    );
    let (result, _) = call(&e.executor, "get-resource-links", json!({ "count": 2 })).await;
    assert!(
        result.content().contains("<demo://resource/"),
        "{}",
        result.content()
    );
    let (result, _) = call(
        &e.executor,
        "get-annotated-message",
        json!({ "messageType": "success", "includeImage": true }),
    )
    .await;
    assert!(
        result.content().contains("[image: image/png,"),
        "{}",
        result.content()
    );
    assert!(
        !result.content().contains("omitted"),
        "{}",
        result.content()
    );
    // Longer than the call timeout, kept alive by its progress.
    let (result, progress) = call(
        &e.executor,
        "trigger-long-running-operation",
        json!({ "duration": 3, "steps": 4 }),
    )
    .await;
    assert!(!result.is_error(), "{}", result.content());
    assert!(progress.len() >= 3, "{progress:?}");

    // The executor built at the start survives refreshes (server-everything
    // already sent one list_changed after `initialize`).
    for _ in 0..3 {
        e.import.refresh().await.unwrap();
    }
    let (result, _) = call(&e.executor, "get-sum", json!({ "a": 2, "b": 3 })).await;
    assert!(result.content().contains('5'), "{}", result.content());
}

/// Log lines, kept for a test to read.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }

    /// Waits (up to 10 s, a hang bound) for a line containing all of `words`.
    async fn line_with(&self, words: &[&str]) -> String {
        let start = std::time::Instant::now();
        loop {
            if let Some(line) = self
                .text()
                .lines()
                .find(|line| words.iter().all(|word| line.contains(word)))
            {
                return line.to_owned();
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no log line with {words:?}:\n{}",
                self.text()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// server-everything's `simulate-research-query` requires a task (its
/// listing says `execution.taskSupport: "required"`): called to
/// completion with its stages as progress, cancelled mid-way when its turn
/// is dropped, and stopped at the call's hard limit. A current-thread
/// runtime, so that the log of the cancel (sent from a spawned task) is
/// this test's.
#[tokio::test(flavor = "current_thread")]
async fn server_everything_task_tool_completes_cancels_and_times_out() {
    let Some(modules) = packages("server-everything tasks") else {
        return;
    };
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .without_time()
        .with_max_level(tracing::Level::INFO)
        .finish();
    let _log = tracing::subscriber::set_default(subscriber);
    tracing::callsite::rebuild_interest_cache();

    // Completion: four stages of about a second each, longer than the
    // call timeout; each poll is answered, so the call lives on.
    let e = everything(&modules, |c| c.call_timeout(Duration::from_millis(1_500))).await;
    let (result, progress) = call(
        &e.executor,
        "simulate-research-query",
        json!({ "topic": "tide pools" }),
    )
    .await;
    assert!(!result.is_error(), "{}", result.content());
    assert!(
        result.content().contains("# Research Report: tide pools"),
        "{}",
        result.content()
    );
    // Its stages, as polls (every second, as the server asks) saw them:
    // a poll may fall either side of a stage's change, so at least two of
    // the four, each as the server worded it.
    let stages = [
        "Gathering sources",
        "Analyzing content",
        "Synthesizing findings",
        "Generating report",
    ];
    let seen: std::collections::BTreeSet<_> = progress
        .iter()
        .map(|p| stages.iter().find(|stage| p.starts_with(*stage)))
        .collect::<Option<_>>()
        .unwrap_or_else(|| panic!("progress that is no stage: {progress:?}"));
    assert!(seen.len() >= 2, "{progress:?}");

    // Cancelled: the turn is dropped at its first progress; the task is
    // cancelled on the server, which answers with the task cancelled.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let turn = e.executor.run_turn_streaming(
        vec![ToolCall::new(
            "c",
            "mcp__everything__simulate-research-query",
            json!({ "topic": "cancel me" }),
        )],
        tx,
    );
    let first_progress = async {
        while let Some(event) = rx.recv().await {
            if matches!(event, ExecEvent::Progress { .. }) {
                return;
            }
        }
    };
    tokio::select! {
        results = turn => panic!("the turn ended before any progress: {:?}", results[0].content()),
        () = first_progress => {}
    }
    let line = captured
        .line_with(&["MCP task cancelled", "status=\"cancelled\""])
        .await;
    assert!(line.contains("server=everything"), "{line}");

    // Timed out: the hard limit (2 s) comes before the task's end (~4 s);
    // the call ends with why, and its task is cancelled too.
    let e = everything(&modules, |c| {
        c.call_timeout(Duration::from_millis(1_000))
            .max_call_duration(Duration::from_secs(2))
    })
    .await;
    let before = captured.text().matches("MCP task cancelled").count();
    let started = std::time::Instant::now();
    let (result, _) = call(
        &e.executor,
        "simulate-research-query",
        json!({ "topic": "too slow" }),
    )
    .await;
    assert!(result.is_error());
    assert!(
        result.content().contains("the longest a call may take"),
        "{}",
        result.content()
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "ended at the hard limit, not the task's end: {:?}",
        started.elapsed()
    );
    let start = std::time::Instant::now();
    while captured.text().matches("MCP task cancelled").count() == before {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{}",
            captured.text()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
