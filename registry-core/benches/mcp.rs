//! MCP round trips: our server against rmcp's own `#[tool_router]` server
//! serving the same trivial tool, measured in one run.
//!
//! `cargo bench -p registry-core --features mcp --bench mcp`
//!
//! - `call_stdio`: one `tools/call` of `add` (two integers in, their sum
//!   out) over an in-memory duplex: the byte stream stdio gives, without
//!   a process in the way. `ours` runs the call through the executor
//!   (resolve, parse, classify, permission pipeline, cap); `rmcp` runs
//!   rmcp's router (parse, call).
//! - `call_http`: the same call over streamable HTTP on loopback (a fresh
//!   TCP connection per request is the client's choice, the same for
//!   both). Both servers sit behind the same hyper accept loop;
//!   `ours` is [`McpServer::serve_http`].
//! - `list_1000`: `tools/list` of 1,000 tools on one page: `ours` serves
//!   the cached render (parsed once per pool generation), `rmcp` lists its
//!   router's 1,000 routes.
//!
//! Both sides are driven by the same rmcp client on a multi-thread
//! runtime; under `cargo test --benches` divan runs each once.

use std::convert::Infallible;
use std::num::NonZeroUsize;
use std::sync::{Arc, LazyLock};

use divan::Bencher;
use registry_core::mcp::{HttpOptions, McpServer};
use registry_core::{
    Tool, ToolBuilder, ToolContext, ToolHandle, ToolOutput, ToolRegistry, catalog::BaseTools, tool,
};
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{
    StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{RoleClient, ServerHandler, ServiceExt, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

fn main() {
    divan::main();
}

#[derive(Deserialize, JsonSchema)]
struct AddInput {
    a: i64,
    b: i64,
}

/// Add two integers.
#[tool(name = "add", read_only = true, concurrency_safe = true)]
struct Add;

impl Tool for Add {
    type Input = AddInput;
    type Output = String;
    type Error = Infallible;

    async fn call(&self, input: AddInput, _cx: &ToolContext) -> Result<String, Infallible> {
        Ok((input.a + input.b).to_string())
    }
}

/// rmcp's own server with the same tool.
#[derive(Clone)]
struct RmcpAdd {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl RmcpAdd {
    fn new() -> Self {
        RmcpAdd {
            tool_router: Self::tool_router(),
        }
    }

    #[rmcp::tool(description = "Add two integers.")]
    fn add(&self, Parameters(AddInput { a, b }): Parameters<AddInput>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpAdd {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

static RT: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
});

type Client = RunningService<RoleClient, ()>;

fn our_server(tools: Vec<ToolHandle>, page: usize) -> McpServer {
    let base = BaseTools::__from_handles(tools).expect("valid tools");
    McpServer::new(ToolRegistry::new(base).executor())
        .with_page_size(NonZeroUsize::new(page).expect("page size"))
}

fn duplex_client_of_ours(server: McpServer) -> Client {
    RT.block_on(async {
        let (a, b) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move { server.serve_io(a).await });
        ().serve(b).await.expect("handshake")
    })
}

fn duplex_client_of<S: ServerHandler + Send + 'static>(server: S) -> Client {
    RT.block_on(async {
        let (a, b) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(a).await {
                let _ = running.waiting().await;
            }
        });
        ().serve(b).await.expect("handshake")
    })
}

fn http_client(url: String) -> Client {
    // reqwest's rustls has no provider of its own here (the crate's
    // import installs ring the same way before its first client).
    let _ = rustls::crypto::ring::default_provider().install_default();
    RT.block_on(async {
        ().serve(StreamableHttpClientTransport::from_uri(url))
            .await
            .expect("handshake")
    })
}

/// rmcp's HTTP service behind a plain hyper accept loop.
fn rmcp_http<S: ServerHandler + Clone + Send + Sync + 'static>(server: S) -> String {
    RT.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let service = service.clone();
                tokio::spawn(async move {
                    let handler = hyper::service::service_fn(move |request| {
                        let service = service.clone();
                        async move { Ok::<_, Infallible>(service.handle(request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), handler)
                        .await;
                });
            }
        });
        format!("http://{addr}/mcp")
    })
}

fn add_call() -> CallToolRequestParams {
    let args = json!({ "a": 2, "b": 3 });
    CallToolRequestParams::new("add").with_arguments(args.as_object().cloned().unwrap_or_default())
}

fn call_once(client: &Client) -> CallToolResult {
    RT.block_on(client.peer().call_tool(add_call()))
        .expect("a result")
}

fn bench_calls(bencher: Bencher, client: Client) {
    let first = call_once(&client);
    assert_eq!(first.is_error, Some(false), "{first:?}");
    bencher.bench_local(|| call_once(&client));
}

mod call_stdio {
    use super::*;

    #[divan::bench]
    fn ours(bencher: Bencher) {
        bench_calls(
            bencher,
            duplex_client_of_ours(our_server(vec![ToolHandle::new(Add)], 100)),
        );
    }

    #[divan::bench]
    fn rmcp(bencher: Bencher) {
        bench_calls(bencher, duplex_client_of(RmcpAdd::new()));
    }
}

mod call_http {
    use super::*;

    #[divan::bench]
    fn ours(bencher: Bencher) {
        let server = our_server(vec![ToolHandle::new(Add)], 100);
        let handle = RT
            .block_on(server.serve_http(HttpOptions::new("127.0.0.1:0".parse().expect("addr"))))
            .expect("serve");
        bench_calls(bencher, http_client(handle.url()));
        RT.block_on(handle.shutdown());
    }

    #[divan::bench]
    fn rmcp(bencher: Bencher) {
        bench_calls(bencher, http_client(rmcp_http(RmcpAdd::new())));
    }
}

const TOOLS: usize = 1_000;

/// rmcp's router with 1,000 routes (what `#[tool_router]` builds, built
/// at run time: no macro makes a thousand methods).
#[derive(Clone)]
struct RmcpMany {
    tool_router: ToolRouter<Self>,
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpMany {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn schema() -> Arc<serde_json::Map<String, serde_json::Value>> {
    let schema = json!({ "type": "object", "properties": { "a": { "type": "integer" } } });
    Arc::new(schema.as_object().cloned().unwrap_or_default())
}

fn rmcp_many() -> RmcpMany {
    let mut tool_router = ToolRouter::new();
    for i in 0..TOOLS {
        tool_router.add_route(ToolRoute::new_dyn(
            McpTool::new(
                format!("tool_{i:04}"),
                format!("Tool number {i}."),
                schema(),
            ),
            |_ctx| Box::pin(async { Ok(CallToolResult::default().into()) }),
        ));
    }
    RmcpMany { tool_router }
}

fn our_many() -> Vec<ToolHandle> {
    (0..TOOLS)
        .map(|i| {
            ToolBuilder::new(format!("tool_{i:04}"), format!("Tool number {i}."))
                .input_schema(
                    json!({ "type": "object", "properties": { "a": { "type": "integer" } } }),
                )
                .build(|_, _| async { Ok(ToolOutput::text("")) })
                .expect("valid tool")
        })
        .collect()
}

fn bench_list(bencher: Bencher, client: Client) {
    let first = RT.block_on(client.peer().list_tools(None)).expect("list");
    assert_eq!(first.tools.len(), TOOLS);
    assert!(first.next_cursor.is_none());
    bencher.bench_local(|| RT.block_on(client.peer().list_tools(None)).expect("list"));
}

mod list_1000 {
    use super::*;

    #[divan::bench]
    fn ours(bencher: Bencher) {
        bench_list(
            bencher,
            duplex_client_of_ours(our_server(our_many(), TOOLS)),
        );
    }

    #[divan::bench]
    fn rmcp(bencher: Bencher) {
        bench_list(bencher, duplex_client_of(rmcp_many()));
    }
}
