//! Hybrid search (words and meaning) on the dev split, through
//! `tool_search` as a model calls it: the set to choose the fusion on.
//! `SEARCH_EVAL_SWEEP=1` prints every fusion setting tried.

use std::sync::Arc;

use registry_core::search::{Fusion, SemanticRanking};

use crate::harness::{
    Ranks, Scores, load_queries, load_tools, print_table, ranker, tool_search_over,
    with_distractors,
};
use crate::{bm25, model};

const DEFAULT_SERVER_WEIGHT: f32 = SemanticRanking::DEFAULT_SERVER_WEIGHT;

#[test]
fn dev_split_hybrid() {
    let Some(model) = model::model() else { return };
    let model = Arc::new(model::Remembering::new(model));
    let tools = load_tools(include_str!(
        "../../../registry-core/tests/it/search_eval/catalogs.json"
    ));
    let queries = load_queries(
        include_str!("../../../registry-core/tests/it/search_eval/queries.json"),
        &tools,
    );
    let sweep = std::env::var_os("SEARCH_EVAL_SWEEP").is_some();
    let mut settings = vec![(model::FUSION, DEFAULT_SERVER_WEIGHT)];
    if sweep {
        for w in [0.2, 0.3, 0.4, 0.5, 0.7, 0.8, 1.0] {
            settings.push((Fusion::Scores { semantic_weight: w }, DEFAULT_SERVER_WEIGHT));
            settings.push((
                Fusion::ReciprocalRank {
                    k: 60.0,
                    semantic_weight: w,
                },
                DEFAULT_SERVER_WEIGHT,
            ));
        }
        for s in [0.0, 0.1, 0.25, 0.5, 1.0] {
            settings.push((model::FUSION, s));
        }
        for w in [0.3, 0.4] {
            for s in [0.1, 0.25] {
                settings.push((Fusion::Scores { semantic_weight: w }, s));
            }
        }
    }
    // Checked after every setting ran, so a sweep prints them all.
    let mut failures = Vec::new();
    for n in [tools.len(), 10_000] {
        let grown = with_distractors(&tools, &tools, n);
        let baseline = bm25::Bm25::over(&grown);
        let base = Ranks::of(&queries, |q| baseline.search(q, 10));
        let lexical_searcher = tool_search_over(&grown, None);
        let lexical = Ranks::of(&queries, ranker(&lexical_searcher));
        for &(fusion, server_weight) in &settings {
            let ranking = SemanticRanking::new(model.clone())
                .fusion(fusion)
                .server_weight(server_weight);
            let searcher = tool_search_over(&grown, Some(ranking));
            let hybrid = Ranks::of(&queries, ranker(&searcher));
            print_table(
                &format!("dev split, {fusion:?}, server weight {server_weight}"),
                grown.len(),
                &queries,
                &[("hybrid", &hybrid), ("index", &lexical), ("bm25", &base)],
            );
            if fusion == model::FUSION && server_weight == DEFAULT_SERVER_WEIGHT {
                let floor = model::DEV_FLOOR_AT5[usize::from(n != tools.len())];
                let s = Scores::of(&hybrid);
                if s.r5 < floor {
                    failures.push(format!(
                        "dev hybrid recall@5 {:.3} at {n} tools, under {floor}",
                        s.r5
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
