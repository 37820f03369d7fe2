//! OpenAI function tools: Chat Completions (nested) and Responses (flat).

use std::sync::Arc;

use serde_json::Value;

use super::CACHE_KEY_PREFIX;
use super::cache::{self, Fragment};
use super::json::{ObjectWriter, into_string};
use crate::input::handle::ToolHandle;
use crate::pool::ToolPool;

const CHAT_KEY: &str = "openai_chat";
const RESPONSES_KEY: &str = "openai_responses";

/// `description`, `name`, `parameters` and `strict` for one tool, in that
/// (canonical) order; `name` is the tool's own, or its short name inside a
/// namespace.
fn function_fields(object: &mut ObjectWriter<'_>, tool: &ToolHandle, name: &str) {
    let spec = tool.spec();
    let strict = super::schema::strict_schema_json(tool);
    object
        .string("description", spec.description())
        .string("name", name)
        .raw(
            "parameters",
            strict.unwrap_or_else(|| super::schema::provider_schema_json(tool)),
        )
        .bool("strict", strict.is_some());
}

/// [`openai_chat_tool`] as canonical JSON.
fn openai_chat_json(tool: &ToolHandle) -> String {
    let mut out = Vec::with_capacity(256);
    let mut object = ObjectWriter::canonical(&mut out);
    object
        .object("function", |function| {
            function_fields(function, tool, tool.name());
        })
        .string("type", "function");
    object.close();
    into_string(out)
}

/// [`openai_responses_tool`] as canonical JSON, with `"defer_loading":
/// true` when `deferred` (a session's deferral policy decides).
pub(crate) fn openai_responses_json(tool: &ToolHandle, deferred: bool) -> String {
    openai_responses_json_named(tool, deferred, tool.name())
}

/// [`openai_responses_json`] under another name: the tool's short name
/// inside its namespace (`render::namespace`). Not cached: the name
/// depends on how the caller groups the tool, not on the tool alone.
pub(crate) fn openai_responses_json_named(tool: &ToolHandle, deferred: bool, name: &str) -> String {
    let mut out = Vec::with_capacity(256);
    let mut object = ObjectWriter::canonical(&mut out);
    if let Some(callers) = tool.spec().allowed_callers() {
        let callers = super::callers::openai_callers(callers);
        object.value(
            "allowed_callers",
            &Value::Array(callers.iter().map(|c| Value::from(*c)).collect()),
        );
    }
    if deferred {
        object.bool("defer_loading", true);
    }
    function_fields(&mut object, tool, name);
    object.string("type", "function");
    object.close();
    into_string(out)
}

/// The cached Chat Completions definition.
pub(crate) fn openai_chat_fragment(tool: &ToolHandle) -> &str {
    cache::fragment(tool, Fragment::OpenAiChat, openai_chat_json)
}

/// `tool` as the Responses API's client-executed tool search:
/// `{"description", "execution": "client", "parameters", "type":
/// "tool_search"}`, canonical.
pub(crate) fn openai_responses_tool_search_json(tool: &ToolHandle) -> String {
    let mut out = Vec::with_capacity(256);
    let mut object = ObjectWriter::canonical(&mut out);
    object
        .string("description", tool.spec().description())
        .string("execution", "client")
        .raw("parameters", super::schema::provider_schema_json(tool))
        .string("type", "tool_search");
    object.close();
    into_string(out)
}

/// The cached Responses definition (never deferred).
pub(crate) fn openai_responses_fragment(tool: &ToolHandle) -> &str {
    cache::fragment(tool, Fragment::OpenAiResponses, |tool| {
        openai_responses_json(tool, false)
    })
}

/// One tool as an OpenAI Chat Completions tool:
/// `{"type": "function", "function": {"name", "description", "parameters",
/// "strict"}}`. `strict` is `true` only when
/// [`openai_strict_schema`](super::openai_strict_schema) could transform the
/// schema, which is then the `parameters`; otherwise the original schema
/// goes with `strict: false`.
pub(crate) fn openai_chat_tool(tool: &ToolHandle) -> Value {
    // The writer writes valid JSON (every fragment is parsed back by the
    // render tests); `Null` is unreachable.
    serde_json::from_str(openai_chat_fragment(tool)).unwrap_or_default()
}

/// One tool as an OpenAI Responses API tool: the fields of
/// [`openai_chat_tool`] flat, `{"type": "function", "name", "description",
/// "parameters", "strict"}`.
pub(crate) fn openai_responses_tool(tool: &ToolHandle) -> Value {
    serde_json::from_str(openai_responses_fragment(tool)).unwrap_or_default()
}

impl ToolPool {
    /// The OpenAI Chat Completions `tools` array, as compact canonical
    /// JSON: every tool in pool order as `{"type": "function", "function":
    /// {"name", "description", "parameters", "strict"}}`, with `strict:
    /// true` and the strict form of the schema when it can be transformed
    /// into OpenAI's strict subset. Cached.
    pub fn render_openai_chat(&self) -> Arc<str> {
        self.render_cached(&format!("{CACHE_KEY_PREFIX}{CHAT_KEY}"), |pool| {
            cache::json_array(pool.iter().map(openai_chat_fragment))
        })
    }

    /// The OpenAI Responses API `tools` array, as compact canonical JSON:
    /// the fields of [`render_openai_chat`](Self::render_openai_chat)'s
    /// tools flat, `{"type": "function", "name", "description",
    /// "parameters", "strict"}` (and `allowed_callers` when the tool says
    /// who may call it), pool order; when a tool may be called from a
    /// program, `{"type": "programmatic_tool_calling"}` last. Cached.
    pub fn render_openai_responses(&self) -> Arc<str> {
        self.render_cached(&format!("{CACHE_KEY_PREFIX}{RESPONSES_KEY}"), |pool| {
            let program = super::program_tool(pool.iter(), super::OPENAI_PROGRAM_TOOL);
            cache::json_array(pool.iter().map(openai_responses_fragment).chain(program))
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::declare::builder::ToolBuilder;
    use crate::declare::output::ToolOutput;

    #[test]
    fn an_optional_field_is_nullable_and_required_under_strict() {
        let tool = ToolBuilder::new("echo", "Echo.")
            .input_schema(
                json!({ "type": "object", "properties": { "text": { "type": "string" } } }),
            )
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            openai_chat_tool(&tool),
            json!({
                "type": "function",
                "function": {
                    "name": "echo",
                    "description": "Echo.",
                    "parameters": {
                        "type": "object",
                        "properties": { "text": { "type": ["string", "null"] } },
                        "required": ["text"],
                        "additionalProperties": false
                    },
                    "strict": true
                }
            })
        );
    }
}
