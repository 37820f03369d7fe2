//! A model's tool call and the one result the executor returns for it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::declare::{ContentBlock, ToolOutput};
use crate::permission::Refusal;

/// One call from the model's turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The provider's call id, echoed in the result.
    pub id: String,
    /// The tool name the model used (a primary name or an alias).
    pub name: String,
    /// The JSON arguments.
    pub input: Value,
    /// The program that made the call, when a program did: the id the
    /// provider gave its code execution (Anthropic's `caller.tool_id`,
    /// OpenAI's `caller.caller_id`), or the `code` call's id. `None` when
    /// the model made the call itself. The executor refuses a call whose
    /// tool does not allow its caller (see
    /// [`Callers`](crate::declare::Callers)).
    pub program: Option<String>,
}

impl ToolCall {
    /// A call the model made itself.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            input,
            program: None,
        }
    }

    /// The same call, made by the program `program`.
    pub fn from_program(mut self, program: impl Into<String>) -> Self {
        self.program = Some(program.into());
        self
    }
}

/// The result of one call, as the model will read it: exactly one per
/// call, in call order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallResult {
    pub(crate) id: String,
    pub(crate) output: ToolOutput,
    pub(crate) is_error: bool,
    /// Where the text was spilled.
    pub(crate) spilled_to: Option<PathBuf>,
    /// Where binary blocks over the byte limit were written, in order.
    pub(crate) binary_spills: Vec<PathBuf>,
    /// The tool's primary name, shared with its spec.
    pub(crate) tool: Option<Arc<str>>,
    /// Who refused the call, when it was refused (boxed: refusals are
    /// rare, and every result carries the field).
    pub(crate) refusal: Option<Box<Refusal>>,
}

impl ToolCallResult {
    pub(crate) fn new(id: String, content: String, is_error: bool) -> Self {
        ToolCallResult {
            id,
            output: ToolOutput::text(content),
            is_error,
            spilled_to: None,
            binary_spills: Vec::new(),
            tool: None,
            refusal: None,
        }
    }

    /// A result made by hand: for a host that answers a call itself (a
    /// client-side tool the registry does not hold, a cached answer) and
    /// hands it to a provider adapter with the executor's results.
    pub fn from_output(id: impl Into<String>, output: ToolOutput, is_error: bool) -> Self {
        ToolCallResult {
            id: id.into(),
            output,
            is_error,
            spilled_to: None,
            binary_spills: Vec::new(),
            tool: None,
            refusal: None,
        }
    }

    /// The same result, marked as answering a call of `tool` (its primary
    /// name).
    pub fn for_tool(mut self, tool: impl Into<String>) -> Self {
        self.tool = Some(Arc::from(tool.into()));
        self
    }

    /// The primary name of the tool the call resolved to; `None` when the
    /// name matched no tool (or the result was made by hand without one).
    /// Provider adapters read it to answer `tool_search` in the
    /// provider's own form.
    pub fn tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// The id of the call this answers.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The text the model reads (for an error, what went wrong); for a
    /// result of several blocks, their text view (see
    /// [`ToolOutput::as_str`]).
    pub fn content(&self) -> &str {
        self.output.as_str()
    }

    /// The result's content blocks, in order (an error is one text block).
    pub fn blocks(&self) -> &[ContentBlock] {
        self.output.blocks()
    }

    /// The whole output.
    pub fn output(&self) -> &ToolOutput {
        &self.output
    }

    /// Consumes the result, returning its text view.
    pub fn into_content(self) -> String {
        self.output.into_string()
    }

    /// Consumes the result, returning its output.
    pub fn into_output(self) -> ToolOutput {
        self.output
    }

    /// Whether the call failed (refused, see [`refusal`](Self::refusal);
    /// unknown, invalid, panicked, timed out, cancelled, or the tool's own
    /// error).
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// Who refused the call and why, when the executor refused it: the
    /// permission pipeline's answer (a deny rule, the tool's own `Deny`,
    /// the mode, the approver or its absence, the classifier), or the
    /// tool's own check as the call ran. `None` for a call that ran, and
    /// for every other error (unknown tool, bad input, the tool's own
    /// failure, a timeout). The result's text is then the refusal as the
    /// model reads it.
    pub fn refusal(&self) -> Option<&Refusal> {
        self.refusal.as_deref()
    }

    /// Where the full text output was written, when it was too long to
    /// show.
    pub fn spilled_to(&self) -> Option<&Path> {
        self.spilled_to.as_deref()
    }

    /// Where the binary blocks over the byte limit were written, in block
    /// order (each replaced in the result by a notice naming its file).
    pub fn binary_spills(&self) -> &[PathBuf] {
        &self.binary_spills
    }
}
