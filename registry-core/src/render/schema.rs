//! A tool's input schema as rendered bytes, once per tool: the provider
//! form (every format sends it) and OpenAI's strict form (the OpenAI
//! formats, and Anthropic's for a tool that asks for `strict`).
//!
//! Both are written from the handle's cached schema without copying it:
//! the provider form is the schema itself, canonical, with the top-level
//! keys [`provider_input_schema`](crate::input::provider_input_schema)
//! removes left out as it is written.

use serde_json::Value;

use super::cache::{self, Fragment};
use super::json::into_string;
use super::openai_strict_schema;
use crate::input::handle::ToolHandle;
use crate::input::provider_input_schema;
use crate::text::{to_canonical_string, write_canonical};

/// The top-level keys no provider is sent (see the module docs of
/// [`render`](crate::render)).
const LEFT_OUT: [&str; 2] = ["$schema", "title"];

/// [`provider_input_schema`] as compact canonical JSON, rendered once per
/// tool.
pub(crate) fn provider_schema_json(tool: &ToolHandle) -> &str {
    cache::fragment(tool, Fragment::InputSchema, |tool| {
        let mut out = Vec::with_capacity(256);
        write_canonical(&mut out, tool.input_schema(), &LEFT_OUT);
        into_string(out)
    })
}

/// [`openai_strict_schema`] of the provider schema as compact canonical
/// JSON, or `None` when the schema has no strict form; worked out once per
/// tool.
pub(crate) fn strict_schema_json(tool: &ToolHandle) -> Option<&str> {
    // An empty slot means "no strict form": no JSON text is empty.
    let text = cache::fragment(
        tool,
        Fragment::StrictSchema,
        |tool| match openai_strict_schema(&provider_input_schema(tool)) {
            Ok(strict) => to_canonical_string(&strict),
            Err(reason) => {
                tracing::debug!(tool = tool.name(), %reason, "schema has no strict form; sending it as it is");
                String::new()
            }
        },
    );
    (!text.is_empty()).then_some(text)
}

/// The strict form as a value, for the rare render that must read it
/// (examples padded with the nulls it requires).
pub(crate) fn strict_schema(tool: &ToolHandle) -> Option<Value> {
    strict_schema_json(tool).and_then(|text| serde_json::from_str(text).ok())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Map, json};

    use super::*;
    use crate::declare::builder::ToolBuilder;
    use crate::declare::output::ToolOutput;
    use crate::render::mcp::mcp_tool_json;
    use crate::render::{
        anthropic_fragment, anthropic_tool, mcp_tool, openai_chat_fragment, openai_chat_tool,
        openai_responses_fragment, openai_responses_tool,
    };

    /// JSON of every kind, with keys that collide with what the renders
    /// drop or add, and text that needs escaping.
    fn any_json() -> impl Strategy<Value = Value> {
        let text = "[a-z\"\\\\\u{0}\u{1f}é日]{0,4}";
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            text.prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 5, move |inner| {
            let key = prop_oneof![
                Just("$schema".to_owned()),
                Just("title".to_owned()),
                Just("type".to_owned()),
                Just("properties".to_owned()),
                text.prop_map(String::from),
            ];
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                proptest::collection::vec((key, inner), 0..5)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    fn object_schema() -> impl Strategy<Value = Value> {
        proptest::collection::vec(("[a-z$]{1,8}", any_json()), 0..5).prop_map(|entries| {
            let mut schema: Map<String, Value> = entries.into_iter().collect();
            schema.insert("type".into(), json!("object"));
            Value::Object(schema)
        })
    }

    proptest! {
        /// Written straight from the schema, every definition is what
        /// building it as a value and writing that canonically gives:
        /// the provider schema, and each format's fields around it.
        #[test]
        fn definitions_written_as_bytes_are_the_values_they_stand_for(
            schema in object_schema(),
            description in "\\PC{0,12}|[\u{0}-\u{7f}]{0,12}",
            strict in any::<bool>(),
        ) {
            let Ok(tool) = ToolBuilder::new("t", description.clone())
                .input_schema(schema)
                .strict(strict)
                .build(|_, _| async { Ok(ToolOutput::text("")) })
            else {
                return Ok(());
            };
            let provider = provider_input_schema(&tool);
            prop_assert_eq!(provider_schema_json(&tool), to_canonical_string(&provider));
            let strict_form = openai_strict_schema(&provider).ok();
            prop_assert_eq!(strict_schema(&tool), strict_form.clone());

            let parameters = strict_form.clone().unwrap_or_else(|| provider.clone());
            let function = json!({
                "description": description,
                "name": "t",
                "parameters": parameters,
                "strict": strict_form.is_some(),
            });
            let mut responses = function.clone();
            responses["type"] = json!("function");
            prop_assert_eq!(openai_chat_tool(&tool), json!({"type": "function", "function": function}));
            prop_assert_eq!(openai_responses_tool(&tool), responses);

            let mut anthropic = json!({"name": "t", "description": description});
            match strict_form.filter(|_| strict) {
                Some(form) => {
                    anthropic["input_schema"] = form;
                    anthropic["strict"] = json!(true);
                }
                None => anthropic["input_schema"] = provider.clone(),
            }
            prop_assert_eq!(anthropic_tool(&tool), anthropic);
            prop_assert_eq!(
                mcp_tool(&tool),
                json!({"name": "t", "description": description, "inputSchema": provider})
            );
            // Canonical where the format is canonical: writing the parsed
            // value again gives the same bytes.
            let fragments = [
                anthropic_fragment(&tool),
                openai_chat_fragment(&tool),
                openai_responses_fragment(&tool),
            ];
            for text in fragments {
                let value: Value = serde_json::from_str(text).unwrap();
                prop_assert_eq!(text, to_canonical_string(&value));
            }
            // MCP's keys are in wire order instead.
            let wire = mcp_tool_json(&tool);
            prop_assert!(wire.starts_with(r#"{"name":"t","description":"#), "{}", wire);
        }
    }
}
