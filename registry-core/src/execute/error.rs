//! Why a call produced an error result: every way a call can fail before,
//! during or around its body, each naming the call's tool.

use std::time::Duration;

use crate::input::ToolError;
use crate::permission::Refusal;
use crate::pool::Removed;
use crate::text::cap_error_text;

/// Why one call failed. Its `Display` is the text the model reads.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum CallError {
    /// No tool answers to the name. The message lists nothing else: the
    /// model must not learn about tools it was not offered.
    #[error("no such tool: `{}`", cap_error_text(.name))]
    NoSuchTool {
        /// The name the model used.
        name: String,
    },
    /// The tool exists but a narrowing layer removed it from this turn's
    /// pool on purpose.
    #[error("{removed}; it cannot be called")]
    Removed {
        /// Which layer removed it, and why.
        removed: Removed,
    },
    /// The tool exists, but is not offered in this turn (the pool was
    /// assembled under different rules); no layer explains it now.
    #[error("tool `{tool}` is not available in this turn")]
    NotInPool {
        /// The tool's primary name.
        tool: String,
    },
    /// A plugin tool whose plugin was unregistered after this turn's pool
    /// was assembled.
    #[error("tool `{tool}` is no longer available: its plugin `{owner}` was removed")]
    Unregistered {
        /// The tool's primary name.
        tool: String,
        /// The plugin that contributed it.
        owner: String,
    },
    /// A deferred tool this session has not loaded yet.
    #[error(
        "tool `{tool}` is deferred and not loaded in this session; search for it with the tool search tool first, then call it again"
    )]
    NotDiscovered {
        /// The tool's primary name.
        tool: String,
    },
    /// Parsing, validation or the body failed (see [`ToolError`]).
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// The permission pipeline refused the call.
    #[error("permission to run `{tool}` was denied: {}", cap_error_text(&.refusal.reason))]
    Refused {
        /// The tool's primary name.
        tool: String,
        /// Who refused it, and why.
        refusal: Refusal,
    },
    /// The call ran past its timeout and was stopped.
    #[error("tool `{tool}` timed out after {} ms and was stopped", .after.as_millis())]
    TimedOut {
        /// The tool's primary name.
        tool: String,
        /// The timeout.
        after: Duration,
    },
    /// A concurrent sibling that cancels its batch on failure failed.
    #[error("tool `{tool}` was cancelled because `{sibling}` (call {}) failed", cap_error_text(.sibling_id))]
    Cancelled {
        /// The tool's primary name.
        tool: String,
        /// The failing sibling's tool.
        sibling: String,
        /// The failing sibling's call id.
        sibling_id: String,
    },
    /// The tool does not allow its caller: a program called a tool that
    /// only the model may call, or the model one that only programs may.
    #[error("{}", caller_refusal(.tool, *.by_program))]
    Caller {
        /// The tool's primary name.
        tool: String,
        /// Whether a program made the call.
        by_program: bool,
    },
    /// An after hook withheld the result (it said so, or it failed).
    #[error("{message}")]
    Withheld {
        /// What the model reads.
        message: String,
    },
    /// A hook ended the turn before this call's batch.
    #[error("tool `{tool}` was not run: {why}")]
    TurnEnded {
        /// The tool's primary name.
        tool: String,
        /// Which hook ended the turn, and why.
        why: String,
    },
    /// A call a program made that cannot run as one (see
    /// `Executor::run_nested`).
    #[error("call of `{}` from a program was not run: {why}", cap_error_text(.tool))]
    Nested {
        /// The name the program used.
        tool: String,
        /// Why it was not run.
        why: &'static str,
    },
}

fn caller_refusal(tool: &str, by_program: bool) -> String {
    if by_program {
        format!("tool `{tool}` cannot be called from a program: it allows only direct calls")
    } else {
        format!("tool `{tool}` can only be called from a program, not directly")
    }
}

impl CallError {
    /// Who refused the call and why, when it was refused: by the
    /// permission pipeline, or by the tool's own check as it ran.
    pub(crate) fn refusal(&self) -> Option<&Refusal> {
        match self {
            CallError::Refused { refusal, .. }
            | CallError::Tool(ToolError::Refused { refusal, .. }) => Some(refusal),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::RefusedBy;

    #[test]
    fn a_refusal_is_found_wherever_the_call_was_refused() {
        let refusal = Refusal::new(RefusedBy::Tool, "not here");
        let by_pipeline = CallError::Refused {
            tool: "t".into(),
            refusal: refusal.clone(),
        };
        let as_it_ran = CallError::Tool(ToolError::Refused {
            tool: "t".into(),
            refusal: refusal.clone(),
        });
        assert_eq!(by_pipeline.refusal(), Some(&refusal));
        assert_eq!(as_it_ran.refusal(), Some(&refusal));
        assert_eq!(
            by_pipeline.to_string(),
            "permission to run `t` was denied: not here"
        );
        let failed = CallError::Tool(ToolError::Failed {
            tool: "t".into(),
            source: "broke".into(),
        });
        assert_eq!(failed.refusal(), None);
    }
}
