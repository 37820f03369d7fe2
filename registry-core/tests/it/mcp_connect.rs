//! Connecting to a server is bounded and says what went wrong in words a
//! user can act on: how a child ended and what it last wrote to standard
//! error, a handshake that never comes, a refused token. A child runs as
//! configured (working directory, environment, standard error).
//!
//! Each failure is also a typed error ([`ConnectError`], [`ListError`]):
//! the tests at the end match on the variants, not on the text.

#![cfg(all(feature = "mcp", unix))]

use std::time::{Duration, Instant};

use registry_core::catalog::PluginRegistry;
use registry_core::mcp::{
    ConnectError, HttpOptions, ListError, McpError, McpImport, McpServerConfig, StderrTo,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

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

/// The import's error, whole.
async fn error_of(config: McpServerConfig) -> McpError {
    McpImport::connect(&PluginRegistry::new(), config)
        .await
        .expect_err("the import fails")
}

/// Why connecting failed.
async fn connect_error(config: McpServerConfig) -> ConnectError {
    match error_of(config).await {
        McpError::Connect { server, source } => {
            assert_eq!(server, "child-or-remote");
            source
        }
        other => panic!("not a connect error: {other:?}"),
    }
}

/// Why listing failed.
async fn list_error(config: McpServerConfig) -> ListError {
    match error_of(config).await {
        McpError::List { source, .. } => source,
        other => panic!("not a list error: {other:?}"),
    }
}

fn typed_sh(script: &str) -> McpServerConfig {
    McpServerConfig::command("child-or-remote", "/bin/sh", ["-c", script]).stderr(StderrTo::Discard)
}

fn remote(url: impl Into<String>) -> McpServerConfig {
    McpServerConfig::http("child-or-remote", url).connect_timeout(Duration::from_secs(5))
}

/// An HTTP "server" on 127.0.0.1 that answers every request with
/// `response` (raw HTTP/1.1), or closes the connection unanswered when
/// it is empty. Returns its `/mcp` URL.
async fn raw_http(response: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 << 10];
                let _ = socket.read(&mut buf).await;
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}/mcp")
}

fn own_server() -> registry_core::mcp::McpServer {
    let registry = std::sync::Arc::new(registry_core::ToolRegistry::new(
        registry_core::catalog::BaseTools::__from_handles(Vec::new()).unwrap(),
    ));
    registry_core::mcp::McpServer::new(
        registry
            .executor()
            .permissions(registry_core::PermissionContext::new())
            .policy(registry_core::permission::PermissionPolicy::new(
                registry_core::PermissionMode::Default,
            )),
    )
}

#[tokio::test]
async fn typed_a_refused_or_missing_token_is_the_status_and_whether_one_was_sent() {
    let http = own_server()
        .serve_http(HttpOptions::new("127.0.0.1:0".parse().unwrap()).bearer_token("right"))
        .await
        .unwrap();
    match connect_error(remote(http.url()).bearer_token("wrong")).await {
        ConnectError::TokenRefused { url, status } => {
            assert_eq!(url, http.url());
            assert_eq!(status.as_u16(), 401);
        }
        other => panic!("{other:?}"),
    }
    match connect_error(remote(http.url())).await {
        ConnectError::TokenRequired { status, .. } => assert_eq!(status.as_u16(), 401),
        other => panic!("{other:?}"),
    }
    http.shutdown().await;
}

#[tokio::test]
async fn typed_a_status_without_a_challenge_is_still_a_status() {
    // rmcp keeps these statuses only in its error's words; the import
    // asks the server again and reads the status itself.
    let url =
        raw_http("HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
    match connect_error(remote(url).bearer_token("t")).await {
        ConnectError::TokenRefused { status, .. } => assert_eq!(status.as_u16(), 401),
        other => panic!("{other:?}"),
    }
    let url =
        raw_http("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
    match connect_error(remote(url)).await {
        ConnectError::TokenRequired { status, .. } => assert_eq!(status.as_u16(), 403),
        other => panic!("{other:?}"),
    }
    let url = raw_http(
        "HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\nconnection: close\r\n\r\nnot found",
    )
    .await;
    match connect_error(remote(url.clone())).await {
        ConnectError::NoEndpoint { url: said } => assert_eq!(said, url),
        other => panic!("{other:?}"),
    }
    let url =
        raw_http("HTTP/1.1 418 I'm a teapot\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
    match connect_error(remote(url)).await {
        ConnectError::HttpStatus { status, .. } => assert_eq!(status.as_u16(), 418),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn typed_a_server_error_keeps_its_status_and_retry_after() {
    let url = raw_http(
        "HTTP/1.1 503 Service Unavailable\r\nretry-after: 7\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    )
    .await;
    match connect_error(remote(url)).await {
        ConnectError::HttpStatus {
            status,
            retry_after,
            ..
        } => {
            assert_eq!(status.as_u16(), 503);
            assert_eq!(retry_after.as_deref(), Some("7"));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn typed_a_closed_port_is_a_refused_connection() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    match connect_error(remote(format!("http://{addr}/mcp"))).await {
        ConnectError::ConnectionRefused { address, url } => {
            assert_eq!(address, addr.to_string());
            assert_eq!(url, format!("http://{addr}/mcp"));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn typed_a_server_that_hangs_up_closed_the_connection() {
    let url = raw_http("").await;
    assert!(
        matches!(
            connect_error(remote(url)).await,
            ConnectError::Closed { child: None }
        ),
        "a connection closed without an answer"
    );
    let (ours, theirs) = tokio::io::duplex(1024);
    drop(theirs);
    assert!(matches!(
        connect_error(McpServerConfig::io("child-or-remote", ours)).await,
        ConnectError::Closed { child: None }
    ));
}

#[tokio::test]
async fn typed_a_child_that_exits_is_its_status_and_its_stderr() {
    match connect_error(typed_sh("echo boom >&2; exit 3")).await {
        ConnectError::Closed {
            child: Some(report),
        } => {
            match report.exit_status() {
                Some(status) => assert_eq!(status.code(), Some(3)),
                None => panic!("{report:?}"),
            }
            assert!(!report.still_running(), "{report:?}");
            assert_eq!(report.stderr_tail(), "boom");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn typed_a_handshake_that_never_comes_is_a_timeout() {
    let limit = Duration::from_millis(300);
    let err = connect_error(typed_sh("echo waiting >&2; sleep 30").connect_timeout(limit)).await;
    match &err {
        ConnectError::Timeout {
            limit: said,
            child: Some(report),
        } => {
            assert_eq!(*said, limit);
            assert!(report.still_running(), "{report:?}");
            assert_eq!(report.exit_status(), None);
            assert_eq!(report.stderr_tail(), "waiting");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err.child().map(|r| r.still_running()), Some(true));
    // A stream that stays open and silent.
    let (ours, _theirs) = tokio::io::duplex(1024);
    match connect_error(McpServerConfig::io("child-or-remote", ours).connect_timeout(limit)).await {
        ConnectError::Timeout { limit: said, child } => {
            assert_eq!(said, limit);
            assert!(child.is_none());
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn typed_a_refused_initialize_is_a_protocol_failure_with_rmcps_error() {
    let answer = r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"not today"}}"#;
    let err = connect_error(typed_sh(&format!("read line; echo '{answer}'; sleep 5"))).await;
    match &err {
        ConnectError::Protocol {
            source,
            child: Some(_),
        } => {
            assert!(
                source
                    .downcast_ref::<rmcp::service::ClientInitializeError>()
                    .is_some(),
                "{source:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(std::error::Error::source(&err).is_some());
}

/// A server on an in-process stream that completes `initialize` and
/// answers each `tools/list` with `page(cursor)` (a JSON-RPC result or
/// error object), or not at all for `None`.
fn scripted(page: impl Fn(Option<&str>) -> Option<Value> + Send + 'static) -> McpServerConfig {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(theirs);
        let mut lines = tokio::io::BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).unwrap();
            let Some(id) = message.get("id").cloned() else {
                continue;
            };
            let answer = match message["method"].as_str() {
                Some("initialize") => Some(json!({ "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": { "tools": {} },
                    "serverInfo": { "name": "scripted", "version": "1" }
                }})),
                Some("tools/list") => page(message["params"]["cursor"].as_str()),
                _ => Some(json!({ "result": {} })),
            };
            let Some(mut answer) = answer else { continue };
            answer["jsonrpc"] = json!("2.0");
            answer["id"] = id;
            let mut frame = answer.to_string();
            frame.push('\n');
            if write.write_all(frame.as_bytes()).await.is_err() {
                return;
            }
        }
    });
    McpServerConfig::io("scripted", ours)
}

fn tools_page(count: usize, from: usize, cursor: Option<&str>) -> Value {
    let tools: Vec<Value> = (from..from + count)
        .map(|i| json!({ "name": format!("t{i}"), "inputSchema": { "type": "object" } }))
        .collect();
    json!({ "result": { "tools": tools, "nextCursor": cursor } })
}

#[tokio::test]
async fn typed_a_listing_that_does_not_come_is_no_answer() {
    let limit = Duration::from_millis(200);
    match list_error(scripted(|_| None).call_timeout(limit)).await {
        ListError::NoAnswer { limit: said } => assert_eq!(said, limit),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn typed_a_cursor_that_comes_back_is_named() {
    let err = list_error(scripted(|_| Some(tools_page(1, 0, Some("again"))))).await;
    match err {
        ListError::CursorRepeated { cursor } => assert_eq!(cursor, "again"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn typed_too_many_tools_over_pages_is_the_limit() {
    let err = list_error(scripted(|cursor| {
        Some(match cursor {
            None => tools_page(6_000, 0, Some("next")),
            Some(_) => tools_page(6_000, 6_000, None),
        })
    }))
    .await;
    match err {
        // The most tools one server may offer.
        ListError::TooManyTools { max } => assert_eq!(max, 10_000),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn typed_a_listing_refused_by_the_server_is_its_code_and_message() {
    let err = list_error(scripted(|_| {
        Some(json!({ "error": { "code": -32601, "message": "no tools here" } }))
    }))
    .await;
    match &err {
        ListError::Server { code, message } => {
            assert_eq!(*code, -32601);
            assert_eq!(message, "no tools here");
        }
        other => panic!("{other:?}"),
    }
}
