//! A model's tool call and the one result the executor returns for it.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One call from the model's turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The provider's call id, echoed in the result.
    pub id: String,
    /// The tool name the model used (a primary name or an alias).
    pub name: String,
    /// The JSON arguments.
    pub input: Value,
}

impl ToolCall {
    /// A call.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            input,
        }
    }
}

/// The result of one call, as the model will read it: exactly one per
/// call, in call order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallResult {
    pub(crate) id: String,
    pub(crate) content: String,
    pub(crate) is_error: bool,
    pub(crate) spilled_to: Option<PathBuf>,
}

impl ToolCallResult {
    pub(crate) fn new(id: String, content: String, is_error: bool) -> Self {
        ToolCallResult {
            id,
            content,
            is_error,
            spilled_to: None,
        }
    }

    /// The id of the call this answers.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The text the model reads (for an error, what went wrong).
    pub fn content(&self) -> &str {
        &self.content
    }

    /// Consumes the result, returning its text.
    pub fn into_content(self) -> String {
        self.content
    }

    /// Whether the call failed (refused, invalid, denied, panicked, timed
    /// out, cancelled, or the tool's own error).
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// Where the full output was written, when it was too long to show.
    pub fn spilled_to(&self) -> Option<&Path> {
        self.spilled_to.as_deref()
    }
}
