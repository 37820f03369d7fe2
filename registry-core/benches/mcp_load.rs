//! Load over MCP streamable HTTP on loopback: N sessions × M sequential
//! `tools/call`s each, against this crate's `McpServer::serve_http` and,
//! side by side in the same run, rmcp's own `#[tool_router]` server with
//! the same `add` tool behind rmcp's `StreamableHttpService` (accepted the
//! same way, `TCP_NODELAY` on, as `axum::serve` does).
//!
//! Each server runs in a child process (this binary, re-run with `serve`),
//! so its resident memory is its own: sampled while the load runs (the
//! peak is reported), and again after every session was ended with
//! `DELETE` and the server had a moment to free them. The clients are
//! plain keep-alive HTTP/1.1 sockets, one per session, as the Python and
//! TypeScript SDKs' clients are.
//!
//! `cargo bench -p registry-core --features mcp --bench mcp_load`
//! (`-- SESSIONS CALLS` to change the load; default 20 × 200, and one
//! session × 200 calls for sequential latency). Under `cargo test
//! --benches` it runs a tiny load once and reports nothing.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use registry_core::mcp::{HttpOptions, McpServer};
use registry_core::{ToolHandle, ToolRegistry};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;

// ---------------------------------------------------------------- the tool

/// rmcp's idiomatic server with the same tool.
#[derive(Clone)]
struct Calculator {
    #[allow(dead_code)]
    tool_router: ToolRouter<Self>,
}

#[rmcp::tool_router(server_handler)]
impl Calculator {
    /// Add two numbers.
    #[rmcp::tool(description = "Add two numbers.")]
    async fn add(&self, Parameters(input): Parameters<AddInput>) -> String {
        (input.a + input.b).to_string()
    }
}

// ---------------------------------------------------------------- servers

async fn serve_ours() -> SocketAddr {
    let registry = Arc::new(ToolRegistry::new(
        registry_core::catalog::BaseTools::__from_handles(vec![ToolHandle::new(Add)])
            .expect("catalog"),
    ));
    let server = McpServer::new(registry.executor());
    let handle = server
        .serve_http(HttpOptions::new("127.0.0.1:0".parse().unwrap()))
        .await
        .expect("bind");
    let addr = handle.local_addr();
    std::mem::forget(handle);
    addr
}

async fn serve_rmcp() -> SocketAddr {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let service = StreamableHttpService::new(
        || {
            Ok(Calculator {
                tool_router: Calculator::tool_router(),
            })
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let service = service.clone();
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request| {
                    let service = service.clone();
                    async move { Ok::<_, std::convert::Infallible>(service.handle(request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), handler)
                    .await;
            });
        }
    });
    addr
}

/// `serve ours|rmcp`: serve, print the address, run until killed.
fn serve(which: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let addr = match which {
            "ours" => serve_ours().await,
            _ => serve_rmcp().await,
        };
        println!("{addr}");
        std::future::pending::<()>().await;
    });
}

// ---------------------------------------------------------------- clients

#[path = "support/http_load.rs"]
mod http_load;
use http_load::{Add, AddInput, percentile, session};

/// The resident memory of process `pid`, in KiB (Linux).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

struct Report {
    name: &'static str,
    sequential_p50: Duration,
    calls_per_s: f64,
    p50: Duration,
    p99: Duration,
    errors: usize,
    peak_rss_mib: f64,
    after_rss_mib: f64,
}

fn measure(name: &'static str, which: &str, sessions: usize, calls: usize) -> Report {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["serve", which])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("server child");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let addr: SocketAddr = line.trim().parse().expect("the child's address");
    let pid = child.id();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let report = runtime.block_on(async move {
        // Sequential latency: one session alone.
        let (mut alone, _) = session(addr, calls).await;
        alone.sort();
        let sampling = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let sampler = {
            let sampling = Arc::clone(&sampling);
            tokio::spawn(async move {
                let mut peak = 0;
                while sampling.load(std::sync::atomic::Ordering::Relaxed) {
                    peak = peak.max(rss_kib(pid).unwrap_or(0));
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                peak
            })
        };
        let start = Instant::now();
        let runs: Vec<_> = (0..sessions)
            .map(|_| tokio::spawn(session(addr, calls)))
            .collect();
        let mut times = Vec::with_capacity(sessions * calls);
        let mut errors = 0;
        for run in runs {
            let (t, e) = run.await.unwrap();
            times.extend(t);
            errors += e;
        }
        let elapsed = start.elapsed();
        sampling.store(false, std::sync::atomic::Ordering::Relaxed);
        let peak = sampler.await.unwrap();
        tokio::time::sleep(Duration::from_secs(2)).await;
        let after = rss_kib(pid).unwrap_or(0);
        times.sort();
        Report {
            name,
            sequential_p50: percentile(&alone, 0.5),
            calls_per_s: times.len() as f64 / elapsed.as_secs_f64(),
            p50: percentile(&times, 0.5),
            p99: percentile(&times, 0.99),
            errors,
            peak_rss_mib: peak as f64 / 1024.0,
            after_rss_mib: after as f64 / 1024.0,
        }
    });
    let _ = child.kill();
    let _ = child.wait();
    report
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("serve") {
        serve(args.get(1).map_or("ours", String::as_str));
        return;
    }
    let benching = args.iter().any(|a| a == "--bench");
    let numbers: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let (sessions, calls) = match (benching, numbers.as_slice()) {
        (_, [s, c, ..]) => (*s, *c),
        (true, _) => (20, 200),
        // `cargo test --benches`: run once, tiny, report nothing.
        (false, _) => (2, 5),
    };
    let ours = measure("ours (McpServer::serve_http)", "ours", sessions, calls);
    let rmcp = measure(
        "rmcp #[tool_router] + StreamableHttpService",
        "rmcp",
        sessions,
        calls,
    );
    assert_eq!(ours.errors, 0, "our server answered wrongly");
    assert_eq!(rmcp.errors, 0, "rmcp's server answered wrongly");
    if !benching {
        return;
    }
    println!(
        "MCP over HTTP, loopback, {sessions} sessions x {calls} calls (sequential: 1 x {calls})"
    );
    println!(
        "{:<44} {:>10} {:>10} {:>9} {:>9} {:>7} {:>10} {:>10}",
        "server", "seq p50", "calls/s", "p50", "p99", "errors", "peak RSS", "after"
    );
    for r in [&ours, &rmcp] {
        println!(
            "{:<44} {:>10.3?} {:>10.0} {:>9.3?} {:>9.3?} {:>7} {:>8.1}MB {:>8.1}MB",
            r.name,
            r.sequential_p50,
            r.calls_per_s,
            r.p50,
            r.p99,
            r.errors,
            r.peak_rss_mib,
            r.after_rss_mib
        );
    }
    println!(
        "ratios ours/rmcp: sequential p50 {:.2}x, calls/s {:.2}x, peak RSS {:.2}x",
        ours.sequential_p50.as_secs_f64() / rmcp.sequential_p50.as_secs_f64(),
        ours.calls_per_s / rmcp.calls_per_s,
        ours.peak_rss_mib / rmcp.peak_rss_mib
    );
}
