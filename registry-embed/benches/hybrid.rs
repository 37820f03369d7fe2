//! Hybrid tool search at 1,000, 3,000 and 10,000 tools with the model in
//! `REGISTRY_EMBED_MODEL_DIR` (either kind; potion-base-8M by default):
//! one `tool_search` call through an executor, as a model makes it,
//! ranked by words and meaning (the query embedded, cosine over every
//! admitted tool, fusion), beside the lexical call over the same tools and
//! the query's embedding alone.
//!
//! `REGISTRY_EMBED_MODEL_DIR=<model dir> cargo bench -p registry-embed --bench hybrid`
//!
//! The catalogs are the evaluation's (held-out and dev, 1,111 real MCP
//! tools), grown with synthetic distractors (real servers moved into
//! invented domains and reworded); the queries are the dev split's 127
//! intents, taken in turn, so a query repeats only after 126 others and
//! the index's cache of recent queries holds all of them: the figures
//! without that cache are the `embed_query` row plus the hybrid row.
//! Building the index (every distinct text embedded once) is done before
//! timing and printed. Criterion's estimates (mean and median) land in
//! `target/criterion/hybrid/`.

#[path = "../../registry-core/tests/it/search_eval/harness.rs"]
mod harness;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion};
use registry_core::search::{Embedder, SemanticRanking};

fn queries() -> Vec<String> {
    let tools = harness::load_tools(include_str!(
        "../../registry-core/tests/it/search_eval/catalogs.json"
    ));
    harness::load_queries(
        include_str!("../../registry-core/tests/it/search_eval/queries.json"),
        &tools,
    )
    .into_iter()
    .map(|q| q.query)
    .collect()
}

/// Every real tool of the evaluation.
fn real_tools() -> Vec<harness::EvalTool> {
    let mut base = harness::load_tools(include_str!(
        "../../registry-core/tests/it/search_eval/heldout/catalogs_a.json"
    ));
    base.extend(harness::load_tools(include_str!(
        "../../registry-core/tests/it/search_eval/heldout/catalogs_b.json"
    )));
    base.extend(harness::load_tools(include_str!(
        "../../registry-core/tests/it/search_eval/catalogs.json"
    )));
    base
}

const SIZES: &[usize] = &[1_000, 3_000, 10_000];

fn bench(c: &mut Criterion, model: Arc<dyn Embedder>) {
    let queries = queries();
    let base = real_tools();
    let mut group = c.benchmark_group("hybrid");
    for &n in SIZES {
        let tools = harness::with_distractors(&base, &base, n);
        let started = std::time::Instant::now();
        let hybrid = harness::tool_search_over(&tools, Some(SemanticRanking::new(model.clone())));
        eprintln!("{n} tools: hybrid index built in {:.1?}", started.elapsed());
        let lexical = harness::tool_search_over(&tools, None);
        for (name, searcher) in [("hybrid_query", &hybrid), ("lexical_query", &lexical)] {
            let mut i = 0;
            group.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter(|| {
                    i = (i + 1) % queries.len();
                    black_box(searcher.search(&queries[i], 5))
                });
            });
        }
    }
    let mut i = 0;
    group.bench_function("embed_query", |b| {
        b.iter(|| {
            i = (i + 1) % queries.len();
            black_box(model.embed_query(&queries[i]).unwrap())
        });
    });
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
    let Some(dir) = std::env::var_os(registry_embed::MODEL_DIR_ENV) else {
        eprintln!("skipped: set REGISTRY_EMBED_MODEL_DIR to a model directory");
        return;
    };
    let model = registry_embed::load(dir).expect("the model loads");
    let mut c = Criterion::default()
        .output_directory(&criterion_dir())
        .configure_from_args();
    bench(&mut c, model);
    c.final_summary();
}
