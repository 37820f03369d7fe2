//! Anthropic Messages: `tool_use` blocks in, `tool_result` blocks out.
//!
//! A result's blocks become `text`, `image` (base64; JPEG, PNG, GIF and
//! WebP, the types the API takes), and `document` blocks (a PDF as base64,
//! a text resource as plain text); what the API cannot hold (audio, other
//! media) is named in a text block. A `tool_search` result is its
//! `tool_reference` blocks, which the API expands into the deferred tools'
//! definitions. `server_tool_use` and the results of the provider's own
//! tools are left alone.

use serde_json::{Map, Value, json};

use super::calls::{Calls, arguments, program_of, required_str};
use super::wire::object;
use super::{NextRequest, ProviderError};
use crate::declare::{ContentBlock, ResourceData};
use crate::execute::{Executor, ToolCall, ToolCallResult};
use crate::search::ToolSearchOutcome;

const FORMAT: &str = "an Anthropic Messages";

/// Image types the Messages API takes.
const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// The tool calls of a `Message` (or of an assistant message param: only
/// `content` is read).
pub(super) fn calls_from(response: &Value) -> Result<Calls, ProviderError> {
    let content = response
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::malformed(FORMAT, "content", "no `content` array"))?;
    let mut calls = Calls::default();
    for (i, block) in content.iter().enumerate() {
        let at = format!("content[{i}]");
        match block.get("type").and_then(Value::as_str) {
            Some("tool_use") => {
                let id = required_str(FORMAT, block, &at, "id")?;
                let name = required_str(FORMAT, block, &at, "name")?;
                match arguments(block.get("input")) {
                    Ok(input) => {
                        let mut call = ToolCall::new(id, name, input);
                        // Programmatic tool calling: a call from the code
                        // execution tool names it as its caller.
                        call.program = program_of(block, "tool_id");
                        calls.push_call(call);
                    }
                    Err(why) => calls.push_invalid(id, name, why),
                }
            }
            Some(kind @ ("server_tool_use" | "mcp_tool_use")) => {
                calls.skip(at, kind, block.get("name").and_then(Value::as_str));
            }
            Some(kind) if kind.ends_with("_tool_result") => calls.skip(at, kind, None),
            // Text, thinking and the rest are the model's words.
            _ => {}
        }
    }
    Ok(calls)
}

/// The next user message: one `tool_result` block per result, in order.
pub(super) fn results_to(results: &[ToolCallResult]) -> Value {
    let blocks: Vec<Value> = results.iter().map(tool_result).collect();
    object([("role", "user".into()), ("content", Value::Array(blocks))])
}

/// Reads the calls, runs them, and returns the assistant message to echo
/// and the user message of results (none when the model made no call).
pub(super) async fn respond(
    executor: &Executor,
    response: &Value,
) -> Result<NextRequest, ProviderError> {
    let mut calls = calls_from(response)?;
    let (skipped, _) = calls.take_skipped_and_native();
    let results = if calls.is_empty() {
        Vec::new()
    } else {
        vec![results_to(&calls.run(executor).await)]
    };
    // The echo is copied from the response once the calls have run, so a
    // large input is not held three times over (response, echo, call)
    // while they do.
    let mut content = response
        .get("content")
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    // The echo must be a valid request: a tool call whose input could not
    // be read (a stream cut short) goes back with an empty input; its
    // result says what was wrong.
    if let Value::Array(blocks) = &mut content {
        for block in blocks.iter_mut() {
            if block.get("type").and_then(Value::as_str) == Some("tool_use")
                && !block.get("input").is_some_and(Value::is_object)
                && let Value::Object(map) = block
            {
                map.insert("input".into(), json!({}));
            }
        }
    }
    let echo = vec![object([("role", "assistant".into()), ("content", content)])];
    Ok(NextRequest {
        echo,
        results,
        skipped,
        container: response
            .get("container")
            .and_then(|container| container.get("id"))
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// One result as a `tool_result` block.
fn tool_result(result: &ToolCallResult) -> Value {
    let mut block = Map::new();
    block.insert("type".into(), "tool_result".into());
    block.insert("tool_use_id".into(), result.id().into());
    if result.is_error() {
        block.insert("is_error".into(), true.into());
        block.insert("content".into(), Value::Array(vec![text(result.content())]));
        return Value::Object(block);
    }
    let content = search_references(result).unwrap_or_else(|| {
        let blocks: Vec<Value> = result.blocks().iter().filter_map(content_block).collect();
        // The API refuses empty text; the executor already says "no
        // output", so this is only a result made by hand.
        if blocks.is_empty() {
            vec![text("(no output)")]
        } else {
            blocks
        }
    });
    block.insert("content".into(), Value::Array(content));
    Value::Object(block)
}

/// A successful `tool_search` result as its `tool_reference` blocks, from
/// the hits it carries: when something was found in that shape, and the
/// text the model would otherwise read is those blocks alone (names a
/// `select:` could not find, listed after them, leave it as text).
fn search_references(result: &ToolCallResult) -> Option<Vec<Value>> {
    let found = ToolSearchOutcome::of(result)?;
    if !found.unknown().is_empty() {
        return None;
    }
    // "No tools matched": plain text.
    let Value::Array(items) = found.items()? else {
        return None;
    };
    items
        .iter()
        .all(|item| item.get("type").and_then(Value::as_str) == Some("tool_reference"))
        .then_some(items)
}

fn text(text: &str) -> Value {
    json!({ "type": "text", "text": text })
}

/// One result block as a `tool_result` content block; `None` for empty
/// text, which the API refuses.
fn content_block(block: &ContentBlock) -> Option<Value> {
    use base64::Engine as _;
    let b64 = |data: &[u8]| base64::engine::general_purpose::STANDARD.encode(data);
    Some(match block {
        ContentBlock::Text(t) if t.is_empty() => return None,
        ContentBlock::Image(image) if IMAGE_TYPES.contains(&image.media_type.as_str()) => object([
            ("type", "image".into()),
            (
                "source",
                object([
                    ("type", "base64".into()),
                    ("media_type", image.media_type.as_str().into()),
                    ("data", b64(&image.data).into()),
                ]),
            ),
        ]),
        ContentBlock::Image(image) => text(&format!(
            "[image ({}, {} bytes) not sent: the Anthropic API takes JPEG, PNG, GIF and WebP images]",
            image.media_type,
            image.data.len()
        )),
        ContentBlock::Audio(audio) => text(&format!(
            "[audio ({}, {} bytes) not sent: the Anthropic API takes no audio in tool results]",
            audio.media_type,
            audio.data.len()
        )),
        ContentBlock::Resource(resource) => {
            let media = resource.media_type.as_deref();
            let mut doc = Map::new();
            doc.insert("type".into(), "document".into());
            match (&resource.data, media) {
                (ResourceData::Bytes(bytes), Some("application/pdf")) => {
                    doc.insert(
                        "source".into(),
                        object([
                            ("type", "base64".into()),
                            ("media_type", "application/pdf".into()),
                            ("data", b64(bytes).into()),
                        ]),
                    );
                }
                (ResourceData::Text(body), None | Some("text/plain")) => {
                    doc.insert(
                        "source".into(),
                        json!({ "type": "text", "media_type": "text/plain", "data": body }),
                    );
                }
                // Other text (markdown, JSON, source code) reads as text.
                (ResourceData::Text(_), Some(_)) => return Some(text(&block.text_view())),
                (ResourceData::Bytes(bytes), other) => {
                    return Some(text(&format!(
                        "[resource <{}> ({}, {} bytes) not sent: the Anthropic API takes PDF documents and images]",
                        resource.uri,
                        other.unwrap_or("unknown type"),
                        bytes.len()
                    )));
                }
            }
            doc.insert(
                "title".into(),
                resource
                    .name
                    .clone()
                    .unwrap_or_else(|| resource.uri.clone())
                    .into(),
            );
            Value::Object(doc)
        }
        other => text(&other.text_view()),
    })
}

/// Appends `piece` to the string field `key` of `block` (creating it).
fn append_str(block: &mut Value, key: &str, piece: &str) {
    let Value::Object(map) = block else {
        return;
    };
    match map.get_mut(key) {
        Some(Value::String(text)) => text.push_str(piece),
        _ => {
            map.insert(key.into(), piece.into());
        }
    }
}

/// Puts a streamed response together from its events (`message_start`,
/// `content_block_start`, `content_block_delta`, `content_block_stop`,
/// `message_delta`, `message_stop`), in the order they came.
///
/// A tool call's input arrives as pieces of JSON text; it is parsed at the
/// block's end, and text that does not parse is kept as it came, so
/// [`calls_from`] makes that call's error result.
#[derive(Debug, Clone, Default)]
pub(super) struct Stream {
    message: Map<String, Value>,
    blocks: Vec<Value>,
    partial: Vec<String>,
}

impl Stream {
    /// Takes one event (the JSON of an SSE `data:` line).
    pub(super) fn push(&mut self, event: &Value) -> Result<(), ProviderError> {
        let index = || {
            event
                .get("index")
                .and_then(Value::as_u64)
                .and_then(|i| usize::try_from(i).ok())
                .ok_or_else(|| {
                    ProviderError::malformed(FORMAT, "event", "a block event without an `index`")
                })
        };
        match event.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                if let Some(Value::Object(message)) = event.get("message") {
                    self.message = message.clone();
                }
            }
            Some("content_block_start") => {
                let i = index()?;
                let block = event.get("content_block").cloned().unwrap_or(Value::Null);
                // Blocks start in order: an index past the next one is a
                // gap no stream sends (and a huge one must not allocate).
                match i.cmp(&self.blocks.len()) {
                    std::cmp::Ordering::Less => self.blocks[i] = block,
                    std::cmp::Ordering::Equal => {
                        self.blocks.push(block);
                        self.partial.push(String::new());
                    }
                    std::cmp::Ordering::Greater => {
                        return Err(ProviderError::malformed(
                            FORMAT,
                            format!("content[{i}]"),
                            format!("a block started before block {} did", self.blocks.len()),
                        ));
                    }
                }
            }
            Some("content_block_delta") => {
                let i = index()?;
                let (Some(block), Some(delta)) = (self.blocks.get_mut(i), event.get("delta"))
                else {
                    return Err(ProviderError::malformed(
                        FORMAT,
                        format!("content[{i}]"),
                        "a delta before its block started",
                    ));
                };
                match delta.get("type").and_then(Value::as_str) {
                    Some("input_json_delta") => {
                        let piece = delta
                            .get("partial_json")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        self.partial[i].push_str(piece);
                    }
                    // Text and thinking grow; a signature arrives whole;
                    // citations are appended. Thinking blocks must go back
                    // to the API exactly as they came.
                    Some(kind @ ("text_delta" | "thinking_delta")) => {
                        let key = if kind == "text_delta" {
                            "text"
                        } else {
                            "thinking"
                        };
                        let piece = delta.get(key).and_then(Value::as_str).unwrap_or_default();
                        append_str(block, key, piece);
                    }
                    Some("signature_delta") => {
                        if let (Value::Object(map), Some(signature)) =
                            (block, delta.get("signature"))
                        {
                            map.insert("signature".into(), signature.clone());
                        }
                    }
                    Some("citations_delta") => {
                        if let (Value::Object(map), Some(citation)) = (block, delta.get("citation"))
                        {
                            match map.get_mut("citations") {
                                Some(Value::Array(list)) => list.push(citation.clone()),
                                _ => {
                                    map.insert(
                                        "citations".into(),
                                        Value::Array(vec![citation.clone()]),
                                    );
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            Some("content_block_stop") => {
                let i = index()?;
                if let (Some(block), Some(partial)) =
                    (self.blocks.get_mut(i), self.partial.get_mut(i))
                    && !partial.is_empty()
                {
                    let text = std::mem::take(partial);
                    let input = serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text));
                    if let Value::Object(map) = block {
                        map.insert("input".into(), input);
                    }
                }
            }
            Some("message_delta") => {
                if let Some(Value::Object(delta)) = event.get("delta") {
                    for (key, value) in delta {
                        self.message.insert(key.clone(), value.clone());
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The response as one `Message`.
    pub(super) fn finish(mut self) -> Value {
        // A block whose stop never came: its input as it stands.
        for (block, partial) in self.blocks.iter_mut().zip(self.partial) {
            if !partial.is_empty()
                && let Value::Object(map) = block
            {
                let input =
                    serde_json::from_str::<Value>(&partial).unwrap_or(Value::String(partial));
                map.insert("input".into(), input);
            }
        }
        self.message
            .insert("content".into(), Value::Array(self.blocks));
        Value::Object(self.message)
    }
}
