//! OpenAI Responses: `function_call` and client `tool_search_call` items
//! in, `function_call_output` and `tool_search_output` items out.
//!
//! Namespaces: the session render puts each MCP server's tools into one
//! `namespace` tool under their short names, so the model's
//! `function_call` for one carries `"namespace": "<server>"` and `"name":
//! "<tool>"`; it runs the tool `mcp__<server>__<tool>` and is answered by
//! a `function_call_output` with its `call_id`, like any other (the call
//! is echoed as the model sent it). A namespace no tool of this crate
//! could be in (empty, holding `__`, not a string) is that call's error
//! result naming it; one of the right form that no server has is the
//! executor's unknown tool. A call without a namespace names its tool in
//! full, so the flat renders' calls (`mcp__<server>__<tool>`) run too.
//! Found MCP tools are loaded into their namespaces by `tool_search_output`
//! (the namespace first where its first found tool ranked).
//!
//! A result of text is its output string; a result with images or files
//! is a list of `input_text`, `input_image` (a data URL) and `input_file`
//! (a PDF as a data URL) parts; what the format cannot hold (audio, other
//! media) is named in the text. The format has no error flag: an error
//! result's text starts with `Error: `. A client `tool_search_call` runs
//! the registry's `tool_search`, and its answer is a `tool_search_output`
//! listing the found tools' definitions, so the request's `tools` array
//! never changes (see [`SessionTools::render_openai_responses`]).
//!
//! [`SessionTools::render_openai_responses`]: crate::session::SessionTools::render_openai_responses

use serde_json::{Value, json};

use super::calls::{Calls, arguments, program_of, required_str};
use super::wire::{ERROR_PREFIX, OPENAI_IMAGE_TYPES, data_url, object, pdf_file_fields};
use super::{NextRequest, ProviderError};
use crate::declare::{ContentBlock, ResourceData};
use crate::execute::{Executor, ToolCall, ToolCallResult};
use crate::render::{namespace_definitions, namespaced_tool_name};
use crate::search::{TOOL_SEARCH_NAME, ToolSearchOutcome};
use crate::text::cap_error_text;

const FORMAT: &str = "an OpenAI Responses";

/// The output items a client answers; the rest of `output` is the
/// provider's.
const CLIENT_ITEMS: [&str; 2] = ["function_call", "tool_search_call"];

/// The tool calls of a `Response` (its `output`), or of a list of output
/// items.
pub(super) fn calls_from(response: &Value) -> Result<Calls, ProviderError> {
    let output = output_of(response)?;
    let mut calls = Calls::default();
    for (i, item) in output.iter().enumerate() {
        let at = format!("output[{i}]");
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                let id = required_str(FORMAT, item, &at, "call_id")?;
                let name = required_str(FORMAT, item, &at, "name")?;
                let resolved = match tool_of(item, name) {
                    Ok(resolved) => resolved,
                    Err(why) => {
                        calls.push_error(id, name, why);
                        continue;
                    }
                };
                let name = resolved.as_deref().unwrap_or(name);
                match arguments(item.get("arguments")) {
                    Ok(input) => {
                        let mut call = ToolCall::new(id, name, input);
                        // Programmatic tool calling: a call from a program
                        // names the program item as its caller.
                        call.program = program_of(item, "caller_id");
                        calls.push_call(call);
                    }
                    Err(why) => calls.push_invalid(id, name, why),
                }
            }
            Some("tool_search_call") => {
                if item.get("execution").and_then(Value::as_str) != Some("client") {
                    calls.skip(at, "tool_search_call", None);
                    continue;
                }
                let id = required_str(FORMAT, item, &at, "call_id")?;
                calls.mark_native_search(id);
                match arguments(item.get("arguments")) {
                    Ok(input) => calls.push_call(ToolCall::new(id, TOOL_SEARCH_NAME, input)),
                    Err(why) => calls.push_invalid(id, TOOL_SEARCH_NAME, why),
                }
            }
            Some("message" | "reasoning") | None => {}
            Some(kind) => calls.skip(at, kind, item.get("name").and_then(Value::as_str)),
        }
    }
    Ok(calls)
}

/// The tool a `function_call` names: `Ok(None)` for a call without a
/// namespace (its `name` is the tool's), `Ok(Some(mcp__<namespace>__<name>))`
/// for a call in a namespace (the session render's MCP servers, see
/// `render::namespace`), or the error the call is answered with when the
/// namespace cannot be one of ours. A namespace of the right form that no
/// server has goes on to the executor, which answers it as it answers any
/// unknown tool (naming `mcp__<namespace>__<name>`, and nothing about the
/// tools it has: the model must not learn of tools it was not offered).
fn tool_of(item: &Value, name: &str) -> Result<Option<String>, String> {
    let namespace = match item.get("namespace") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(namespace)) => namespace,
        Some(_) => {
            return Err(format!(
                "the call of `{}` could not be run: its namespace is not a string. Call the tool by the name and namespace it was given.",
                cap_error_text(name)
            ));
        }
    };
    namespaced_tool_name(namespace, name)
        .map(Some)
        .ok_or_else(|| {
            format!(
                "the call of `{}` could not be run: there is no namespace `{}`. Call the tool by the name and namespace it was given.",
                cap_error_text(name),
                cap_error_text(namespace)
            )
        })
}

fn output_of(response: &Value) -> Result<&Vec<Value>, ProviderError> {
    match response {
        Value::Array(items) => Ok(items),
        _ => response
            .get("output")
            .and_then(Value::as_array)
            .ok_or_else(|| ProviderError::malformed(FORMAT, "output", "no `output` array")),
    }
}

/// The next input items: one per result, in order. A `tool_search`
/// result is a `tool_search_output` (the session render offers
/// `tool_search` as the client tool search, so the model calls it
/// natively); every other result a `function_call_output`. [`respond`]
/// decides by how each call came instead.
pub(super) fn results_to(results: &[ToolCallResult]) -> Vec<Value> {
    results
        .iter()
        .map(|result| output_item(result, result.tool() == Some(TOOL_SEARCH_NAME), None))
        .collect()
}

/// One result as the item that answers its call: `native_search` when the
/// call was a `tool_search_call`; a call a program made is answered to that
/// program (`caller`), so its result goes back into the program, not the
/// model's context.
fn output_item(result: &ToolCallResult, native_search: bool, program: Option<&str>) -> Value {
    if native_search {
        let tools = search_tools(result);
        return object([
            ("type", "tool_search_output".into()),
            ("call_id", result.id().into()),
            ("execution", "client".into()),
            ("status", "completed".into()),
            ("tools", Value::Array(tools)),
        ]);
    }
    let output = if result.is_error() {
        Value::String(format!("{ERROR_PREFIX}{}", result.content()))
    } else if result.blocks().iter().all(ContentBlock::is_text) {
        Value::String(result.content().to_owned())
    } else {
        Value::Array(result.blocks().iter().map(part).collect())
    };
    let mut item = object([
        ("type", "function_call_output".into()),
        ("call_id", result.id().into()),
        ("output", output),
    ]);
    if let (Some(program), Value::Object(fields)) = (program, &mut item) {
        fields.insert(
            "caller".into(),
            json!({ "type": "program", "caller_id": program }),
        );
    }
    item
}

/// The function definitions a `tool_search` call found, from the hits
/// its result carries (a scope of shape
/// [`ResultShape::Definitions`](crate::search::ResultShape::Definitions)
/// in this format). "No tools matched", an error, a result the executor
/// cut, or another shape loads nothing: the item has no field for text,
/// and a native search call must be answered by a `tool_search_output`.
fn search_tools(result: &ToolCallResult) -> Vec<Value> {
    let found = ToolSearchOutcome::of(result)
        .filter(|_| !result.is_error())
        .and_then(ToolSearchOutcome::items);
    match found {
        Some(Value::Array(tools))
            if tools
                .iter()
                .all(|t| t.get("type").and_then(Value::as_str) == Some("function")) =>
        {
            // An MCP server's tools load into its namespace, as the
            // session render declares them.
            namespace_definitions(tools)
        }
        _ => {
            tracing::debug!(call = result.id(), "tool_search loaded nothing");
            Vec::new()
        }
    }
}

/// One block as a `function_call_output` part.
fn part(block: &ContentBlock) -> Value {
    match block {
        ContentBlock::Image(image) if OPENAI_IMAGE_TYPES.contains(&image.media_type.as_str()) => {
            object([
                ("type", "input_image".into()),
                ("image_url", data_url(&image.media_type, &image.data).into()),
            ])
        }
        ContentBlock::Resource(resource) => {
            match (&resource.data, resource.media_type.as_deref()) {
                (ResourceData::Bytes(bytes), Some("application/pdf")) => {
                    let mut file = pdf_file_fields(resource, bytes);
                    file.insert("type".into(), "input_file".into());
                    Value::Object(file)
                }
                (ResourceData::Bytes(_), _) => input_text(&format!(
                    "{} (not sent: only images and PDFs can be attached)",
                    block.text_view()
                )),
                (ResourceData::Text(_), _) => input_text(&block.text_view()),
            }
        }
        ContentBlock::Image(_) => input_text(&format!(
            "{} (not sent: OpenAI takes PNG, JPEG, WebP and GIF images)",
            block.text_view()
        )),
        ContentBlock::Audio(_) => input_text(&format!(
            "{} (not sent: tool results here hold no audio)",
            block.text_view()
        )),
        other => input_text(&other.text_view()),
    }
}

fn input_text(text: &str) -> Value {
    json!({ "type": "input_text", "text": text })
}

/// Reads the calls, runs them, and returns the output items to echo (the
/// calls, reasoning and messages of `output`, in order, for a stateless
/// conversation; reasoning models refuse a call echoed without its
/// reasoning item) and the result items.
pub(super) async fn respond(
    executor: &Executor,
    response: &Value,
) -> Result<NextRequest, ProviderError> {
    let mut calls = calls_from(response)?;
    let output = output_of(response)?;
    let (skipped, native) = calls.take_skipped_and_native();
    let programs: std::collections::BTreeMap<String, String> = calls
        .calls()
        .filter_map(|call| Some((call.id.clone(), call.program.clone()?)))
        .collect();
    let results = if calls.is_empty() {
        Vec::new()
    } else {
        calls
            .run(executor)
            .await
            .iter()
            .map(|result| {
                let program = programs.get(result.id()).map(String::as_str);
                output_item(result, native.contains(result.id()), program)
            })
            .collect()
    };
    // Copied from the response once the calls have run (see
    // `anthropic::respond`).
    let echo = output
        .iter()
        .filter(|item| {
            item.get("type")
                .and_then(Value::as_str)
                .is_some_and(|kind| {
                    // A `program` item carries the fingerprint its
                    // calls' outputs are replayed into.
                    CLIENT_ITEMS.contains(&kind)
                        || matches!(kind, "message" | "reasoning" | "program")
                })
        })
        .cloned()
        .collect();
    Ok(NextRequest {
        echo,
        results,
        skipped,
        container: None,
    })
}

/// Puts a streamed response together from its events:
/// `response.output_item.added` and `.done` set an item,
/// `response.function_call_arguments.delta` and `.done` build its
/// arguments, and `response.completed` gives the whole response.
#[derive(Debug, Clone, Default)]
pub(super) struct Stream {
    items: Vec<Value>,
    completed: Option<Value>,
}

impl Stream {
    /// Takes one event.
    pub(super) fn push(&mut self, event: &Value) -> Result<(), ProviderError> {
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let index = || {
            event
                .get("output_index")
                .and_then(Value::as_u64)
                .and_then(|i| usize::try_from(i).ok())
                .ok_or_else(|| {
                    ProviderError::malformed(
                        FORMAT,
                        kind.to_owned(),
                        "an event without an `output_index`",
                    )
                })
        };
        match kind {
            "response.output_item.added" | "response.output_item.done" => {
                let i = index()?;
                let item = event.get("item").cloned().unwrap_or(Value::Null);
                // Items are added in order; a gap is no stream's (and a
                // huge index must not allocate).
                match i.cmp(&self.items.len()) {
                    std::cmp::Ordering::Less => self.items[i] = item,
                    std::cmp::Ordering::Equal => self.items.push(item),
                    std::cmp::Ordering::Greater => {
                        return Err(ProviderError::malformed(
                            FORMAT,
                            format!("output[{i}]"),
                            format!("an item added before item {} was", self.items.len()),
                        ));
                    }
                }
            }
            "response.function_call_arguments.delta" => {
                let i = index()?;
                let piece = event
                    .get("delta")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if let Some(Value::Object(item)) = self.items.get_mut(i) {
                    match item.get_mut("arguments") {
                        Some(Value::String(arguments)) => arguments.push_str(piece),
                        _ => {
                            item.insert("arguments".into(), piece.into());
                        }
                    }
                }
            }
            "response.function_call_arguments.done" => {
                let i = index()?;
                if let (Some(Value::Object(item)), Some(arguments)) =
                    (self.items.get_mut(i), event.get("arguments"))
                {
                    item.insert("arguments".into(), arguments.clone());
                }
            }
            "response.completed" => self.completed = event.get("response").cloned(),
            _ => {}
        }
        Ok(())
    }

    /// The response: the completed one when the stream sent it, else the
    /// items put together.
    pub(super) fn finish(self) -> Value {
        self.completed
            .unwrap_or_else(|| object([("output", Value::Array(self.items))]))
    }
}
