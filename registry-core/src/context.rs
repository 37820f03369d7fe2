//! The per-call context a runtime hands to every tool: typed extensions
//! (a sandbox root, a session, a client) looked up by type.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// What a runtime gives each call besides its input.
///
/// Runtimes put their own state in by type; tools take it out by type.
/// The map is only ever looked up, never iterated, so its order cannot leak
/// into anything rendered.
///
/// ```
/// use registry_core::ToolContext;
///
/// struct Workspace(&'static str);
/// let cx = ToolContext::new().with(Workspace("/tmp/sandbox"));
/// assert_eq!(cx.get::<Workspace>().map(|w| w.0), Some("/tmp/sandbox"));
/// ```
#[derive(Clone, Default)]
pub struct ToolContext {
    extensions: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl ToolContext {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the value of type `T`.
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// Adds (or replaces) the value of type `T`.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.extensions.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if the runtime provided one.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.extensions
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref::<T>())
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("extensions", &self.extensions.len())
            .finish()
    }
}
