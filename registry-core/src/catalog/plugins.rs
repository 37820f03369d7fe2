//! Runtime plugins: tools registered while the program runs (MCP servers,
//! configuration), each with an owner, removed by dropping a guard or by
//! owner.
//!
//! The catalog and the executor read the same registry, so what the model
//! sees and what can run never diverge. Every change bumps a generation
//! number, so callers can cache renders and know when to re-render.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, Weak};

use crate::input::handle::ToolHandle;

/// A tool contributed by a plugin, with the plugin that owns it.
#[derive(Debug, Clone)]
pub struct PluginTool {
    owner: Arc<str>,
    tool: ToolHandle,
}

impl PluginTool {
    /// A plugin tool owned by `owner` (an MCP server name, a plugin id).
    pub fn new(owner: impl Into<Arc<str>>, tool: ToolHandle) -> Self {
        PluginTool {
            owner: owner.into(),
            tool,
        }
    }

    /// The plugin that contributed the tool.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    pub(crate) fn owner_arc(&self) -> Arc<str> {
        Arc::clone(&self.owner)
    }

    /// The tool.
    pub fn tool(&self) -> &ToolHandle {
        &self.tool
    }
}

/// A thread-safe registry of plugin tools.
///
/// ```
/// use registry_core::{ToolBuilder, ToolOutput, catalog::PluginRegistry};
///
/// let registry = PluginRegistry::new();
/// let tool = ToolBuilder::new("mcp__notes__search", "Search notes.")
///     .build(|_, _| async { Ok(ToolOutput::text("")) })
///     .unwrap();
/// let guard = registry.register("notes", tool).unwrap();
/// assert_eq!(registry.len(), 1);
/// drop(guard); // the plugin went away: so did its tool
/// assert!(registry.is_empty());
/// ```
#[derive(Clone, Default)]
pub struct PluginRegistry {
    inner: Arc<Inner>,
}

struct Inner {
    entries: RwLock<BTreeMap<u64, PluginTool>>,
    next_id: AtomicU64,
    generation: AtomicU64,
    /// Tells [`PluginRegistry::subscribe`]rs that the generation moved.
    changed: tokio::sync::watch::Sender<u64>,
}

impl Default for Inner {
    fn default() -> Self {
        Inner {
            entries: RwLock::default(),
            next_id: AtomicU64::new(0),
            generation: AtomicU64::new(0),
            changed: tokio::sync::watch::Sender::new(0),
        }
    }
}

impl fmt::Debug for PluginRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginRegistry")
            .field("tools", &self.inner.read().len())
            .field("generation", &self.generation())
            .finish()
    }
}

impl Inner {
    // A panic while holding the lock cannot leave the map half-updated
    // (every write is one insert or retain), so poisoning is ignored.
    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<u64, PluginTool>> {
        self.entries.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<u64, PluginTool>> {
        self.entries.write().unwrap_or_else(PoisonError::into_inner)
    }

    // Generations move while the write lock is held, so a snapshot's
    // tools and generation always agree.
    fn remove(&self, id: u64) -> bool {
        let mut entries = self.write();
        let removed = entries.remove(&id).is_some();
        if removed {
            self.bump();
        }
        removed
    }

    /// Moves the generation (write lock held) and wakes subscribers.
    fn bump(&self) {
        let generation = self.generation.fetch_add(1, Ordering::AcqRel) + 1;
        self.changed.send_replace(generation);
    }
}

/// A plugin tool could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PluginError {
    /// The tool's input schema is not an object schema.
    #[error(
        "plugin tool `{tool}` cannot be registered: {source}; every provider requires an object input schema"
    )]
    InputNotObject {
        /// The tool's name.
        tool: String,
        /// What the schema is instead.
        #[source]
        source: crate::declare::ObjectSchemaError,
    },
}

impl PluginRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool owned by `owner`. The tool stays until the guard is
    /// dropped or disposed, or its owner is unregistered.
    ///
    /// Fails when the tool's input schema is not an object schema (no
    /// provider accepts one): a plugin tool is held to the rule the list
    /// holds built-ins to. Tools made with
    /// [`ToolBuilder`](crate::declare::ToolBuilder) were checked when built; a
    /// `#[tool]` type wrapped with [`ToolHandle::new`] is checked here.
    #[must_use = "dropping the guard removes the tool at once; call `detach()` to keep it until `unregister_owner`"]
    pub fn register(
        &self,
        owner: impl Into<Arc<str>>,
        tool: ToolHandle,
    ) -> Result<PluginGuard, PluginError> {
        crate::declare::require_object_schema(tool.input_schema()).map_err(|source| {
            PluginError::InputNotObject {
                tool: tool.name().to_owned(),
                source,
            }
        })?;
        let id = self.inner.next_id.fetch_add(1, Ordering::AcqRel);
        let mut entries = self.inner.write();
        entries.insert(id, PluginTool::new(owner, tool));
        self.inner.bump();
        drop(entries);
        Ok(PluginGuard {
            registry: Arc::downgrade(&self.inner),
            id,
            armed: true,
        })
    }

    /// Replaces every tool `owner` contributed with `tools`, in one step:
    /// no snapshot ever sees some of the old set and some of the new, and
    /// the generation moves once, or not at all when nothing changed.
    ///
    /// A tool of `tools` that is the very handle already registered
    /// ([`ToolHandle::ptr_eq`]) keeps its registration: whoever holds it
    /// sees nothing happen to it. Tools whose input schema is not an
    /// object are left out, each with its error; the rest are registered.
    ///
    /// ```
    /// use registry_core::{ToolBuilder, ToolOutput, catalog::PluginRegistry};
    ///
    /// let tool = |name: &str| {
    ///     ToolBuilder::new(name, "A plugin tool.")
    ///         .build(|_, _| async { Ok(ToolOutput::text("")) })
    ///         .unwrap()
    /// };
    /// let registry = PluginRegistry::new();
    /// let kept = tool("kept");
    /// registry.replace_owner("srv", vec![kept.clone(), tool("old")]);
    /// let before = registry.generation();
    /// registry.replace_owner("srv", vec![kept.clone(), tool("new")]);
    /// assert_eq!(registry.generation(), before + 1);
    /// // Replacing with the same handles changes nothing.
    /// registry.replace_owner("srv", registry.tools());
    /// assert_eq!(registry.generation(), before + 1);
    /// ```
    pub fn replace_owner(
        &self,
        owner: impl Into<Arc<str>>,
        tools: Vec<ToolHandle>,
    ) -> Vec<PluginError> {
        let owner: Arc<str> = owner.into();
        let mut errors = Vec::new();
        let mut valid = Vec::with_capacity(tools.len());
        for tool in tools {
            match crate::declare::require_object_schema(tool.input_schema()) {
                Ok(()) => valid.push(tool),
                Err(source) => errors.push(PluginError::InputNotObject {
                    tool: tool.name().to_owned(),
                    source,
                }),
            }
        }
        let mut entries = self.inner.write();
        let before = entries.len();
        // Keep what is still offered, by identity; drop the rest.
        entries.retain(|_, entry| {
            *entry.owner != *owner || valid.iter().any(|t| t.ptr_eq(entry.tool()))
        });
        let mut changed = entries.len() != before;
        for tool in valid {
            let registered = entries
                .values()
                .any(|entry| *entry.owner == *owner && entry.tool().ptr_eq(&tool));
            if !registered {
                let id = self.inner.next_id.fetch_add(1, Ordering::AcqRel);
                entries.insert(id, PluginTool::new(Arc::clone(&owner), tool));
                changed = true;
            }
        }
        if changed {
            self.inner.bump();
        }
        errors
    }

    /// Whether `owner` has a tool named `name` registered (whatever its
    /// handle: a refresh may have replaced it).
    pub fn contains(&self, owner: &str, name: &str) -> bool {
        self.inner
            .read()
            .values()
            .any(|entry| entry.owner() == owner && entry.tool().name() == name)
    }

    /// Removes every tool `owner` contributed (a crashed or disconnected
    /// plugin leaves no ghost tools). Returns how many were removed.
    pub fn unregister_owner(&self, owner: &str) -> usize {
        let mut entries = self.inner.write();
        let before = entries.len();
        entries.retain(|_, entry| entry.owner() != owner);
        let removed = before - entries.len();
        if removed > 0 {
            self.inner.bump();
        }
        removed
    }

    /// The plugin tools registered now, by owner, then name.
    pub fn tools(&self) -> Vec<ToolHandle> {
        self.snapshot().tools.into_iter().map(|t| t.tool).collect()
    }

    /// The plugin tool registered under `name` now, if any.
    pub fn get(&self, name: &str) -> Option<ToolHandle> {
        self.snapshot()
            .tools
            .into_iter()
            .find(|t| t.tool.name() == name)
            .map(|t| t.tool)
    }

    /// How many plugin tools are registered now.
    pub fn len(&self) -> usize {
        self.snapshot().tools.len()
    }

    /// Whether no plugin tool is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether any tool `owner` contributed is registered now.
    pub fn has_owner(&self, owner: &str) -> bool {
        self.inner
            .read()
            .values()
            .any(|entry| entry.owner() == owner)
    }

    /// A receiver that wakes whenever the generation moves (its value is
    /// the newest generation), so a server can tell its clients the list
    /// changed without polling. Wakes coalesce: a slow reader sees the
    /// latest generation once, not every step.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.changed.subscribe()
    }

    /// Changes every time a tool is added or removed.
    pub fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::Acquire)
    }

    /// The tools registered now, in registration order, with the generation
    /// they belong to.
    pub(crate) fn snapshot(&self) -> PluginSnapshot {
        let entries = self.inner.read();
        let generation = self.generation();
        PluginSnapshot {
            generation,
            tools: entries.values().cloned().collect(),
        }
    }
}

/// The plugin tools at one generation.
#[derive(Debug, Clone, Default)]
pub struct PluginSnapshot {
    generation: u64,
    tools: Vec<PluginTool>,
}

impl PluginSnapshot {
    /// The registry generation this snapshot was taken at.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The tools, in registration order (assembly sorts them).
    pub fn tools(&self) -> &[PluginTool] {
        &self.tools
    }
}

/// Keeps a registered plugin tool alive; dropping it removes the tool.
#[derive(Debug)]
pub struct PluginGuard {
    registry: Weak<Inner>,
    id: u64,
    armed: bool,
}

impl PluginGuard {
    /// Removes the tool now. Returns `false` if it was already gone (its
    /// owner was unregistered, or the registry dropped).
    pub fn dispose(mut self) -> bool {
        self.armed = false;
        self.registry
            .upgrade()
            .is_some_and(|inner| inner.remove(self.id))
    }

    /// Keeps the tool registered until its owner is unregistered.
    pub fn detach(mut self) {
        self.armed = false;
    }
}

impl Drop for PluginGuard {
    fn drop(&mut self) {
        if self.armed
            && let Some(inner) = self.registry.upgrade()
        {
            inner.remove(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::{ToolBuilder, ToolOutput};

    fn tool(name: &str) -> ToolHandle {
        ToolBuilder::new(name, "A plugin tool.")
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{err}"))
    }

    fn names(registry: &PluginRegistry) -> Vec<String> {
        registry
            .snapshot()
            .tools()
            .iter()
            .map(|t| t.tool().name().to_owned())
            .collect()
    }

    #[test]
    fn guards_dispose_and_owners_unregister() {
        let registry = PluginRegistry::new();
        let g0 = registry.generation();
        let a = registry.register("srv", tool("a")).unwrap();
        let b = registry.register("srv", tool("b")).unwrap();
        registry.register("other", tool("c")).unwrap().detach();
        assert_eq!(names(&registry), ["a", "b", "c"]);
        assert!(registry.generation() > g0);

        let g1 = registry.generation();
        assert!(a.dispose());
        assert_eq!(names(&registry), ["b", "c"]);
        assert!(registry.generation() > g1);

        assert_eq!(registry.unregister_owner("srv"), 1);
        assert_eq!(names(&registry), ["c"]);
        // b's guard outlived its tool: disposing it is a no-op.
        let g2 = registry.generation();
        assert!(!b.dispose());
        assert_eq!(
            registry.generation(),
            g2,
            "nothing changed, no new generation"
        );
        assert_eq!(registry.unregister_owner("nobody"), 0);
        assert_eq!(registry.unregister_owner("other"), 1);
        assert!(names(&registry).is_empty());
    }

    #[test]
    fn registration_is_thread_safe() {
        let registry = PluginRegistry::new();
        std::thread::scope(|scope| {
            for t in 0..4 {
                let registry = registry.clone();
                scope.spawn(move || {
                    for i in 0..50 {
                        registry
                            .register(format!("owner{t}"), tool(&format!("t{t}_{i}")))
                            .unwrap()
                            .detach();
                    }
                });
            }
        });
        assert_eq!(registry.snapshot().tools().len(), 200);
        assert_eq!(registry.unregister_owner("owner2"), 50);
        assert_eq!(registry.snapshot().tools().len(), 150);
    }

    #[test]
    fn subscribers_see_every_change_as_the_latest_generation() {
        let registry = PluginRegistry::new();
        let mut rx = registry.subscribe();
        assert!(!rx.has_changed().unwrap());
        let guard = registry.register("srv", tool("a")).unwrap();
        assert!(rx.has_changed().unwrap());
        assert_eq!(*rx.borrow_and_update(), registry.generation());
        drop(guard);
        registry.register("srv", tool("b")).unwrap().detach();
        assert!(registry.has_owner("srv"));
        assert_eq!(registry.unregister_owner("srv"), 1);
        assert!(!registry.has_owner("srv"));
        // Three moves, one wake-up, carrying the newest generation.
        assert!(rx.has_changed().unwrap());
        assert_eq!(*rx.borrow_and_update(), registry.generation());
        assert!(!rx.has_changed().unwrap());
    }

    #[test]
    fn a_guard_outliving_its_registry_is_harmless() {
        let registry = PluginRegistry::new();
        let guard = registry.register("x", tool("x")).unwrap();
        drop(registry);
        assert!(!guard.dispose());
    }
}
