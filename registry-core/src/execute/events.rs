//! What the streaming form of a turn reports, for UIs.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::call::ToolCallResult;
use super::plan::Plan;
use crate::declare::context::ProgressSink;
use crate::permission::Authorization;

/// One step of a turn. `index` is the call's position in the turn.
///
/// Per call the order is `Queued`, then (if it runs) `Started`,
/// `Permission` (unless validation failed first), any `Progress`, and
/// `Finished`; a call refused before it could run (unknown
/// tool, bad input) goes from `Queued` straight to `Finished`.
///
/// A call that runs a program (code mode) makes calls of its own; each of
/// their events arrives wrapped in [`Inner`](Self::Inner), naming the
/// call whose program made it, between that call's `Started` and
/// `Finished`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExecEvent {
    /// The call was read; `batch` is the batch it will run in, `None` when
    /// it was refused before planning.
    Queued {
        /// Position in the turn.
        index: usize,
        /// The call id.
        id: String,
        /// The batch (0-based), if it will run.
        batch: Option<usize>,
    },
    /// The call's permission check and body started.
    Started {
        /// Position in the turn.
        index: usize,
        /// The call id.
        id: String,
    },
    /// The permission pipeline's answer for the call (after its input was
    /// validated, before its body runs). A refused call's `Finished`
    /// result carries the same [`Refusal`](crate::permission::Refusal)
    /// ([`ToolCallResult::refusal`]).
    Permission {
        /// Position in the turn.
        index: usize,
        /// The call id.
        id: String,
        /// The answer: allowed by whom, or refused by whom and why.
        authorization: Authorization,
    },
    /// The tool reported progress through its `ToolContext`.
    Progress {
        /// Position in the turn.
        index: usize,
        /// The call id.
        id: String,
        /// What the tool said.
        message: String,
    },
    /// The call's result, after its own cap. The per-turn budget is applied
    /// when the whole turn is done, so the returned result may be spilled
    /// further than this one.
    Finished {
        /// Position in the turn.
        index: usize,
        /// The result.
        result: ToolCallResult,
    },
    /// An event of a call made by the program that call `index` runs.
    /// `event`'s own `index` is the call's position in the program's
    /// turn (the calls it had in flight together).
    Inner {
        /// Position in the turn of the call that runs the program.
        index: usize,
        /// Its call id.
        id: String,
        /// The inner call's event.
        event: Box<ExecEvent>,
    },
}

/// Where a turn's events go: the UI's channel, each event wrapped in
/// [`ExecEvent::Inner`] once per program it comes from. A closed channel
/// means the UI went away; the turn goes on.
#[derive(Clone)]
pub(crate) struct EventSink {
    tx: UnboundedSender<ExecEvent>,
    /// The calls whose programs this turn runs for, outermost first.
    parents: Arc<[(usize, String)]>,
}

impl EventSink {
    pub(crate) fn new(tx: UnboundedSender<ExecEvent>) -> Self {
        EventSink {
            tx,
            parents: Arc::from([]),
        }
    }

    /// The sink for the turn of the program call `index` runs.
    pub(crate) fn inner(&self, index: usize, id: &str) -> Self {
        let mut parents = self.parents.to_vec();
        parents.push((index, id.to_owned()));
        EventSink {
            tx: self.tx.clone(),
            parents: Arc::from(parents),
        }
    }

    pub(crate) fn send(&self, event: ExecEvent) {
        let event = self
            .parents
            .iter()
            .rev()
            .fold(event, |event, (index, id)| ExecEvent::Inner {
                index: *index,
                id: id.clone(),
                event: Box::new(event),
            });
        let _ = self.tx.send(event);
    }
}

impl EventSink {
    /// Where a call's [`ToolContext::progress`](crate::ToolContext::progress)
    /// goes when the turn is streamed: an [`ExecEvent::Progress`] naming
    /// the call.
    pub(crate) fn progress(self, index: usize, id: String) -> ProgressSink {
        Box::new(move |message| {
            self.send(ExecEvent::Progress {
                index,
                id: id.clone(),
                message,
            });
        })
    }

    /// Reports every call (its id, and its result when it was refused
    /// before planning) as queued with the batch it will run in, then the
    /// refused ones as finished.
    pub(crate) fn queued<'a>(
        &self,
        plan: &Plan,
        calls: impl Iterator<Item = (&'a str, Option<&'a ToolCallResult>)> + Clone,
    ) {
        let mut batch_of: Vec<Option<usize>> = Vec::new();
        for (b, batch) in plan.batches.iter().enumerate() {
            for item in &batch.calls {
                if batch_of.len() <= item.index {
                    batch_of.resize(item.index + 1, None);
                }
                batch_of[item.index] = Some(b);
            }
        }
        for (index, (id, _)) in calls.clone().enumerate() {
            self.send(ExecEvent::Queued {
                index,
                id: id.to_owned(),
                batch: batch_of.get(index).copied().flatten(),
            });
        }
        for (index, (_, result)) in calls.enumerate() {
            if let Some(result) = result {
                self.send(ExecEvent::Finished {
                    index,
                    result: result.clone(),
                });
            }
        }
    }
}
