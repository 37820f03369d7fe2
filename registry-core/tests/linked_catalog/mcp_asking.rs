//! What an MCP client's user decides and what its conversation finds:
//! approvals asked through elicitation (a session's client while the call
//! waits, a stateless 2026-07-28 client through an input-required result
//! and its retry), stateless conversations carried by a handle from
//! replica to replica, and deferred tools listed once `tool_search`
//! finds them.

#![cfg(feature = "mcp")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use registry_core::mcp::{HttpOptions, HttpServerHandle, McpServer};
use registry_core::session::{DeferralPolicy, MemorySessionStore, StoreLimits};
use registry_core::{Tool, ToolContext, ToolHandle, ToolRegistry, catalog::BaseTools, tool};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Notify;

/// The `_meta` key a stateless (2026-07-28) request names its
/// conversation by, and a result hands the handle out under: part of the
/// wire protocol, so written out here as a client would.
const CONVERSATION_META_KEY: &str = "tool-registry.dev/conversation";

#[derive(Deserialize, JsonSchema)]
struct Note {
    /// What to write.
    key: String,
}

/// Write a note. Says nothing of its posture but that it only writes: it asks.
#[tool(name = "write_note", rule_of_two = ["external_effect"])]
struct WriteNote;

impl Tool for WriteNote {
    type Input = Note;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Note, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("wrote {}", input.key))
    }
}

/// Convert a temperature between Celsius and Fahrenheit.
#[tool(
    name = "convert_temperature",
    read_only = true,
    concurrency_safe = true,
    defer,
    search_hint = "celsius fahrenheit degrees weather"
)]
struct ConvertTemperature;

impl Tool for ConvertTemperature {
    type Input = Note;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Note, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("converted {}", input.key))
    }
}

/// `tool_search` and the two tools declared above: what
/// `BaseTools::linked` lists, with `tool_search`'s flag, in a binary of
/// this suite alone. This binary links other suites' tools too.
fn registry() -> Arc<ToolRegistry> {
    Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![
            registry_core::search::__tool_search(),
            ToolHandle::new(WriteNote),
            ToolHandle::new(ConvertTemperature),
        ])
        .unwrap(),
    ))
}

/// A client whose user answers every approval with `decision`, counting
/// the questions and the `list_changed` notifications.
#[derive(Clone)]
struct User {
    decision: Option<&'static str>,
    asked: Arc<AtomicUsize>,
    changes: Arc<AtomicUsize>,
    changed: Arc<Notify>,
}

impl User {
    fn answering(decision: Option<&'static str>) -> Self {
        User {
            decision,
            asked: Arc::default(),
            changes: Arc::default(),
            changed: Arc::default(),
        }
    }
}

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        if self.decision.is_some() {
            info.capabilities.elicitation =
                Some(serde_json::from_value(json!({ "form": {} })).unwrap());
        }
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            panic!("a form, not a URL");
        };
        assert!(message.contains("write_note"), "{message}");
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(json!({ "decision": self.decision.unwrap() }));
        Ok(result)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changes.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_one();
    }
}

async fn connect(server: &McpServer, user: &User) -> RunningService<RoleClient, User> {
    let (a, b) = tokio::io::duplex(1 << 16);
    let served = server.clone();
    tokio::spawn(async move { served.serve_io(a).await });
    user.clone().serve(b).await.expect("handshake")
}

async fn call(
    client: &RunningService<RoleClient, User>,
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
    serde_json::to_string(&result.content).unwrap()
}

/// A session's client is asked while the call waits; its "always" answers
/// later calls with the same content, and a call with other content is
/// asked again.
#[tokio::test]
async fn a_session_client_approves_through_elicitation() {
    let server =
        McpServer::new(registry().executor()).with_client_approvals(Duration::from_secs(10));
    let user = User::answering(Some("always"));
    let client = connect(&server, &user).await;

    let first = call(&client, "write_note", json!({ "key": "a" })).await;
    assert_eq!(first.is_error, Some(false), "{}", text(&first));
    assert!(text(&first).contains("wrote a"));
    let again = call(&client, "write_note", json!({ "key": "a" })).await;
    assert_eq!(again.is_error, Some(false), "{}", text(&again));
    assert_eq!(user.asked.load(Ordering::SeqCst), 1, "the grant answered");
}

/// "deny" refuses the call, and so does a client that declared no
/// elicitation (it is never asked): both say approval was needed.
#[tokio::test]
async fn a_denial_or_a_client_that_cannot_be_asked_refuses_the_call() {
    let server =
        McpServer::new(registry().executor()).with_client_approvals(Duration::from_secs(10));
    let denying = User::answering(Some("deny"));
    let client = connect(&server, &denying).await;
    let denied = call(&client, "write_note", json!({ "key": "a" })).await;
    assert_eq!(denied.is_error, Some(true), "{}", text(&denied));
    assert!(text(&denied).contains("denied"), "{}", text(&denied));
    assert_eq!(denying.asked.load(Ordering::SeqCst), 1);

    let mute = User::answering(None);
    let client = connect(&server, &mute).await;
    let refused = call(&client, "write_note", json!({ "key": "a" })).await;
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    assert!(text(&refused).contains("approval"), "{}", text(&refused));
    assert_eq!(mute.asked.load(Ordering::SeqCst), 0);
}

/// A deferred tool stays out of the session's list and is refused until
/// `tool_search` finds it; the search tells the client the list changed,
/// and the tool is then listed and runs.
#[tokio::test]
async fn deferred_tools_are_listed_once_tool_search_finds_them() {
    let server = McpServer::new(registry().executor()).with_deferral(DeferralPolicy::Always);
    let user = User::answering(None);
    let client = connect(&server, &user).await;
    let names = |client: &RunningService<RoleClient, User>| {
        let peer = client.peer().clone();
        async move {
            peer.list_all_tools()
                .await
                .unwrap()
                .into_iter()
                .map(|t| t.name.to_string())
                .collect::<Vec<_>>()
        }
    };
    let before = names(&client).await;
    assert!(before.contains(&"tool_search".to_owned()), "{before:?}");
    assert!(
        !before.contains(&"convert_temperature".to_owned()),
        "{before:?}"
    );
    let early = call(&client, "convert_temperature", json!({ "key": "20C" })).await;
    assert_eq!(early.is_error, Some(true));
    assert!(text(&early).contains("search"), "{}", text(&early));

    let found = call(&client, "tool_search", json!({ "query": "fahrenheit" })).await;
    assert_eq!(found.is_error, Some(false), "{}", text(&found));
    assert!(
        text(&found).contains("convert_temperature"),
        "{}",
        text(&found)
    );
    tokio::time::timeout(Duration::from_secs(10), user.changed.notified())
        .await
        .expect("list_changed after the discovery");
    assert!(
        names(&client)
            .await
            .contains(&"convert_temperature".to_owned())
    );
    let now = call(&client, "convert_temperature", json!({ "key": "20C" })).await;
    assert_eq!(now.is_error, Some(false), "{}", text(&now));
}

/// Two HTTP replicas sharing one store, asking the client's user.
async fn two_asking_replicas() -> (HttpServerHandle, HttpServerHandle) {
    let registry = registry();
    let store = Arc::new(MemorySessionStore::new());
    let replica = || {
        McpServer::new(Arc::clone(&registry).executor())
            .with_client_approvals(Duration::from_secs(20))
            .with_session_store(store.clone(), StoreLimits::default())
    };
    let options = || HttpOptions::new("127.0.0.1:0".parse().unwrap());
    (
        replica().serve_http(options()).await.unwrap(),
        replica().serve_http(options()).await.unwrap(),
    )
}

/// One HTTP POST of a 2026-07-28 request (no session): the JSON-RPC
/// message it answered with.
async fn post(addr: std::net::SocketAddr, body: &Value) -> Value {
    let body = body.to_string();
    let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: write_note\r\n\
         Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    socket.read_to_string(&mut response).await.unwrap();
    let payload = &response[response.find("\r\n\r\n").expect("a head") + 4..];
    let json = payload
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .find(|data| !data.trim().is_empty())
        .unwrap_or(payload);
    serde_json::from_str(json.trim()).unwrap_or_else(|err| panic!("{err}: {response}"))
}

/// A 2026-07-28 `tools/call` of `write_note`, with extra `params` fields
/// (`_meta` entries go in `meta`).
fn stateless_call(id: u32, meta: Value, extra: Value) -> Value {
    let mut meta_object = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } },
        "io.modelcontextprotocol/clientInfo": { "name": "raw", "version": "1" },
    });
    meta_object
        .as_object_mut()
        .unwrap()
        .extend(meta.as_object().unwrap().clone());
    let mut params = json!({
        "name": "write_note",
        "arguments": { "key": "a" },
        "_meta": meta_object,
    });
    params
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
}

/// A stateless request is asked through an input-required result; its
/// retry with the answer runs and hands out the conversation's handle;
/// with that handle, another replica sharing the store runs the next call
/// without asking, while a request without it is asked again. A handle
/// this server could not have given is refused.
#[tokio::test]
async fn a_stateless_conversation_is_asked_in_rounds_and_moves_between_replicas() {
    let (one, two) = two_asking_replicas().await;
    let (a, b) = (one.local_addr(), two.local_addr());

    let asked = post(a, &stateless_call(1, json!({}), json!({}))).await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let questions = result["inputRequests"].as_object().expect("questions");
    assert_eq!(questions.len(), 1, "{asked}");
    let (key, question) = questions.iter().next().unwrap();
    assert_eq!(question["method"], "elicitation/create");
    assert!(
        question["params"]["message"]
            .as_str()
            .unwrap()
            .contains("write_note")
    );

    let answer =
        json!({ key.clone(): { "action": "accept", "content": { "decision": "always" } } });
    let retried = post(
        a,
        &stateless_call(
            2,
            json!({}),
            json!({ "inputResponses": answer, "requestState": result["requestState"] }),
        ),
    )
    .await;
    let ran = &retried["result"];
    assert_eq!(ran["isError"], false, "{retried}");
    assert!(
        ran["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("wrote a")
    );
    let handle = ran["_meta"][CONVERSATION_META_KEY]
        .as_str()
        .expect("the conversation's handle")
        .to_owned();

    let moved = post(
        b,
        &stateless_call(3, json!({ CONVERSATION_META_KEY: handle }), json!({})),
    )
    .await;
    assert_eq!(moved["result"]["isError"], false, "{moved}");
    assert_eq!(
        moved["result"]["_meta"][CONVERSATION_META_KEY],
        handle.as_str()
    );

    let stranger = post(b, &stateless_call(4, json!({}), json!({}))).await;
    assert_eq!(
        stranger["result"]["resultType"], "input_required",
        "{stranger}"
    );

    let forged = post(
        b,
        &stateless_call(5, json!({ CONVERSATION_META_KEY: "../etc" }), json!({})),
    )
    .await;
    assert_eq!(forged["error"]["code"], -32602, "{forged}");
    assert!(
        forged["error"]["message"]
            .as_str()
            .unwrap()
            .contains(CONVERSATION_META_KEY),
        "{forged}"
    );
    one.shutdown().await;
    two.shutdown().await;
}

/// Sends one HTTP POST (a legacy session's, when `session` is given) on
/// `socket` and returns at once; the response is read by the caller.
async fn send_post(
    socket: &mut tokio::net::TcpStream,
    addr: std::net::SocketAddr,
    session: Option<&str>,
    body: &str,
) {
    let session = session.map_or_else(String::new, |s| format!("mcp-session-id: {s}\r\n"));
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         {session}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(request.as_bytes()).await.unwrap();
}

/// Reads from `socket` into `seen` until it holds `needle`.
async fn read_until(socket: &mut tokio::net::TcpStream, seen: &mut String, needle: &str) {
    let mut buf = [0u8; 4096];
    tokio::time::timeout(Duration::from_secs(20), async {
        while !seen.contains(needle) {
            let n = socket.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed before {needle:?}: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {needle:?} in: {seen}"));
}

/// A legacy session opened on `addr` by a client that declared form
/// elicitation; its id.
async fn eliciting_session(addr: std::net::SocketAddr) -> String {
    let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    send_post(
        &mut socket,
        addr,
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"raw","version":"0"}}}"#,
    )
    .await;
    let mut seen = String::new();
    read_until(&mut socket, &mut seen, "serverInfo").await;
    let session = seen
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("mcp-session-id:")
                .then(|| l["mcp-session-id:".len()..].trim().to_owned())
        })
        .expect("a session id");
    let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    send_post(
        &mut socket,
        addr,
        Some(&session),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    let mut seen = String::new();
    read_until(&mut socket, &mut seen, "\r\n\r\n").await;
    session
}

/// Behind a balancer without affinity, a session's client may post its
/// answer to a replica that did not ask. The answer reaches the replica
/// that asked (its question's id names it), the call runs there, and
/// the grant holds on the other replica. The call's stream, kept in the
/// shared store, replays on the other replica after the first event.
#[tokio::test]
async fn an_answer_posted_to_another_replica_reaches_the_one_that_asked() {
    let (one, two) = two_asking_replicas().await;
    let (a, b) = (one.local_addr(), two.local_addr());
    let session = eliciting_session(a).await;

    let mut calling = tokio::net::TcpStream::connect(a).await.unwrap();
    send_post(
        &mut calling,
        a,
        Some(&session),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_note","arguments":{"key":"a"}}}"#,
    )
    .await;
    let mut stream = String::new();
    read_until(&mut calling, &mut stream, "elicitation/create").await;
    let event = stream
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .find(|data| data.contains("elicitation/create"))
        .expect("the question");
    let question: Value = serde_json::from_str(event).unwrap();
    let id = question["id"].clone();
    assert!(id.is_string(), "the question's id names its replica: {id}");
    let first_event = stream
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("events carry ids")
        .trim()
        .to_owned();

    // The answer goes to the other replica.
    let answer = json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": { "action": "accept", "content": { "decision": "always" } },
    })
    .to_string();
    let mut answering = tokio::net::TcpStream::connect(b).await.unwrap();
    send_post(&mut answering, b, Some(&session), &answer).await;
    let mut accepted = String::new();
    read_until(&mut answering, &mut accepted, "\r\n\r\n").await;
    assert!(accepted.starts_with("HTTP/1.1 202"), "{accepted}");

    read_until(&mut calling, &mut stream, "wrote a").await;
    assert!(!stream.contains("\"isError\":true"), "{stream}");

    // The grant holds on the other replica: no question, the call runs.
    let mut again = tokio::net::TcpStream::connect(b).await.unwrap();
    send_post(
        &mut again,
        b,
        Some(&session),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_note","arguments":{"key":"a"}}}"#,
    )
    .await;
    let mut second = String::new();
    read_until(&mut again, &mut second, "wrote a").await;
    assert!(!second.contains("elicitation/create"), "{second}");

    // The first call's stream, resumed on the other replica after its
    // first event, replays the rest: the result.
    let mut resuming = tokio::net::TcpStream::connect(b).await.unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {b}\r\nAccept: text/event-stream\r\n\
         MCP-Protocol-Version: 2025-11-25\r\nmcp-session-id: {session}\r\n\
         Last-Event-ID: {first_event}\r\n\r\n"
    );
    resuming.write_all(get.as_bytes()).await.unwrap();
    let mut replay = String::new();
    read_until(&mut resuming, &mut replay, "wrote a").await;
    assert!(replay.contains("\"id\":1"), "{replay}");
    one.shutdown().await;
    two.shutdown().await;
}
