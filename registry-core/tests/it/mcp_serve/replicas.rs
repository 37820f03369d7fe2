//! Replicas sharing an in-memory store, over real HTTP: a call lost with
//! its replica ends with an error result on another, concurrent calls of
//! one session on two replicas both keep their changes, a stateless
//! conversation's handle answers only the caller it is bound to, and a
//! replica that cannot restore a session answers a JSON-RPC error that
//! names the store.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use registry_core::mcp::{HttpOptions, HttpServerHandle, McpServer};
use registry_core::session::{ContextModifier, MemorySessionStore, SessionStore, StoreLimits};
use registry_core::{Json, Tool, ToolContext, ToolHandle, ToolRegistry, catalog::BaseTools, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{Switchable, exchange, message_of, raw_session};

#[derive(Deserialize, JsonSchema)]
struct SetInput {
    /// The key to set.
    key: String,
    /// How long to take first, in milliseconds.
    #[serde(default)]
    wait_ms: u64,
}

/// Set a key of the session state to `true`, after a while.
#[tool(name = "set_key", read_only = true, concurrency_safe = true)]
struct SetKey;

impl Tool for SetKey {
    type Input = SetInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: SetInput, cx: &ToolContext) -> Result<String, Self::Error> {
        tokio::time::sleep(Duration::from_millis(input.wait_ms)).await;
        cx.modify_session(ContextModifier::set(input.key.clone(), json!(true)));
        Ok(format!("set {}", input.key))
    }
}

#[derive(Deserialize, JsonSchema)]
struct Nothing {}

/// The session state's keys.
#[tool(name = "keys", read_only = true)]
struct Keys;

impl Tool for Keys {
    type Input = Nothing;
    type Output = Json<Vec<String>>;
    type Error = std::convert::Infallible;

    async fn call(&self, _input: Nothing, cx: &ToolContext) -> Result<Self::Output, Self::Error> {
        let keys = cx
            .session_state()
            .map(|state| state.values().keys().cloned().collect())
            .unwrap_or_default();
        Ok(Json(keys))
    }
}

fn registry() -> Arc<ToolRegistry> {
    Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![ToolHandle::new(SetKey), ToolHandle::new(Keys)]).unwrap(),
    ))
}

/// A replica's own view of the shared store, which the test can cut off
/// (the replica dies: it can no longer renew anything).
fn view(shared: &Arc<MemorySessionStore>) -> Arc<Switchable> {
    Arc::new(Switchable {
        inner: Arc::clone(shared),
        down: AtomicBool::new(false),
    })
}

async fn serve(registry: &Arc<ToolRegistry>, store: Arc<Switchable>) -> HttpServerHandle {
    serve_with(
        registry,
        store,
        HttpOptions::new("127.0.0.1:0".parse().unwrap()),
    )
    .await
}

async fn serve_with(
    registry: &Arc<ToolRegistry>,
    store: Arc<Switchable>,
    options: HttpOptions,
) -> HttpServerHandle {
    McpServer::new(Arc::clone(registry).executor())
        .with_session_store(store, StoreLimits::default())
        .serve_http(options)
        .await
        .unwrap()
}

/// The keys a `keys` call answered with.
fn keys_of(answer: &Value) -> Value {
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("not a result: {answer}"));
    serde_json::from_str(text).unwrap()
}

fn call_of(id: u32, name: &str, args: Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": name, "arguments": args } })
    .to_string()
}

/// Reads an HTTP response until its body holds `until` (or the stream
/// ends), within a generous bound.
async fn read_until(socket: &mut tokio::net::TcpStream, until: &str) -> String {
    let mut response = Vec::new();
    let mut buf = [0u8; 4096];
    let read = async {
        loop {
            let n = socket.read(&mut buf).await.unwrap();
            response.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&response);
            if n == 0 || text.contains(until) || text.ends_with("\r\n0\r\n\r\n") {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .unwrap_or_else(|_| panic!("hung: {}", String::from_utf8_lossy(&response)));
    String::from_utf8_lossy(&response).into_owned()
}

/// A replica running a call dies: the client resumes the call's stream on
/// another replica, which follows it while the call's lease is live and
/// then answers it with an error result: the replica was lost, the call
/// may have run. (The time it took is printed, not asserted.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_lost_with_its_replica_ends_with_an_error_result_on_another() {
    let registry = registry();
    let shared = Arc::new(MemorySessionStore::new());
    let (view_one, view_two) = (view(&shared), view(&shared));
    let one = serve(&registry, Arc::clone(&view_one)).await;
    let two = serve(&registry, view_two).await;
    let (a, b) = (one.local_addr(), two.local_addr());
    let mut to_one = tokio::net::TcpStream::connect(a).await.unwrap();
    let session = raw_session(&mut to_one, a).await;

    // A long call on the first replica; its stream's first event names it.
    let body = call_of(7, "set_key", json!({ "key": "k", "wait_ms": 60_000 }));
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {a}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nmcp-session-id: {session}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    to_one.write_all(request.as_bytes()).await.unwrap();
    let opened = read_until(&mut to_one, "retry:").await;
    let last_event_id = opened
        .lines()
        .find_map(|line| line.strip_prefix("id: "))
        .unwrap_or_else(|| panic!("no event id: {opened}"))
        .trim()
        .to_owned();
    assert!(
        last_event_id.contains('~'),
        "the id names its call: {last_event_id}"
    );
    // The stream opens before the call starts; wait until its replica holds
    // the call's lease (`{<session>}call:<id>`, see docs/serving.md).
    let lease = format!("{{{session}}}call:7");
    let waited = async {
        while shared.lease(&lease).await.unwrap().is_none() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(20), waited)
        .await
        .expect("the call took its lease");

    // The replica dies: it answers nothing more and renews nothing.
    let died = Instant::now();
    view_one.down.store(true, Ordering::SeqCst);
    one.shutdown().await;
    drop(to_one);

    let mut to_two = tokio::net::TcpStream::connect(b).await.unwrap();
    let resume = format!(
        "GET /mcp HTTP/1.1\r\nHost: {b}\r\nAccept: text/event-stream\r\n\
         mcp-session-id: {session}\r\nLast-Event-ID: {last_event_id}\r\n\r\n"
    );
    to_two.write_all(resume.as_bytes()).await.unwrap();
    let answered = read_until(&mut to_two, "\"isError\":true").await;
    eprintln!(
        "the lost call ended {:?} after its replica died",
        died.elapsed()
    );
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
    let answer = message_of(&answered);
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("was lost") && text.contains("may have run"),
        "{text}"
    );
    two.shutdown().await;
}

/// Two calls of one session run at once on two replicas, each setting its
/// own key: the record keeps both (the second save merges per key).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_on_two_replicas_keep_both_changes() {
    let registry = registry();
    let shared = Arc::new(MemorySessionStore::new());
    let one = serve(&registry, view(&shared)).await;
    let two = serve(&registry, view(&shared)).await;
    let (a, b) = (one.local_addr(), two.local_addr());
    let mut to_one = tokio::net::TcpStream::connect(a).await.unwrap();
    let mut to_two = tokio::net::TcpStream::connect(b).await.unwrap();
    let session = raw_session(&mut to_one, a).await;
    // The second replica takes the session first (a quick call), so both
    // calls below start from the same record.
    let warm = call_of(1, "keys", json!({}));
    exchange(&mut to_two, b, Some(&session), &warm).await;

    let set_x = call_of(2, "set_key", json!({ "key": "x", "wait_ms": 300 }));
    let set_y = call_of(3, "set_key", json!({ "key": "y", "wait_ms": 300 }));
    let (x, y) = tokio::join!(
        exchange(&mut to_one, a, Some(&session), &set_x),
        exchange(&mut to_two, b, Some(&session), &set_y),
    );
    assert!(x.contains("set x") && y.contains("set y"), "{x}\n{y}");
    for (socket, addr) in [(&mut to_one, a), (&mut to_two, b)] {
        let keys = exchange(socket, addr, Some(&session), &call_of(4, "keys", json!({}))).await;
        assert_eq!(keys_of(&message_of(&keys)), json!(["x", "y"]));
    }
    one.shutdown().await;
    two.shutdown().await;
}

/// One 2026-07-28 request with a bearer token: the JSON-RPC message it
/// answered with.
async fn stateless(
    addr: SocketAddr,
    token: &str,
    id: u32,
    name: &str,
    handle: Option<&str>,
) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "raw", "version": "1" },
    });
    if let Some(handle) = handle {
        meta["tool-registry.dev/conversation"] = json!(handle);
    }
    let args = match name {
        "set_key" => json!({ "key": "mine" }),
        _ => json!({}),
    };
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": { "name": name, "arguments": args, "_meta": meta } })
    .to_string();
    let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {name}\r\nAuthorization: Bearer {token}\r\n\
         Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    socket.read_to_string(&mut response).await.unwrap();
    message_of(&response)
}

/// With callers told apart by their bearer tokens, a conversation's handle
/// answers the caller that started it and is refused, with a JSON-RPC
/// error saying why, to another.
#[tokio::test]
async fn a_conversation_handle_answers_only_its_own_caller() {
    let registry = registry();
    let shared = Arc::new(MemorySessionStore::new());
    let options = HttpOptions::new("127.0.0.1:0".parse().unwrap())
        .bearer_token("alice-token")
        .bearer_token("bob-token");
    let http = serve_with(&registry, view(&shared), options).await;
    let addr = http.local_addr();

    let started = stateless(addr, "alice-token", 1, "set_key", None).await;
    let handle = started["result"]["_meta"]["tool-registry.dev/conversation"]
        .as_str()
        .unwrap_or_else(|| panic!("no handle: {started}"))
        .to_owned();
    let own = stateless(addr, "alice-token", 2, "keys", Some(&handle)).await;
    assert_eq!(keys_of(&own), json!(["mine"]));

    let stolen = stateless(addr, "bob-token", 3, "keys", Some(&handle)).await;
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    let message = stolen["error"]["message"].as_str().unwrap();
    assert!(message.contains("belongs to another caller"), "{message}");
    // Bob's own conversation is his.
    let fresh = stateless(addr, "bob-token", 4, "keys", None).await;
    assert_eq!(keys_of(&fresh), json!([]));
    http.shutdown().await;
}

/// A replica that never saw a session cannot restore it while the store
/// is down: the client gets a JSON-RPC error naming the store, not a bare
/// HTTP 500.
#[tokio::test]
async fn a_session_that_cannot_be_restored_is_a_json_rpc_error_naming_the_store() {
    let registry = registry();
    let shared = Arc::new(MemorySessionStore::new());
    let store = view(&shared);
    let one = serve(&registry, Arc::clone(&store)).await;
    let two = serve(&registry, Arc::clone(&store)).await;
    let (a, b) = (one.local_addr(), two.local_addr());
    let mut to_one = tokio::net::TcpStream::connect(a).await.unwrap();
    let session = raw_session(&mut to_one, a).await;
    store.down.store(true, Ordering::SeqCst);
    let mut to_two = tokio::net::TcpStream::connect(b).await.unwrap();
    let refused = exchange(
        &mut to_two,
        b,
        Some(&session),
        &call_of(9, "keys", json!({})),
    )
    .await;
    assert!(refused.starts_with("HTTP/1.1 200"), "{refused}");
    let error = message_of(&refused);
    assert_eq!(error["id"], 9, "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("the session store `switchable` is unavailable"),
        "{message}"
    );
    one.shutdown().await;
    two.shutdown().await;
}
