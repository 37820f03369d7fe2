//! From the authoritative list to what a model sees: narrowing
//! ([`tools`]), cache-stable assembly with plugins ([`assemble_tool_pool`])
//! and the loose view for counting ([`merged_tools`]).
//!
//! Assembly sorts built-ins and plugins separately and puts built-ins
//! first, so adding, removing or renaming a plugin never changes the
//! rendered built-in prefix, and the provider's prompt cache keeps hitting.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::base_list::{BaseTools, Missing};
use crate::handle::ToolHandle;
use crate::permission::{PermissionContext, RuleSource};
use crate::plugins::{PluginRegistry, PluginSnapshot, PluginTool};

/// Narrows the authoritative list for one context: removes internal-only
/// tools, then tools a whole-tool deny rule covers (by name or alias), then
/// tools the active mode leaves out, then tools whose `enabled` self-check
/// says no. The order of the list (by name) is kept.
pub fn tools(base: &BaseTools, cx: &PermissionContext) -> Vec<ToolHandle> {
    base.iter()
        .filter(|tool| {
            let spec = tool.spec();
            if spec.is_internal() {
                return false;
            }
            if let Some((source, rule)) = cx.whole_tool_deny(spec.name(), spec.aliases()) {
                tracing::debug!(tool = spec.name(), %rule, ?source, "removed by a deny rule");
                return false;
            }
            if !cx.mode().keeps(spec.name()) {
                tracing::debug!(
                    tool = spec.name(),
                    mode = cx.mode().name(),
                    "removed by the mode"
                );
                return false;
            }
            tool.is_enabled()
        })
        .cloned()
        .collect()
}

/// Which narrowing layer keeps a declared tool out of a pool: the answer
/// [`ToolRegistry::explain_removed`] gives, and the reason the executor
/// shows a model that called a tool it may not use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Removed {
    /// The tool is internal-only: never in the ordinary pool.
    #[error("tool `{tool}` is internal and never offered")]
    Internal {
        /// The tool's primary name.
        tool: String,
    },
    /// A whole-tool deny rule covers the tool (by name, alias or server).
    #[error("tool `{tool}` is denied by the {} rule `{rule}`", source_name(*.rule_source))]
    DenyRule {
        /// The tool's primary name.
        tool: String,
        /// Where the rule came from.
        rule_source: RuleSource,
        /// The rule, as written.
        rule: String,
    },
    /// The active mode leaves the tool out.
    #[error("tool `{tool}` is not available in the `{mode}` mode")]
    Mode {
        /// The tool's primary name.
        tool: String,
        /// The mode's name.
        mode: String,
    },
    /// The tool's `enabled` self-check says no.
    #[error("tool `{tool}` is disabled: its `enabled` check says no")]
    Disabled {
        /// The tool's primary name.
        tool: String,
    },
    /// Not in the authoritative list at all: a `cfg` gate or a runtime
    /// flag (see [`BaseTools::explain_missing`]).
    #[error(transparent)]
    Missing(Missing),
}

/// How a rule source is named in messages.
fn source_name(source: RuleSource) -> &'static str {
    match source {
        RuleSource::Policy => "policy",
        RuleSource::User => "user",
        RuleSource::Project => "project",
        RuleSource::Session => "session",
        RuleSource::Cli => "command-line",
    }
}

/// The narrowing layer that removes `tool` under `cx`, checked in the
/// order [`tools`] applies them; `None` when every layer keeps it.
fn removed_by(tool: &ToolHandle, cx: &PermissionContext) -> Option<Removed> {
    let spec = tool.spec();
    let name = spec.name().to_owned();
    if spec.is_internal() {
        return Some(Removed::Internal { tool: name });
    }
    if let Some((rule_source, rule)) = cx.whole_tool_deny(spec.name(), spec.aliases()) {
        return Some(Removed::DenyRule {
            tool: name,
            rule_source,
            rule: rule.to_string(),
        });
    }
    if !cx.mode().keeps(spec.name()) {
        return Some(Removed::Mode {
            tool: name,
            mode: cx.mode().name().to_owned(),
        });
    }
    if !tool.is_enabled() {
        return Some(Removed::Disabled { tool: name });
    }
    None
}

/// Where a pooled tool came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Partition {
    /// A `#[tool]` from the authoritative list.
    BuiltIn,
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

    /// Built-in or plugin (with owner).
    pub fn partition(&self) -> &Partition {
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

/// Assembles the execution pool: [`tools`] for built-ins; plugin tools
/// filtered by the same deny rules and their own `enabled` self-checks (and
/// never internal ones); each partition sorted by name in byte order;
/// built-ins first; unique by name.
///
/// A plugin tool whose name is the name or alias of any built-in (even one
/// narrowed out of this pool) loses, and so does the later of two plugins
/// with one name; each clash is logged with `tracing::warn!` naming the
/// plugin's owner.
pub fn assemble_tool_pool(
    base: &BaseTools,
    cx: &PermissionContext,
    plugins: &PluginSnapshot,
) -> ToolPool {
    let builtins = tools(base, cx);
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
        partition: Partition::BuiltIn,
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
/// use [`assemble_tool_pool`].
pub fn merged_tools(
    base: &BaseTools,
    cx: &PermissionContext,
    plugins: &PluginSnapshot,
) -> Vec<ToolHandle> {
    let mut all = tools(base, cx);
    all.extend(plugins.tools().iter().map(|p| p.tool().clone()));
    all
}

/// The authoritative list and the plugin registry together: the one object
/// a runtime keeps, and the only way its hot paths reach tools.
#[derive(Debug, Clone)]
pub struct ToolRegistry {
    base: BaseTools,
    plugins: PluginRegistry,
}

impl ToolRegistry {
    /// A registry over an authoritative list, with no plugins yet.
    pub fn new(base: BaseTools) -> Self {
        ToolRegistry {
            base,
            plugins: PluginRegistry::new(),
        }
    }

    /// The authoritative list (for alias lookup and introspection).
    pub fn base(&self) -> &BaseTools {
        &self.base
    }

    /// The runtime plugins.
    pub fn plugins(&self) -> &PluginRegistry {
        &self.plugins
    }

    /// See [`tools`].
    pub fn tools(&self, cx: &PermissionContext) -> Vec<ToolHandle> {
        tools(&self.base, cx)
    }

    /// See [`assemble_tool_pool`]; reads the plugins registered now.
    pub fn assemble_tool_pool(&self, cx: &PermissionContext) -> ToolPool {
        assemble_tool_pool(&self.base, cx, &self.plugins.snapshot())
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

    /// See [`merged_tools`].
    pub fn merged_tools(&self, cx: &PermissionContext) -> Vec<ToolHandle> {
        merged_tools(&self.base, cx, &self.plugins.snapshot())
    }
}
