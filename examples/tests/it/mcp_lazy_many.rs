//! A runtime configured with ten MCP servers (`server-everything` under
//! ten names) imports them lazily from their manifests: every tool is
//! listed and searchable with no server process running, and the first
//! call starts exactly one. The processes are counted by the operating
//! system: every child gets a marker in its environment, and the test
//! reads `/proc/<pid>/environ` for it.
//!
//! Also prints what starting lazily saves: the wall time of ten live
//! imports (sequential and concurrent) against ten lazy ones. Numbers
//! only; nothing here is timed against a bound.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use registry_core::mcp::{McpImport, McpManifest, McpServerConfig, StderrTo};
use registry_core::search::ToolSearchIndex;
use registry_core::{ToolContext, ToolRegistry, catalog::BaseTools};
use serde_json::json;

const SERVERS: usize = 10;

/// The environment variable whose value marks this test's children.
const MARKER_VAR: &str = "REGISTRY_LAZY_TEST_MARKER";

fn empty_registry() -> Arc<ToolRegistry> {
    Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(Vec::new()).unwrap(),
    ))
}

fn config(entry: &Path, server: &str, marker: &str) -> McpServerConfig {
    McpServerConfig::command(
        server,
        "node",
        [entry.display().to_string(), "stdio".to_owned()],
    )
    .env(MARKER_VAR, marker)
    .stderr(StderrTo::Discard)
    .trusted(true)
}

fn server(i: usize) -> String {
    format!("everything{i}")
}

/// Processes running now whose initial environment holds
/// `MARKER_VAR=marker` (zombies, whose environment is gone, are not).
fn marked_processes(marker: &str) -> usize {
    let needle = format!("{MARKER_VAR}={marker}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|entry| std::fs::read(entry.path().join("environ")).ok())
        .filter(|environ| {
            environ
                .split(|byte| *byte == 0)
                .any(|var| var == needle.as_bytes())
        })
        .count()
}

/// Waits (bounded) until `count` marked processes run.
async fn until_processes(marker: &str, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while marked_processes(marker) != count {
        assert!(
            Instant::now() < deadline,
            "{} marked processes, expected {count}",
            marked_processes(marker)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_lazy_servers_are_listed_and_searched_with_none_running_and_a_call_starts_one() {
    let Some(modules) = crate::mcp_node::packages("ten lazy MCP servers") else {
        return;
    };
    if !Path::new("/proc/self/environ").exists() {
        eprintln!("SKIPPED: ten lazy MCP servers: no /proc to count processes by");
        return;
    }
    let entry = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    let marker = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos()
    );

    // Ten live imports, one after another: what a runtime that connects
    // every configured server before its first turn waits for.
    let live_registry = empty_registry();
    let started = Instant::now();
    let mut live = Vec::new();
    for i in 0..SERVERS {
        let import =
            McpImport::connect(live_registry.plugins(), config(&entry, &server(i), &marker))
                .await
                .expect("server-everything imports");
        live.push(import);
    }
    let live_sequential = started.elapsed();
    assert_eq!(marked_processes(&marker), SERVERS);
    // Each manifest saved as a runtime would save it, to a file's text.
    let saved: Vec<String> = live
        .iter()
        .map(|import| import.manifest().to_json())
        .collect();
    let live_tools = live_registry.plugins().len();
    for import in live {
        import.shutdown().await;
    }
    until_processes(&marker, 0).await;

    // The same, all at once.
    let concurrent_registry = empty_registry();
    let started = Instant::now();
    let connecting: Vec<_> = (0..SERVERS)
        .map(|i| {
            let registry = Arc::clone(&concurrent_registry);
            let config = config(&entry, &server(i), &marker);
            tokio::spawn(async move { McpImport::connect(registry.plugins(), config).await })
        })
        .collect();
    let mut concurrent = Vec::new();
    for task in connecting {
        concurrent.push(task.await.unwrap().expect("server-everything imports"));
    }
    let live_concurrent = started.elapsed();
    for import in concurrent {
        import.shutdown().await;
    }
    until_processes(&marker, 0).await;

    // Ten lazy imports from the saved manifests: nothing starts.
    let registry = empty_registry();
    let started = Instant::now();
    let lazy: Vec<McpImport> = saved
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let manifest = McpManifest::from_json(text).expect("a saved manifest reads back");
            McpImport::lazy(
                registry.plugins(),
                config(&entry, &server(i), &marker),
                manifest,
            )
            .expect("a lazy import")
        })
        .collect();
    let lazy_time = started.elapsed();

    assert_eq!(marked_processes(&marker), 0, "no server process runs");
    assert!(lazy.iter().all(|import| !import.is_connected()));
    assert_eq!(
        registry.plugins().len(),
        live_tools,
        "every tool of every server"
    );
    let pool = registry.assemble_tool_pool(&registry_core::PermissionContext::new());
    for i in 0..SERVERS {
        let echo = format!("mcp__{}__echo", server(i));
        assert!(pool.get(&echo).is_some(), "{echo} in the pool");
    }
    let index = ToolSearchIndex::new(&registry);
    let found = index.explain("echo", 50).expect("a query");
    let echoes = found
        .iter()
        .filter(|hit| hit.tool.ends_with("__echo"))
        .count();
    assert_eq!(echoes, SERVERS, "each server's echo is found: {found:?}");
    assert_eq!(marked_processes(&marker), 0, "searching starts nothing");

    // The first call starts exactly one server: the one called.
    let echo = registry
        .plugins()
        .get("mcp__everything3__echo")
        .expect("registered");
    let started = Instant::now();
    let out = echo
        .call_json(json!({ "message": "lazy" }), &ToolContext::new())
        .await
        .expect("the call starts its server and runs");
    let first_call = started.elapsed();
    let started = Instant::now();
    echo.call_json(json!({ "message": "again" }), &ToolContext::new())
        .await
        .expect("the server runs");
    let second_call = started.elapsed();
    assert!(out.as_str().contains("lazy"), "{}", out.as_str());
    assert_eq!(marked_processes(&marker), 1, "one server process");
    let connected: Vec<usize> = (0..SERVERS).filter(|i| lazy[*i].is_connected()).collect();
    assert_eq!(connected, [3]);
    assert!(
        lazy[3].manifest_drift().is_none(),
        "the server lists what it listed: {:?}",
        lazy[3].manifest_drift()
    );

    eprintln!(
        "ten MCP servers ({live_tools} tools): live imports {live_sequential:.2?} one after another, \
         {live_concurrent:.2?} all at once; lazy imports {lazy_time:.2?} (manifests read from JSON); \
         the first call, which started its server, {first_call:.2?}; the next {second_call:.2?}"
    );
    for import in lazy {
        import.shutdown().await;
    }
    until_processes(&marker, 0).await;
}
