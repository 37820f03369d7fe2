//! One search index per tool registry, shared by every session (`Arc`),
//! kept in step with the registry's plugins one tool at a time.

use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::index::{DocId, Document, Membership, SearchIndex, SearchResults};
use super::query::Query;
use crate::input::handle::ToolHandle;
use crate::pool::{ToolPool, ToolRegistry};
use crate::session::deferral::TOOL_SEARCH_NAME;

/// The search index of a [`ToolRegistry`]: every built-in of its list and
/// every registered plugin tool. Build it once, share it across sessions
/// in an `Arc`; [`sync`](Self::sync) (called by [`scope`](Self::scope))
/// applies plugin changes incrementally.
///
/// ```standalone_crate
/// use registry_core::search::ToolSearchIndex;
/// use registry_core::{
///     Flags, PermissionContext, ToolBuilder, ToolOutput, ToolRegistry,
///     catalog::try_all_base_tools,
/// };
///
/// let registry = ToolRegistry::new(try_all_base_tools(&Flags::new()).unwrap());
/// let index = ToolSearchIndex::new(&registry);
/// let tool = ToolBuilder::new("mcp__notes__find_note", "Find a note by its title.")
///     .build(|_, _| async { Ok(ToolOutput::text("")) })
///     .unwrap();
/// let guard = registry.plugins().register("notes", tool).unwrap();
///
/// let pool = registry.assemble_tool_pool(&PermissionContext::new());
/// let members = index.scope(&registry, &pool); // picks up the new plugin tool
/// let found = index.search(&"look up a note".parse().unwrap(), 5, &members);
/// assert_eq!(found.hits[0].name, "mcp__notes__find_note");
///
/// drop(guard);
/// assert_eq!(index.sync(&registry), 1); // one tool left the index
/// ```
#[derive(Debug)]
pub struct ToolSearchIndex {
    state: RwLock<State>,
}

#[derive(Debug, Default)]
struct State {
    index: SearchIndex,
    /// The handle of every indexed slot, for identity checks.
    handles: Vec<Option<ToolHandle>>,
    /// Indexed plugin tools, in registration order.
    plugins: Vec<(ToolHandle, DocId)>,
    plugin_generation: Option<u64>,
}

impl State {
    fn insert(&mut self, tool: &ToolHandle) -> DocId {
        let doc = self.index.insert(Document::of(tool.spec()));
        let slot = slot(doc);
        if self.handles.len() <= slot {
            self.handles.resize(slot + 1, None);
        }
        self.handles[slot] = Some(tool.clone());
        doc
    }

    fn remove(&mut self, doc: DocId) {
        self.index.remove(doc);
        if let Some(handle) = self.handles.get_mut(slot(doc)) {
            *handle = None;
        }
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
        let mut state = State::default();
        for tool in registry.base().iter() {
            state.insert(tool);
        }
        let index = ToolSearchIndex {
            state: RwLock::new(state),
        };
        index.sync(registry);
        index
    }

    /// Brings the plugin tools up to date with the registry; returns how
    /// many tools were added or removed. One atomic load when nothing
    /// changed; otherwise a walk over the plugin list comparing pointers,
    /// and index work only for the tools that came or went.
    pub fn sync(&self, registry: &ToolRegistry) -> usize {
        let plugins = registry.plugins();
        if self.read().plugin_generation == Some(plugins.generation()) {
            return 0;
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
        changed
    }

    /// The [`Membership`] of `pool`: what a session using that pool may
    /// find (every pooled tool but `tool_search` itself, which is always
    /// loaded). Syncs with `registry` first; a pooled tool the index does
    /// not hold (a pool built from another registry) is indexed then.
    pub fn scope(&self, registry: &ToolRegistry, pool: &ToolPool) -> Membership {
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
        state.index.membership(docs)
    }

    /// Runs `query` over the tools `members` admits (see
    /// [`SearchIndex::search`]).
    pub fn search(&self, query: &Query, max: usize, members: &Membership) -> SearchResults {
        self.read().index.search(query, max, members)
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
