//! The error of one call: its arguments did not fit, the tool rejected
//! them, the call was refused, or the tool failed. Every variant names the
//! tool, and every quoted text is capped.

use super::refusal::{Refusal, RefusedBy};
use crate::text::{capped, capped_message};

/// A call could not be made or did not succeed. Every variant names the tool.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments do not fit the tool's input type.
    #[error("invalid input for tool `{}` {}: {}", capped(.tool), location(.path), capped(.message))]
    InvalidInput {
        /// The tool called.
        tool: String,
        /// Where in the arguments the problem is: empty for the arguments
        /// as a whole (a missing top-level field, an array where an object
        /// belongs), `edits[2]` for a nested value (a field missing there
        /// is named by `message`).
        path: String,
        /// What is wrong there, as serde said it.
        message: String,
    },
    /// The tool's own `validate_input` rejected the parsed input.
    #[error("tool `{}` rejected its input: {}", capped(.tool), capped_message(.source))]
    Rejected {
        /// The tool called.
        tool: String,
        /// The tool's typed explanation, shown to the model.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The call was refused: by the tool's own check
    /// ([`RefusedBy::Tool`]), or because the tool asks for a person's
    /// approval and the call was run without it ([`RefusedBy::Unapproved`];
    /// see [`PreparedCall::run_approved`](crate::input::PreparedCall::run_approved)).
    /// Reads "tool `x` may not run: why", or for an unapproved call
    /// "tool `x` needs approval before it runs: what to confirm".
    #[error(
        "tool `{}` {}: {}",
        capped(.tool),
        refused_for(&.refusal.by),
        capped_message(.refusal)
    )]
    Refused {
        /// The tool called.
        tool: String,
        /// Who refused the call, and why.
        refusal: Refusal,
    },
    /// The tool ran and returned its error.
    #[error("tool `{}` failed: {}", capped(.tool), capped_message(.source))]
    Failed {
        /// The tool called.
        tool: String,
        /// The tool's typed error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The tool's output could not be turned into text for the model.
    #[error(
        "tool `{}` produced output that could not be rendered: {}",
        capped(.tool),
        capped_message(.message)
    )]
    Output {
        /// The tool called.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// A value prepared for one tool was handed to another.
    #[error("input prepared for another tool was passed to `{}`", capped(.tool))]
    InputMismatch {
        /// The tool called.
        tool: String,
    },
}

/// What a [`ToolError::Refused`] says happened to the call.
fn refused_for(by: &RefusedBy) -> &'static str {
    match by {
        RefusedBy::Unapproved => "needs approval before it runs",
        _ => "may not run",
    }
}

/// Where an [`ToolError::InvalidInput`] is, in words.
fn location(path: &str) -> String {
    if path.is_empty() {
        "at the input root".to_owned()
    } else {
        format!("at `{}`", capped(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::NameError;
    use crate::text::{MAX_ERROR_MESSAGE_CHARS, MAX_ERROR_TEXT_CHARS};

    #[test]
    fn tool_errors_quote_capped_texts() {
        let huge = "p".repeat(10_000_000);
        let errors = [
            ToolError::InvalidInput {
                tool: "t".into(),
                path: huge.clone(),
                message: huge.clone(),
            },
            ToolError::Refused {
                tool: "t".into(),
                refusal: Refusal::new(RefusedBy::Tool, huge.clone()),
            },
            ToolError::Refused {
                tool: "t".into(),
                refusal: Refusal::new(RefusedBy::Unapproved, huge.clone()),
            },
            ToolError::Failed {
                tool: "t".into(),
                source: huge.clone().into(),
            },
            ToolError::Rejected {
                tool: "t".into(),
                source: huge.clone().into(),
            },
            ToolError::Output {
                tool: "t".into(),
                message: huge.clone(),
            },
        ];
        for err in errors {
            let text = err.to_string();
            assert!(
                text.chars().count() < MAX_ERROR_MESSAGE_CHARS + 200,
                "{err:?}"
            );
            assert!(text.contains("characters cut"));
        }
        let name = NameError::TooLong {
            name: huge.clone(),
            len: huge.len(),
        };
        assert!(name.to_string().len() < 2 * MAX_ERROR_TEXT_CHARS);
    }

    #[test]
    fn the_input_root_is_named_in_words() {
        let err = ToolError::InvalidInput {
            tool: "read_file".into(),
            path: String::new(),
            message: "missing field `path`".into(),
        };
        assert_eq!(
            err.to_string(),
            "invalid input for tool `read_file` at the input root: missing field `path`"
        );
    }

    #[test]
    fn a_refusal_reads_as_the_two_old_errors_did() {
        let refused = |by| ToolError::Refused {
            tool: "deploy".into(),
            refusal: Refusal::new(by, "production is frozen"),
        };
        // Once `PermissionDenied` and `NeedsApproval`: the texts are kept.
        assert_eq!(
            refused(RefusedBy::Tool).to_string(),
            "tool `deploy` may not run: production is frozen"
        );
        assert_eq!(
            refused(RefusedBy::Unapproved).to_string(),
            "tool `deploy` needs approval before it runs: production is frozen"
        );
        // Any other refuser is a refusal, not a missing approval.
        for by in [
            RefusedBy::DenyRule("deploy".into()),
            RefusedBy::NoApprover,
            RefusedBy::Approver,
        ] {
            assert!(
                refused(by)
                    .to_string()
                    .starts_with("tool `deploy` may not run: ")
            );
        }
    }
}
