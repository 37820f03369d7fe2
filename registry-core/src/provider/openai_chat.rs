//! OpenAI Chat Completions: `tool_calls` in, `role: "tool"` messages out.
//!
//! A `tool` message holds text only, so a result's images and files go in
//! one `user` message after the tool messages (`image_url` parts as data
//! URLs, `file` parts for PDFs), and each tool message says which of its
//! attachments follow; what the format cannot hold at all (audio, other
//! media) is named in the text. The format has no error flag: an error
//! result's text starts with `Error: `. Chat has no deferred loading: the
//! session render appends a tool once it is discovered.

use serde_json::{Map, Value};

use super::calls::{Calls, arguments, required_str};
use super::wire::{ERROR_PREFIX, OPENAI_IMAGE_TYPES, data_url, object, pdf_file_fields};
use super::{NextRequest, ProviderError};
use crate::declare::{ContentBlock, ResourceData};
use crate::execute::{Executor, ToolCall, ToolCallResult};

const FORMAT: &str = "an OpenAI Chat Completions";

/// The tool calls of a `ChatCompletion` (its first choice), or of an
/// assistant message.
pub(super) fn calls_from(response: &Value) -> Result<Calls, ProviderError> {
    let message = message_of(response)?;
    let mut calls = Calls::default();
    let Some(tool_calls) = message.get("tool_calls") else {
        return Ok(calls);
    };
    let tool_calls = match tool_calls {
        Value::Null => return Ok(calls),
        Value::Array(items) => items,
        _ => {
            return Err(ProviderError::malformed(
                FORMAT,
                "message.tool_calls",
                "not an array",
            ));
        }
    };
    for (i, call) in tool_calls.iter().enumerate() {
        let at = format!("message.tool_calls[{i}]");
        let id = required_str(FORMAT, call, &at, "id")?;
        match call.get("type").and_then(Value::as_str) {
            Some("function") | None => {}
            Some(kind) => {
                // A custom tool's free-form input is not a registry call:
                // answered with an error so the model is not left waiting.
                calls.push_invalid(
                    id,
                    kind,
                    format!("a `{kind}` tool call is not a function call"),
                );
                continue;
            }
        }
        let function = call.get("function").unwrap_or(&Value::Null);
        let name = required_str(FORMAT, function, &format!("{at}.function"), "name")?;
        match arguments(function.get("arguments")) {
            Ok(input) => calls.push_call(ToolCall::new(id, name, input)),
            Err(why) => calls.push_invalid(id, name, why),
        }
    }
    Ok(calls)
}

fn message_of(response: &Value) -> Result<&Value, ProviderError> {
    if response.get("role").is_some() {
        return Ok(response);
    }
    response
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
        .and_then(|choice| choice.get("message"))
        .ok_or_else(|| ProviderError::malformed(FORMAT, "choices[0].message", "no message"))
}

/// The next messages: one `tool` message per result, in order, then one
/// `user` message with the results' images and files, if any.
pub(super) fn results_to(results: &[ToolCallResult]) -> Vec<Value> {
    let mut messages = Vec::with_capacity(results.len() + 1);
    let mut attachments: Vec<Value> = Vec::new();
    for result in results {
        let mut texts: Vec<String> = Vec::new();
        if result.is_error() {
            texts.push(format!("{ERROR_PREFIX}{}", result.content()));
        } else {
            let mut attached = Vec::new();
            for block in result.blocks() {
                match attachment(block) {
                    Some(part) => {
                        texts.push(format!(
                            "{} (attached in the next user message)",
                            block.text_view()
                        ));
                        attached.push(part);
                    }
                    None => texts.push(block_text(block)),
                }
            }
            if !attached.is_empty() {
                attachments.push(object([
                    ("type", "text".into()),
                    (
                        "text",
                        format!("Attachments of tool call {}:", result.id()).into(),
                    ),
                ]));
                attachments.extend(attached);
            }
        }
        let content = match <[String; 1]>::try_from(texts) {
            Ok([one]) => one,
            Err(texts) => texts.join("\n"),
        };
        messages.push(object([
            ("role", "tool".into()),
            ("tool_call_id", result.id().into()),
            ("content", content.into()),
        ]));
    }
    if !attachments.is_empty() {
        messages.push(object([
            ("role", "user".into()),
            ("content", Value::Array(attachments)),
        ]));
    }
    messages
}

/// An image or PDF as a user-message part.
fn attachment(block: &ContentBlock) -> Option<Value> {
    match block {
        ContentBlock::Image(image) if OPENAI_IMAGE_TYPES.contains(&image.media_type.as_str()) => {
            Some(object([
                ("type", "image_url".into()),
                (
                    "image_url",
                    object([("url", data_url(&image.media_type, &image.data).into())]),
                ),
            ]))
        }
        ContentBlock::Resource(resource) => {
            match (&resource.data, resource.media_type.as_deref()) {
                (ResourceData::Bytes(bytes), Some("application/pdf")) => Some(object([
                    ("type", "file".into()),
                    ("file", Value::Object(pdf_file_fields(resource, bytes))),
                ])),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A block the format cannot attach, as text.
fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Image(_) => format!(
            "{} (not sent: OpenAI takes PNG, JPEG, WebP and GIF images)",
            block.text_view()
        ),
        ContentBlock::Audio(_) => format!(
            "{} (not sent: tool results here hold no audio)",
            block.text_view()
        ),
        ContentBlock::Resource(resource) if matches!(resource.data, ResourceData::Bytes(_)) => {
            format!(
                "{} (not sent: only images and PDFs can be attached)",
                block.text_view()
            )
        }
        other => other.text_view().into_owned(),
    }
}

/// Reads the calls, runs them, and returns the assistant message to echo
/// and the tool messages (none when the model made no call).
pub(super) async fn respond(
    executor: &Executor,
    response: &Value,
) -> Result<NextRequest, ProviderError> {
    let mut calls = calls_from(response)?;
    let message = message_of(response)?;
    let (skipped, _) = calls.take_skipped_and_native();
    let results = if calls.is_empty() {
        Vec::new()
    } else {
        results_to(&calls.run(executor).await)
    };
    // Copied from the response once the calls have run (see
    // `anthropic::respond`).
    let mut echo = Map::new();
    echo.insert("role".into(), "assistant".into());
    echo.insert(
        "content".into(),
        message.get("content").cloned().unwrap_or(Value::Null),
    );
    if let Some(Value::Array(tool_calls)) = message.get("tool_calls")
        && !tool_calls.is_empty()
    {
        echo.insert("tool_calls".into(), Value::Array(tool_calls.clone()));
    }
    Ok(NextRequest {
        echo: vec![Value::Object(echo)],
        results,
        skipped,
        container: None,
    })
}

/// Puts a streamed completion together from its chunks: each tool call's
/// id and name from its first fragment, its `arguments` text from every
/// fragment with its `index`.
#[derive(Debug, Clone, Default)]
pub(super) struct Stream {
    content: Option<String>,
    /// Each call's id, name and arguments so far, in the order they began.
    calls: Vec<Partial>,
    /// For each wire `index`, the latest call that took it.
    slots: Vec<usize>,
    finish_reason: Option<Value>,
}

/// A call being put together: id, name, arguments text.
type Partial = (Option<String>, Option<String>, String);

impl Stream {
    /// Takes one `ChatCompletionChunk`.
    pub(super) fn push(&mut self, chunk: &Value) -> Result<(), ProviderError> {
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            // Usage-only chunks have no choices.
            return Ok(());
        };
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            self.finish_reason = Some(reason.clone());
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(());
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.content.get_or_insert_with(String::new).push_str(text);
        }
        for fragment in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let id = fragment.get("id").and_then(Value::as_str);
            let at = self.slot_for(fragment.get("index"), id)?;
            let call = &mut self.calls[at];
            if let Some(id) = id {
                call.0 = Some(id.to_owned());
            }
            let function = fragment.get("function");
            // A name arrives whole (some servers repeat it): set, not joined.
            if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str)
                && !name.is_empty()
            {
                call.1 = Some(name.to_owned());
            }
            if let Some(piece) = function
                .and_then(|f| f.get("arguments"))
                .and_then(Value::as_str)
            {
                call.2.push_str(piece);
            }
        }
        Ok(())
    }

    /// Which call a fragment continues. By its `index`, which must be an
    /// existing call or the next one; a fragment that brings a new `id` at
    /// an index already taken is a new call (servers that send every
    /// parallel call at index 0); a fragment with no `index` continues the
    /// last call, or starts one when it brings a new `id`.
    fn slot_for(
        &mut self,
        index: Option<&Value>,
        id: Option<&str>,
    ) -> Result<usize, ProviderError> {
        let index = match index {
            None => None,
            Some(value) => Some(
                value
                    .as_u64()
                    .and_then(|i| usize::try_from(i).ok())
                    .ok_or_else(|| {
                        ProviderError::malformed(
                            FORMAT,
                            "delta.tool_calls",
                            "an `index` that is not a count",
                        )
                    })?,
            ),
        };
        // A fragment naming another id than the call it would continue.
        let other_id = |calls: &[Partial], at: usize| {
            id.is_some_and(|id| calls[at].0.as_deref().is_some_and(|had| had != id))
        };
        let at = match index {
            Some(i) if i == self.slots.len() => None,
            Some(i) if i < self.slots.len() => Some(self.slots[i]),
            Some(i) => {
                return Err(ProviderError::malformed(
                    FORMAT,
                    format!("delta.tool_calls (index {i})"),
                    format!("a call fragment before call {} started", self.slots.len()),
                ));
            }
            None => self.calls.len().checked_sub(1),
        };
        match at {
            Some(at) if !other_id(&self.calls, at) => Ok(at),
            _ => {
                self.calls.push((None, None, String::new()));
                let at = self.calls.len() - 1;
                match index {
                    Some(i) if i < self.slots.len() => self.slots[i] = at,
                    Some(_) => self.slots.push(at),
                    None => {}
                }
                Ok(at)
            }
        }
    }

    /// The completion as one `ChatCompletion`-shaped value (its first
    /// choice's message).
    pub(super) fn finish(self) -> Value {
        let tool_calls: Vec<Value> = self
            .calls
            .into_iter()
            .map(|(id, name, arguments)| {
                object([
                    ("id", id.map_or(Value::Null, Value::String)),
                    ("type", "function".into()),
                    (
                        "function",
                        object([
                            ("name", name.map_or(Value::Null, Value::String)),
                            ("arguments", arguments.into()),
                        ]),
                    ),
                ])
            })
            .collect();
        let mut message = Map::new();
        message.insert("role".into(), "assistant".into());
        message.insert(
            "content".into(),
            self.content.map_or(Value::Null, Value::String),
        );
        if !tool_calls.is_empty() {
            message.insert("tool_calls".into(), Value::Array(tool_calls));
        }
        let choice = object([
            ("index", 0.into()),
            ("message", Value::Object(message)),
            ("finish_reason", self.finish_reason.unwrap_or(Value::Null)),
        ]);
        object([("choices", Value::Array(vec![choice]))])
    }
}
