//! Tool search at 1,000 and 10,000 tools: query latency (index built
//! once), index build, and the index update after one plugin tool comes or
//! goes.
//!
//! `cargo bench -p registry-core --bench search`
//!
//! The catalog is the evaluation set's 408 real MCP tools
//! (`tests/it/search_eval/catalogs.json`), repeated under numbered server
//! names (`mcp__github7__create_issue`) up to the size; the queries are
//! the evaluation's 127 intent queries, taken in turn. Under `cargo test
//! --benches` divan runs every benchmark once.

use divan::{Bencher, black_box};
use registry_core::search::{Document, Query, SearchIndex, ToolSearchIndex};
use registry_core::{ToolBuilder, ToolHandle, ToolOutput, ToolRegistry, catalog::BaseTools};
use serde_json::Value;

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

fn queries() -> Vec<Query> {
    let data: Value =
        serde_json::from_str(include_str!("../tests/it/search_eval/queries.json")).unwrap();
    data["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["query"].as_str().unwrap().parse().unwrap())
        .collect()
}

fn index_of(tools: &[(String, String)]) -> SearchIndex {
    let mut index = SearchIndex::new();
    for (name, description) in tools {
        index.insert(Document {
            name,
            aliases: &[],
            hint: None,
            description,
        });
    }
    index
}

/// One free-text query, top 5, the queries taken in turn. 2,000 samples,
/// so after the first pass over the 127 queries each term's companions
/// (query expansion) come from the index's cache: the steady state of an
/// index that is not changing. A first use of a term costs more.
#[divan::bench(args = SIZES, sample_count = 2000)]
fn query(bencher: Bencher, n: usize) {
    let index = index_of(&catalog(n));
    let members = index.membership_of_all();
    let queries = queries();
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % queries.len();
        black_box(index.search(&queries[next], 5, &members))
    });
}

/// Parsing a query (included in what `tool_search` costs).
#[divan::bench]
fn parse_query() -> Query {
    black_box("mcp__github list the open +pull requests")
        .parse()
        .unwrap()
}

/// Building the whole index once.
#[divan::bench(args = SIZES, sample_count = 10)]
fn build(bencher: Bencher, n: usize) {
    let tools = catalog(n);
    bencher.bench_local(|| black_box(index_of(&tools)));
}

/// One tool indexed and removed again in an index of `n`: the cost of a
/// plugin tool coming and going, proportional to its own text.
#[divan::bench(args = SIZES)]
fn update_one_tool(bencher: Bencher, n: usize) {
    let mut index = index_of(&catalog(n));
    let aliases: Vec<String> = Vec::new();
    bencher.bench_local(|| {
        let doc = index.insert(Document {
            name: "mcp__jira__transition_issue",
            aliases: &aliases,
            hint: None,
            description: "Transition a Jira issue to a new status. Use get_transitions first.",
        });
        black_box(index.remove(doc))
    });
}

/// The shared index catching up after one plugin registered (and the
/// previous iteration's left) in a registry of `n` plugin tools: a
/// pointer walk over the plugin list plus the work for the changed tools.
#[divan::bench(args = SIZES)]
fn sync_after_register(bencher: Bencher, n: usize) {
    let registry = ToolRegistry::new(BaseTools::__from_handles(Vec::new()).unwrap());
    let handle = |name: &str, description: &str| -> ToolHandle {
        ToolBuilder::new(name, description)
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap()
    };
    let guards: Vec<_> = catalog(n)
        .iter()
        .map(|(name, description)| {
            let owner = name.split("__").nth(1).unwrap().to_owned();
            registry
                .plugins()
                .register(owner, handle(name, description))
                .unwrap()
        })
        .collect();
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
