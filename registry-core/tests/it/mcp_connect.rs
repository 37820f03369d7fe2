//! Connecting to a server is bounded and says what went wrong in words a
//! user can act on: how a child ended and what it last wrote to standard
//! error, a handshake that never comes, a refused token. A child runs as
//! configured (working directory, environment, standard error).

#![cfg(all(feature = "mcp", unix))]

use std::time::{Duration, Instant};

use registry_core::catalog::PluginRegistry;
use registry_core::mcp::{HttpOptions, McpImport, McpServerConfig, StderrTo};

fn sh(script: &str) -> McpServerConfig {
    McpServerConfig::command("child", "/bin/sh", ["-c", script])
}

async fn refused(config: McpServerConfig) -> String {
    McpImport::connect(&PluginRegistry::new(), config)
        .await
        .expect_err("the import fails")
        .to_string()
}

#[tokio::test]
async fn a_child_that_never_answers_is_given_up_on_in_time() {
    let start = Instant::now();
    let err = refused(
        sh("echo 'waiting for a licence server' >&2; sleep 30")
            .connect_timeout(Duration::from_millis(300))
            .stderr(StderrTo::Discard),
    )
    .await;
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    assert!(
        err.contains("did not answer `initialize` within 300ms"),
        "{err}"
    );
    assert!(err.contains("still running"), "{err}");
    assert!(err.contains("waiting for a licence server"), "{err}");
}

#[tokio::test]
async fn a_child_that_exits_reports_its_status_and_its_last_words() {
    let err = refused(
        sh("echo 'reading config' >&2; echo 'fatal: /etc/srv.toml: no such file' >&2; exit 3")
            .stderr(StderrTo::Discard),
    )
    .await;
    assert!(
        err.contains("closed the connection before answering `initialize`"),
        "{err}"
    );
    assert!(err.contains("exit status: 3"), "{err}");
    assert!(err.contains("fatal: /etc/srv.toml: no such file"), "{err}");
    assert!(!err.contains("::"), "no Rust type paths: {err}");
}

#[tokio::test]
async fn a_child_that_writes_a_flood_keeps_only_the_tail() {
    let err = refused(
        sh("i=0; while [ $i -lt 3000 ]; do echo \"line $i of noise\" >&2; i=$((i+1)); done; echo last words >&2; exit 1")
            .stderr(StderrTo::Discard),
    )
    .await;
    assert!(err.contains("last words"), "{err}");
    assert!(err.len() < 8_000, "{} bytes", err.len());
}

#[tokio::test]
async fn a_child_runs_where_and_with_what_it_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stderr.log");
    let err = refused(
        sh("pwd >&2; echo \"ONLY=$ONLY HOME=${HOME:-unset}\" >&2; exit 1")
            .current_dir(dir.path())
            .inherit_env(false)
            .env("ONLY", "1")
            .stderr(StderrTo::File(log.clone())),
    )
    .await;
    let expected_dir = dir.path().canonicalize().unwrap();
    assert!(err.contains(&expected_dir.display().to_string()), "{err}");
    assert!(err.contains("ONLY=1 HOME=unset"), "{err}");
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(written.contains("ONLY=1 HOME=unset"), "{written}");
}

#[tokio::test]
async fn a_missing_program_says_so() {
    let err = refused(McpServerConfig::command(
        "child",
        "/nonexistent/mcp-server",
        Vec::<String>::new(),
    ))
    .await;
    assert!(
        err.contains("could not start `/nonexistent/mcp-server`"),
        "{err}"
    );
}

#[tokio::test]
async fn http_errors_are_plain_words() {
    let registry = std::sync::Arc::new(registry_core::ToolRegistry::new(
        registry_core::catalog::BaseTools::__from_handles(Vec::new()).unwrap(),
    ));
    let server = registry_core::mcp::McpServer::new(
        registry
            .executor()
            .permissions(registry_core::PermissionContext::new())
            .policy(registry_core::permission::PermissionPolicy::new(
                registry_core::PermissionMode::Default,
            )),
    );
    let http = server
        .serve_http(HttpOptions::new("127.0.0.1:0".parse().unwrap()).bearer_token("right"))
        .await
        .unwrap();
    let err = refused(McpServerConfig::http("remote", http.url()).bearer_token("wrong")).await;
    assert!(
        err.contains("refused the bearer token (401 Unauthorized)"),
        "{err}"
    );
    let err = refused(McpServerConfig::http("remote", http.url())).await;
    assert!(
        err.contains("requires a bearer token (401 Unauthorized)"),
        "{err}"
    );
    let addr = http.local_addr();
    http.shutdown().await;
    let err = refused(
        McpServerConfig::http("remote", format!("http://{addr}/mcp"))
            .connect_timeout(Duration::from_secs(5)),
    )
    .await;
    assert!(
        err.contains("(connection refused); is the server running?"),
        "{err}"
    );
    assert!(!err.contains("Worker"), "no rmcp type names: {err}");
}
