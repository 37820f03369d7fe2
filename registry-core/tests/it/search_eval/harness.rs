//! The evaluation's parts, shared by the lexical evals (`search_eval.rs`
//! and `search_heldout.rs` beside this directory) and the hybrid evals of
//! `registry-embed`: catalogs, queries, catalogs grown with synthetic
//! distractors (`synthetic.rs`), the tally of
//! a ranker's hits, paired bootstrap intervals against a baseline, and the
//! printed report.
//!
//! Nothing here prints a query: a report shows counts and rates only, so
//! the held-out set can be measured without being read.

#![allow(dead_code)] // each eval binary uses its own part of it

use serde::Deserialize;

// The distractor generator, a file of its own so the benches can include
// it without this harness.
#[path = "synthetic.rs"]
pub mod synthetic;

/// One tool of a catalog, named as an MCP import names it.
#[derive(Debug, Clone)]
pub struct EvalTool {
    /// `mcp__<server>__<tool>`.
    pub name: String,
    /// The server's own description.
    pub description: String,
}

#[derive(Deserialize)]
struct Catalogs {
    catalogs: Vec<Catalog>,
}

#[derive(Deserialize)]
struct Catalog {
    server: String,
    tools: Vec<CatalogTool>,
}

#[derive(Deserialize)]
struct CatalogTool {
    name: String,
    description: String,
}

/// The tools of a `catalogs.json`-shaped file, in file order.
pub fn load_tools(json: &str) -> Vec<EvalTool> {
    let catalogs: Catalogs = serde_json::from_str(json).expect("catalog file parses");
    catalogs
        .catalogs
        .into_iter()
        .flat_map(|c| {
            let server = c.server;
            c.tools.into_iter().map(move |t| EvalTool {
                name: format!("mcp__{server}__{}", t.name),
                description: t.description,
            })
        })
        .collect()
}

/// One intent and the tools that satisfy it.
#[derive(Debug, Clone, Deserialize)]
pub struct EvalQuery {
    /// What the user said.
    pub query: String,
    /// Its slice (`wording`, `paraphrase`, `named`); `all` when unsaid.
    #[serde(default = "all_slice")]
    pub slice: String,
    /// Every tool that satisfies it; a hit is any of them.
    pub relevant: Vec<String>,
}

fn all_slice() -> String {
    "all".to_owned()
}

#[derive(Deserialize)]
struct Queries {
    queries: Vec<EvalQuery>,
}

/// The queries of a `queries.json`-shaped file; panics (naming the
/// query) when one names a tool that `tools` lacks.
pub fn load_queries(json: &str, tools: &[EvalTool]) -> Vec<EvalQuery> {
    let queries: Queries = serde_json::from_str(json).expect("query file parses");
    for (i, q) in queries.queries.iter().enumerate() {
        for name in &q.relevant {
            assert!(
                tools.iter().any(|t| &t.name == name),
                "query #{i} names {name}, which no catalog has"
            );
        }
    }
    queries.queries
}

/// `tools` grown to exactly `n` (never below its own size): first the
/// real tools of `base` that `tools` lacks, in order, then synthetic
/// distractors made from `base` ([`synthetic::distractors`]: each real
/// server reworded into an invented domain, `mcp__github__create_issue`
/// → `mcp__ledgerly__add_invoice`), so no two tools are copies of each
/// other and the relevant tool ties with none.
pub fn with_distractors(tools: &[EvalTool], base: &[EvalTool], n: usize) -> Vec<EvalTool> {
    let mut out = tools.to_vec();
    let mut have: std::collections::BTreeSet<&str> =
        tools.iter().map(|t| t.name.as_str()).collect();
    for tool in base {
        if out.len() >= n {
            return out;
        }
        if have.insert(tool.name.as_str()) {
            out.push(tool.clone());
        }
    }
    let real: Vec<(&str, &str)> = base
        .iter()
        .map(|t| (t.name.as_str(), t.description.as_str()))
        .collect();
    let wanted = n.saturating_sub(out.len());
    out.extend(
        synthetic::distractors(&real, wanted)
            .into_iter()
            .map(|d| EvalTool {
                name: d.name,
                description: d.description,
            }),
    );
    out
}

/// The catalog of one size of a scale run: `tools` alone at their own
/// size, otherwise `tools` grown to `n` with the rest of `base` (every
/// real catalog) and then synthetic distractors ([`with_distractors`]).
pub fn at_size(tools: &[EvalTool], base: &[EvalTool], n: usize) -> Vec<EvalTool> {
    with_distractors(tools, base, n)
}

/// Where a ranker put the first relevant tool of each query (`None`: not
/// in its list), in query order.
#[derive(Debug, Clone)]
pub struct Ranks(pub Vec<Option<usize>>);

impl Ranks {
    /// Runs `rank` (query text → names, best first) over `queries`.
    pub fn of(queries: &[EvalQuery], mut rank: impl FnMut(&str) -> Vec<String>) -> Self {
        Ranks(
            queries
                .iter()
                .map(|q| rank(&q.query).iter().position(|n| q.relevant.contains(n)))
                .collect(),
        )
    }

    fn hits(&self, at: usize) -> impl Iterator<Item = f64> + '_ {
        self.0
            .iter()
            .map(move |r| f64::from(u8::from(r.is_some_and(|r| r < at))))
    }

    fn reciprocal(&self) -> impl Iterator<Item = f64> + '_ {
        self.0.iter().map(|r| match r {
            Some(r) if *r < 5 => 1.0 / (*r + 1) as f64,
            _ => 0.0,
        })
    }

    /// The part of the queries `keep` admits.
    pub fn only(&self, keep: &[bool]) -> Ranks {
        Ranks(
            self.0
                .iter()
                .zip(keep)
                .filter(|(_, k)| **k)
                .map(|(r, _)| *r)
                .collect(),
        )
    }
}

/// Recall@1, recall@5 and MRR@5 of one ranker on some queries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scores {
    /// How many queries.
    pub queries: usize,
    /// The first result is relevant.
    pub r1: f64,
    /// A relevant tool is among the first five.
    pub r5: f64,
    /// Mean reciprocal rank of the first relevant tool, 0 past five.
    pub mrr: f64,
}

impl Scores {
    /// The scores of `ranks`.
    pub fn of(ranks: &Ranks) -> Self {
        let n = ranks.0.len().max(1) as f64;
        Scores {
            queries: ranks.0.len(),
            r1: ranks.hits(1).sum::<f64>() / n,
            r5: ranks.hits(5).sum::<f64>() / n,
            mrr: ranks.reciprocal().sum::<f64>() / n,
        }
    }
}

/// A paired difference (ranker minus baseline, same queries) and its 95%
/// bootstrap interval.
#[derive(Debug, Clone, Copy)]
pub struct Difference {
    /// The observed difference.
    pub mean: f64,
    /// 2.5th percentile of 10,000 resamples of the queries.
    pub low: f64,
    /// 97.5th percentile.
    pub high: f64,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:+.3} [{:+.3}, {:+.3}]", self.mean, self.low, self.high)
    }
}

/// The paired bootstrap of per-query differences `a - b` (resampling
/// queries with replacement, a fixed seed so reports repeat).
pub fn paired_bootstrap(a: &[f64], b: &[f64]) -> Difference {
    const RESAMPLES: usize = 10_000;
    assert_eq!(a.len(), b.len(), "paired samples");
    let diffs: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    if diffs.is_empty() {
        return Difference {
            mean: 0.0,
            low: 0.0,
            high: 0.0,
        };
    }
    let n = diffs.len();
    let mean = diffs.iter().sum::<f64>() / n as f64;
    let mut rng = SplitMix(0x5eed_cafe_f00d_d00d);
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            (0..n)
                .map(|_| diffs[(rng.next() % n as u64) as usize])
                .sum::<f64>()
                / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    Difference {
        mean,
        low: means[RESAMPLES * 25 / 1000],
        high: means[RESAMPLES * 975 / 1000 - 1],
    }
}

/// splitmix64: a small, fixed generator for the bootstrap.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// recall@5 and recall@1 of `a` minus those of `b`, paired per query.
pub fn differences(a: &Ranks, b: &Ranks) -> (Difference, Difference) {
    let (a5, b5): (Vec<f64>, Vec<f64>) = (a.hits(5).collect(), b.hits(5).collect());
    let (a1, b1): (Vec<f64>, Vec<f64>) = (a.hits(1).collect(), b.hits(1).collect());
    (paired_bootstrap(&a5, &b5), paired_bootstrap(&a1, &b1))
}

/// The slices of `queries`, sorted, each with which queries it holds.
pub fn slices(queries: &[EvalQuery]) -> Vec<(String, Vec<bool>)> {
    let mut names: Vec<&str> = queries.iter().map(|q| q.slice.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|s| (s.to_owned(), queries.iter().map(|q| q.slice == s).collect()))
        .collect()
}

/// Prints one table: every ranker overall and per slice, and each
/// ranker's paired difference from the last one (the baseline).
pub fn print_table(title: &str, tools: usize, queries: &[EvalQuery], rankers: &[(&str, &Ranks)]) {
    println!("\n{title}: {tools} tools, {} queries", queries.len());
    println!(
        "{:<12} {:<10} {:>4} {:>9} {:>9} {:>7}   {:<28} {:<28}",
        "slice",
        "ranker",
        "n",
        "recall@1",
        "recall@5",
        "MRR@5",
        "Δrecall@5 vs last [95%]",
        "Δrecall@1 vs last [95%]"
    );
    let mut parts = vec![("all".to_owned(), vec![true; queries.len()])];
    let sliced = slices(queries);
    if sliced.len() > 1 {
        parts.extend(sliced);
    }
    let (_, baseline) = rankers.last().expect("a baseline");
    for (slice, keep) in &parts {
        for (name, ranks) in rankers {
            let part = ranks.only(keep);
            let s = Scores::of(&part);
            let diff = if std::ptr::eq(*ranks, *baseline) {
                String::new()
            } else {
                let (d5, d1) = differences(&part, &baseline.only(keep));
                format!("{d5:<28} {d1:<28}")
            };
            println!(
                "{slice:<12} {name:<10} {:>4} {:>9.3} {:>9.3} {:>7.3}   {diff}",
                s.queries, s.r1, s.r5, s.mrr
            );
        }
    }
}

/// `tool_search` over `tools`, exactly as a model calls it: each tool
/// registered as an imported plugin tool of its server, one search index
/// (semantic when `semantic` is given), and an executor with tool search
/// on that runs the model's `tool_search` calls.
pub fn tool_search_over(
    tools: &[EvalTool],
    semantic: Option<registry_core::search::SemanticRanking>,
) -> Searcher {
    use registry_core::catalog::BaseTools;
    use registry_core::declare::RemoteOrigin;
    use registry_core::render::ProviderFormat;
    use registry_core::search::ToolSearchIndex;
    use registry_core::session::DeferralPolicy;
    use registry_core::{ToolBuilder, ToolOutput, ToolRegistry};
    use std::collections::BTreeMap;
    use std::sync::Arc;

    // The built-ins are `tool_search` alone: what the linked list with its
    // flag set holds in a binary that declares no tools of its own (a test
    // binary shared with suites that do cannot read that list).
    let registry = ToolRegistry::new(
        BaseTools::__from_handles(vec![registry_core::search::__tool_search()])
            .expect("the base list builds"),
    );
    let mut by_server: BTreeMap<&str, Vec<_>> = BTreeMap::new();
    for tool in tools {
        let (server, own) = tool
            .name
            .strip_prefix("mcp__")
            .and_then(|rest| rest.split_once("__"))
            .expect("an imported name");
        let handle = ToolBuilder::new(tool.name.as_str(), tool.description.as_str())
            .remote_origin(RemoteOrigin::new(server, own))
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{}: {err}", tool.name));
        by_server.entry(server).or_default().push(handle);
    }
    for (server, handles) in by_server {
        let refused = registry.plugins().replace_owner(server, handles);
        assert!(refused.is_empty(), "{server}: {refused:?}");
    }
    let index = Arc::new(match semantic {
        Some(ranking) => ToolSearchIndex::with_semantic(&registry, ranking),
        None => ToolSearchIndex::new(&registry),
    });
    let executor = registry
        .executor()
        .tool_search_with(
            Arc::clone(&index),
            DeferralPolicy::Always,
            ProviderFormat::Anthropic,
        )
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    Searcher {
        executor,
        runtime,
        index,
    }
}

/// An executor with tool search on, and the runtime its turns run on.
pub struct Searcher {
    executor: registry_core::Executor,
    runtime: tokio::runtime::Runtime,
    index: std::sync::Arc<registry_core::search::ToolSearchIndex>,
}

impl Searcher {
    /// The names of the first `max` tools `tool_search` returns for
    /// `query`, called as the model calls it.
    pub fn search(&self, query: &str, max: usize) -> Vec<String> {
        #[derive(Deserialize)]
        struct Reference {
            tool_name: String,
        }
        let call = registry_core::ToolCall::new(
            "eval",
            "tool_search",
            serde_json::json!({ "query": query, "max_results": max }),
        );
        let mut results = self.runtime.block_on(self.executor.run_turn(vec![call]));
        let result = results.remove(0);
        assert!(
            !result.is_error(),
            "the query is accepted: {}",
            result.content()
        );
        // `tool_reference` blocks; "No tools matched ..." when nothing did.
        serde_json::Deserializer::from_str(result.content())
            .into_iter::<Vec<Reference>>()
            .next()
            .and_then(Result::ok)
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.tool_name)
            .collect()
    }
}

impl Searcher {
    /// Why `tool` ranked where it did for `query` (one line; "not ranked"
    /// when no word matched and no meaning ranked it): what the dev
    /// split's report prints for a miss.
    pub fn why(&self, query: &str, tool: &str) -> String {
        match self.index.explain_tool(query, tool) {
            Ok(Some(explanation)) => explanation.to_string(),
            Ok(None) => format!("{tool}: not ranked"),
            Err(err) => format!("{tool}: {err}"),
        }
    }
}

/// A ranker over a [`tool_search_over`] searcher: the names of its first
/// ten.
pub fn ranker(searcher: &Searcher) -> impl FnMut(&str) -> Vec<String> + '_ {
    move |q| searcher.search(q, 10)
}

/// The held-out floor, as sentences for what fails it: per slice, the
/// 95% interval of `ranker`'s paired recall@5 difference from `baseline`
/// must reach 0 (not worse beyond chance); overall, when `better`, the
/// difference itself must be 0 or more. `what` names the run.
pub fn floor_failures(
    what: &str,
    queries: &[EvalQuery],
    ranker: &Ranks,
    baseline: &Ranks,
) -> Vec<String> {
    floor_failures_with(what, queries, ranker, baseline, true)
}

/// [`floor_failures`], with the overall comparison optional.
pub fn floor_failures_with(
    what: &str,
    queries: &[EvalQuery],
    ranker: &Ranks,
    baseline: &Ranks,
    better: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut parts = vec![("all".to_owned(), vec![true; queries.len()])];
    parts.extend(slices(queries));
    for (slice, keep) in &parts {
        let (d5, _) = differences(&ranker.only(keep), &baseline.only(keep));
        if d5.high < 0.0 {
            out.push(format!(
                "{what}, slice {slice}: worse than BM25 beyond chance: Δrecall@5 {d5}"
            ));
        }
        if better && slice == "all" && d5.mean < 0.0 {
            out.push(format!("{what}: under BM25 overall: Δrecall@5 {d5}"));
        }
    }
    out
}
