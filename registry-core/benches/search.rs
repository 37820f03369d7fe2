//! Tool search at 1,000 and 10,000 tools: a `tool_search` call through
//! an executor (the index built once), the index build, and the index
//! catching up after one plugin tool comes or goes.
//!
//! `cargo bench -p registry-core --bench search`
//!
//! The catalog is the evaluation set's 408 real MCP tools
//! (`tests/it/search_eval/catalogs.json`), repeated under numbered server
//! names (`mcp__github7__create_issue`) up to the size, each registered as
//! a plugin tool of its server; the queries are the evaluation's 127
//! intent queries, taken in turn. Under `cargo test --benches` divan runs
//! every benchmark once.

use std::sync::Arc;

use divan::{Bencher, black_box};
use registry_core::search::{TOOL_SEARCH_FLAG, ToolSearchIndex};
use registry_core::session::DeferralPolicy;
use registry_core::{
    Flags, ToolBuilder, ToolCall, ToolHandle, ToolOutput, ToolRegistry, catalog::BaseTools,
    catalog::PluginGuard, render::ProviderFormat,
};
use serde_json::{Value, json};

fn main() {
    divan::main();
}

const SIZES: &[usize] = &[1_000, 10_000];

/// `(name, description)` of `n` tools.
fn catalog(n: usize) -> Vec<(String, String)> {
    let data: Value =
        serde_json::from_str(include_str!("../tests/it/search_eval/catalogs.json")).unwrap();
    let mut base = Vec::new();
    for catalog in data["catalogs"].as_array().unwrap() {
        let server = catalog["server"].as_str().unwrap();
        for tool in catalog["tools"].as_array().unwrap() {
            base.push((
                server.to_owned(),
                tool["name"].as_str().unwrap().to_owned(),
                tool["description"].as_str().unwrap().to_owned(),
            ));
        }
    }
    (0..n)
        .map(|i| {
            let (server, name, description) = &base[i % base.len()];
            let copy = i / base.len();
            (format!("mcp__{server}{copy}__{name}"), description.clone())
        })
        .collect()
}

fn queries() -> Vec<String> {
    let data: Value =
        serde_json::from_str(include_str!("../tests/it/search_eval/queries.json")).unwrap();
    data["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["query"].as_str().unwrap().to_owned())
        .collect()
}

fn handle(name: &str, description: &str) -> ToolHandle {
    ToolBuilder::new(name, description)
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap()
}

/// A registry whose built-in is `tool_search` (the only tool this binary
/// links) and whose plugins are `tools`, each under its server.
fn registry_of(tools: &[(String, String)]) -> (ToolRegistry, Vec<PluginGuard>) {
    let registry =
        ToolRegistry::new(BaseTools::linked(&Flags::new().with(TOOL_SEARCH_FLAG)).unwrap());
    let guards = tools
        .iter()
        .map(|(name, description)| {
            let owner = name.split("__").nth(1).unwrap().to_owned();
            registry
                .plugins()
                .register(owner, handle(name, description))
                .unwrap()
        })
        .collect();
    (registry, guards)
}

/// One free-text `tool_search` call, top 5, the queries taken in turn,
/// through an executor with tool search on (the model's path: the input
/// parsed, the permission decision, the search, the result rendered).
/// 2,000 samples, so after the first pass over the 127 queries each
/// term's companions (query expansion) come from the index's cache: the
/// steady state of an index that is not changing. A first use of a term
/// costs more.
#[divan::bench(args = SIZES, sample_count = 2000)]
fn query(bencher: Bencher, n: usize) {
    let (registry, _guards) = registry_of(&catalog(n));
    let index = Arc::new(ToolSearchIndex::new(&registry));
    let executor = registry
        .executor()
        .tool_search_with(index, DeferralPolicy::Always, ProviderFormat::Anthropic)
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let queries = queries();
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % queries.len();
        let call = ToolCall::new(
            "b",
            "tool_search",
            json!({ "query": queries[next], "max_results": 5 }),
        );
        black_box(runtime.block_on(executor.run_turn(vec![call])))
    });
}

/// Building the whole index once, over a registry of `n` plugin tools.
#[divan::bench(args = SIZES, sample_count = 10)]
fn build(bencher: Bencher, n: usize) {
    let (registry, _guards) = registry_of(&catalog(n));
    bencher.bench_local(|| black_box(ToolSearchIndex::new(&registry)));
}

/// The shared index catching up after one plugin registered (and the
/// previous iteration's left) in a registry of `n` plugin tools: a
/// pointer walk over the plugin list plus the work for the changed tools.
#[divan::bench(args = SIZES)]
fn sync_after_register(bencher: Bencher, n: usize) {
    let (registry, guards) = registry_of(&catalog(n));
    let index = ToolSearchIndex::new(&registry);
    let newcomer = handle("mcp__jira__transition_issue", "Transition a Jira issue.");
    bencher
        .with_inputs(|| {
            registry
                .plugins()
                .register("jira", newcomer.clone())
                .unwrap()
        })
        .bench_local_values(|guard| {
            black_box(index.sync(&registry));
            guard
        });
    drop(guards);
}
