//! What lasts across the turns of one conversation: which deferred tools
//! were discovered, the session state modifiers change, and metrics.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use super::metrics::{Metrics, ToolMetrics};
use super::modifier::{ContextModifier, SessionState};

/// One conversation's state. Share it (`Arc`) between the executors of its
/// turns.
#[derive(Debug, Default)]
pub struct Session {
    discovered: RwLock<BTreeSet<String>>,
    state: Mutex<Arc<SessionState>>,
    metrics: Metrics,
    /// Held for a whole turn: a session's turns never overlap, whichever
    /// executor runs them, so an unsafe call of one turn cannot run beside
    /// a call of another and modifiers apply in turn order.
    pub(crate) turn: tokio::sync::Mutex<()>,
}

impl Session {
    /// A fresh session: nothing discovered, empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks a deferred tool (by primary name) as discovered, so calls to
    /// it run. Until the tool-search tool lands, runtimes call this when
    /// they load a deferred tool's schema into the conversation.
    pub fn discover(&self, name: impl Into<String>) {
        self.discovered
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.into());
    }

    /// Whether `name` was discovered.
    pub fn is_discovered(&self, name: &str) -> bool {
        self.discovered
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(name)
    }

    /// The current session state (a snapshot; later modifiers do not
    /// change it).
    pub fn state(&self) -> Arc<SessionState> {
        Arc::clone(&self.state.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Applies modifiers in the order given, under the state's lock: a
    /// modifier must not call back into its session.
    pub(crate) fn apply(&self, modifiers: impl IntoIterator<Item = ContextModifier>) {
        let mut modifiers = modifiers.into_iter().peekable();
        if modifiers.peek().is_none() {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let state = Arc::make_mut(&mut state);
        for modifier in modifiers {
            let label = modifier.label().to_owned();
            tracing::debug!(modifier = %label, "applying a context modifier");
            // Author code: a panic is logged and skips that modifier only
            // (whatever it changed before panicking stays changed).
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| modifier.apply(state))) {
                tracing::error!(
                    modifier = %label,
                    message = %crate::panic_message(payload.as_ref()),
                    "a context modifier panicked; skipped"
                );
            }
        }
    }

    /// Per-tool counters, by primary name. A turn adds its counters when
    /// it ends; a turn whose future was dropped adds nothing.
    pub fn metrics(&self) -> BTreeMap<String, ToolMetrics> {
        self.metrics.snapshot()
    }

    pub(crate) fn record<'a>(&self, turn: impl IntoIterator<Item = (&'a str, &'a ToolMetrics)>) {
        self.metrics.merge(turn);
    }
}
