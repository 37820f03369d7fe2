//! Tool search on an executor in one call: the registry's index (built
//! once, kept with the registry), the session's deferral decided for the
//! executor's pool, and the scope `tool_search` searches put in every
//! call's context.

use std::sync::Arc;

use super::shared::ToolSearchIndex;
use super::tool::{ResultShape, ToolSearchScope};
use crate::execute::ExecutorBuilder;
use crate::pool::ToolRegistry;
use crate::render::ProviderFormat;
use crate::session::DeferralPolicy;

impl ExecutorBuilder {
    /// Turns tool search on: at [`build`](Self::build), the session defers
    /// the pool's tools under `policy` (sizes measured in `format`), and
    /// `tool_search` finds them with the registry's own lexical index
    /// (built on first use, shared by every executor of the registry,
    /// following plugin changes), answering in `format`'s way
    /// (`tool_reference` blocks for Anthropic, full definitions elsewhere).
    /// What it finds is discovered in this executor's session.
    ///
    /// `tool_search` itself is in the list only under its runtime flag
    /// ([`TOOL_SEARCH_FLAG`](super::TOOL_SEARCH_FLAG)):
    ///
    /// ```
    /// use registry_core::{Flags, ToolRegistry, render::ProviderFormat};
    /// use registry_core::search::TOOL_SEARCH_FLAG;
    /// use registry_core::session::DeferralPolicy;
    ///
    /// let registry = ToolRegistry::linked(&Flags::new().with(TOOL_SEARCH_FLAG))?;
    /// let executor = registry
    ///     .executor()
    ///     .tool_search(DeferralPolicy::default(), ProviderFormat::Anthropic)
    ///     .build();
    /// // Send the session's view: deferred tools by name, `tool_search` in full.
    /// let tools = executor.pool().for_session(executor.session()).render_anthropic(Default::default());
    /// # let _ = tools;
    /// # Ok::<(), registry_core::catalog::CatalogError>(())
    /// ```
    ///
    /// To rank by meaning too, build the index yourself and use
    /// [`tool_search_with`](Self::tool_search_with).
    pub fn tool_search(self, policy: DeferralPolicy, format: ProviderFormat) -> Self {
        self.search_hook(None, policy, format)
    }

    /// [`tool_search`](Self::tool_search) with an index of your own (one
    /// with a [`SemanticRanking`](super::SemanticRanking), say); share it
    /// between executors.
    pub fn tool_search_with(
        self,
        index: Arc<ToolSearchIndex>,
        policy: DeferralPolicy,
        format: ProviderFormat,
    ) -> Self {
        self.search_hook(Some(index), policy, format)
    }

    fn search_hook(
        self,
        index: Option<Arc<ToolSearchIndex>>,
        policy: DeferralPolicy,
        format: ProviderFormat,
    ) -> Self {
        self.on_build(Box::new(move |registry, pool, session, context| {
            let index = index.unwrap_or_else(|| registry_index(registry));
            if pool.get(super::TOOL_SEARCH_NAME).is_none() {
                tracing::warn!(
                    "tool search is on, but `tool_search` is not in the pool: build the list with the `tool_search` flag"
                );
            }
            session.decide_deferral(pool, policy, format);
            let shape = match format {
                ProviderFormat::Anthropic => ResultShape::ToolReferences,
                other => ResultShape::Definitions(other),
            };
            context.with(ToolSearchScope::new(index, registry, pool, shape))
        }))
    }
}

/// The registry's own lexical index, built on first need.
fn registry_index(registry: &ToolRegistry) -> Arc<ToolSearchIndex> {
    let slot = registry
        .search_slot()
        .0
        .get_or_init(|| Arc::new(ToolSearchIndex::new(registry)) as _);
    match Arc::clone(slot).downcast::<ToolSearchIndex>() {
        Ok(index) => index,
        // Only this function fills the slot; were it anything else, a
        // fresh index still searches correctly.
        Err(_) => Arc::new(ToolSearchIndex::new(registry)),
    }
}
