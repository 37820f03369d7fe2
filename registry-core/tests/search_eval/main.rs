//! Search quality on real MCP catalogs: recall@1 and recall@5 of the
//! index against a plain BM25 baseline, on a dev set and a held-out set
//! of intent queries (see `queries.json`), with floors CI enforces.
//!
//! Print the report (and every dev-set miss with `SEARCH_EVAL_VERBOSE=1`):
//! `cargo test -p registry-core --test search_eval -- --nocapture`
//! (or `scripts/search-eval.sh`).

mod bm25;

use registry_core::search::{Document, SearchIndex};
use serde::Deserialize;

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

#[derive(Deserialize)]
struct Queries {
    queries: Vec<EvalQuery>,
}

#[derive(Deserialize)]
struct EvalQuery {
    query: String,
    split: String,
    relevant: Vec<String>,
}

/// `(name, description)` of every tool, as an MCP import names it.
fn tools() -> Vec<(String, String)> {
    let catalogs: Catalogs =
        serde_json::from_str(include_str!("catalogs.json")).expect("catalogs.json parses");
    catalogs
        .catalogs
        .iter()
        .flat_map(|c| {
            c.tools.iter().map(|t| {
                (
                    format!("mcp__{}__{}", c.server, t.name),
                    t.description.clone(),
                )
            })
        })
        .collect()
}

fn queries() -> Vec<EvalQuery> {
    let queries: Queries =
        serde_json::from_str(include_str!("queries.json")).expect("queries.json parses");
    queries.queries
}

#[derive(Default, Clone, Copy)]
struct Tally {
    queries: usize,
    at1: usize,
    at5: usize,
    reciprocal_rank: f64,
}

impl Tally {
    fn add(&mut self, ranked: &[String], relevant: &[String]) {
        self.queries += 1;
        if let Some(rank) = ranked.iter().position(|n| relevant.contains(n)) {
            self.at1 += usize::from(rank == 0);
            self.at5 += usize::from(rank < 5);
            self.reciprocal_rank += 1.0 / (rank + 1) as f64;
        }
    }
    fn r1(&self) -> f64 {
        self.at1 as f64 / self.queries as f64
    }
    fn r5(&self) -> f64 {
        self.at5 as f64 / self.queries as f64
    }
    fn mrr(&self) -> f64 {
        self.reciprocal_rank / self.queries as f64
    }
}

struct Report {
    ours: [Tally; 2],
    baseline: [Tally; 2],
}

fn evaluate(verbose: bool) -> Report {
    let tools = tools();
    let mut index = SearchIndex::new();
    for (name, description) in &tools {
        index.insert(Document {
            name,
            aliases: &[],
            hint: None,
            description,
        });
    }
    let all = index.membership_of_all();
    let baseline = bm25::Bm25::new(tools.iter().map(|(n, d)| (n.as_str(), d.as_str())));
    let mut report = Report {
        ours: [Tally::default(); 2],
        baseline: [Tally::default(); 2],
    };
    for q in queries() {
        let split = usize::from(q.split == "heldout");
        let ours: Vec<String> = index
            .search(&q.query.parse().expect("query parses"), 10, &all)
            .hits
            .into_iter()
            .map(|h| h.name)
            .collect();
        let base = baseline.search(&q.query, 10);
        report.ours[split].add(&ours, &q.relevant);
        report.baseline[split].add(&base, &q.relevant);
        // Only dev queries are ever printed: the held-out set is for
        // measuring, never for looking at while tuning.
        if verbose && split == 0 && !ours.first().is_some_and(|n| q.relevant.contains(n)) {
            println!(
                "[{}] {:?}\n    want {:?}\n    got  {:?}\n    bm25 {:?}",
                q.split,
                q.query,
                q.relevant,
                &ours[..ours.len().min(5)],
                &base[..base.len().min(3)]
            );
        }
    }
    println!(
        "search eval: {} tools, {} queries\n{:<9} {:<8} {:>9} {:>9} {:>7}",
        tools.len(),
        report.ours.iter().map(|t| t.queries).sum::<usize>(),
        "set",
        "ranker",
        "recall@1",
        "recall@5",
        "MRR"
    );
    for (split, name) in ["dev", "held-out"].iter().enumerate() {
        for (ranker, t) in [
            ("index", report.ours[split]),
            ("bm25", report.baseline[split]),
        ] {
            println!(
                "{name:<9} {ranker:<8} {:>9.3} {:>9.3} {:>7.3}",
                t.r1(),
                t.r5(),
                t.mrr()
            );
        }
    }
    report
}

#[test]
fn search_quality_beats_plain_bm25_with_floors() {
    let report = evaluate(std::env::var_os("SEARCH_EVAL_VERBOSE").is_some());
    for (split, name) in ["dev", "held-out"].iter().enumerate() {
        let (ours, base) = (report.ours[split], report.baseline[split]);
        assert!(
            ours.r1() >= FLOOR_AT1,
            "{name}: recall@1 {:.3} under the floor {FLOOR_AT1}",
            ours.r1()
        );
        assert!(
            ours.r5() >= FLOOR_AT5,
            "{name}: recall@5 {:.3} under the floor {FLOOR_AT5}",
            ours.r5()
        );
        assert!(
            ours.at1 >= base.at1 && ours.at5 >= base.at5,
            "{name}: the index must not lose to plain BM25"
        );
    }
}

/// Floors for both sets, a little under the held-out numbers measured
/// when the ranking was tuned (recall@1 0.524, recall@5 0.778; dev 0.578
/// and 0.797), so a change that makes search worse fails CI. The ranking
/// is deterministic; the margin leaves room for honest trade-offs.
const FLOOR_AT1: f64 = 0.48;
const FLOOR_AT5: f64 = 0.74;
