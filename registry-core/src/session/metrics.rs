//! Per-tool counters a session keeps, so a tool that keeps falling back to
//! the strict posture, timing out or being denied is visible.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

/// Counters for one tool, since the session started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolMetrics {
    /// Calls that resolved to the tool.
    pub calls: u64,
    /// Calls whose result was an error (any cause).
    pub errors: u64,
    /// Posture answers that fell back to the strict value because the
    /// expression panicked: a tool meant to be concurrent that shows these
    /// is silently running serially.
    pub strict_fallbacks: u64,
    /// Calls that ran past their timeout.
    pub timeouts: u64,
    /// Calls the permission pipeline denied.
    pub denied: u64,
    /// Results written to a spill file.
    pub spilled: u64,
}

impl ToolMetrics {
    fn add(&mut self, other: &ToolMetrics) {
        self.calls += other.calls;
        self.errors += other.errors;
        self.strict_fallbacks += other.strict_fallbacks;
        self.timeouts += other.timeouts;
        self.denied += other.denied;
        self.spilled += other.spilled;
    }
}

/// The counters of every tool, by primary name. A turn merges its calls'
/// counters at its end, taking the lock once.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    by_tool: Mutex<BTreeMap<String, ToolMetrics>>,
}

impl Metrics {
    pub(crate) fn merge<'a>(&self, turn: impl IntoIterator<Item = (&'a str, &'a ToolMetrics)>) {
        let mut by_tool = self.by_tool.lock().unwrap_or_else(PoisonError::into_inner);
        for (tool, counts) in turn {
            match by_tool.get_mut(tool) {
                Some(total) => total.add(counts),
                None => {
                    by_tool.insert(tool.to_owned(), *counts);
                }
            }
        }
    }

    pub(crate) fn snapshot(&self) -> BTreeMap<String, ToolMetrics> {
        self.by_tool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
