//! What the streaming form of a turn reports, for UIs.

use super::call::ToolCallResult;
use crate::permission::Authorization;

/// One step of a turn. `index` is the call's position in the turn.
///
/// Per call the order is `Queued`, then (if it runs) `Started`,
/// `Permission` (unless validation failed first), any `Progress`, and
/// `Finished`; a call refused before it could run (unknown
/// tool, bad input) goes from `Queued` straight to `Finished`.
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
}
