//! A scriptable MCP server written with rmcp directly (not our server),
//! reached in-process through a duplex stream: it lists whatever tools a
//! test gives it (hostile ones included), pages them, renames them and
//! says so, and can be killed mid-call. And (`ours`) our own server's
//! round trip through our own import.

#![allow(dead_code)]

mod ours;
pub use ours::served;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use registry_core::catalog::PluginRegistry;
use registry_core::mcp::{McpImport, McpServerConfig};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// The server's state, shared with the test.
#[derive(Default)]
pub struct FakeState {
    pub tools: Mutex<Vec<Tool>>,
    /// Tools per page (0: all on one page).
    pub page_size: usize,
    pub peer: Mutex<Option<Peer<RoleServer>>>,
    /// Names of the tools called, in order, as the server saw them.
    pub called: Mutex<Vec<String>>,
}

#[derive(Clone)]
pub struct FakeServer(pub Arc<FakeState>);

/// A tool from its JSON form (so a test can write any schema, any name).
pub fn tool(value: Value) -> Tool {
    serde_json::from_value(value).expect("a tool the test wrote")
}

/// A plain tool named `name`.
pub fn plain(name: &str) -> Tool {
    tool(
        json!({ "name": name, "description": format!("The `{name}` tool."), "inputSchema": { "type": "object" } }),
    )
}

impl FakeServer {
    pub fn new(tools: Vec<Tool>, page_size: usize) -> Self {
        FakeServer(Arc::new(FakeState {
            tools: Mutex::new(tools),
            page_size,
            ..FakeState::default()
        }))
    }

    /// Replaces the tool list and sends `notifications/tools/list_changed`.
    pub async fn replace_tools(&self, tools: Vec<Tool>) {
        *self.0.tools.lock().unwrap() = tools;
        let peer = self
            .0
            .peer
            .lock()
            .unwrap()
            .clone()
            .expect("client initialized");
        peer.notify_tool_list_changed().await.expect("notify");
    }

    /// Serves on one end of a duplex; returns the other end (for the
    /// importer) and the server task (abort it to crash the server).
    pub fn spawn(&self) -> (tokio::io::DuplexStream, tokio::task::JoinHandle<()>) {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let server = self.clone();
        let task = tokio::spawn(async move {
            if let Ok(running) = server.serve(ours).await {
                let _ = running.waiting().await;
            }
        });
        (theirs, task)
    }

    /// Spawns the server and imports it as `name`.
    pub async fn import(
        &self,
        registry: &PluginRegistry,
        name: &str,
        configure: impl FnOnce(McpServerConfig) -> McpServerConfig,
    ) -> (McpImport, tokio::task::JoinHandle<()>) {
        let (stream, task) = self.spawn();
        let import = McpImport::connect(registry, configure(McpServerConfig::io(name, stream)))
            .await
            .expect("import");
        (import, task)
    }
}

impl ServerHandler for FakeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_instructions("Ask for forecasts by city.")
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        *self.0.peer.lock().unwrap() = Some(context.peer);
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.0.tools.lock().unwrap().clone();
        let size = if self.0.page_size == 0 {
            tools.len().max(1)
        } else {
            self.0.page_size
        };
        let start: usize = request
            .and_then(|r| r.cursor)
            .map(|c| {
                c.parse()
                    .map_err(|_| ErrorData::invalid_params("bad cursor", None))
            })
            .transpose()?
            .unwrap_or(0);
        let end = (start + size).min(tools.len());
        let mut result = ListToolsResult::with_all_items(tools[start..end].to_vec());
        result.next_cursor = (end < tools.len()).then(|| end.to_string());
        Ok(result)
    }

    /// `hang` never answers; `fail` answers with an error result;
    /// `broken` with a protocol error; `blocks` with a non-text block;
    /// anything else echoes its name and arguments.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.0.called.lock().unwrap().push(request.name.to_string());
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        Ok(match request.name.as_ref() {
            // `steps` progress notifications `every` ms apart, then a
            // result; `steps: 0` reports progress forever.
            "progress" => {
                let steps = args.get("steps").and_then(Value::as_u64).unwrap_or(3);
                let every = args.get("every").and_then(Value::as_u64).unwrap_or(50);
                let token = context.meta.get_progress_token();
                let mut step = 0u64;
                while steps == 0 || step < steps {
                    tokio::time::sleep(Duration::from_millis(every)).await;
                    step += 1;
                    if let Some(token) = &token {
                        let mut note =
                            rmcp::model::ProgressNotificationParam::new(token.clone(), step as f64)
                                .with_message(format!("step {step}"));
                        if steps > 0 {
                            note = note.with_total(steps as f64);
                        }
                        let _ = context.peer.notify_progress(note).await;
                    }
                }
                CallToolResult::success(vec![ContentBlock::text(format!("done after {step}"))])
            }
            "hang" => {
                std::future::pending::<()>().await;
                unreachable!()
            }
            "fail" => CallToolResult::error(vec![ContentBlock::text("the fake server says no")]),
            "broken" => return Err(ErrorData::internal_error("the fake server broke", None)),
            "blocks" => CallToolResult::success(vec![
                ContentBlock::text("caption"),
                ContentBlock::image("aGk=", "image/png"),
            ]),
            name => CallToolResult::success(vec![ContentBlock::text(format!("{name} {args}"))]),
        }
        .into())
    }
}

/// Waits (bounded) until `done` holds, re-checking after every registry
/// change.
pub async fn until(registry: &PluginRegistry, mut done: impl FnMut() -> bool) {
    let mut changes = registry.subscribe();
    tokio::time::timeout(Duration::from_secs(20), async {
        while !done() {
            changes.changed().await.expect("registry alive");
        }
    })
    .await
    .expect("the condition held within 20 s");
}

/// Names of the registry's tools, sorted.
pub fn names(registry: &PluginRegistry) -> Vec<String> {
    let mut names: Vec<String> = registry
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    names.sort();
    names
}
