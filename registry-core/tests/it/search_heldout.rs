//! Search quality on the held-out split: 703 tools of 38 public MCP
//! servers that the ranking was never tuned on, and 124 intents written
//! (in `search_eval/heldout/queries_*.json`) before any ranking was run
//! over them. No tuning loop reads this split and nothing prints its
//! queries: the report is counts and rates only.
//!
//! `cargo test -p registry-core --test it search_heldout:: -- --nocapture`

use std::collections::BTreeSet;

use crate::{bm25, harness};

use harness::{
    EvalTool, Ranks, at_size, floor_failures_with, load_queries, load_tools, print_table, ranker,
    tool_search_over,
};

fn heldout() -> (Vec<EvalTool>, Vec<harness::EvalQuery>) {
    let mut tools = load_tools(include_str!("search_eval/heldout/catalogs_a.json"));
    tools.extend(load_tools(include_str!(
        "search_eval/heldout/catalogs_b.json"
    )));
    let mut queries = load_queries(include_str!("search_eval/heldout/queries_a.json"), &tools);
    queries.extend(load_queries(
        include_str!("search_eval/heldout/queries_b.json"),
        &tools,
    ));
    (tools, queries)
}

fn bm25_ranks(tools: &[EvalTool], queries: &[harness::EvalQuery]) -> Ranks {
    let baseline = bm25::Bm25::over(tools);
    Ranks::of(queries, |q| baseline.search(q, 10))
}

/// The lexical index against plain BM25 at 703, 1,000, 3,000 and 10,000
/// tools (the dev catalogs, then synthetic distractors: real tools moved
/// into invented domains and reworded, `harness::synthetic`). The floor,
/// at every size and on every slice: not worse than BM25 beyond chance
/// (the 95% interval of the paired recall@5 difference reaches 0 or
/// above). Measured: +0.024 [−0.016, +0.065] at 703 tools, +0.000 at
/// 10,000; the goal of +0.05 overall is not met by words alone,
/// the semantic ranker (`registry-embed`'s held-out eval) is what adds
/// more.
#[test]
fn heldout_split_is_not_worse_than_plain_bm25_on_any_slice() {
    let (tools, queries) = heldout();
    let mut base = tools.clone();
    base.extend(load_tools(include_str!("search_eval/catalogs.json")));
    let mut floors = Vec::new();
    for n in [tools.len(), 1_000, 3_000, 10_000] {
        let grown = at_size(&tools, &base, n);
        let searcher = tool_search_over(&grown, None);
        let ours = Ranks::of(&queries, ranker(&searcher));
        let bm25 = bm25_ranks(&grown, &queries);
        print_table(
            "held-out split",
            grown.len(),
            &queries,
            &[("index", &ours), ("bm25", &bm25)],
        );
        floors.extend(floor_failures_with(
            &format!("{n} tools"),
            &queries,
            &ours,
            &bm25,
            false,
        ));
    }
    assert!(floors.is_empty(), "{floors:#?}");
}

/// The grown catalogs hold no copies: at 10,000 tools every name is
/// unique and a valid tool name, no synthetic server shares a real
/// server's name, no synthetic description equals a real one (nor its
/// source's), and the same tools come out on every run.
#[test]
fn synthetic_distractors_copy_no_real_tool() {
    let (tools, _) = heldout();
    let mut base = tools.clone();
    base.extend(load_tools(include_str!("search_eval/catalogs.json")));
    let server = |name: &str| {
        name.split("__")
            .nth(1)
            .expect("mcp__server__tool")
            .to_owned()
    };
    let real_servers: BTreeSet<String> = base.iter().map(|t| server(&t.name)).collect();
    let real_texts: BTreeSet<&str> = base.iter().map(|t| t.description.as_str()).collect();

    let grown = at_size(&tools, &base, 10_000);
    assert_eq!(grown.len(), 10_000);
    assert!(
        grown.iter().zip(&base).all(|(a, b)| a.name == b.name),
        "the real tools come first"
    );
    let names: BTreeSet<&str> = grown.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names.len(), grown.len(), "names are unique");
    for tool in &grown[base.len()..] {
        assert!(
            tool.name.len() <= 64
                && tool
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{} is a valid tool name",
            tool.name
        );
        assert!(!real_servers.contains(&server(&tool.name)), "{}", tool.name);
        assert!(
            !real_texts.contains(tool.description.as_str()),
            "{}",
            tool.name
        );
    }
    for candidate in harness::synthetic::candidate_servers() {
        assert!(!real_servers.contains(&candidate), "{candidate}");
    }

    let real: Vec<(&str, &str)> = base
        .iter()
        .map(|t| (t.name.as_str(), t.description.as_str()))
        .collect();
    let made = harness::synthetic::distractors(&real, 10_000 - base.len());
    for d in &made {
        assert_ne!(d.description, real[d.source].1, "{}", d.name);
    }
    assert_eq!(
        made,
        harness::synthetic::distractors(&real, 10_000 - base.len())
    );
}
