//! Tool search at 1,000, 3,000 and 10,000 tools: a `tool_search` call through
//! an executor (the index built once), the index build, and the index
//! catching up after one plugin tool comes or goes.
//!
//! `cargo bench -p registry-core --bench search`
//!
//! The catalog is the evaluation set's 1,111 real MCP tools (the dev and
//! held-out `catalogs*.json` under `tests/it/search_eval/`), grown to the
//! size with the evaluation's synthetic distractors (real servers moved
//! into invented domains and reworded, `search_eval/synthetic.rs`), each
//! registered as a plugin tool of its server; the queries are the dev
//! split's 127 intent queries, taken in turn. Under `cargo test --benches`
//! every benchmark runs once and nothing is reported. Criterion's
//! estimates (mean and median) land in `target/criterion/search/`.

use std::sync::Arc;

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion};
use registry_core::search::{TOOL_SEARCH_FLAG, ToolSearchIndex};
use registry_core::session::DeferralPolicy;
use registry_core::{
    Flags, ToolBuilder, ToolCall, ToolHandle, ToolOutput, ToolRegistry, catalog::BaseTools,
    catalog::PluginGuard, render::ProviderFormat,
};
use serde_json::{Value, json};

const SIZES: &[usize] = &[1_000, 3_000, 10_000];

// The evaluation's distractor generator; the bench uses only part of it.
#[allow(dead_code)]
#[path = "../tests/it/search_eval/synthetic.rs"]
mod synthetic;

/// `(name, description)` of `n` tools: the real ones, then distractors.
fn catalog(n: usize) -> Vec<(String, String)> {
    let mut real = Vec::new();
    for file in [
        include_str!("../tests/it/search_eval/catalogs.json"),
        include_str!("../tests/it/search_eval/heldout/catalogs_a.json"),
        include_str!("../tests/it/search_eval/heldout/catalogs_b.json"),
    ] {
        let data: Value = serde_json::from_str(file).unwrap();
        for catalog in data["catalogs"].as_array().unwrap() {
            let server = catalog["server"].as_str().unwrap();
            for tool in catalog["tools"].as_array().unwrap() {
                real.push((
                    format!("mcp__{server}__{}", tool["name"].as_str().unwrap()),
                    tool["description"].as_str().unwrap().to_owned(),
                ));
            }
        }
    }
    let pairs: Vec<(&str, &str)> = real.iter().map(|(n, d)| (n.as_str(), d.as_str())).collect();
    let made = synthetic::distractors(&pairs, n.saturating_sub(real.len()));
    real.truncate(n);
    real.extend(made.into_iter().map(|d| (d.name, d.description)));
    real
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

/// An executor with tool search on over `n` tools (every tool deferred),
/// and the runtime its turns run on.
fn searcher(
    n: usize,
) -> (
    registry_core::Executor,
    tokio::runtime::Runtime,
    Vec<PluginGuard>,
) {
    let (registry, guards) = registry_of(&catalog(n));
    let index = Arc::new(ToolSearchIndex::new(&registry));
    let executor = registry
        .executor()
        .tool_search_with(index, DeferralPolicy::Always, ProviderFormat::Anthropic)
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    (executor, runtime, guards)
}

/// One free-text `tool_search` call, top 5, the queries taken in turn,
/// through an executor with tool search on (the model's path: the input
/// parsed, the permission decision, the search, the result rendered).
/// Criterion runs each size for thousands of calls, so after the first
/// pass over the 127 queries each term's companions (query expansion)
/// come from the index's cache: the steady state of an index that is not
/// changing. A first use of a term costs more.
fn query(c: &mut Criterion) {
    let mut group = c.benchmark_group("search/query");
    for &n in SIZES {
        let (executor, runtime, _guards) = searcher(n);
        let queries = queries();
        let mut next = 0;
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                next = (next + 1) % queries.len();
                let call = ToolCall::new(
                    "b",
                    "tool_search",
                    json!({ "query": queries[next], "max_results": 5 }),
                );
                black_box(runtime.block_on(executor.run_turn(vec![call])))
            });
        });
    }
    group.finish();
}

/// Building the whole index once, over a registry of `n` plugin tools.
fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("search/build");
    group.sample_size(10);
    for &n in SIZES {
        let (registry, _guards) = registry_of(&catalog(n));
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| black_box(ToolSearchIndex::new(&registry)));
        });
    }
    group.finish();
}

/// The shared index catching up after one plugin registered (and the
/// previous iteration's left) in a registry of `n` plugin tools: a
/// pointer walk over the plugin list plus the work for the changed tools.
fn sync_after_register(c: &mut Criterion) {
    let mut group = c.benchmark_group("search/sync_after_register");
    for &n in SIZES {
        let (registry, guards) = registry_of(&catalog(n));
        let index = ToolSearchIndex::new(&registry);
        let newcomer = handle("mcp__jira__transition_issue", "Transition a Jira issue.");
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter_batched(
                || {
                    registry
                        .plugins()
                        .register("jira", newcomer.clone())
                        .unwrap()
                },
                |guard| {
                    black_box(index.sync(&registry));
                    guard
                },
                BatchSize::SmallInput,
            );
        });
        drop(guards);
    }
    group.finish();
}

/// Criterion's reports under the target directory's `criterion/`.
fn criterion_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("criterion")
}

fn main() {
    let mut c = Criterion::default()
        .output_directory(&criterion_dir())
        .configure_from_args();
    query(&mut c);
    build(&mut c);
    sync_after_register(&mut c);
    c.final_summary();
}
