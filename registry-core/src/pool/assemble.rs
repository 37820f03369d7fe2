//! Assembly: built-ins narrowed and sorted, then plugins sorted, unique by
//! name, built-ins winning clashes; the pool a turn runs against, with its
//! render cache.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::narrow::narrow;
use crate::catalog::{BaseTools, PluginSnapshot, PluginTool};
use crate::input::ToolHandle;
use crate::permission::PermissionContext;

/// Where a pooled tool came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Partition {
    /// A `#[tool]` of the authoritative list ([`BaseTools`]): what the
    /// docs call a built-in.
    Base,
    /// A runtime plugin tool, with its owner.
    Plugin(Arc<str>),
}

/// One tool of a pool.
#[derive(Debug, Clone)]
pub struct PoolEntry {
    tool: ToolHandle,
    partition: Partition,
}

impl PoolEntry {
    /// The tool.
    pub fn tool(&self) -> &ToolHandle {
        &self.tool
    }

    /// The plugin owner that registered the tool, or `None` for a tool
    /// of the authoritative list ([`BaseTools`]).
    pub fn plugin(&self) -> Option<&str> {
        match &self.partition {
            Partition::Base => None,
            Partition::Plugin(owner) => Some(owner),
        }
    }

    pub(crate) fn partition(&self) -> &Partition {
        &self.partition
    }
}

/// The execution pool: built-ins sorted by name, then plugins sorted by
/// name, unique by name. Renders of it are cached, so rendering an unchanged
/// pool twice does the work once.
#[derive(Debug)]
pub struct ToolPool {
    entries: Vec<PoolEntry>,
    builtin_len: usize,
    plugin_generation: u64,
    renders: Mutex<BTreeMap<String, Arc<str>>>,
}

impl ToolPool {
    /// Every tool, built-ins first.
    pub fn entries(&self) -> &[PoolEntry] {
        &self.entries
    }

    /// Every tool, built-ins first.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &ToolHandle> {
        self.entries.iter().map(PoolEntry::tool)
    }

    /// The built-in prefix.
    pub fn builtins(&self) -> &[PoolEntry] {
        &self.entries[..self.builtin_len]
    }

    /// The plugin suffix.
    pub fn plugins(&self) -> &[PoolEntry] {
        &self.entries[self.builtin_len..]
    }

    /// How many tools the pool holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The tool with this primary name.
    pub fn get(&self, name: &str) -> Option<&ToolHandle> {
        self.iter().find(|tool| tool.name() == name)
    }

    /// The plugin-registry generation the pool was assembled at.
    pub fn plugin_generation(&self) -> u64 {
        self.plugin_generation
    }

    /// Returns the cached render for `key`, producing it once.
    pub(crate) fn render_cached(
        &self,
        key: &str,
        render: impl FnOnce(&ToolPool) -> String,
    ) -> Arc<str> {
        if let Some(hit) = self.lock_renders().get(key) {
            return Arc::clone(hit);
        }
        // Rendered outside the lock; a concurrent first render of the same
        // key produces the same bytes, and the first insert wins.
        let rendered: Arc<str> = render(self).into();
        Arc::clone(
            self.lock_renders()
                .entry(key.to_owned())
                .or_insert(rendered),
        )
    }

    fn lock_renders(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<str>>> {
        self.renders.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Assembles the execution pool: [`narrow`] for built-ins; plugin tools
/// filtered by the same deny rules and their own `enabled` self-checks (and
/// never internal ones); each partition sorted by name in byte order;
/// built-ins first; unique by name.
///
/// A plugin tool whose name is the name or alias of any built-in (even one
/// narrowed out of this pool) loses, and so does the later of two plugins
/// with one name; each clash is logged with `tracing::warn!` naming the
/// plugin's owner.
pub(crate) fn assemble(
    base: &BaseTools,
    cx: &PermissionContext,
    plugins: &PluginSnapshot,
) -> ToolPool {
    let builtins = narrow(base, cx);
    // Every name any built-in answers to, in the pool or not: a plugin may
    // never take over the name of a built-in that a rule, a mode or a
    // self-check removed. Sorted for binary search.
    let mut reserved: Vec<&str> = base
        .iter()
        .flat_map(|tool| {
            std::iter::once(tool.name()).chain(tool.spec().aliases().iter().map(String::as_str))
        })
        .collect();
    reserved.sort_unstable();

    // Keyed by (name, owner) in byte order, so equal names resolve the same
    // way in every process and plugin duplicates end up adjacent. The keys
    // are read once: comparing through each handle costs a cache miss per
    // hop at large n.
    let mut candidates: Vec<(&str, &str, &PluginTool)> = plugins
        .tools()
        .iter()
        .filter(|p| {
            let spec = p.tool().spec();
            !spec.is_internal()
                && !cx.denies_whole_tool(spec.name(), spec.aliases())
                && p.tool().is_enabled()
        })
        .map(|p| (p.tool().name(), p.owner(), p))
        .collect();
    candidates.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));

    let mut entries: Vec<PoolEntry> = Vec::with_capacity(builtins.len() + candidates.len());
    entries.extend(builtins.iter().map(|tool| PoolEntry {
        tool: tool.clone(),
        partition: Partition::Base,
    }));
    let builtin_len = entries.len();
    let mut kept: Option<&PluginTool> = None;
    for (name, _, plugin) in candidates {
        if reserved.binary_search(&name).is_ok() {
            tracing::warn!(
                tool = name,
                owner = plugin.owner(),
                "plugin tool clashes with a built-in tool's name; the built-in wins"
            );
            continue;
        }
        if let Some(first) = kept.filter(|first| first.tool().name() == name) {
            tracing::warn!(
                tool = name,
                owner = plugin.owner(),
                kept_owner = first.owner(),
                "two plugins register the same tool name; the first by owner order wins"
            );
            continue;
        }
        kept = Some(plugin);
        entries.push(PoolEntry {
            tool: plugin.tool().clone(),
            partition: Partition::Plugin(plugin.owner_arc()),
        });
    }

    ToolPool {
        entries,
        builtin_len,
        plugin_generation: plugins.generation(),
        renders: Mutex::default(),
    }
}

/// Built-ins (narrowed) plus every plugin tool, unsorted and not
/// deduplicated: for counting and UI only. Never execute from this view;
/// use [`assemble`].
pub(crate) fn merged(
    base: &BaseTools,
    cx: &PermissionContext,
    plugins: &PluginSnapshot,
) -> Vec<ToolHandle> {
    let mut all = narrow(base, cx);
    all.extend(plugins.tools().iter().map(|p| p.tool().clone()));
    all
}
