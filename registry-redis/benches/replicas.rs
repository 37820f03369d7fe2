//! What serving from many machines costs: MCP `tools/call` load through
//! HAProxy (round-robin, no affinity) to one, two and three `McpServer`
//! replicas sharing one Redis, beside one replica without a store
//! (through HAProxy and direct), all on this machine and in one run, so
//! the cost of the store and of the balancer are measured ratios.
//!
//! Each replica is a child process (this binary, re-run with `serve`).
//! The load is N sessions of the 2025-11-25 revision (the one that
//! restores through the store: each call loads the session's record,
//! saves it, and keeps its stream's events) × M sequential calls each, on
//! plain keep-alive HTTP/1.1 sockets; calls/s over the whole load, and
//! the p50 and p99 of every call's latency.
//!
//! `cargo bench -p registry-redis --bench replicas` (`-- SESSIONS CALLS`
//! to change the load; default 8 × 200). Needs `redis-server` and
//! `haproxy` (`.ci/run` installs them); without them it says so. Under
//! `cargo test --benches` it runs a tiny load once and reports nothing.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use registry_core::mcp::{HttpOptions, McpServer};
use registry_core::session::StoreLimits;
use registry_core::{ToolHandle, ToolRegistry};
use registry_redis::{RedisOptions, RedisSessionStore};

#[path = "../../registry-core/benches/support/http_load.rs"]
mod http_load;
use http_load::{Add, percentile, session};

/// `serve [REDIS_URL]`: one replica, with the store when a URL is given;
/// prints its port and runs until killed.
fn serve(redis: Option<&str>) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let registry = Arc::new(ToolRegistry::new(
            registry_core::catalog::BaseTools::__from_handles(vec![ToolHandle::new(Add)])
                .expect("catalog"),
        ));
        let mut server = McpServer::new(registry.executor());
        if let Some(url) = redis {
            let store = RedisSessionStore::new(url, RedisOptions::default()).expect("a Redis URL");
            server = server.with_session_store(Arc::new(store), StoreLimits::default());
        }
        let handle = server
            .serve_http(HttpOptions::new("127.0.0.1:0".parse().unwrap()))
            .await
            .expect("bind");
        println!("{}", handle.local_addr().port());
        handle.wait().await;
    });
}

/// A child killed when dropped.
struct Owned(Child);

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn wait_for_port(port: u16) {
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "nothing on {port}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn replica(redis: Option<u16>) -> (Owned, u16) {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.arg("serve");
    if let Some(port) = redis {
        command.arg(format!("redis://127.0.0.1:{port}/"));
    }
    let mut child = command.stdout(Stdio::piped()).spawn().expect("a replica");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (
        Owned(child),
        line.trim().parse().expect("the replica's port"),
    )
}

fn haproxy(dir: &Path, replicas: &[u16]) -> (Owned, u16) {
    let port = free_port();
    let mut config = format!(
        "global\n    maxconn 1024\ndefaults\n    mode http\n    timeout connect 1s\n\
         \x20   timeout client 60s\n    timeout server 60s\n    option http-server-close\n\
         frontend mcp\n    bind 127.0.0.1:{port}\n    default_backend replicas\n\
         backend replicas\n    balance roundrobin\n"
    );
    for (i, replica) in replicas.iter().enumerate() {
        config.push_str(&format!("    server r{i} 127.0.0.1:{replica}\n"));
    }
    let path = dir.join(format!("haproxy-{port}.cfg"));
    std::fs::write(&path, config).unwrap();
    let child = Command::new("haproxy")
        .arg("-f")
        .arg(&path)
        .arg("-db")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("haproxy");
    wait_for_port(port);
    (Owned(child), port)
}

struct Report {
    name: String,
    calls_per_s: f64,
    p50: Duration,
    p99: Duration,
    errors: usize,
}

fn load(name: String, port: u16, sessions: usize, calls: usize) -> Report {
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        // Warm up: connections, the replicas' first views, Redis scripts.
        let _ = session(addr, 5).await;
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
        times.sort();
        Report {
            name,
            calls_per_s: times.len() as f64 / elapsed.as_secs_f64(),
            p50: percentile(&times, 0.5),
            p99: percentile(&times, 0.99),
            errors,
        }
    })
}

fn runs(binary: &str) -> bool {
    Command::new(binary)
        .arg("-v")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("serve") {
        serve(args.get(1).map(String::as_str));
        return;
    }
    let benching = args.iter().any(|a| a == "--bench");
    if !runs("redis-server") || !runs("haproxy") {
        if benching {
            println!("replicas bench skipped: it needs redis-server and haproxy on PATH");
        }
        return;
    }
    let numbers: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let (sessions, calls) = match (benching, numbers.as_slice()) {
        (_, [s, c, ..]) => (*s, *c),
        (true, _) => (8, 200),
        (false, _) => (2, 5),
    };
    let dir = std::env::temp_dir().join(format!("registry-replicas-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let redis_port = free_port();
    let _redis = Owned(
        Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &redis_port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server"),
    );
    wait_for_port(redis_port);

    let mut reports = Vec::new();
    {
        let (_replica, port) = replica(None);
        reports.push(load(
            "1 replica, no store, direct".into(),
            port,
            sessions,
            calls,
        ));
        let (_lb, lb) = haproxy(&dir, &[port]);
        reports.push(load(
            "1 replica, no store, HAProxy".into(),
            lb,
            sessions,
            calls,
        ));
    }
    for n in 1..=3 {
        let replicas: Vec<(Owned, u16)> = (0..n).map(|_| replica(Some(redis_port))).collect();
        let ports: Vec<u16> = replicas.iter().map(|(_, p)| *p).collect();
        let (_lb, lb) = haproxy(&dir, &ports);
        reports.push(load(
            format!("{n} replica(s) + Redis, HAProxy"),
            lb,
            sessions,
            calls,
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    for report in &reports {
        assert_eq!(report.errors, 0, "{}: wrong answers", report.name);
    }
    if !benching {
        return;
    }
    println!("MCP tools/call through HAProxy, loopback, {sessions} sessions x {calls} calls");
    println!(
        "{:<34} {:>10} {:>10} {:>10}",
        "deployment", "calls/s", "p50", "p99"
    );
    for r in &reports {
        println!(
            "{:<34} {:>10.0} {:>10.3?} {:>10.3?}",
            r.name, r.calls_per_s, r.p50, r.p99
        );
    }
    let base = &reports[1];
    for r in &reports[2..] {
        println!(
            "{} / 1 replica without the store: calls/s {:.2}x, p50 {:.2}x, p99 {:.2}x",
            r.name,
            r.calls_per_s / base.calls_per_s,
            r.p50.as_secs_f64() / base.p50.as_secs_f64(),
            r.p99.as_secs_f64() / base.p99.as_secs_f64()
        );
    }
}
