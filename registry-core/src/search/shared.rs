//! One search index per tool registry, shared by every session (`Arc`),
//! kept in step with the registry's plugins one tool at a time.

use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::explain::Explanation;
use super::index::{DocId, Document, Membership, SearchHit, SearchIndex, SearchResults};
use super::query::{Query, QueryError};
use super::semantic::{SemanticRanking, fuse};
use super::vectors::{Pending, QueryCache, Vectors};
use crate::input::handle::ToolHandle;
use crate::pool::{ToolPool, ToolRegistry};
use crate::session::deferral::TOOL_SEARCH_NAME;

/// The search index of a [`ToolRegistry`]: every built-in of its list and
/// every registered plugin tool. Build it once, share it across sessions
/// and executors in an `Arc`
/// ([`ExecutorBuilder::tool_search_with`](crate::execute::ExecutorBuilder::tool_search_with));
/// [`sync`](Self::sync) (called before every search) applies plugin
/// changes incrementally.
///
/// With [`with_semantic`](Self::with_semantic) it also ranks by meaning:
/// each tool's text is embedded once (plugin churn embeds only the tools
/// whose text is new), and a query's lexical and semantic rankings are
/// fused.
///
/// ```standalone_crate
/// use registry_core::search::ToolSearchIndex;
/// use registry_core::{
///     Flags, ToolBuilder, ToolOutput, ToolRegistry, catalog::BaseTools,
/// };
///
/// let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).unwrap());
/// let index = ToolSearchIndex::new(&registry);
/// assert!(index.is_empty());
/// let tool = ToolBuilder::new("mcp__notes__find_note", "Find a note by its title.")
///     .build(|_, _| async { Ok(ToolOutput::text("")) })
///     .unwrap();
/// let guard = registry.plugins().register("notes", tool).unwrap();
/// assert_eq!(index.sync(&registry), 1); // one tool joined the index
/// assert_eq!(index.len(), 1);
///
/// drop(guard);
/// assert_eq!(index.sync(&registry), 1); // one tool left the index
/// assert_eq!(index.sync(&registry), 0); // nothing changed since
/// ```
#[derive(Debug)]
pub struct ToolSearchIndex {
    state: RwLock<State>,
    /// Recent queries' vectors (semantic ranking only).
    queries: Mutex<QueryCache>,
}

#[derive(Debug, Default)]
struct State {
    index: SearchIndex,
    /// The handle of every indexed slot, for identity checks.
    handles: Vec<Option<ToolHandle>>,
    /// Indexed plugin tools, in registration order.
    plugins: Vec<(ToolHandle, DocId)>,
    plugin_generation: Option<u64>,
    /// The vectors of the semantic ranking, when there is one.
    vectors: Option<Vectors>,
    /// Slots waiting for a vector: inserted since the vectors were last
    /// filled, or left without one by an embedder that failed.
    unembedded: Vec<Pending>,
}

impl State {
    fn insert(&mut self, tool: &ToolHandle) -> DocId {
        let document = Document::of(tool.spec());
        let doc = self.index.insert(document);
        let slot = slot(doc);
        if self.handles.len() <= slot {
            self.handles.resize(slot + 1, None);
        }
        self.handles[slot] = Some(tool.clone());
        if self.vectors.is_some() {
            self.unembedded.push(Pending::of(slot, &document));
        }
        doc
    }

    fn remove(&mut self, doc: DocId) {
        self.index.remove(doc);
        if let Some(handle) = self.handles.get_mut(slot(doc)) {
            *handle = None;
        }
        if let Some(vectors) = &mut self.vectors {
            vectors.remove(slot(doc));
        }
        self.unembedded.retain(|p| p.slot != slot(doc));
    }

    /// The slot holding exactly this tool (not just one of its name).
    fn find(&self, tool: &ToolHandle) -> Option<DocId> {
        self.index
            .lookup(tool.name())
            .iter()
            .map(|s| *s as usize)
            .find(|s| {
                self.handles
                    .get(*s)
                    .and_then(Option::as_ref)
                    .is_some_and(|h| h.ptr_eq(tool))
            })
            .and_then(|s| self.index.doc_id(s))
    }
}

fn slot(doc: DocId) -> usize {
    doc.slot()
}

impl ToolSearchIndex {
    /// Indexes the registry's built-ins and its plugin tools now.
    pub fn new(registry: &ToolRegistry) -> Self {
        Self::build(registry, None)
    }

    /// Indexes like [`new`](Self::new), and ranks by meaning too: every
    /// tool's text is embedded now, in one batch (see [`SemanticRanking`]).
    pub fn with_semantic(registry: &ToolRegistry, ranking: SemanticRanking) -> Self {
        Self::build(registry, Some(Vectors::new(ranking)))
    }

    fn build(registry: &ToolRegistry, vectors: Option<Vectors>) -> Self {
        let mut state = State {
            vectors,
            ..State::default()
        };
        for tool in registry.base().iter() {
            state.insert(tool);
        }
        let index = ToolSearchIndex {
            state: RwLock::new(state),
            queries: Mutex::default(),
        };
        index.sync(registry);
        index.embed_pending();
        index
    }

    /// Embeds the tools that wait for a vector, in one batch, with the
    /// lock released while the embedder runs (a large server's tools take
    /// seconds; searches go on meanwhile, by words for those tools). What
    /// the embedder fails on waits for the next call; a tool removed
    /// meanwhile is dropped.
    fn embed_pending(&self) {
        let (embedder, items, texts) = {
            let mut state = self.write();
            let State {
                vectors,
                unembedded,
                ..
            } = &mut *state;
            let Some(vectors) = vectors else { return };
            if unembedded.is_empty() {
                return;
            }
            let items = std::mem::take(unembedded);
            let texts = vectors.plan(&items);
            if texts.is_empty() {
                return;
            }
            (vectors.embedder(), items, texts)
        };
        let embedded = Vectors::embed_texts(&*embedder, &texts);
        let mut state = self.write();
        let State {
            vectors,
            unembedded,
            ..
        } = &mut *state;
        let Some(vectors) = vectors else { return };
        match embedded {
            Ok(v) => {
                tracing::debug!(embedded = texts.len(), "tool vectors computed");
                vectors.install(texts, v, &items);
            }
            Err(error) => {
                tracing::warn!(%error, tools = items.len(), "tools are searchable by their words only until the embedder answers");
                unembedded.extend(items.into_iter().filter(|i| vectors.is_current(i)));
            }
        }
    }

    /// Brings the plugin tools up to date with the registry; returns how
    /// many tools were added or removed. One atomic load when nothing
    /// changed; otherwise a walk over the plugin list comparing pointers,
    /// and index work only for the tools that came or went.
    pub fn sync(&self, registry: &ToolRegistry) -> usize {
        let plugins = registry.plugins();
        {
            let state = self.read();
            if state.plugin_generation == Some(plugins.generation()) {
                let retry = !state.unembedded.is_empty();
                drop(state);
                if retry {
                    // The embedder failed before: try those tools again.
                    self.embed_pending();
                }
                return 0;
            }
        }
        let snapshot = plugins.snapshot();
        let mut state = self.write();
        if state.plugin_generation == Some(snapshot.generation()) {
            return 0;
        }
        // Registration order is kept by the registry and new tools come
        // last, so the old list minus removals is a prefix-aligned
        // subsequence of the new one.
        let old = std::mem::take(&mut state.plugins);
        let mut kept = Vec::with_capacity(snapshot.tools().len());
        let mut changed = 0;
        let mut new = snapshot.tools().iter().peekable();
        for (tool, doc) in old {
            if new.peek().is_some_and(|p| p.tool().ptr_eq(&tool)) {
                new.next();
                kept.push((tool, doc));
            } else {
                state.remove(doc);
                changed += 1;
            }
        }
        for plugin in new {
            let doc = state.insert(plugin.tool());
            kept.push((plugin.tool().clone(), doc));
            changed += 1;
        }
        state.plugins = kept;
        state.plugin_generation = Some(snapshot.generation());
        drop(state);
        self.embed_pending();
        changed
    }

    /// The [`Membership`] of `pool`: what a session using that pool may
    /// find (every pooled tool but `tool_search` itself, which is always
    /// loaded). Syncs with `registry` first; a pooled tool the index does
    /// not hold (a pool built from another registry) is indexed then.
    pub(crate) fn scope(&self, registry: &ToolRegistry, pool: &ToolPool) -> Membership {
        self.sync(registry);
        let searchable = || pool.iter().filter(|tool| tool.name() != TOOL_SEARCH_NAME);
        {
            let state = self.read();
            let found: Option<Vec<DocId>> = searchable().map(|tool| state.find(tool)).collect();
            if let Some(docs) = found {
                return state.index.membership(docs);
            }
        }
        // Some pooled tool is not indexed: redo the lookup under the write
        // lock (slots may have changed hands in between), indexing those.
        let mut state = self.write();
        let docs: Vec<DocId> = searchable()
            .map(|tool| {
                state.find(tool).unwrap_or_else(|| {
                    tracing::debug!(
                        tool = tool.name(),
                        "indexing a pooled tool the registry does not list"
                    );
                    state.insert(tool)
                })
            })
            .collect();
        let members = state.index.membership(docs);
        drop(state);
        self.embed_pending();
        members
    }

    /// Runs `query` over the tools `members` admits (see
    /// [`SearchIndex::search`]).
    ///
    /// With a semantic ranking, a query ranked by words is also ranked by
    /// meaning over the same tools (within its server filter; with `+`
    /// words, among the best lexical candidates, which all have them), and
    /// the two are fused;
    /// `select:`, exact names and server prefixes are answered by name.
    pub(crate) fn search(&self, query: &Query, max: usize, members: &Membership) -> SearchResults {
        self.ranked(query, max, members).results
    }

    /// [`search`](Self::search), keeping each side's scores.
    fn ranked(&self, query: &Query, max: usize, members: &Membership) -> Ranked {
        let by_words = |state: &State| {
            let results = state.index.search(query, max, members);
            Ranked {
                words: results
                    .hits
                    .iter()
                    .map(|h| (h.doc.slot() as u32, h.score))
                    .collect(),
                results,
                meaning: Vec::new(),
            }
        };
        let (embedder, dims) = {
            let state = self.read();
            match &state.vectors {
                Some(v) if !state.index.answers_by_name(query, members) => {
                    (Arc::clone(&v.ranking().embedder), v.dims())
                }
                _ => return by_words(&state),
            }
        };
        // Embedding the query may take milliseconds: not under the lock.
        let vector = dims.and_then(|dims| self.query_vector(&*embedder, query.as_str(), dims));
        let state = self.read();
        let (Some(vectors), Some(vector)) = (&state.vectors, vector) else {
            return by_words(&state);
        };
        let ranking = vectors.ranking();
        let wanted = ranking.candidates.max(max);
        let lexical: Vec<(u32, f32)> = state
            .index
            .search(query, wanted, members)
            .hits
            .iter()
            .map(|h| (h.doc.slot() as u32, h.score))
            .collect();
        let pool: Vec<u32> = if query.required_terms().is_empty() {
            state.index.admitted(query, members)
        } else {
            lexical.iter().map(|(slot, _)| *slot).collect()
        };
        let mut semantic = vectors.similarities(&vector, &pool);
        let name = |slot: u32| state.index.name_at(slot);
        if semantic.len() > wanted {
            // Names break ties at the cut too, so which of equal tools
            // survive never depends on slot order.
            semantic.select_nth_unstable_by(wanted - 1, |a, b| {
                b.1.total_cmp(&a.1).then_with(|| name(a.0).cmp(name(b.0)))
            });
            semantic.truncate(wanted);
        }
        semantic.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| name(a.0).cmp(name(b.0))));
        let fused = fuse(ranking.fusion, &lexical, &semantic, name);
        Ranked {
            results: SearchResults {
                hits: fused
                    .into_iter()
                    .take(max)
                    .map(|(slot, score)| state.index.hit(slot, score))
                    .collect(),
                unknown: Vec::new(),
            },
            words: lexical,
            meaning: semantic,
        }
    }

    /// Why the first `max` tools (at most 50, as `tool_search` returns)
    /// `query` finds ranked where they did:
    /// each one's words score and the words it matched, and its meaning
    /// score with a semantic ranking (see [`Explanation`]). Searches every
    /// indexed tool, as a session that may use all of them would.
    ///
    /// # Errors
    ///
    /// The query does not parse (the error `tool_search` would answer).
    pub fn explain(&self, query: &str, max: usize) -> Result<Vec<Explanation>, QueryError> {
        let parsed: Query = query.parse()?;
        let members = self.everything();
        let max = max.clamp(1, super::tool::MAX_RESULTS);
        let ranked = self.ranked(&parsed, max, &members);
        let state = self.read();
        Ok(ranked
            .results
            .hits
            .iter()
            .enumerate()
            .map(|(i, hit)| ranked.explain(&state.index, &parsed, i, hit))
            .collect())
    }

    /// Why the tool named `tool` ranked where it did for `query`, however
    /// low: `None` when no tool of that name is indexed or the query does
    /// not rank it at all (no word matched, and no meaning to rank by).
    ///
    /// # Errors
    ///
    /// The query does not parse.
    pub fn explain_tool(&self, query: &str, tool: &str) -> Result<Option<Explanation>, QueryError> {
        let parsed: Query = query.parse()?;
        let members = self.everything();
        let ranked = self.ranked(&parsed, self.len().max(1), &members);
        let state = self.read();
        Ok(ranked
            .results
            .hits
            .iter()
            .enumerate()
            .find(|(_, hit)| hit.name == tool)
            .map(|(i, hit)| ranked.explain(&state.index, &parsed, i, hit)))
    }

    /// Every indexed tool but `tool_search`.
    fn everything(&self) -> Membership {
        // What waits for a vector gets one first, as a search after a sync
        // would see it.
        self.embed_pending();
        let state = self.read();
        let docs = (0..state.handles.len())
            .filter(|&slot| {
                state.handles[slot]
                    .as_ref()
                    .is_some_and(|h| h.name() != TOOL_SEARCH_NAME)
            })
            .filter_map(|slot| state.index.doc_id(slot));
        state.index.membership(docs)
    }

    /// The vector of `text` as a query: from the cache of recent
    /// queries, or embedded (outside every lock) and remembered.
    fn query_vector(
        &self,
        embedder: &dyn super::Embedder,
        text: &str,
        dims: usize,
    ) -> Option<Arc<[f32]>> {
        let cached = self
            .queries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(text);
        if let Some(v) = cached.filter(|v| v.len() == dims) {
            return Some(v);
        }
        let vector = Vectors::query(embedder, text, dims)?;
        self.queries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .put(text, Arc::clone(&vector));
        Some(vector)
    }

    /// How many indexed tools wait for a vector because the embedder
    /// failed on them: they are found by their words until it answers
    /// (tried again at each [`sync`](Self::sync)); 0 without a semantic
    /// ranking.
    pub fn unembedded(&self) -> usize {
        self.read().unembedded.len()
    }

    /// How many tools are indexed.
    pub fn len(&self) -> usize {
        self.read().index.len()
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    // The state is only ever replaced whole per tool (insert or remove),
    // so a panic elsewhere cannot leave it half-updated: poison is ignored.
    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A search's answer and each side's scores (slot, score), best first:
/// what an [`Explanation`] reads.
struct Ranked {
    results: SearchResults,
    words: Vec<(u32, f32)>,
    meaning: Vec<(u32, f32)>,
}

impl Ranked {
    /// The explanation of the hit at `place` (from 0).
    fn explain(
        &self,
        index: &SearchIndex,
        query: &Query,
        place: usize,
        hit: &SearchHit,
    ) -> Explanation {
        let slot = hit.doc.slot() as u32;
        let side = |list: &[(u32, f32)]| list.iter().find(|(s, _)| *s == slot).map(|(_, v)| *v);
        // A sync between ranking and explaining may have given the slot to
        // another tool: then its words are not this tool's to show.
        let matches = if index.name_at(slot) == hit.name {
            index.word_matches(query, slot)
        } else {
            Vec::new()
        };
        Explanation {
            tool: hit.name.clone(),
            rank: place + 1,
            score: hit.score,
            // A tool picked by name has a score of 0 and no word matched.
            words: side(&self.words).filter(|_| !matches.is_empty()),
            meaning: side(&self.meaning),
            matches,
        }
    }
}
