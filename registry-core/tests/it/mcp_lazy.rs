//! Lazy imports: a server's tools registered from its manifest with no
//! server running, the server started by the first call (once, however
//! many calls race), a failed start that is the call's error and is
//! retried after a backoff, drift between the manifest and the server,
//! a restart after the server exits, and manifests that round-trip or
//! are refused with a typed error.
//!
//! The servers are real child processes: `bash` relays its stdin and
//! stdout to a TCP connection to an rmcp server this test runs (so the
//! test decides what the server lists and can end a connection), and
//! appends a line to a file as it starts, so the number of starts is what
//! the operating system ran, not what the import says.

#![cfg(all(feature = "mcp", unix))]

use crate::mcp_support::{FakeServer, names, plain, tool};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use registry_core::catalog::{BaseTools, PluginRegistry};
use registry_core::mcp::{
    ManifestError, McpError, McpImport, McpManifest, McpServerConfig, StderrTo,
};
use registry_core::search::ToolSearchIndex;
use registry_core::{ToolContext, ToolHandle, ToolRegistry};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// An rmcp server on 127.0.0.1 that serves every connection: lists
/// `tools`, echoes calls, counts handshakes; `drop_connections` ends
/// every connection (the relaying child then exits).
#[derive(Clone)]
struct TcpServer(Arc<TcpState>);

struct TcpState {
    port: u16,
    tools: Mutex<Vec<Tool>>,
    initialized: AtomicUsize,
    connections: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl TcpServer {
    async fn start(tools: Vec<Tool>) -> TcpServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = TcpServer(Arc::new(TcpState {
            port: listener.local_addr().unwrap().port(),
            tools: Mutex::new(tools),
            initialized: AtomicUsize::new(0),
            connections: Mutex::new(Vec::new()),
        }));
        let accepting = server.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let handler = accepting.clone();
                let connection = tokio::spawn(async move {
                    if let Ok(running) = handler.serve(socket).await {
                        let _ = running.waiting().await;
                    }
                });
                accepting.0.connections.lock().unwrap().push(connection);
            }
        });
        server
    }

    fn handshakes(&self) -> usize {
        self.0.initialized.load(Ordering::SeqCst)
    }

    fn drop_connections(&self) {
        for connection in self.0.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }
}

impl ServerHandler for TcpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn on_initialized(&self, _context: NotificationContext<RoleServer>) {
        self.0.initialized.fetch_add(1, Ordering::SeqCst);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.0.tools.lock().unwrap().clone(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        Ok(
            CallToolResult::success(vec![ContentBlock::text(format!("{} {args}", request.name))])
                .into(),
        )
    }
}

/// Where a test's child processes say they started, and when they may.
struct Spawns {
    dir: tempfile::TempDir,
}

impl Spawns {
    fn new() -> Spawns {
        Spawns {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("started")
    }

    /// How many child processes have started.
    fn count(&self) -> usize {
        std::fs::read_to_string(self.log())
            .map(|text| text.lines().count())
            .unwrap_or(0)
    }

    /// While this file is missing, a child exits at once with status 3.
    fn gate(&self) -> PathBuf {
        self.dir.path().join("may-start")
    }

    fn open_gate(&self) {
        std::fs::write(self.gate(), "").unwrap();
    }

    /// A server named `name`: a child that logs its start, then exits with
    /// status 3 unless the gate is open, else relays to `port`.
    fn config(&self, name: &str, port: u16) -> McpServerConfig {
        const RELAY: &str = r#"echo "$$" >> "$LAZY_LOG"
if [ ! -e "$LAZY_GATE" ]; then echo 'no licence' >&2; exit 3; fi
exec 3<>"/dev/tcp/127.0.0.1/$LAZY_PORT" || exit 4
cat <&3 &
exec cat >&3"#;
        McpServerConfig::command(name, "/bin/bash", ["-c", RELAY])
            .env("LAZY_LOG", path(&self.log()))
            .env("LAZY_GATE", path(&self.gate()))
            .env("LAZY_PORT", port.to_string())
            .stderr(StderrTo::Discard)
            .connect_timeout(Duration::from_secs(10))
    }
}

fn path(path: &Path) -> String {
    path.display().to_string()
}

/// The manifest of `tools` for server `server`.
fn manifest(server: &str, tools: &[Tool]) -> McpManifest {
    McpManifest::from_definitions(
        server,
        tools.iter().map(|t| serde_json::to_value(t).unwrap()),
    )
    .unwrap()
}

fn handle(registry: &PluginRegistry, name: &str) -> ToolHandle {
    registry
        .get(name)
        .unwrap_or_else(|| panic!("`{name}` not registered; have {:?}", names(registry)))
}

fn schema_tool(name: &str, schema: Value) -> Tool {
    tool(
        json!({ "name": name, "description": format!("The `{name}` tool: find notes by text."), "inputSchema": schema }),
    )
}

#[tokio::test]
async fn a_lazy_import_lists_and_searches_its_tools_with_no_server_running() {
    let spawns = Spawns::new();
    spawns.open_gate();
    let server = TcpServer::start(vec![plain("search"), plain("archive")]).await;
    let registry = ToolRegistry::new(BaseTools::__from_handles(Vec::new()).unwrap());
    let import = McpImport::lazy(
        registry.plugins(),
        spawns.config("notes", server.0.port),
        manifest("notes", &[plain("search"), plain("archive")]),
    )
    .unwrap();

    assert_eq!(
        names(registry.plugins()),
        ["mcp__notes__archive", "mcp__notes__search"]
    );
    assert_eq!(import.tools().len(), 2);
    let search = handle(registry.plugins(), "mcp__notes__search");
    assert_eq!(
        search.spec().remote_origin().map(|o| o.tool()),
        Some("search")
    );
    // Untrusted: the strictest posture, as a live listing would give.
    assert!(search.prepare(json!({})).unwrap().is_destructive());
    let index = ToolSearchIndex::new(&registry);
    let found = index.explain("archive", 5).unwrap();
    assert_eq!(
        found.first().map(|hit| hit.tool.as_str()),
        Some("mcp__notes__archive"),
        "{found:?}"
    );
    let pool = registry.assemble_tool_pool(&registry_core::PermissionContext::new());
    assert!(pool.get("mcp__notes__search").is_some());

    assert!(!import.is_connected());
    assert_eq!(spawns.count(), 0, "no server started");
    assert_eq!(server.handshakes(), 0);
}

#[tokio::test]
async fn the_first_calls_start_exactly_one_server_even_when_they_race() {
    let spawns = Spawns::new();
    spawns.open_gate();
    let tools = vec![plain("a"), plain("b")];
    let server = TcpServer::start(tools.clone()).await;
    let registry = PluginRegistry::new();
    let import = McpImport::lazy(
        &registry,
        spawns.config("race", server.0.port),
        manifest("race", &tools),
    )
    .unwrap();

    let cx = ToolContext::new();
    let calls = (0..8).map(|i| {
        let tool = handle(
            &registry,
            if i % 2 == 0 {
                "mcp__race__a"
            } else {
                "mcp__race__b"
            },
        );
        let cx = cx.clone();
        async move { tool.call_json(json!({ "i": i }), &cx).await }
    });
    let results = futures_util::future::join_all(calls).await;
    for (i, result) in results.iter().enumerate() {
        let out = result
            .as_ref()
            .unwrap_or_else(|err| panic!("call {i}: {err}"));
        assert!(
            out.as_str().ends_with(&format!(r#"{{"i":{i}}}"#)),
            "{}",
            out.as_str()
        );
    }
    assert_eq!(
        spawns.count(),
        1,
        "one child process for eight racing calls"
    );
    assert_eq!(server.handshakes(), 1);
    assert!(import.is_connected());
    assert!(import.manifest_drift().is_none());

    // Later calls use the running server.
    handle(&registry, "mcp__race__a")
        .call_json(json!({}), &cx)
        .await
        .unwrap();
    assert_eq!(spawns.count(), 1);

    import.shutdown().await;
    assert!(names(&registry).is_empty(), "shut down, its tools go");
}

#[tokio::test]
async fn a_failed_start_is_that_calls_error_and_a_later_call_retries() {
    let spawns = Spawns::new();
    let server = TcpServer::start(vec![plain("a")]).await;
    let registry = PluginRegistry::new();
    let backoff = Duration::from_millis(300);
    let _import = McpImport::lazy(
        &registry,
        spawns
            .config("flaky", server.0.port)
            .start_backoff(backoff, Duration::from_secs(5)),
        manifest("flaky", &[plain("a")]),
    )
    .unwrap();
    let a = handle(&registry, "mcp__flaky__a");
    let cx = ToolContext::new();

    let first = a.call_json(json!({}), &cx).await.unwrap_err().to_string();
    assert!(first.contains("MCP server `flaky`"), "{first}");
    assert!(first.contains("no licence"), "says why: {first}");
    assert_eq!(spawns.count(), 1);

    // Within the backoff: the same failure at once, no new process.
    let second = a.call_json(json!({}), &cx).await.unwrap_err().to_string();
    assert!(
        second.contains("no licence") && second.contains("the next is tried"),
        "{second}"
    );
    assert_eq!(spawns.count(), 1, "not respawned within the backoff");
    assert!(
        names(&registry).contains(&"mcp__flaky__a".to_owned()),
        "a failed start leaves the tools registered"
    );

    tokio::time::sleep(backoff + Duration::from_millis(100)).await;
    spawns.open_gate();
    let third = a.call_json(json!({ "x": 1 }), &cx).await.unwrap();
    assert_eq!(third.as_str(), r#"a {"x":1}"#);
    assert_eq!(spawns.count(), 2);
    assert_eq!(server.handshakes(), 1);
}

#[tokio::test]
async fn drift_is_detected_and_the_registrations_follow_the_server() {
    let spawns = Spawns::new();
    spawns.open_gate();
    let object = json!({ "type": "object" });
    let with_q = json!({ "type": "object", "properties": { "q": { "type": "string" } } });
    let pinned = vec![
        plain("same"),
        schema_tool("reshaped", object.clone()),
        plain("gone"),
    ];
    let listed = vec![plain("same"), schema_tool("reshaped", with_q), plain("new")];
    let server = TcpServer::start(listed).await;
    let registry = PluginRegistry::new();
    let import = McpImport::lazy(
        &registry,
        spawns.config("drifty", server.0.port),
        manifest("drifty", &pinned),
    )
    .unwrap();
    let old_reshaped = handle(&registry, "mcp__drifty__reshaped");
    let old_gone = handle(&registry, "mcp__drifty__gone");
    let cx = ToolContext::new();

    // An unchanged tool's call starts the server and proceeds.
    let out = handle(&registry, "mcp__drifty__same")
        .call_json(json!({}), &cx)
        .await
        .unwrap();
    assert_eq!(out.as_str(), "same {}");
    let drift = import.manifest_drift().expect("drift detected");
    assert_eq!(drift.added, ["new"]);
    assert_eq!(drift.removed, ["gone"]);
    assert_eq!(drift.changed, ["reshaped"]);
    assert_eq!(drift.expected, manifest("drifty", &pinned).digest());
    assert_ne!(drift.listed, drift.expected);
    assert_eq!(
        names(&registry),
        [
            "mcp__drifty__new",
            "mcp__drifty__reshaped",
            "mcp__drifty__same"
        ]
    );
    let reshaped = handle(&registry, "mcp__drifty__reshaped");
    assert!(!reshaped.ptr_eq(&old_reshaped), "registered anew");
    assert_eq!(reshaped.input_schema()["properties"]["q"]["type"], "string");
    assert_eq!(import.manifest().digest(), drift.listed);

    // A call checked against the old definition does not go through.
    let err = old_reshaped
        .call_json(json!({}), &cx)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("defines `mcp__drifty__reshaped` differently"),
        "{err}"
    );
    let err = old_gone
        .call_json(json!({}), &cx)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("no longer offers"), "{err}");
    let out = reshaped.call_json(json!({ "q": "x" }), &cx).await.unwrap();
    assert_eq!(out.as_str(), r#"reshaped {"q":"x"}"#);
    assert_eq!(spawns.count(), 1);
}

#[tokio::test]
async fn after_the_server_exits_its_tools_stay_and_the_next_call_starts_it_again() {
    let spawns = Spawns::new();
    spawns.open_gate();
    let server = TcpServer::start(vec![plain("a")]).await;
    let registry = PluginRegistry::new();
    let import = McpImport::lazy(
        &registry,
        spawns.config("phoenix", server.0.port),
        manifest("phoenix", &[plain("a")]),
    )
    .unwrap();
    let a = handle(&registry, "mcp__phoenix__a");
    let cx = ToolContext::new();
    a.call_json(json!({}), &cx).await.unwrap();
    assert!(import.is_connected());

    server.drop_connections();
    tokio::time::timeout(Duration::from_secs(20), import.disconnected())
        .await
        .expect("the exit is noticed");
    assert_eq!(names(&registry), ["mcp__phoenix__a"], "still registered");
    assert!(a.ptr_eq(&handle(&registry, "mcp__phoenix__a")));

    let out = a.call_json(json!({ "again": true }), &cx).await.unwrap();
    assert_eq!(out.as_str(), r#"a {"again":true}"#);
    assert_eq!(spawns.count(), 2);
    assert_eq!(server.handshakes(), 2);
    assert!(import.is_connected());
}

#[tokio::test]
async fn a_manifest_round_trips_into_the_same_tools_and_refusals() {
    let listed = vec![
        plain("search"),
        tool(json!({ "name": "listy", "inputSchema": { "type": "object", "properties": [] } })),
        tool(json!({
            "name": "read",
            "description": "Read a note.",
            "inputSchema": { "type": "object" },
            "annotations": { "readOnlyHint": true },
            "_meta": { "anthropic/alwaysLoad": true }
        })),
    ];
    let live_registry = PluginRegistry::new();
    let (live, _server) = FakeServer::new(listed, 0)
        .import(&live_registry, "notes", |c| c.trusted(true))
        .await;
    let saved = live.manifest();
    assert_eq!(saved.len(), 3, "refused tools are kept too");
    let text = saved.to_json();
    let read = McpManifest::from_json(&text).unwrap();
    assert_eq!(read, saved);
    assert_eq!(read.to_json(), text, "byte-stable");

    let lazy_registry = PluginRegistry::new();
    let (stream, _unused) = FakeServer::new(Vec::new(), 0).spawn();
    let lazy = McpImport::lazy(
        &lazy_registry,
        McpServerConfig::io("notes", stream).trusted(true),
        read,
    )
    .unwrap();
    assert_eq!(lazy.tools(), live.tools());
    assert_eq!(lazy.refused(), live.refused());
    for name in live.tools().keys() {
        let (a, b) = (handle(&live_registry, name), handle(&lazy_registry, name));
        assert_eq!(a.spec().posture(), b.spec().posture(), "{name}");
        assert_eq!(a.spec().description(), b.spec().description(), "{name}");
        assert_eq!(a.input_schema(), b.input_schema(), "{name}");
        assert_eq!(live.definition(name), lazy.definition(name), "{name}");
    }
    assert!(!lazy.is_connected());
}

#[tokio::test]
async fn a_corrupt_or_foreign_manifest_is_a_typed_error() {
    let good = manifest("notes", &[plain("search")]);
    let text = good.to_json();

    assert!(matches!(
        McpManifest::from_json("{ not json"),
        Err(ManifestError::Syntax { .. })
    ));
    let future = text.replace("\"version\": 1", "\"version\": 2");
    match McpManifest::from_json(&future) {
        Err(err @ ManifestError::UnsupportedVersion { .. }) => {
            let message = err.to_string();
            assert!(
                message.contains("of server `notes`") && message.contains("version 2"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    let edited = text.replace("The `search` tool.", "The `search` tool, now harmless.");
    assert_ne!(edited, text);
    match McpManifest::from_json(&edited) {
        Err(ManifestError::DigestMismatch {
            server,
            recorded,
            computed,
        }) => {
            assert_eq!(server, "notes");
            assert_eq!(recorded, good.digest());
            assert_ne!(computed, recorded);
        }
        other => panic!("{other:?}"),
    }
    let mut document: Value = serde_json::from_str(&text).unwrap();
    document["tools"][0] = json!({ "description": "no name" });
    match McpManifest::from_json(&document.to_string()) {
        Err(ManifestError::Invalid { server, at, .. }) => {
            assert_eq!(server.as_deref(), Some("notes"));
            assert_eq!(at, "tools[0]");
        }
        other => panic!("{other:?}"),
    }
    let mut document: Value = serde_json::from_str(&text).unwrap();
    document.as_object_mut().unwrap().remove("digest");
    match McpManifest::from_json(&document.to_string()) {
        Err(err @ ManifestError::Invalid { .. }) => {
            assert!(err.to_string().contains("digest"), "{err}");
        }
        other => panic!("{other:?}"),
    }

    let registry = PluginRegistry::new();
    let (stream, _unused) = FakeServer::new(Vec::new(), 0).spawn();
    match McpImport::lazy(&registry, McpServerConfig::io("other", stream), good) {
        Err(McpError::Manifest {
            server,
            source:
                ManifestError::ServerMismatch {
                    manifest,
                    configured,
                },
        }) => {
            assert_eq!(
                (server.as_str(), manifest.as_str(), configured.as_str()),
                ("other", "notes", "other")
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(registry.is_empty());
}

#[tokio::test]
async fn a_huge_description_is_kept_cut() {
    let huge = "é".repeat(5_000_000);
    let registry = PluginRegistry::new();
    let (import, _server) = FakeServer::new(
        vec![tool(
            json!({ "name": "wordy", "description": huge, "inputSchema": { "type": "object" } }),
        )],
        0,
    )
    .import(&registry, "hostile", |c| c)
    .await;
    let kept = import.definition("mcp__hostile__wordy").expect("imported");
    let description = kept["description"].as_str().unwrap();
    assert_eq!(description.chars().count(), 2048);
    assert!(
        description.ends_with("of 5000000 characters shown]"),
        "{}",
        &description[description.len() - 80..]
    );
    assert_eq!(
        handle(&registry, "mcp__hostile__wordy")
            .spec()
            .description(),
        description,
        "the tool and its kept definition say the same"
    );
    let saved = import.manifest();
    assert_eq!(saved.definitions()[0]["description"], description);
    assert!(saved.to_json().len() < 20_000);
}

/// A call dropped while its start is under way (its turn cancelled, its
/// timeout) does not cut the start off: the start finishes on its own, and
/// the next call finds the server up, started once.
#[tokio::test]
async fn a_call_dropped_during_the_start_leaves_the_server_started() {
    let spawns = Spawns::new();
    spawns.open_gate();
    let tools = vec![plain("a")];
    let server = TcpServer::start(tools.clone()).await;
    let registry = PluginRegistry::new();
    let import = McpImport::lazy(
        &registry,
        spawns.config("dropped", server.0.port),
        manifest("dropped", &tools),
    )
    .unwrap();
    let cx = ToolContext::new();
    let tool = handle(&registry, "mcp__dropped__a");
    let first = tool.call_json(json!({ "first": true }), &cx);
    tokio::select! {
        result = first => panic!("the first call ended before it was dropped: {result:?}"),
        () = async {
            // Dropped once the child exists: mid-start.
            while spawns.count() == 0 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        } => {}
    }
    let out = tool
        .call_json(json!({ "second": true }), &cx)
        .await
        .unwrap_or_else(|err| panic!("the call after a dropped start: {err}"));
    assert!(
        out.as_str().ends_with(r#"{"second":true}"#),
        "{}",
        out.as_str()
    );
    assert_eq!(
        spawns.count(),
        1,
        "the dropped call's start served the next"
    );
    assert!(import.is_connected());
    import.shutdown().await;
}
