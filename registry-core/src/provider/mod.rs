//! From a model's response to the next request, one module per wire
//! format: [`anthropic`] (Messages), [`openai_chat`] (Chat Completions)
//! and [`openai_responses`] (Responses).
//!
//! Each has the same three steps:
//!
//! - `calls_from(&response)`: the model's tool calls in order, as
//!   [`Calls`]. A call whose arguments cannot be read (OpenAI sends them as
//!   a JSON *string* a model can get wrong) becomes that call's error
//!   result naming the problem: never a panic, never a dropped call.
//!   Blocks the client does not run (the provider's own server tools) are
//!   left alone and listed in [`Calls::skipped`]. Streamed responses are
//!   put together first by that module's `Stream`.
//! - `results_to(&results)`: the next request's content, in call order,
//!   ids echoed exactly, errors marked as errors, images and documents in
//!   the provider's own blocks (or, where a format cannot hold one, said
//!   so), and `tool_search` answered the way the provider loads tools.
//! - `respond(&executor, &response)`: both, with the turn run through the
//!   executor in between; the result is a [`NextRequest`].
//!
//! ```
//! use registry_core::{Flags, ToolBuilder, ToolOutput, ToolRegistry, catalog::try_all_base_tools};
//! use registry_core::provider::anthropic;
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let echo = ToolBuilder::new("echo", "Echo.")
//!     .read_only(true)
//!     .build(|args, _| async move { Ok(ToolOutput::text(args["text"].to_string())) })?;
//! let registry = ToolRegistry::new(try_all_base_tools(&Flags::new())?);
//! registry.plugins().register("demo", echo)?.detach();
//! let executor = registry.executor().build();
//!
//! let response = json!({
//!     "role": "assistant",
//!     "content": [{ "type": "tool_use", "id": "toolu_1", "name": "echo", "input": { "text": "hi" } }],
//! });
//! let next = anthropic::respond(&executor, &response).await?;
//! assert_eq!(next.results[0]["content"][0]["type"], "tool_result");
//! assert_eq!(next.results[0]["content"][0]["tool_use_id"], "toolu_1");
//! # Ok(())
//! # }
//! ```
//!
//! Never does: choose a model, hold a conversation, or call a provider's
//! API; it reads what a provider sent and writes what to send next.

pub mod anthropic;
pub mod openai_chat;
pub mod openai_responses;

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::execute::{Executor, ToolCall, ToolCallResult};

/// The tool calls of one response, in the order the model made them.
#[derive(Debug, Clone, Default)]
pub struct Calls {
    items: Vec<Parsed>,
    skipped: Vec<Skipped>,
    /// Ids of calls that came as a provider's native tool search (OpenAI
    /// Responses' client `tool_search_call`): answered in that form.
    native_search: std::collections::BTreeSet<String>,
}

/// One call as read: runnable, or already answered with an error.
#[derive(Debug, Clone)]
enum Parsed {
    Run(ToolCall),
    Invalid(ToolCallResult),
}

/// A block of the response the client does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Where it is in the response (`content[1]`, `output[0]`).
    pub at: String,
    /// Its type (`server_tool_use`, `web_search_call`, …).
    pub kind: String,
    /// Its name, when it has one.
    pub name: Option<String>,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} `{}`", self.at, self.kind)?;
        if let Some(name) = &self.name {
            write!(f, " ({name})")?;
        }
        f.write_str(": run by the provider, not by this client")
    }
}

impl Calls {
    fn push_call(&mut self, call: ToolCall) {
        self.items.push(Parsed::Run(call));
    }

    fn push_invalid(&mut self, id: &str, name: &str, why: String) {
        let text = format!(
            "the call of `{name}` could not be run: {why}. Send the call again with arguments that are one JSON object."
        );
        let result = ToolCallResult::from_output(id, crate::declare::ToolOutput::text(text), true)
            .for_tool(name);
        self.items.push(Parsed::Invalid(result));
    }

    fn mark_native_search(&mut self, id: &str) {
        self.native_search.insert(id.to_owned());
    }

    fn skip(&mut self, at: String, kind: &str, name: Option<&str>) {
        tracing::debug!(%at, kind, "left a provider-run block alone");
        self.skipped.push(Skipped {
            at,
            kind: kind.to_owned(),
            name: name.map(str::to_owned),
        });
    }

    /// The calls that can run, in order.
    pub fn calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.items.iter().filter_map(|item| match item {
            Parsed::Run(call) => Some(call),
            Parsed::Invalid(_) => None,
        })
    }

    /// The calls already answered with an error (arguments that cannot be
    /// read), in order.
    pub fn invalid(&self) -> impl Iterator<Item = &ToolCallResult> {
        self.items.iter().filter_map(|item| match item {
            Parsed::Invalid(result) => Some(result),
            Parsed::Run(_) => None,
        })
    }

    /// Every call's id, runnable or not, in order.
    pub fn ids(&self) -> Vec<&str> {
        self.items
            .iter()
            .map(|item| match item {
                Parsed::Run(call) => call.id.as_str(),
                Parsed::Invalid(result) => result.id(),
            })
            .collect()
    }

    /// How many calls the model made.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the model made no call (the turn is over).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The blocks left to the provider.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Runs the runnable calls as one turn and returns every call's
    /// result, in the model's order (the invalid ones' errors in their
    /// places).
    pub async fn run(self, executor: &Executor) -> Vec<ToolCallResult> {
        // The calls are moved to the executor, not copied: their
        // arguments can be as large as the response itself. Each place
        // keeps its answer, or the id of the call sent to run.
        enum Place {
            Answered(ToolCallResult),
            Runs(String),
        }
        let mut runnable = Vec::with_capacity(self.items.len());
        let places: Vec<Place> = self
            .items
            .into_iter()
            .map(|item| match item {
                Parsed::Invalid(result) => Place::Answered(result),
                Parsed::Run(call) => {
                    let id = call.id.clone();
                    runnable.push(call);
                    Place::Runs(id)
                }
            })
            .collect();
        let mut ran = executor.run_turn(runnable).await.into_iter();
        places
            .into_iter()
            .map(|place| match place {
                Place::Answered(result) => result,
                // One result per call, in call order: the executor's
                // promise; a missing one is said, not invented as success.
                Place::Runs(id) => ran.next().unwrap_or_else(|| {
                    ToolCallResult::from_output(
                        id,
                        crate::declare::ToolOutput::text(
                            "the executor returned no result for the call",
                        ),
                        true,
                    )
                }),
            })
            .collect()
    }
}

/// What to send next: the model's own turn as the provider wants it
/// echoed, then the results.
#[derive(Debug, Clone, PartialEq)]
pub struct NextRequest {
    /// The response's turn, to append to the conversation as the
    /// provider expects (Anthropic's assistant message, Chat's assistant
    /// message, Responses' output items). Leave it out when the provider
    /// keeps the conversation (Responses' `previous_response_id`).
    pub echo: Vec<Value>,
    /// The results: one user message of `tool_result` blocks (Anthropic),
    /// `tool` messages and a user message with any attachments (Chat), or
    /// output items (Responses). Empty when the model made no call.
    pub results: Vec<Value>,
    /// What the response held that the client did not run.
    pub skipped: Vec<Skipped>,
}

impl NextRequest {
    /// The echo, then the results: what to append to the conversation.
    pub fn into_items(self) -> Vec<Value> {
        let mut items = self.echo;
        items.extend(self.results);
        items
    }
}

/// A JSON object of `fields`, each value moved in. The `json!` macro
/// serialises an interpolated `Value` (or `String`) a second time, which
/// copies it whole: arguments and results can be as large as a response.
fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect(),
    )
}

/// A response that is not one of the format's responses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderError {
    /// The response does not have the format's shape.
    #[error("not {format} response: {why} (at {at})")]
    Malformed {
        /// The format expected.
        format: &'static str,
        /// Where in the response.
        at: String,
        /// What is wrong.
        why: String,
    },
}

impl ProviderError {
    fn malformed(format: &'static str, at: impl Into<String>, why: impl Into<String>) -> Self {
        ProviderError::Malformed {
            format,
            at: at.into(),
            why: why.into(),
        }
    }
}

/// Reads a call's arguments: an object as it is, a string as JSON text
/// that must hold an object (OpenAI's form, and a stream's unparsed
/// input); anything else is the reason it cannot run.
fn arguments(value: Option<&Value>) -> Result<Value, String> {
    match value {
        Some(Value::Object(map)) => Ok(Value::Object(map.clone())),
        Some(Value::String(text)) if text.trim().is_empty() => {
            Ok(Value::Object(serde_json::Map::new()))
        }
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Ok(Value::Object(map)),
            Ok(other) => Err(format!(
                "its arguments are {} where a JSON object is needed",
                crate::input::schema::shape::json_kind(&other)
            )),
            Err(err) => Err(format!(
                "its arguments are not valid JSON ({err}); the model sent {}",
                crate::text::cap_error_text(&format!("{text:?}"))
            )),
        },
        Some(other) => Err(format!(
            "its arguments are {} where a JSON object is needed",
            crate::input::schema::shape::json_kind(other)
        )),
        None => Err("it has no arguments".to_owned()),
    }
}

/// A required string field of a block, or why the response is malformed.
fn required_str<'a>(
    format: &'static str,
    block: &'a Value,
    at: &str,
    key: &str,
) -> Result<&'a str, ProviderError> {
    block.get(key).and_then(Value::as_str).ok_or_else(|| {
        ProviderError::malformed(format, at, format!("a tool call without a string `{key}`"))
    })
}

/// A PDF's `file_data` (a data URL) and `filename`, as both OpenAI
/// formats carry a file.
fn pdf_file_fields(
    resource: &crate::declare::Resource,
    bytes: &[u8],
) -> serde_json::Map<String, Value> {
    let mut file = serde_json::Map::new();
    file.insert(
        "file_data".into(),
        data_url("application/pdf", bytes).into(),
    );
    let name = resource.name.as_deref().unwrap_or("document.pdf");
    file.insert("filename".into(), name.into());
    file
}

/// `data:<media type>;base64,<data>`.
fn data_url(media_type: &str, data: &[u8]) -> String {
    format!("data:{media_type};base64,{}", STANDARD.encode(data))
}

/// Image types OpenAI's vision input takes.
const OPENAI_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];

/// The text a format that has no error flag starts an error result with.
const ERROR_PREFIX: &str = "Error: ";
