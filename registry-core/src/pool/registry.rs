//! The registry: the authoritative list and the plugin registry together.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use super::assemble::{ToolPool, assemble, merged};
use super::narrow::{Removed, narrow, removed_by};
use crate::catalog::{BaseTools, CatalogError, Flags, PluginRegistry};
use crate::input::ToolHandle;
use crate::permission::PermissionContext;

/// The authoritative list and the plugin registry together: the one object
/// a runtime keeps, and the only way its hot paths reach tools.
///
/// Cheap to clone (both halves are shared): every clone sees the same
/// plugins. Run turns with [`executor`](Self::executor).
#[derive(Debug, Clone)]
pub struct ToolRegistry {
    base: Arc<BaseTools>,
    plugins: PluginRegistry,
    /// The tool-search index, built on first need and shared by every
    /// clone (see `ExecutorBuilder::tool_search`).
    search_index: Arc<SearchSlot>,
}

/// Where the `search` stage keeps its index with the registry: erased,
/// since that stage comes after this one.
#[derive(Default)]
pub(crate) struct SearchSlot(pub(crate) OnceLock<Arc<dyn Any + Send + Sync>>);

impl std::fmt::Debug for SearchSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "SearchSlot(built)"
        } else {
            "SearchSlot(empty)"
        })
    }
}

impl ToolRegistry {
    /// The registry of every `#[tool]` linked into this binary, under
    /// `flags` (the runtime flags tools are gated on), with no plugins
    /// yet: `ToolRegistry::new(BaseTools::linked(flags)?)` in one call.
    ///
    /// A tool crate the binary never names is not linked, so its tools
    /// are silently absent: name it with [`link!`](crate::link) (and check
    /// with [`BaseTools::require_crates`]).
    ///
    /// ```
    /// use registry_core::{Flags, ToolRegistry};
    /// let registry = ToolRegistry::linked(&Flags::new())?;
    /// # Ok::<(), registry_core::catalog::CatalogError>(())
    /// ```
    pub fn linked(flags: &Flags) -> Result<Self, CatalogError> {
        Ok(Self::new(BaseTools::linked(flags)?))
    }

    /// A registry over an authoritative list, with no plugins yet.
    pub fn new(base: BaseTools) -> Self {
        ToolRegistry {
            base: Arc::new(base),
            plugins: PluginRegistry::new(),
            search_index: Arc::default(),
        }
    }

    /// The slot the `search` stage keeps the registry's index in.
    pub(crate) fn search_slot(&self) -> &SearchSlot {
        &self.search_index
    }

    /// The authoritative list (for alias lookup and introspection).
    pub fn base(&self) -> &BaseTools {
        &self.base
    }

    /// The runtime plugins.
    pub fn plugins(&self) -> &PluginRegistry {
        &self.plugins
    }

    /// The built-ins `cx` keeps, in list order (by name): internal-only
    /// tools removed, then tools a whole-tool deny rule covers (by name or
    /// alias), then tools the active mode leaves out, then tools whose
    /// `enabled` self-check says no.
    pub fn tools(&self, cx: &PermissionContext) -> Vec<ToolHandle> {
        narrow(&self.base, cx)
    }

    /// The execution pool under `cx`, with the plugins registered now:
    /// [`tools`](Self::tools) for built-ins; plugin tools filtered by the
    /// same deny rules and their own `enabled` self-checks (and never
    /// internal ones); each partition sorted by name in byte order;
    /// built-ins first; unique by name.
    ///
    /// A plugin tool whose name is the name or alias of any built-in (even
    /// one narrowed out of this pool) loses, and so does the later of two
    /// plugins with one name (by owner order); each clash is logged with
    /// `tracing::warn!` naming the plugin's owner.
    pub fn assemble_tool_pool(&self, cx: &PermissionContext) -> ToolPool {
        assemble(&self.base, cx, &self.plugins.snapshot())
    }

    /// Why `name` (a primary name or an alias, built-in or plugin) is not
    /// in a pool assembled under `cx`: the first narrowing layer that
    /// removes it, or the `cfg` gate or flag that keeps it out of the list.
    /// `None` when nothing declares the name, or when every layer keeps it
    /// (a pool assembled under an older context may still lack it).
    ///
    /// For explanations only: it reads the unfiltered list and the plugin
    /// registry, so it stays off hot paths.
    pub fn explain_removed(&self, cx: &PermissionContext, name: &str) -> Option<Removed> {
        if let Some((tool, _)) = self.base.resolve(name) {
            return removed_by(tool, cx);
        }
        if let Some(missing) = self.base.explain_missing(name) {
            return Some(Removed::Missing(missing));
        }
        let snapshot = self.plugins.snapshot();
        let plugin = snapshot.tools().iter().find(|p| {
            let spec = p.tool().spec();
            spec.name() == name || spec.aliases().iter().any(|a| a == name)
        })?;
        removed_by(plugin.tool(), cx)
    }

    /// Built-ins (narrowed) plus every plugin tool, unsorted and not
    /// deduplicated: for counting and UI only. Never execute from this
    /// view; use [`assemble_tool_pool`](Self::assemble_tool_pool).
    pub fn merged_tools(&self, cx: &PermissionContext) -> Vec<ToolHandle> {
        merged(&self.base, cx, &self.plugins.snapshot())
    }
}
