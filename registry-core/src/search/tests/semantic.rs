//! The semantic seam of tool search, with a small deterministic embedder
//! (a vector per concept, so "clock" and "time" meet where no word does):
//! fusion finds what words cannot, vectors are computed once per text and
//! reused across plugin churn, a failing embedder loses nothing, and the
//! query forms answered by name or filter keep their meaning.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::catalog::BaseTools;
use crate::declare::{RemoteOrigin, ToolBuilder, ToolOutput};
use crate::input::handle::ToolHandle;
use crate::permission::PermissionContext;
use crate::pool::ToolRegistry;
use crate::search::tool::{ResultShape, ToolSearchScope};
use crate::search::{EmbedError, Embedder, Fusion, SemanticRanking, ToolSearchIndex};
use crate::session::Session;

/// Concepts, each a list of words that mean it.
const CONCEPTS: &[&[&str]] = &[
    &["time", "clock", "hour", "timezone", "tokyo", "late"],
    &[
        "folder",
        "directory",
        "directories",
        "allowed",
        "permitted",
        "touch",
    ],
    &["issue", "bug", "ticket"],
    &["note", "observation", "observations", "remember"],
    &["branch", "merge"],
];

/// Embeds a text as how often it says each concept (plus a constant, so
/// no vector is zero). Counts its calls and texts; can be told to fail.
#[derive(Debug, Default)]
struct Concepts {
    calls: AtomicUsize,
    texts: AtomicUsize,
    failing: Mutex<bool>,
}

impl Embedder for Concepts {
    fn model_id(&self) -> &str {
        "concepts-v1"
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        assert!(
            !texts.iter().any(|t| t.contains("kaboom")),
            "the model crashed"
        );
        if *self.failing.lock().unwrap() {
            return Err(EmbedError {
                model: "concepts-v1".into(),
                reason: "the model is down".into(),
            });
        }
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts
            .iter()
            .map(|text| {
                if text.contains("broken") {
                    return Vec::new();
                }
                let words: Vec<String> = text
                    .split(|c: char| !c.is_alphanumeric())
                    .map(str::to_lowercase)
                    .collect();
                let mut v: Vec<f32> = CONCEPTS
                    .iter()
                    .map(|c| words.iter().filter(|w| c.contains(&w.as_str())).count() as f32)
                    .collect();
                v.push(0.05);
                v
            })
            .collect())
    }
}

fn tool(server: &str, own: &str, description: &str) -> ToolHandle {
    ToolBuilder::new(format!("mcp__{server}__{own}"), description)
        .remote_origin(RemoteOrigin::new(server, own))
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap()
}

fn registry() -> ToolRegistry {
    // `tool_search` alone: what `BaseTools::linked` lists, with its flag,
    // in a binary that declares no tools.
    let registry = ToolRegistry::new(
        BaseTools::__from_handles(vec![crate::search::tool::stand_in()]).unwrap(),
    );
    registry.plugins().replace_owner(
        "time",
        vec![
            tool(
                "time",
                "get_current_time",
                "Get the current time in a timezone.",
            ),
            tool("time", "convert_time", "Convert a time between timezones."),
        ],
    );
    registry.plugins().replace_owner(
        "files",
        vec![
            tool(
                "files",
                "list_allowed_directories",
                "List the directories this server may access.",
            ),
            tool("files", "read_file", "Read a file."),
        ],
    );
    registry.plugins().replace_owner(
        "tracker",
        vec![
            tool("tracker", "create_issue", "Open a new issue."),
            tool("tracker", "close_issue", "Close an issue."),
        ],
    );
    registry
}

fn scope(registry: &ToolRegistry, index: Arc<ToolSearchIndex>) -> ToolSearchScope {
    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    ToolSearchScope::new(index, registry, &pool, ResultShape::ToolReferences)
}

/// The best `max` tools of the pool for `query` with their scores, as
/// `tool_search` ranks them.
fn hits(
    registry: &ToolRegistry,
    index: &ToolSearchIndex,
    query: &str,
    max: usize,
) -> Vec<(String, f32)> {
    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    let members = index.scope(registry, &pool);
    index
        .search(&query.parse().unwrap(), max, &members)
        .hits
        .into_iter()
        .map(|hit| (hit.name, hit.score))
        .collect()
}

fn first(scope: &ToolSearchScope, query: &str) -> Vec<String> {
    scope
        .search(&Session::new(), query, 3)
        .unwrap()
        .names()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

#[test]
fn meaning_finds_what_words_cannot() {
    let registry = registry();
    let lexical = Arc::new(ToolSearchIndex::new(&registry));
    // No word of it, nor any word the lexicon relates to one, is in the
    // tool's text.
    let query = "how late is it over in Tokyo";
    assert!(
        !first(&scope(&registry, lexical), query)
            .contains(&"mcp__time__get_current_time".to_owned()),
        "no word of the query is in the tool"
    );
    let embedder = Arc::new(Concepts::default());
    let hybrid = Arc::new(ToolSearchIndex::with_semantic(
        &registry,
        SemanticRanking::new(embedder.clone()),
    ));
    let s = scope(&registry, Arc::clone(&hybrid));
    let found = first(&s, query);
    assert!(
        found[..2].contains(&"mcp__time__get_current_time".to_owned()),
        "{found:?}"
    );
    assert_eq!(
        first(&s, "which folders am I permitted to touch")[0],
        "mcp__files__list_allowed_directories"
    );
    // Hits carry the fused scores, best first.
    let hits = hits(&registry, &hybrid, query, 3);
    assert_eq!(
        hits.iter().map(|h| &h.0).collect::<Vec<_>>(),
        found.iter().collect::<Vec<_>>()
    );
    assert!(hits.windows(2).all(|w| w[0].1 >= w[1].1), "{hits:?}");
    assert!(hits[0].1 > 0.0);
}

#[test]
fn both_fusions_and_their_weights_are_honoured() {
    let registry = registry();
    for fusion in [
        Fusion::Scores {
            semantic_weight: 1.0,
        },
        Fusion::ReciprocalRank {
            k: 60.0,
            semantic_weight: 1.0,
        },
    ] {
        let index = Arc::new(ToolSearchIndex::with_semantic(
            &registry,
            SemanticRanking::new(Arc::new(Concepts::default())).fusion(fusion),
        ));
        let s = scope(&registry, index);
        assert_eq!(
            first(&s, "clock hour")[0].split("__").nth(1),
            Some("time"),
            "{fusion:?}"
        );
    }
    // Weight 0 is the lexical ranking.
    let index = Arc::new(ToolSearchIndex::with_semantic(
        &registry,
        SemanticRanking::new(Arc::new(Concepts::default())).fusion(Fusion::Scores {
            semantic_weight: 0.0,
        }),
    ));
    let lexical = Arc::new(ToolSearchIndex::new(&registry));
    assert_eq!(
        first(&scope(&registry, index), "read a file"),
        first(&scope(&registry, lexical), "read a file")
    );
}

#[test]
fn vectors_are_computed_once_per_text_and_survive_churn() {
    let registry = registry();
    let embedder = Arc::new(Concepts::default());
    let index = Arc::new(ToolSearchIndex::with_semantic(
        &registry,
        SemanticRanking::new(embedder.clone()),
    ));
    let at_start = embedder.texts.load(Ordering::SeqCst);
    assert_eq!(
        embedder.calls.load(Ordering::SeqCst),
        1,
        "one batch for the whole catalog"
    );
    // A server's refresh hands over new handles with the same definitions
    // and one new tool: only the new tool's text is embedded.
    registry.plugins().replace_owner(
        "time",
        vec![
            tool(
                "time",
                "get_current_time",
                "Get the current time in a timezone.",
            ),
            tool("time", "convert_time", "Convert a time between timezones."),
            tool("time", "set_alarm", "Ring at an hour."),
        ],
    );
    assert!(index.sync(&registry) > 0);
    assert_eq!(embedder.texts.load(Ordering::SeqCst) - at_start, 1);
    // A server that leaves and comes back costs nothing either.
    registry.plugins().replace_owner("tracker", Vec::new());
    index.sync(&registry);
    registry.plugins().replace_owner(
        "tracker",
        vec![
            tool("tracker", "create_issue", "Open a new issue."),
            tool("tracker", "close_issue", "Close an issue."),
        ],
    );
    index.sync(&registry);
    assert_eq!(embedder.texts.load(Ordering::SeqCst) - at_start, 1);
    let s = scope(&registry, index);
    assert_eq!(first(&s, "ring at the hour")[0], "mcp__time__set_alarm");
    assert_eq!(
        first(&s, "report a bug")[0].split("__").nth(1),
        Some("tracker")
    );
}

#[test]
fn a_failing_embedder_loses_no_tool_and_no_search() {
    let registry = registry();
    let embedder = Arc::new(Concepts::default());
    *embedder.failing.lock().unwrap() = true;
    let index = Arc::new(ToolSearchIndex::with_semantic(
        &registry,
        SemanticRanking::new(embedder.clone()),
    ));
    assert!(
        index.unembedded() >= 6,
        "every tool is counted: {}",
        index.unembedded()
    );
    let lexical = Arc::new(ToolSearchIndex::new(&registry));
    let s = scope(&registry, Arc::clone(&index));
    for query in ["read a file", "close an issue", "convert a time"] {
        assert_eq!(
            first(&s, query),
            first(&scope(&registry, Arc::clone(&lexical)), query),
            "{query}"
        );
    }
    // The model comes back: the waiting tools get their vectors at the
    // next sync, and meaning ranks again.
    *embedder.failing.lock().unwrap() = false;
    registry
        .plugins()
        .replace_owner("clock", vec![tool("clock", "now", "Tell the hour.")]);
    index.sync(&registry);
    assert_eq!(index.unembedded(), 0);
    let s = scope(&registry, index);
    assert_eq!(first(&s, "what's on the clock")[0], "mcp__clock__now");
    assert_eq!(
        first(&s, "which folders am I permitted to touch")[0],
        "mcp__files__list_allowed_directories"
    );
}

#[test]
fn name_forms_and_filters_keep_their_meaning() {
    let registry = registry();
    let index = Arc::new(ToolSearchIndex::with_semantic(
        &registry,
        SemanticRanking::new(Arc::new(Concepts::default())).fusion(Fusion::Scores {
            semantic_weight: 1.0,
        }),
    ));
    let s = scope(&registry, index);
    assert_eq!(
        first(&s, "select:mcp__files__read_file"),
        ["mcp__files__read_file"]
    );
    assert_eq!(
        first(&s, "mcp__tracker__close_issue"),
        ["mcp__tracker__close_issue"]
    );
    // A server filter holds for what meaning finds too.
    let found = first(&s, "mcp__tracker clock hour");
    assert!(
        found.iter().all(|n| n.starts_with("mcp__tracker__")),
        "{found:?}"
    );
    // A required word holds too: meaning only reorders tools that have it.
    let found = first(&s, "+close clock");
    assert_eq!(found, ["mcp__tracker__close_issue"]);
    // The same index answers the same way every time.
    assert_eq!(first(&s, "timezone issue"), first(&s, "timezone issue"));
}

/// Embeds like [`Concepts`], but a text with `slow` in it waits until
/// the test lets it go, telling the test when it started.
#[derive(Debug)]
struct Gated {
    inner: Concepts,
    entered: Mutex<std::sync::mpsc::Sender<()>>,
    release: Mutex<std::sync::mpsc::Receiver<()>>,
}

impl Embedder for Gated {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.iter().any(|t| t.contains("slow")) {
            self.entered.lock().unwrap().send(()).unwrap();
            self.release.lock().unwrap().recv().unwrap();
        }
        self.inner.embed(texts)
    }
}

#[test]
fn searches_go_on_while_new_tools_are_embedded() {
    let registry = Arc::new(registry());
    let (entered_tx, entered) = std::sync::mpsc::channel();
    let (release, release_rx) = std::sync::mpsc::channel();
    let embedder = Arc::new(Gated {
        inner: Concepts::default(),
        entered: Mutex::new(entered_tx),
        release: Mutex::new(release_rx),
    });
    let index = Arc::new(ToolSearchIndex::with_semantic(
        &registry,
        SemanticRanking::new(embedder),
    ));
    registry.plugins().replace_owner(
        "clock",
        vec![tool("clock", "now", "A slow clock: tell the hour.")],
    );
    let syncing = {
        let (index, registry) = (Arc::clone(&index), Arc::clone(&registry));
        std::thread::spawn(move || index.sync(&registry))
    };
    entered.recv().unwrap();
    // The embedder is busy with the new tool: the index is not locked.
    let (done_tx, done) = std::sync::mpsc::channel();
    {
        let (index, registry) = (Arc::clone(&index), Arc::clone(&registry));
        std::thread::spawn(move || {
            let pool = registry.assemble_tool_pool(&PermissionContext::new());
            let members = index.scope(&registry, &pool);
            done_tx
                .send(
                    index
                        .search(&"read a file".parse().unwrap(), 3, &members)
                        .hits
                        .len(),
                )
                .unwrap();
        });
    }
    let found = done
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("a search finishes while the embedder runs");
    assert!(found > 0);
    release.send(()).unwrap();
    assert_eq!(syncing.join().unwrap(), 1);
    let s = scope(&registry, index);
    assert_eq!(first(&s, "what's on the clock")[0], "mcp__clock__now");
}

#[test]
fn one_bad_vector_spoils_only_its_own_tool() {
    let registry = registry();
    // "a broken ..." sorts first in the batch: its empty vector must not
    // fix the model's length at zero.
    registry
        .plugins()
        .replace_owner("aaa", vec![tool("aaa", "a", "a broken tool")]);
    let index = Arc::new(ToolSearchIndex::with_semantic(
        &registry,
        SemanticRanking::new(Arc::new(Concepts::default())),
    ));
    let s = scope(&registry, index);
    assert_eq!(
        first(&s, "which folders am I permitted to touch")[0],
        "mcp__files__list_allowed_directories"
    );
}

#[test]
fn a_panicking_embedder_is_an_error_not_an_unwind() {
    let registry = registry();
    let embedder = Arc::new(Concepts::default());
    let index = Arc::new(ToolSearchIndex::with_semantic(
        &registry,
        SemanticRanking::new(embedder),
    ));
    registry
        .plugins()
        .replace_owner("boom", vec![tool("boom", "kaboom", "Goes kaboom.")]);
    index.sync(&registry);
    assert_eq!(index.unembedded(), 1, "the tool waits for its vector");
    let s = scope(&registry, Arc::clone(&index));
    // Found by its words; a query the embedder panics on is answered by
    // words too.
    assert_eq!(first(&s, "kaboom")[0], "mcp__boom__kaboom");
    assert_eq!(first(&s, "clock hour")[0].split("__").nth(1), Some("time"));
}

#[test]
fn a_refresh_of_a_large_server_reuses_every_vector() {
    let registry = registry();
    let big = || -> Vec<ToolHandle> {
        (0..1_500)
            .map(|i| {
                tool(
                    "big",
                    &format!("tool_{i}"),
                    &format!("Tool number {i} of a big server."),
                )
            })
            .collect()
    };
    registry.plugins().replace_owner("big", big());
    let embedder = Arc::new(Concepts::default());
    let index = Arc::new(ToolSearchIndex::with_semantic(
        &registry,
        SemanticRanking::new(embedder.clone()),
    ));
    let before = embedder.texts.load(Ordering::SeqCst);
    registry.plugins().replace_owner("big", big());
    assert_eq!(
        index.sync(&registry),
        3_000,
        "every tool left and came back"
    );
    assert_eq!(
        embedder.texts.load(Ordering::SeqCst),
        before,
        "nothing re-embedded"
    );
}

#[test]
fn a_weight_that_is_not_a_number_is_the_default() {
    let registry = registry();
    let ranked = |fusion: Fusion| {
        let index = Arc::new(ToolSearchIndex::with_semantic(
            &registry,
            SemanticRanking::new(Arc::new(Concepts::default())).fusion(fusion),
        ));
        let s = scope(&registry, Arc::clone(&index));
        let names = first(&s, "clock hour");
        let ranked = hits(&registry, &index, "clock hour", 5);
        assert_eq!(
            ranked.iter().take(3).map(|h| &h.0).collect::<Vec<_>>(),
            names.iter().collect::<Vec<_>>()
        );
        ranked
    };
    let nan = ranked(Fusion::Scores {
        semantic_weight: f32::NAN,
    });
    assert!(nan.iter().all(|h| h.1.is_finite()), "{nan:?}");
    assert_eq!(nan, ranked(Fusion::default()));
    let inf = ranked(Fusion::ReciprocalRank {
        k: f32::INFINITY,
        semantic_weight: 0.5,
    });
    assert!(inf.iter().all(|h| h.1 > 0.0), "{inf:?}");
}

#[test]
fn a_repeated_query_is_embedded_once() {
    let registry = registry();
    let embedder = Arc::new(Concepts::default());
    let index = Arc::new(ToolSearchIndex::with_semantic(
        &registry,
        SemanticRanking::new(embedder.clone()),
    ));
    let s = scope(&registry, index);
    let before = embedder.calls.load(Ordering::SeqCst);
    let once = first(&s, "how late is it over in Tokyo");
    assert_eq!(embedder.calls.load(Ordering::SeqCst), before + 1);
    let again = first(&s, "how late is it over in Tokyo");
    assert_eq!(once, again, "the cached vector ranks the same");
    assert_eq!(
        embedder.calls.load(Ordering::SeqCst),
        before + 1,
        "answered from the cache of recent queries"
    );
    first(&s, "a new issue please");
    assert_eq!(embedder.calls.load(Ordering::SeqCst), before + 2);
}

#[test]
fn an_explanation_names_the_words_matched_and_the_meaning() {
    let registry = registry();
    let lexical = ToolSearchIndex::new(&registry);
    let why = lexical.explain("open a new issue", 3).unwrap();
    assert_eq!(why[0].tool, "mcp__tracker__create_issue");
    assert_eq!(why[0].rank, 1);
    assert!(why[0].meaning.is_none(), "no model, no meaning score");
    let words = why[0].words.expect("words matched");
    assert_eq!(why[0].score, words, "ranked by its words alone");
    let issue = why[0]
        .matches
        .iter()
        // Stemmed, as the index reads words.
        .find(|m| m.query_word == "issu")
        .unwrap_or_else(|| panic!("`issue` matched: {:?}", why[0].matches));
    assert_eq!(
        (issue.matched.as_str(), issue.field, issue.how),
        ("issu", "name", "exact")
    );
    assert!(issue.score > 0.0);
    let open = why[0].matches.iter().find(|m| m.query_word == "open");
    assert_eq!(
        open.map(|m| m.field),
        Some("description"),
        "{:?}",
        why[0].matches
    );
    // A word the tool does not say, found through the lexicon (`make`
    // is related to `create` and `new`).
    let make = lexical.explain("make an issue", 1).unwrap().remove(0);
    assert_eq!(make.tool, "mcp__tracker__create_issue");
    let related = make.matches.iter().find(|m| m.query_word == "make");
    assert_eq!(
        related.map(|m| m.how),
        Some("related"),
        "{:?}",
        make.matches
    );
    // The matches' scores add up to the words score before the name
    // factor, which only raises it (1 to 1.5).
    let sum: f32 = why[0].matches.iter().map(|m| m.score).sum();
    assert!(
        sum <= words + 1e-4 && words <= 1.5 * sum + 1e-4,
        "{sum} {words}"
    );
    let line = why[0].to_string();
    assert!(
        line.starts_with("1. mcp__tracker__create_issue: score "),
        "{line}"
    );
    assert!(line.contains("issu→issu (name, exact, "), "{line}");

    // Where a tool ranked however low, and `None` for one that is not
    // ranked at all or not indexed.
    let close = lexical
        .explain_tool("open a new issue", "mcp__tracker__close_issue")
        .unwrap()
        .expect("it shares `issue`");
    assert_eq!(close.rank, 2);
    assert!(
        lexical
            .explain_tool("open a new issue", "mcp__time__convert_time")
            .unwrap()
            .is_none()
    );
    assert!(
        lexical
            .explain_tool("open a new issue", "nope")
            .unwrap()
            .is_none()
    );
    assert!(
        lexical.explain("   ", 3).is_err(),
        "the query error `tool_search` gives"
    );

    // With a model, the meaning score is there, and a tool no word
    // matched is explained by it alone.
    let hybrid = ToolSearchIndex::with_semantic(
        &registry,
        SemanticRanking::new(Arc::new(Concepts::default())),
    );
    let why = hybrid.explain("how late is it over in Tokyo", 2).unwrap();
    let time = why
        .iter()
        .find(|e| e.tool == "mcp__time__get_current_time")
        .expect("found by meaning");
    assert!(time.words.is_none() && time.matches.is_empty(), "{time:?}");
    assert!(time.meaning.is_some_and(|m| m > 0.0), "{time:?}");
}

/// Searches from many threads at once, with ever new words, so the
/// ranking's cache of words fills and is emptied while others read it:
/// every search answers (a word looked up after another search emptied
/// the cache once panicked).
#[test]
fn concurrent_searches_survive_the_word_cache_emptying() {
    let registry = registry();
    let index = ToolSearchIndex::new(&registry);
    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    let members = index.scope(&registry, &pool);
    std::thread::scope(|s| {
        for thread in 0..4 {
            let (index, members) = (&index, &members);
            s.spawn(move || {
                for i in 0..3_000 {
                    let query = format!("w{thread}x{i} v{i}y{thread} issue");
                    let found = index.search(&query.parse().unwrap(), 3, members);
                    assert_eq!(found.hits[0].name, "mcp__tracker__close_issue", "{query}");
                }
            });
        }
    });
}
