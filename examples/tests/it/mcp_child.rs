//! The `mcp_server` binary as a real child process, imported by our own
//! client: list, call, errors, refusals, and a crash mid-call.

use std::sync::Arc;
use std::time::Duration;

use registry_core::mcp::{McpImport, McpServerConfig};
use registry_core::permission::RuleOfTwo;
use registry_core::{
    PermissionContext, PermissionMode, ToolCall, ToolCallResult, ToolRegistry, catalog::BaseTools,
    session::Session,
};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_server");

fn config(dir: &std::path::Path, extra: &[&str]) -> McpServerConfig {
    let mut args = vec!["--workspace".to_owned(), dir.display().to_string()];
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    McpServerConfig::command("ex", SERVER, args)
}

/// One call through an executor over everything registered now.
async fn run(registry: &Arc<ToolRegistry>, name: &str, input: Value) -> ToolCallResult {
    let cx = PermissionContext::new();
    let _pool = registry.assemble_tool_pool(&cx);
    let session = Arc::new(Session::new());
    session.discover(name);
    let executor = Arc::clone(registry)
        .executor()
        .permissions(cx)
        .session(session)
        .build();
    executor
        .run_turn(vec![ToolCall::new("c1", name, input)])
        .await
        .pop()
        .expect("one result per call")
}

fn empty_registry() -> Arc<ToolRegistry> {
    Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(Vec::new()).unwrap(),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_process_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hi\n").unwrap();
    let registry = empty_registry();
    let import = McpImport::connect(registry.plugins(), config(dir.path(), &[]).trusted(true))
        .await
        .unwrap();
    let names: Vec<_> = import.tools().into_keys().collect();
    assert!(
        names.contains(&"mcp__ex__read_file".to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"mcp__ex__write_file".to_owned()),
        "{names:?}"
    );

    let ok = run(
        &registry,
        "mcp__ex__read_file",
        json!({ "path": "hello.txt" }),
    )
    .await;
    assert!(!ok.is_error(), "{}", ok.content());
    assert_eq!(ok.content(), "     1\thi\n");

    let missing = run(
        &registry,
        "mcp__ex__read_file",
        json!({ "path": "nope.txt" }),
    )
    .await;
    assert!(missing.is_error());
    assert!(
        missing.content().contains("nope.txt"),
        "{}",
        missing.content()
    );

    // The server itself refuses: nobody can approve a write over MCP.
    // (Our side would ask too: write_file's hints say it destroys.)
    let write = run(
        &registry,
        "mcp__ex__write_file",
        json!({ "path": "x", "content": "" }),
    )
    .await;
    assert!(write.is_error());
    assert!(!dir.path().join("x").exists());

    import.shutdown().await;
    assert!(registry.plugins().is_empty());
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_that_crashes_mid_call_fails_the_call_and_leaves_no_tools() {
    let dir = tempfile::tempdir().unwrap();
    let registry = empty_registry();
    // bypass: run_command runs without an approval, so the call reaches
    // the server, which then dies under it.
    let import = McpImport::connect(
        registry.plugins(),
        config(dir.path(), &["--mode", "bypass"]).call_timeout(Duration::from_secs(60)),
    )
    .await
    .unwrap();
    let pid_file = dir.path().join("server.pid");
    let call_registry = Arc::clone(&registry);
    let call = tokio::spawn(async move {
        let cx = PermissionContext::new();
        let _pool = call_registry.assemble_tool_pool(&cx);
        let session = Arc::new(Session::new());
        session.discover("mcp__ex__run_command");
        call_registry
            .executor()
            .permissions(cx)
            .mode(PermissionMode::Bypass)
            .rule_of_two(RuleOfTwo::new().allow_unattended("mcp__ex__run_command"))
            .session(session)
            .build()
            .run_turn(vec![ToolCall::new(
                "c1",
                "mcp__ex__run_command",
                json!({ "command": "echo $PPID > server.pid; sleep 20" }),
            )])
            .await
            .pop()
            .unwrap()
    });
    let pid = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if let Ok(text) = std::fs::read_to_string(&pid_file)
                && let Ok(pid) = text.trim().parse::<i32>()
            {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the command started");
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());

    let result = tokio::time::timeout(Duration::from_secs(30), call)
        .await
        .expect("the in-flight call finished")
        .unwrap();
    assert!(result.is_error());
    assert!(
        result.content().contains("disconnected during the call"),
        "{}",
        result.content()
    );
    tokio::time::timeout(Duration::from_secs(30), import.disconnected())
        .await
        .expect("the import noticed the exit");
    assert!(registry.plugins().is_empty());
}
