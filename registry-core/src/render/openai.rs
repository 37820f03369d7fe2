//! OpenAI function tools: Chat Completions (nested) and Responses (flat).

use std::sync::Arc;

use serde_json::{Map, Value};

use super::cache::{self, Fragment};
use super::{CACHE_KEY_PREFIX, openai_strict_schema};
use crate::input::handle::ToolHandle;
use crate::input::provider_input_schema;
use crate::pool::ToolPool;
use crate::text::to_canonical_string;

const CHAT_KEY: &str = "openai_chat";
const RESPONSES_KEY: &str = "openai_responses";

/// `name`, `description`, `parameters` and `strict` for one tool.
fn function_fields(tool: &ToolHandle) -> Map<String, Value> {
    let spec = tool.spec();
    let original = provider_input_schema(tool);
    let (parameters, strict) = match openai_strict_schema(&original) {
        Ok(strict) => (strict, true),
        Err(reason) => {
            tracing::debug!(tool = spec.name(), %reason, "schema is not strict-compatible; sending strict: false");
            (original, false)
        }
    };
    let mut fields = Map::new();
    fields.insert("name".into(), Value::String(spec.name().to_owned()));
    fields.insert(
        "description".into(),
        Value::String(spec.description().to_owned()),
    );
    fields.insert("parameters".into(), parameters);
    fields.insert("strict".into(), Value::Bool(strict));
    fields
}

/// One tool as an OpenAI Chat Completions tool:
/// `{"type": "function", "function": {"name", "description", "parameters",
/// "strict"}}`. `strict` is `true` only when
/// [`openai_strict_schema`] could transform the
/// schema, which is then the `parameters`; otherwise the original schema
/// goes with `strict: false`.
///
/// ```
/// use registry_core::{ToolBuilder, ToolOutput, render::openai_chat_tool};
/// use serde_json::json;
///
/// let tool = ToolBuilder::new("echo", "Echo.")
///     .input_schema(json!({ "type": "object", "properties": { "text": { "type": "string" } } }))
///     .build(|_, _| async { Ok(ToolOutput::text("")) })
///     .unwrap();
/// assert_eq!(openai_chat_tool(&tool), json!({
///     "type": "function",
///     "function": {
///         "name": "echo",
///         "description": "Echo.",
///         "parameters": {
///             "type": "object",
///             "properties": { "text": { "type": ["string", "null"] } },
///             "required": ["text"],
///             "additionalProperties": false
///         },
///         "strict": true
///     }
/// }));
/// ```
pub fn openai_chat_tool(tool: &ToolHandle) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), Value::String("function".into()));
    out.insert("function".into(), Value::Object(function_fields(tool)));
    Value::Object(out)
}

/// One tool as an OpenAI Responses API tool: the fields of
/// [`openai_chat_tool`] flat, `{"type": "function", "name", "description",
/// "parameters", "strict"}`.
pub fn openai_responses_tool(tool: &ToolHandle) -> Value {
    let mut out = function_fields(tool);
    out.insert("type".into(), Value::String("function".into()));
    Value::Object(out)
}

impl ToolPool {
    /// The OpenAI Chat Completions `tools` array ([`openai_chat_tool`] for
    /// every tool, pool order), as compact canonical JSON. Cached.
    pub fn render_openai_chat(&self) -> Arc<str> {
        self.render_cached(&format!("{CACHE_KEY_PREFIX}{CHAT_KEY}"), |pool| {
            let render = |tool: &ToolHandle| to_canonical_string(&openai_chat_tool(tool));
            cache::json_array(
                pool.iter()
                    .map(|tool| cache::fragment(tool, Fragment::OpenAiChat, render)),
            )
        })
    }

    /// The OpenAI Responses API `tools` array ([`openai_responses_tool`]
    /// for every tool, pool order), as compact canonical JSON. Cached.
    pub fn render_openai_responses(&self) -> Arc<str> {
        self.render_cached(&format!("{CACHE_KEY_PREFIX}{RESPONSES_KEY}"), |pool| {
            let render = |tool: &ToolHandle| to_canonical_string(&openai_responses_tool(tool));
            cache::json_array(
                pool.iter()
                    .map(|tool| cache::fragment(tool, Fragment::OpenAiResponses, render)),
            )
        })
    }
}
