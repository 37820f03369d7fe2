//! Serving a pool over MCP: `tools/list` is the renderer's output, paged;
//! `tools/call` goes through the executor; clients hear about changes;
//! HTTP with and without a bearer token.

#![cfg(feature = "mcp")]

mod replicas;

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use registry_core::mcp::{HttpOptions, McpImport, McpServer, McpServerConfig};
use registry_core::{
    Json, PermissionContext, Tool, ToolBuilder, ToolContext, ToolHandle, ToolOutput, ToolRegistry,
    catalog::BaseTools, permission::RuleSource, tool,
};
use rmcp::model::{CallToolRequestParams, PaginatedRequestParams};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Notify;

#[derive(Deserialize, JsonSchema)]
struct Query {
    /// What to look up.
    key: String,
}

#[derive(Serialize, JsonSchema)]
struct Found {
    key: String,
    hits: u32,
}

/// Look a key up; answers with a typed record.
#[tool(
    name = "lookup",
    read_only = true,
    concurrency_safe = true,
    user_facing_name = "Look up"
)]
struct Lookup;

impl Tool for Lookup {
    type Input = Query;
    type Output = Json<Found>;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Query, _cx: &ToolContext) -> Result<Json<Found>, Self::Error> {
        Ok(Json(Found {
            key: input.key,
            hits: 3,
        }))
    }
}

/// Write a note. Says nothing about its posture but that it only writes
/// (one Rule of Two property): it asks.
#[tool(name = "write_note", rule_of_two = ["external_effect"])]
struct WriteNote;

impl Tool for WriteNote {
    type Input = Query;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Query, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("wrote {}", input.key))
    }
}

/// Forget a key.
#[tool(name = "forget", read_only = true)]
struct Forget;

impl Tool for Forget {
    type Input = Query;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Query, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("forgot {}", input.key))
    }
}

/// The built-ins are the three tools declared above: what
/// `BaseTools::linked` lists in a binary of this suite alone. The shared
/// test binary links every suite's tools.
fn registry() -> Arc<ToolRegistry> {
    Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![
            ToolHandle::new(Lookup),
            ToolHandle::new(WriteNote),
            ToolHandle::new(Forget),
        ])
        .unwrap(),
    ))
}

fn server(registry: &Arc<ToolRegistry>) -> McpServer {
    McpServer::new(Arc::clone(registry).executor())
}

/// A raw rmcp client (not our importer) counting `list_changed`.
#[derive(Clone, Default)]
struct Counting {
    changes: Arc<AtomicUsize>,
    notify: Arc<Notify>,
}

impl ClientHandler for Counting {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changes.fetch_add(1, Ordering::SeqCst);
        self.notify.notify_one();
    }
}

async fn connect(server: &McpServer) -> (RunningService<RoleClient, Counting>, Counting) {
    let (a, b) = tokio::io::duplex(1 << 16);
    let served = server.clone();
    tokio::spawn(async move { served.serve_io(a).await });
    let handler = Counting::default();
    let client = handler.clone().serve(b).await.expect("handshake");
    (client, handler)
}

async fn call(
    client: &RunningService<RoleClient, Counting>,
    name: &str,
    args: Value,
) -> rmcp::model::CallToolResult {
    let Value::Object(args) = args else { panic!() };
    client
        .peer()
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .expect("a result, not a protocol error")
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.clone())
        .collect()
}

#[tokio::test]
async fn tools_list_is_the_mcp_render_in_pool_order() {
    let registry = registry();
    let server = server(&registry);
    let (client, _) = connect(&server).await;
    let listed = client.peer().list_all_tools().await.unwrap();
    let rendered: Value = serde_json::from_str(
        &registry
            .assemble_tool_pool(&PermissionContext::new())
            .render_mcp_tools_list(),
    )
    .unwrap();
    assert_eq!(serde_json::to_value(&listed).unwrap(), rendered["tools"]);
    let lookup = listed.iter().find(|t| t.name == "lookup").unwrap();
    assert_eq!(lookup.title.as_deref(), Some("Look up"));
    assert_eq!(
        lookup
            .output_schema
            .as_deref()
            .map(|s| Value::Object(s.clone())),
        Some(json!({
            "type": "object",
            "properties": { "key": { "type": "string" }, "hits": { "type": "integer", "format": "uint32", "minimum": 0 } },
            "required": ["key", "hits"]
        }))
    );
}

#[tokio::test]
async fn pages_follow_a_stable_cursor_and_forged_cursors_are_refused() {
    let registry = registry();
    for i in 0..5 {
        let tool = ToolBuilder::new(format!("plugin_{i}"), "A plugin tool.")
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap();
        registry.plugins().register("p", tool).unwrap().detach();
    }
    let server = server(&registry).with_page_size(NonZeroUsize::new(2).unwrap());
    let (client, _) = connect(&server).await;
    let all = client.peer().list_all_tools().await.unwrap();
    let total = registry.assemble_tool_pool(&PermissionContext::new()).len();
    assert_eq!(all.len(), total);
    assert!(total > 2 * 2, "more than two pages");

    let mut cursor = None;
    let mut pages = Vec::new();
    loop {
        let page = client
            .peer()
            .list_tools(Some(
                PaginatedRequestParams::default().with_cursor(cursor.clone()),
            ))
            .await
            .unwrap();
        assert!(page.tools.len() <= 2);
        pages.push(
            page.tools
                .iter()
                .map(|t| t.name.to_string())
                .collect::<Vec<_>>(),
        );
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(
        pages.concat(),
        all.iter().map(|t| t.name.to_string()).collect::<Vec<_>>()
    );
    // The same cursor gives the same page.
    let again = client
        .peer()
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some("offset:2".into())),
        ))
        .await
        .unwrap();
    assert_eq!(
        again
            .tools
            .iter()
            .map(|t| t.name.to_string())
            .collect::<Vec<_>>(),
        pages[1]
    );
    for forged in ["offset:999", "2", "offset:-1", ""] {
        let err = client
            .peer()
            .list_tools(Some(
                PaginatedRequestParams::default().with_cursor(Some(forged.into())),
            ))
            .await
            .expect_err(forged);
        assert!(err.to_string().contains("cursor"), "{forged}: {err}");
    }

    // Our importer follows every page too.
    let importer = PluginRegistry::new();
    let (a, b) = tokio::io::duplex(1 << 16);
    let served = server.clone();
    tokio::spawn(async move { served.serve_io(a).await });
    let import = McpImport::connect(&importer, McpServerConfig::io("paged", b))
        .await
        .unwrap();
    assert_eq!(import.tools().len(), total);
}

use registry_core::catalog::PluginRegistry;

#[tokio::test]
async fn calls_go_through_the_executor() {
    let registry = registry();
    let mut rules = PermissionContext::new();
    rules
        .add_rule(
            RuleSource::Session,
            registry_core::permission::RuleBehavior::Deny,
            "forget",
        )
        .unwrap();
    let server = server(&registry);
    let (client, _) = connect(&server).await;

    // A typed result: text and structuredContent.
    let found = call(&client, "lookup", json!({ "key": "k" })).await;
    assert_eq!(found.is_error, Some(false));
    assert_eq!(
        found.structured_content,
        Some(json!({ "key": "k", "hits": 3 }))
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text(&found)).unwrap(),
        json!({ "key": "k", "hits": 3 })
    );

    // Ask with no approver: an error result that says so.
    let asked = call(&client, "write_note", json!({ "key": "k" })).await;
    assert_eq!(asked.is_error, Some(true));
    assert!(text(&asked).contains("needs approval"), "{}", text(&asked));

    // Bad arguments: an error result naming the field.
    let bad = call(&client, "lookup", json!({ "key": 5 })).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("key"), "{}", text(&bad));

    // Unknown tools are error results too.
    let unknown = call(&client, "nope", json!({})).await;
    assert_eq!(unknown.is_error, Some(true));

    // A deny rule set after the client connected still refuses.
    assert_eq!(
        call(&client, "forget", json!({ "key": "k" }))
            .await
            .is_error,
        Some(false)
    );
    server.set_permissions(rules);
    let denied = call(&client, "forget", json!({ "key": "k" })).await;
    assert_eq!(denied.is_error, Some(true));
    assert!(text(&denied).contains("forget"), "{}", text(&denied));
}

#[tokio::test]
async fn clients_hear_when_plugins_or_permissions_change() {
    let registry = registry();
    let server = server(&registry);
    let (client, counting) = connect(&server).await;
    let before = client.peer().list_all_tools().await.unwrap().len();

    let tool = ToolBuilder::new("late", "Registered after connect.")
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap();
    let guard = registry.plugins().register("p", tool).unwrap();
    tokio::time::timeout(Duration::from_secs(20), counting.notify.notified())
        .await
        .unwrap();
    assert_eq!(
        client.peer().list_all_tools().await.unwrap().len(),
        before + 1
    );

    let mut rules = PermissionContext::new();
    rules
        .add_rule(
            RuleSource::Session,
            registry_core::permission::RuleBehavior::Deny,
            "late",
        )
        .unwrap();
    server.set_permissions(rules);
    tokio::time::timeout(Duration::from_secs(20), counting.notify.notified())
        .await
        .unwrap();
    assert_eq!(client.peer().list_all_tools().await.unwrap().len(), before);
    assert!(counting.changes.load(Ordering::SeqCst) >= 2);
    drop(guard);
}

#[tokio::test]
async fn http_round_trip_with_a_bearer_token() {
    let registry = registry();
    let server = server(&registry);
    let http = server
        .serve_http(HttpOptions::new("127.0.0.1:0".parse().unwrap()).bearer_token("s3cret"))
        .await
        .unwrap();

    for (token, why) in [(None, "no token"), (Some("wrong"), "a wrong token")] {
        let mut config = McpServerConfig::http("remote", http.url());
        if let Some(token) = token {
            config = config.bearer_token(token);
        }
        let err = McpImport::connect(&PluginRegistry::new(), config)
            .await
            .expect_err(why);
        assert!(
            err.to_string().contains("bearer token (401 Unauthorized)"),
            "{why}: {err}"
        );
    }
    // On the wire: 401 with a Bearer challenge, before MCP sees anything.
    for auth in [
        "",
        "Authorization: Bearer wrong\r\n",
        "Authorization: s3cret\r\n",
    ] {
        let status = raw_post(http.local_addr(), auth).await;
        assert!(status.starts_with("HTTP/1.1 401"), "{auth:?}: {status}");
        assert!(
            status.to_lowercase().contains("www-authenticate: bearer"),
            "{status}"
        );
    }
    let status = raw_post(http.local_addr(), "Authorization: Bearer s3cret\r\n").await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");

    let plugins = PluginRegistry::new();
    let import = McpImport::connect(
        &plugins,
        McpServerConfig::http("remote", http.url())
            .bearer_token("s3cret")
            .trusted(true),
    )
    .await
    .unwrap();
    assert!(import.tools().contains_key("mcp__remote__lookup"));
    let lookup = plugins.get("mcp__remote__lookup").unwrap();
    let out = lookup
        .call_json(json!({ "key": "over-http" }), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(out.as_str()).unwrap(),
        json!({ "key": "over-http", "hits": 3 })
    );
    import.shutdown().await;
    assert!(plugins.is_empty());
    http.shutdown().await;
}

/// Sends an `initialize` request by hand and returns the response head.
async fn raw_post(addr: std::net::SocketAddr, auth: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = vec![0; 1024];
    let n = tokio::time::timeout(Duration::from_secs(20), stream.read(&mut head))
        .await
        .unwrap()
        .unwrap();
    String::from_utf8_lossy(&head[..n]).into_owned()
}

#[tokio::test]
async fn an_http_import_reconnects_with_backoff_after_the_server_restarts() {
    let registry = registry();
    let server = server(&registry);
    let http = server
        .serve_http(HttpOptions::new("127.0.0.1:0".parse().unwrap()))
        .await
        .unwrap();
    let addr = http.local_addr();
    let plugins = PluginRegistry::new();
    let import = McpImport::connect(
        &plugins,
        McpServerConfig::http("remote", http.url())
            .heartbeat(Some(Duration::from_millis(100)))
            .reconnect(Duration::from_millis(20), Duration::from_millis(200), 200),
    )
    .await
    .unwrap();
    let count = plugins.len();
    assert!(count > 0);

    http.shutdown().await;
    tokio::time::timeout(Duration::from_secs(30), import.disconnected())
        .await
        .expect("the import noticed the server went away");
    assert!(plugins.is_empty());

    let again = server.serve_http(HttpOptions::new(addr)).await.unwrap();
    let mut changes = plugins.subscribe();
    tokio::time::timeout(Duration::from_secs(30), async {
        while plugins.len() != count {
            changes.changed().await.unwrap();
        }
    })
    .await
    .expect("reconnected and re-imported");
    assert!(import.is_connected());
    again.shutdown().await;
}

/// One request over a raw keep-alive socket, and its whole response
/// (headers and body, chunked or not).
pub(crate) async fn exchange(
    socket: &mut tokio::net::TcpStream,
    addr: std::net::SocketAddr,
    session: Option<&str>,
    body: &str,
) -> String {
    let session = session.map_or_else(String::new, |s| format!("mcp-session-id: {s}\r\n"));
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{session}\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = socket.read(&mut buf).await.unwrap();
        assert!(
            n > 0,
            "connection closed: {}",
            String::from_utf8_lossy(&response)
        );
        response.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&response);
        let Some(head_end) = text.find("\r\n\r\n") else {
            continue;
        };
        let head = &text[..head_end].to_ascii_lowercase();
        if head.contains("transfer-encoding: chunked") {
            if text.ends_with("\r\n0\r\n\r\n") {
                return text.into_owned();
            }
        } else if let Some(len) = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .and_then(|l| l.trim().parse::<usize>().ok())
        {
            if response.len() >= head_end + 4 + len {
                return text.into_owned();
            }
        } else {
            return text.into_owned();
        }
    }
}

/// Initializes a session over a raw socket; its id.
pub(crate) async fn raw_session(
    socket: &mut tokio::net::TcpStream,
    addr: std::net::SocketAddr,
) -> String {
    let init = exchange(
        socket,
        addr,
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
    )
    .await;
    let session = init
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("mcp-session-id:")
                .then(|| l["mcp-session-id:".len()..].trim().to_owned())
        })
        .expect("a session id");
    exchange(
        socket,
        addr,
        Some(&session),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    session
}

/// An idle session ends, and a request in it is refused: its state is
/// gone.
#[tokio::test]
async fn idle_sessions_expire() {
    let registry = registry();
    let server = server(&registry);
    let http = server
        .serve_http(
            HttpOptions::new("127.0.0.1:0".parse().unwrap())
                .session_idle_timeout(Duration::from_millis(200)),
        )
        .await
        .unwrap();
    let addr = http.local_addr();
    let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    let session = raw_session(&mut socket, addr).await;
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"key":"k"}}}"#;
    assert!(
        exchange(&mut socket, addr, Some(&session), call)
            .await
            .contains("hits")
    );
    tokio::time::sleep(Duration::from_millis(800)).await;
    let after = exchange(&mut socket, addr, Some(&session), call).await;
    assert!(!after.starts_with("HTTP/1.1 200"), "{after}");
    assert!(!after.contains("hits"), "{after}");
    http.shutdown().await;
}

/// Sequential calls over a real socket answer in well under the 40 ms a
/// delayed ACK costs when the server leaves Nagle's algorithm on (every
/// response goes out in more than one write, and a client that only reads
/// ACKs late). The client is a plain keep-alive HTTP/1.1 socket, as the
/// Python and TypeScript SDKs' are. Not a speed target (that is
/// `benches/mcp_load.rs`): a 40 ms stall is deterministic, so even a busy
/// machine's median stays far below it once `TCP_NODELAY` is set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequential_http_calls_do_not_wait_for_a_delayed_ack() {
    let registry = registry();
    let server = server(&registry);
    let http = server
        .serve_http(HttpOptions::new("127.0.0.1:0".parse().unwrap()))
        .await
        .unwrap();
    let mut socket = tokio::net::TcpStream::connect(http.local_addr())
        .await
        .unwrap();
    let addr = http.local_addr();
    let session = raw_session(&mut socket, addr).await;
    let mut times = Vec::new();
    for i in 1..=31 {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"lookup","arguments":{{"key":"k{i}"}}}}}}"#
        );
        let start = std::time::Instant::now();
        let response = exchange(&mut socket, addr, Some(&session), &body).await;
        times.push(start.elapsed());
        assert!(response.contains("hits"), "{response}");
    }
    times.sort();
    let median = times[times.len() / 2];
    assert!(
        median < Duration::from_millis(25),
        "median {median:?} of {times:?}: a delayed ACK is back"
    );
    http.shutdown().await;
}

/// A session initializes once. A client that sends `initialize` again
/// (any version, a nonsense one included) is refused and its session
/// keeps the version it negotiated, so `ping` still answers; a repeated
/// `initialized` notification starts no second watcher, so one change is
/// one `list_changed`. (The `mcp_frames` fuzz target found a second
/// `initialize` asking for "9913-11-25" turning the session's own `ping`
/// into "method not found".)
#[tokio::test]
async fn a_session_initializes_once() {
    use tokio::io::{AsyncBufReadExt, BufReader};

    let registry = registry();
    let server = server(&registry);
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let served = server.clone();
    tokio::spawn(async move { served.serve_io(theirs).await });
    let (read, mut write) = tokio::io::split(ours);
    let mut lines = BufReader::new(read).lines();
    let mut send = async |message: Value| {
        let mut line = message.to_string();
        line.push('\n');
        write.write_all(line.as_bytes()).await.unwrap();
    };
    let initialize = |id: u32, version: &str| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": { "name": "raw", "version": "1" } } })
    };
    send(initialize(1, "2025-11-25")).await;
    send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    for (id, version) in [(2, "9913-11-25"), (3, "2025-11-25"), (4, "2026-07-28")] {
        send(initialize(id, version)).await;
        send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    }
    send(json!({ "jsonrpc": "2.0", "id": 5, "method": "ping" })).await;

    let mut answers = std::collections::BTreeMap::new();
    while answers.len() < 5 {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("the connection stays open");
        let message: Value = serde_json::from_str(&line).unwrap();
        if let Some(id) = message["id"].as_u64() {
            answers.insert(id, message);
        }
    }
    assert_eq!(answers[&1]["result"]["protocolVersion"], "2025-11-25");
    for id in [2, 3, 4] {
        let error = &answers[&id]["error"];
        assert_eq!(error["code"], -32600, "{}", answers[&id]);
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("already initialized"),
            "{error}"
        );
    }
    assert_eq!(answers[&5]["result"], json!({}), "{}", answers[&5]);

    // One change, one notification, however many `initialized` came.
    let tool = ToolBuilder::new("late", "Registered after connect.")
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap();
    let _guard = registry.plugins().register("p", tool).unwrap();
    let is_change = |line: &str| line.contains("notifications/tools/list_changed");
    // The first notification, however long it takes ...
    loop {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("a list_changed")
            .unwrap()
            .expect("open");
        if is_change(&line) {
            break;
        }
    }
    // ... and no second one for the same change.
    let mut extra = 0;
    let window = tokio::time::sleep(Duration::from_millis(300));
    tokio::pin!(window);
    loop {
        tokio::select! {
            () = &mut window => break,
            line = lines.next_line() => {
                if is_change(&line.unwrap().expect("open")) {
                    extra += 1;
                }
            }
        }
    }
    assert_eq!(extra, 0, "one change was notified more than once");
}

/// Says "always" once, then "no", counting what it was asked.
struct AlwaysOnce {
    asked: AtomicUsize,
}

impl registry_core::permission::Approver for AlwaysOnce {
    fn approve<'a>(
        &'a self,
        _request: &'a registry_core::permission::ApprovalRequest,
    ) -> registry_core::permission::JudgeFuture<'a, registry_core::permission::Approval> {
        let first = self.asked.fetch_add(1, Ordering::SeqCst) == 0;
        Box::pin(async move {
            if first {
                registry_core::permission::Approval::AllowAlways
            } else {
                registry_core::permission::Approval::Deny { reason: None }
            }
        })
    }
}

/// An "always" one client's approver gave holds for that client's later
/// calls, and never for another client's: grants belong to a session.
#[tokio::test]
async fn an_allow_always_grant_holds_for_its_own_client_only() {
    let registry = registry();
    let approver = Arc::new(AlwaysOnce {
        asked: AtomicUsize::new(0),
    });
    let server = McpServer::new(Arc::clone(&registry).executor().approver(approver.clone()));
    let (first, _) = connect(&server).await;
    let (second, _) = connect(&server).await;
    let note = || json!({ "key": "a" });

    let granted = call(&first, "write_note", note()).await;
    assert_eq!(granted.is_error, Some(false), "{}", text(&granted));
    let again = call(&first, "write_note", note()).await;
    assert_eq!(again.is_error, Some(false), "{}", text(&again));
    assert_eq!(
        approver.asked.load(Ordering::SeqCst),
        1,
        "the grant answered"
    );

    // The other client is asked itself, and this approver now says no.
    let other = call(&second, "write_note", note()).await;
    assert_eq!(other.is_error, Some(true), "{}", text(&other));
    assert_eq!(approver.asked.load(Ordering::SeqCst), 2);
}

/// A store that can be taken down: while down, every request fails as an
/// unreachable Redis would.
struct Switchable {
    inner: Arc<registry_core::session::MemorySessionStore>,
    down: std::sync::atomic::AtomicBool,
}

impl Switchable {
    fn check(&self, session: &str) -> Result<(), registry_core::session::StoreError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(registry_core::session::StoreError::Unavailable {
                store: "switchable".into(),
                session: session.into(),
                message: "taken down by the test".into(),
            });
        }
        Ok(())
    }
}

/// What every `SessionStore` method returns.
type StoreFuture<'a, T> = std::pin::Pin<
    Box<
        dyn std::future::Future<Output = Result<T, registry_core::session::StoreError>> + Send + 'a,
    >,
>;

impl registry_core::session::SessionStore for Switchable {
    fn load<'a>(
        &'a self,
        session: &'a str,
    ) -> StoreFuture<'a, Option<registry_core::session::Stored>> {
        match self.check(session) {
            Ok(()) => self.inner.load(session),
            Err(err) => Box::pin(async move { Err(err) }),
        }
    }

    fn save<'a>(
        &'a self,
        session: &'a str,
        bytes: &'a [u8],
        expected: Option<u64>,
        ttl: Duration,
    ) -> StoreFuture<'a, u64> {
        match self.check(session) {
            Ok(()) => self.inner.save(session, bytes, expected, ttl),
            Err(err) => Box::pin(async move { Err(err) }),
        }
    }

    fn delete<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()> {
        match self.check(session) {
            Ok(()) => self.inner.delete(session),
            Err(err) => Box::pin(async move { Err(err) }),
        }
    }

    fn append<'a>(
        &'a self,
        log: &'a str,
        entry: &'a [u8],
        keep: usize,
        ttl: Duration,
    ) -> StoreFuture<'a, u64> {
        match self.check(log) {
            Ok(()) => self.inner.append(log, entry, keep, ttl),
            Err(err) => Box::pin(async move { Err(err) }),
        }
    }

    fn read_log<'a>(&'a self, log: &'a str, from: u64) -> StoreFuture<'a, Vec<(u64, Vec<u8>)>> {
        match self.check(log) {
            Ok(()) => self.inner.read_log(log, from),
            Err(err) => Box::pin(async move { Err(err) }),
        }
    }

    fn watch_log<'a>(&'a self, log: &'a str) -> StoreFuture<'a, tokio::sync::watch::Receiver<()>> {
        match self.check(log) {
            Ok(()) => self.inner.watch_log(log),
            Err(err) => Box::pin(async move { Err(err) }),
        }
    }

    fn hold<'a>(
        &'a self,
        name: &'a str,
        holder: &'a str,
        length: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        match self.check(name) {
            Ok(()) => self.inner.hold(name, holder, length, ttl),
            Err(err) => Box::pin(async move { Err(err) }),
        }
    }

    fn lease<'a>(
        &'a self,
        name: &'a str,
    ) -> StoreFuture<'a, Option<registry_core::session::Lease>> {
        match self.check(name) {
            Ok(()) => self.inner.lease(name),
            Err(err) => Box::pin(async move { Err(err) }),
        }
    }
}

pub(crate) fn call_body(id: u32, name: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{{"key":"a"}}}}}}"#
    )
}

/// Two replicas sharing a store: a session opened on one is answered by
/// the other, and the "always" its client's approver gave through the
/// first holds on the second. With the store down, calls are error
/// results (not run, not a fresh session); when it is back, they run.
#[tokio::test]
async fn a_session_moves_between_replicas_that_share_a_store() {
    let registry = registry();
    let approver = Arc::new(AlwaysOnce {
        asked: AtomicUsize::new(0),
    });
    let store = Arc::new(Switchable {
        inner: Arc::new(registry_core::session::MemorySessionStore::new()),
        down: std::sync::atomic::AtomicBool::new(false),
    });
    let replica = || {
        McpServer::new(Arc::clone(&registry).executor().approver(approver.clone()))
            .with_session_store(
                store.clone(),
                registry_core::session::StoreLimits::default(),
            )
    };
    let (one, two) = (replica(), replica());
    let options = || HttpOptions::new("127.0.0.1:0".parse().unwrap());
    let (http_one, http_two) = (
        one.serve_http(options()).await.unwrap(),
        two.serve_http(options()).await.unwrap(),
    );
    let (a, b) = (http_one.local_addr(), http_two.local_addr());
    let mut to_one = tokio::net::TcpStream::connect(a).await.unwrap();
    let mut to_two = tokio::net::TcpStream::connect(b).await.unwrap();
    let session = raw_session(&mut to_one, a).await;

    let first = exchange(&mut to_one, a, Some(&session), &call_body(1, "write_note")).await;
    assert!(first.contains("wrote a"), "{first}");
    assert_eq!(approver.asked.load(Ordering::SeqCst), 1);
    // The other replica never saw this session; the grant answers there.
    let moved = exchange(&mut to_two, b, Some(&session), &call_body(2, "write_note")).await;
    assert!(moved.contains("wrote a"), "{moved}");
    assert_eq!(approver.asked.load(Ordering::SeqCst), 1, "no second ask");

    store.down.store(true, Ordering::SeqCst);
    let refused = exchange(&mut to_two, b, Some(&session), &call_body(3, "lookup")).await;
    assert!(refused.contains("\"isError\":true"), "{refused}");
    assert!(refused.contains("taken down by the test"), "{refused}");
    assert!(refused.contains("may be retried"), "{refused}");
    store.down.store(false, Ordering::SeqCst);
    let back = exchange(&mut to_one, a, Some(&session), &call_body(4, "write_note")).await;
    assert!(back.contains("wrote a"), "{back}");
    assert_eq!(approver.asked.load(Ordering::SeqCst), 1);
    http_one.shutdown().await;
    http_two.shutdown().await;
}

/// The JSON-RPC message of an HTTP response (plain JSON or one SSE event).
fn message_of(response: &str) -> Value {
    let body = &response[response.find("\r\n\r\n").expect("a head") + 4..];
    // An SSE stream may open with an empty priming event.
    let json = body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .find(|data| !data.trim().is_empty())
        .unwrap_or(body);
    serde_json::from_str(json.trim()).unwrap_or_else(|err| panic!("{err}: {body}"))
}

/// Every replica of one configuration lists the same tools in the same
/// order with the same freshness: the `tools/list` results are equal,
/// `ttlMs` and `cacheScope` included.
#[tokio::test]
async fn replicas_of_one_configuration_list_identical_pages() {
    let registry = registry();
    let replica = || {
        McpServer::new(Arc::clone(&registry).executor())
            .with_list_freshness(Duration::from_secs(30))
            .with_public_list()
    };
    let mut pages = Vec::new();
    for server in [replica(), replica(), replica()] {
        let http = server
            .serve_http(HttpOptions::new("127.0.0.1:0".parse().unwrap()))
            .await
            .unwrap();
        let addr = http.local_addr();
        let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
        let session = raw_session(&mut socket, addr).await;
        let list = exchange(
            &mut socket,
            addr,
            Some(&session),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#,
        )
        .await;
        pages.push(message_of(&list)["result"].clone());
        http.shutdown().await;
    }
    assert_eq!(pages[0]["ttlMs"], json!(30_000));
    assert_eq!(pages[0]["cacheScope"], json!("public"));
    assert!(pages[0]["tools"].as_array().is_some_and(|t| !t.is_empty()));
    assert!(pages.iter().all(|page| *page == pages[0]));
    // Byte for byte, too.
    let bytes: Vec<String> = pages.iter().map(Value::to_string).collect();
    assert!(bytes.iter().all(|b| *b == bytes[0]));
}

/// A session in use for longer than the store's ttl stays restorable:
/// its record and its handshake are renewed as it is used, so a replica
/// that never saw it still takes its requests.
#[tokio::test]
async fn an_active_session_outlives_the_ttl_on_every_replica() {
    let registry = registry();
    let store = Arc::new(registry_core::session::MemorySessionStore::new());
    let limits = registry_core::session::StoreLimits {
        ttl: Duration::from_millis(800),
        ..Default::default()
    };
    let replica = || {
        McpServer::new(Arc::clone(&registry).executor()).with_session_store(store.clone(), limits)
    };
    let options = || HttpOptions::new("127.0.0.1:0".parse().unwrap());
    let (one, two) = (
        replica().serve_http(options()).await.unwrap(),
        replica().serve_http(options()).await.unwrap(),
    );
    let (a, b) = (one.local_addr(), two.local_addr());
    let mut to_one = tokio::net::TcpStream::connect(a).await.unwrap();
    let session = raw_session(&mut to_one, a).await;
    // Two ttls of steady use through the first replica.
    for i in 0..16 {
        let answer = exchange(&mut to_one, a, Some(&session), &call_body(10 + i, "lookup")).await;
        assert!(answer.contains("\"hits\":3"), "{answer}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut to_two = tokio::net::TcpStream::connect(b).await.unwrap();
    let moved = exchange(&mut to_two, b, Some(&session), &call_body(99, "lookup")).await;
    assert!(moved.starts_with("HTTP/1.1 200"), "{moved}");
    assert!(moved.contains("\"hits\":3"), "{moved}");
    one.shutdown().await;
    two.shutdown().await;
}

/// Code mode over MCP: the tool that runs programs is listed with the
/// pool's TypeScript API; served alone, it is the only tool a client sees
/// or may call, and its programs reach the others through the executor.
#[tokio::test]
async fn a_pool_is_served_as_one_code_tool_with_its_api() {
    let kept = Arc::new(std::sync::Mutex::new(None));
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![
            ToolHandle::new(Lookup),
            crate::execute_support::runner(&kept),
        ])
        .unwrap(),
    ));
    let beside = McpServer::new(Arc::clone(&registry).executor()).with_code_tool("runner");
    let (client, _) = connect(&beside).await;
    let tools = client.peer().list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["lookup", "runner"]);
    let described = tools[1].description.as_deref().unwrap_or_default();
    assert!(
        described.starts_with("Runs calls as a program would."),
        "{described}"
    );
    assert!(
        described.contains("```typescript\ndeclare const tools: {"),
        "{described}"
    );
    assert!(described.contains("  lookup(input: {"), "{described}");
    client.cancel().await.unwrap();

    let only = McpServer::new(
        Arc::clone(&registry)
            .executor()
            .mode(registry_core::PermissionMode::Bypass),
    )
    .with_only_code_tool("runner");
    let (client, _) = connect(&only).await;
    let tools = client.peer().list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["runner"]);
    let direct = call(&client, "lookup", json!({ "key": "a" })).await;
    assert_eq!(direct.is_error, Some(true));
    assert!(
        text(&direct).starts_with("tool `lookup` is not served directly here: only `runner` is"),
        "{}",
        text(&direct)
    );
    let program = call(
        &client,
        "runner",
        json!({ "calls": [["lookup", { "key": "a" }]] }),
    )
    .await;
    assert_eq!(program.is_error, Some(false), "{}", text(&program));
    assert!(text(&program).starts_with("ok: "), "{}", text(&program));
    client.cancel().await.unwrap();
}

/// Hooks see an MCP client's calls as the model's: the server's executor
/// carries them.
#[tokio::test]
async fn hooks_see_an_mcp_clients_calls() {
    use registry_core::execute::{BeforeCall, CallHook, HookFuture, HookedCall};

    struct NoLookups;
    impl CallHook for NoLookups {
        fn name(&self) -> &str {
            "no-lookups"
        }
        fn before<'a>(&'a self, call: HookedCall<'a>) -> HookFuture<'a, BeforeCall> {
            let said = if call.tool == "lookup" {
                BeforeCall::Deny("lookups are off".into())
            } else {
                BeforeCall::Continue
            };
            Box::pin(async move { said })
        }
    }

    let registry = registry();
    let server = McpServer::new(Arc::clone(&registry).executor().hook(NoLookups));
    let (client, _) = connect(&server).await;
    let result = call(&client, "lookup", json!({ "key": "a" })).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        text(&result),
        "permission to run `lookup` was denied: lookups are off"
    );
    client.cancel().await.unwrap();
}

/// A session the server let expire is made again by the import's HTTP
/// client (the guard's own, which answers a `404` for a known session as
/// rmcp's client does: initialize anew, then send the request again), so
/// the next call works with no reconnection of the import.
#[tokio::test]
async fn an_http_import_remakes_a_session_the_server_expired() {
    let registry = registry();
    let server = server(&registry);
    let http = server
        .serve_http(
            HttpOptions::new("127.0.0.1:0".parse().unwrap())
                .session_idle_timeout(Duration::from_millis(300)),
        )
        .await
        .unwrap();
    let plugins = PluginRegistry::new();
    let import = McpImport::connect(
        &plugins,
        McpServerConfig::http("expiring", http.url())
            .trusted(true)
            .heartbeat(None),
    )
    .await
    .unwrap();
    let lookup = plugins.get("mcp__expiring__lookup").unwrap();
    let cx = registry_core::ToolContext::new();
    let first = lookup.call_json(json!({ "key": "k" }), &cx).await.unwrap();
    assert!(first.as_str().contains("\"hits\""), "{}", first.as_str());
    tokio::time::sleep(Duration::from_millis(900)).await;
    let again = lookup
        .call_json(json!({ "key": "k" }), &cx)
        .await
        .unwrap_or_else(|err| panic!("after the session expired: {err}"));
    assert!(again.as_str().contains("\"hits\""), "{}", again.as_str());
    assert!(import.is_connected());
    http.shutdown().await;
}
