//! Interoperability with MCP peers nobody here wrote, from npm (pinned in
//! `.ci/run`): the official TypeScript SDK as a client of `mcp_server`
//! over stdio and streamable HTTP (`scripts/mcp_ts_client.mjs` holds the
//! checks), and `@modelcontextprotocol/server-everything` imported through
//! `McpImport`: its tools, its refusal of a tool that needs the Tasks
//! extension, its progress, structured content, resource links, images,
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
    // A tool that needs the Tasks extension is refused, saying why.
    let refused = e.import.refused();
    let (_, reason) = refused
        .iter()
        .find(|(tool, _)| tool == "simulate-research-query")
        .unwrap_or_else(|| panic!("not refused: {refused:?}"));
    assert!(reason.contains("Tasks extension"), "{reason}");
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
