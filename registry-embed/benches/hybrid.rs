//! Hybrid tool search at 1,000 and 10,000 tools with all-MiniLM-L6-v2:
//! one `tool_search` call through an executor, as a model makes it, ranked
//! by words and meaning (the query embedded, cosine over every admitted
//! tool, fusion), beside the lexical call over the same tools and the
//! query embedding alone.
//!
//! `REGISTRY_EMBED_MODEL_DIR=<model dir> cargo bench -p registry-embed --bench hybrid`
//!
//! The catalogs are the evaluation's (held-out and dev, 1,111 real MCP
//! tools), grown with copies under invented server names; the queries are
//! the dev split's 127 intents, taken in turn. Building the index (every
//! distinct text embedded once) is done before timing and printed.

#[path = "../../registry-core/tests/it/search_eval/harness.rs"]
mod harness;

use std::sync::{Arc, OnceLock};

use divan::{Bencher, black_box};
use registry_core::search::{Embedder, SemanticRanking};
use registry_embed::SentenceEmbedder;

fn main() {
    if SentenceEmbedder::from_env().is_none() {
        eprintln!("skipped: set REGISTRY_EMBED_MODEL_DIR to a model directory");
        return;
    }
    divan::main();
}

fn model() -> Arc<SentenceEmbedder> {
    static MODEL: OnceLock<Arc<SentenceEmbedder>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            Arc::new(
                SentenceEmbedder::from_env()
                    .expect("REGISTRY_EMBED_MODEL_DIR")
                    .expect("the model loads"),
            )
        })
        .clone()
}

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

/// `(hybrid searcher, lexical searcher)` over `n` tools, built once per
/// size.
fn searchers(n: usize) -> &'static (harness::Searcher, harness::Searcher) {
    static SEARCHERS: OnceLock<Vec<(usize, (harness::Searcher, harness::Searcher))>> =
        OnceLock::new();
    let all = SEARCHERS.get_or_init(|| {
        let mut base = harness::load_tools(include_str!(
            "../../registry-core/tests/it/search_eval/heldout/catalogs_a.json"
        ));
        base.extend(harness::load_tools(include_str!(
            "../../registry-core/tests/it/search_eval/heldout/catalogs_b.json"
        )));
        base.extend(harness::load_tools(include_str!(
            "../../registry-core/tests/it/search_eval/catalogs.json"
        )));
        SIZES
            .iter()
            .map(|&n| {
                let tools = harness::with_distractors(&base, &base, n);
                let started = std::time::Instant::now();
                let hybrid = harness::tool_search_over(&tools, Some(SemanticRanking::new(model())));
                eprintln!("{n} tools: hybrid index built in {:.1?}", started.elapsed());
                (n, (hybrid, harness::tool_search_over(&tools, None)))
            })
            .collect()
    });
    &all.iter().find(|(size, _)| *size == n).expect("a size").1
}

const SIZES: &[usize] = &[1_000, 10_000];

#[divan::bench(args = SIZES, sample_count = 60)]
fn hybrid_query(bencher: Bencher, n: usize) {
    let (hybrid, _) = searchers(n);
    let queries = queries();
    let mut i = 0;
    bencher.bench_local(|| {
        i = (i + 1) % queries.len();
        black_box(hybrid.search(&queries[i], 5));
    });
}

#[divan::bench(args = SIZES, sample_count = 60)]
fn lexical_query(bencher: Bencher, n: usize) {
    let (_, lexical) = searchers(n);
    let queries = queries();
    let mut i = 0;
    bencher.bench_local(|| {
        i = (i + 1) % queries.len();
        black_box(lexical.search(&queries[i], 5));
    });
}

#[divan::bench(sample_count = 60)]
fn embed_one_query(bencher: Bencher) {
    let model = model();
    let queries = queries();
    let mut i = 0;
    bencher.bench_local(|| {
        i = (i + 1) % queries.len();
        black_box(model.embed(&[&queries[i]]).unwrap());
    });
}
