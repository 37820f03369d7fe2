//! The calls of one response as every format reads them: runnable, or
//! already answered with an error; the blocks left to the provider; and
//! the argument and field readers the formats share.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::Value;

use super::ProviderError;
use crate::declare::ToolOutput;
use crate::execute::{Executor, ToolCall, ToolCallResult};

/// The tool calls of one response, in the order the model made them.
#[derive(Debug, Clone, Default)]
pub struct Calls {
    items: Vec<Parsed>,
    skipped: Vec<Skipped>,
    /// Ids of calls that came as a provider's native tool search (OpenAI
    /// Responses' client `tool_search_call`): answered in that form.
    native_search: BTreeSet<String>,
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
    pub(super) fn push_call(&mut self, call: ToolCall) {
        self.items.push(Parsed::Run(call));
    }

    pub(super) fn push_invalid(&mut self, id: &str, name: &str, why: String) {
        let text = format!(
            "the call of `{name}` could not be run: {why}. Send the call again with arguments that are one JSON object."
        );
        self.push_error(id, name, text);
    }

    /// A call answered with `text` as its error, never run.
    pub(super) fn push_error(&mut self, id: &str, name: &str, text: String) {
        let result = ToolCallResult::from_output(id, ToolOutput::text(text), true).for_tool(name);
        self.items.push(Parsed::Invalid(result));
    }

    pub(super) fn mark_native_search(&mut self, id: &str) {
        self.native_search.insert(id.to_owned());
    }

    pub(super) fn skip(&mut self, at: String, kind: &str, name: Option<&str>) {
        tracing::debug!(%at, kind, "left a provider-run block alone");
        self.skipped.push(Skipped {
            at,
            kind: kind.to_owned(),
            name: name.map(str::to_owned),
        });
    }

    /// The blocks left to the provider and the native search ids, moved
    /// out: what `respond` keeps while the calls themselves go to the
    /// executor.
    pub(super) fn take_skipped_and_native(&mut self) -> (Vec<Skipped>, BTreeSet<String>) {
        (
            std::mem::take(&mut self.skipped),
            std::mem::take(&mut self.native_search),
        )
    }

    /// The calls that can run, in order.
    pub fn calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.items.iter().filter_map(|item| match item {
            Parsed::Run(call) => Some(call),
            Parsed::Invalid(_) => None,
        })
    }

    /// The calls already answered with an error (arguments that cannot be
    /// read, a Responses namespace no tool of this crate is in), in order.
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
                        ToolOutput::text("the executor returned no result for the call"),
                        true,
                    )
                }),
            })
            .collect()
    }
}

/// Reads a call's arguments: an object as it is, a string as JSON text
/// that must hold an object (OpenAI's form, and a stream's unparsed
/// input); anything else is the reason it cannot run.
///
/// The response is borrowed, so an object is copied once here; the call
/// then moves it to the executor.
pub(super) fn arguments(value: Option<&Value>) -> Result<Value, String> {
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

/// The program that made a call, from its `caller` field: the id under
/// `id_key`; `None` only for a call with no caller or a `"direct"` one.
/// Fails closed: a caller of any other type (one newer than this
/// reader, or malformed) is a program's, so a tool for direct calls only
/// is not run for it.
pub(super) fn program_of(block: &Value, id_key: &str) -> Option<String> {
    let caller = block.get("caller")?;
    if caller.is_null() || caller.get("type").and_then(Value::as_str) == Some("direct") {
        return None;
    }
    Some(
        caller
            .get(id_key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    )
}

/// A required string field of a block, or why the response is malformed.
pub(super) fn required_str<'a>(
    format: &'static str,
    block: &'a Value,
    at: &str,
    key: &str,
) -> Result<&'a str, ProviderError> {
    block.get(key).and_then(Value::as_str).ok_or_else(|| {
        ProviderError::malformed(format, at, format!("a tool call without a string `{key}`"))
    })
}
