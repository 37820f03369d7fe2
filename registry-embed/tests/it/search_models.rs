//! The model comparison: every model named in `REGISTRY_EMBED_COMPARE`
//! (`name=dir,name=dir`) on the dev split, hybrid and by meaning alone,
//! with what each costs: the query's embedding (median over the dev
//! queries), the index build, the vectors' memory and the weights on
//! disk. A report for choosing the default, run by hand:
//!
//! `REGISTRY_EMBED_COMPARE=minilm=...,potion8m=... cargo test --release -p registry-embed --test it search_models:: -- --nocapture`
//!
//! Hybrid columns use the evaluation's fusion (`model::FUSION`) and, for
//! comparison, score fusion with the semantic side at 0.7.

use std::sync::Arc;
use std::time::{Duration, Instant};

use registry_core::search::{Embedder, Fusion, SemanticRanking};

use crate::harness::{
    EvalQuery, EvalTool, Ranks, Scores, at_size, load_queries, load_tools, ranker, tool_search_over,
};
use crate::{bm25, model};

fn dev() -> (Vec<EvalTool>, Vec<EvalQuery>) {
    let tools = load_tools(include_str!(
        "../../../registry-core/tests/it/search_eval/catalogs.json"
    ));
    let queries = load_queries(
        include_str!("../../../registry-core/tests/it/search_eval/queries.json"),
        &tools,
    );
    (tools, queries)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn weights_bytes(dir: &str) -> u64 {
    ["model.safetensors"]
        .iter()
        .filter_map(|f| std::fs::metadata(std::path::Path::new(dir).join(f)).ok())
        .map(|m| m.len())
        .sum()
}

#[test]
fn compare_models_on_the_dev_split() {
    let Ok(list) = std::env::var("REGISTRY_EMBED_COMPARE") else {
        eprintln!("skipped: set REGISTRY_EMBED_COMPARE=name=dir,... to compare models");
        return;
    };
    let (tools, queries) = dev();
    let mut base = tools.clone();
    base.extend(load_tools(include_str!(
        "../../../registry-core/tests/it/search_eval/heldout/catalogs_a.json"
    )));
    base.extend(load_tools(include_str!(
        "../../../registry-core/tests/it/search_eval/heldout/catalogs_b.json"
    )));
    let baseline = bm25::Bm25::over(&tools);
    let bm25 = Scores::of(&Ranks::of(&queries, |q| baseline.search(q, 10)));
    let lexical_searcher = tool_search_over(&tools, None);
    let lexical = Scores::of(&Ranks::of(&queries, ranker(&lexical_searcher)));
    println!(
        "\ndev split, {} tools, {} queries: bm25 r@1 {:.3} r@5 {:.3}; words r@1 {:.3} r@5 {:.3}",
        tools.len(),
        queries.len(),
        bm25.r1,
        bm25.r5,
        lexical.r1,
        lexical.r5
    );
    println!(
        "{:<12} {:>5} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>10} {:>10} {:>9}",
        "model",
        "dims",
        "hyb r@1",
        "hyb r@5",
        "@0.7 r@5",
        "sem r@5",
        "10k r@5",
        "query p50",
        "build 408",
        "vectors10k",
        "weights",
        "load"
    );
    for entry in list.split(',').filter(|e| !e.is_empty()) {
        let (name, dir) = entry.split_once('=').expect("name=dir");
        let started = Instant::now();
        let loaded: Arc<dyn Embedder> = registry_embed::load(dir).expect("the model loads");
        let load = started.elapsed();
        let dims = loaded.embed(&["dimensions"]).unwrap()[0].len();
        // Query latency: each dev query embedded three times, median.
        let mut took = Vec::new();
        for _ in 0..3 {
            for q in &queries {
                let t = Instant::now();
                std::hint::black_box(loaded.embed_query(&q.query).unwrap());
                took.push(t.elapsed());
            }
        }
        let query_p50 = median(took);
        let started = Instant::now();
        let hybrid_searcher = tool_search_over(
            &tools,
            Some(SemanticRanking::new(loaded.clone()).fusion(model::FUSION)),
        );
        let build = started.elapsed();
        let hybrid = Scores::of(&Ranks::of(&queries, ranker(&hybrid_searcher)));
        let remembering: Arc<dyn Embedder> = Arc::new(model::Remembering::new(loaded.clone()));
        // The other end of the sweep, for a model the default does not
        // suit: score fusion with the semantic side at 0.7.
        let other_searcher = tool_search_over(
            &tools,
            Some(
                SemanticRanking::new(remembering.clone()).fusion(Fusion::Scores {
                    semantic_weight: 0.7,
                }),
            ),
        );
        let at_other = Scores::of(&Ranks::of(&queries, ranker(&other_searcher)));
        let semantic_searcher = tool_search_over(
            &tools,
            Some(
                SemanticRanking::new(remembering.clone()).fusion(Fusion::Scores {
                    semantic_weight: 1.0,
                }),
            ),
        );
        let semantic = Scores::of(&Ranks::of(&queries, ranker(&semantic_searcher)));
        let large = at_size(&tools, &base, 10_000);
        let large_searcher = tool_search_over(
            &large,
            Some(SemanticRanking::new(remembering).fusion(model::FUSION)),
        );
        let at_10k = Scores::of(&Ranks::of(&queries, ranker(&large_searcher)));
        println!(
            "{:<12} {:>5} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>9.1?} {:>9.1?} {:>8.1}MB {:>8.1}MB {:>9.1?}",
            name,
            dims,
            hybrid.r1,
            hybrid.r5,
            at_other.r5,
            semantic.r5,
            at_10k.r5,
            query_p50,
            build,
            (10_000 * dims * 4) as f64 / 1e6,
            weights_bytes(dir) as f64 / 1e6,
            load
        );
    }
}
