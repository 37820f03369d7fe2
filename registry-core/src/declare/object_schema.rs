//! The rule every tool's input schema obeys: an object at the root, which
//! Anthropic, OpenAI and MCP all require. Checked when a definition is
//! made (`#[tool]`'s list, [`ToolBuilder`](crate::declare::ToolBuilder), plugins,
//! MCP imports), so no tool a provider would refuse reaches a pool.

use serde_json::Value;

/// Why a tool's input schema cannot be sent to a provider: Anthropic,
/// OpenAI and MCP all require `{"type": "object", ...}` at the root.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ObjectSchemaError {
    /// The root schema describes something other than an object, or does
    /// not say (a union, a nullable object, a boolean schema).
    #[error(
        "the input schema is {found}, not `\"type\": \"object\"`; every provider requires an object schema"
    )]
    NotAnObject {
        /// What the root says instead, as it would read in the schema.
        found: String,
    },
}

/// Checks that a tool's input schema is an object schema at its root:
/// a JSON object whose `"type"` is exactly `"object"`. A union of objects
/// (an enum as the input), `["object", "null"]` (an `Option` as the input)
/// or a bare `true` (`serde_json::Value`) are refused: providers reject
/// them, so the tool could never be offered to a model.
pub fn require_object_schema(schema: &Value) -> Result<(), ObjectSchemaError> {
    let found = match schema {
        Value::Object(map) => match map.get("type") {
            Some(Value::String(t)) if t == "object" => return Ok(()),
            Some(other) => format!("`\"type\": {other}`"),
            None => match ["anyOf", "oneOf", "allOf", "$ref"]
                .into_iter()
                .find(|key| map.contains_key(*key))
            {
                Some(key) => format!("a `{key}` without `\"type\": \"object\"`"),
                None => "a schema without `\"type\"` (any value)".to_owned(),
            },
        },
        Value::Bool(b) => format!("the boolean schema `{b}` (any value)"),
        other => format!("`{other}`, which is not a schema"),
    };
    Err(ObjectSchemaError::NotAnObject { found })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_an_object_schema_is_an_input() {
        assert!(require_object_schema(&json!({ "type": "object" })).is_ok());
        let found = |schema: Value| match require_object_schema(&schema) {
            Err(ObjectSchemaError::NotAnObject { found }) => found,
            Ok(()) => panic!("accepted {schema}"),
        };
        assert_eq!(found(json!({ "type": "string" })), "`\"type\": \"string\"`");
        assert_eq!(
            found(json!({ "type": ["object", "null"] })),
            "`\"type\": [\"object\",\"null\"]`"
        );
        assert_eq!(
            found(json!({ "oneOf": [{ "type": "object" }] })),
            "a `oneOf` without `\"type\": \"object\"`"
        );
        assert_eq!(
            found(json!({ "$ref": "#/$defs/A" })),
            "a `$ref` without `\"type\": \"object\"`"
        );
        assert_eq!(
            found(json!({ "description": "x" })),
            "a schema without `\"type\"` (any value)"
        );
        assert_eq!(found(json!(true)), "the boolean schema `true` (any value)");
        assert_eq!(found(json!(3)), "`3`, which is not a schema");
        let message = require_object_schema(&json!({ "type": "string" }))
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            "the input schema is `\"type\": \"string\"`, not `\"type\": \"object\"`; \
             every provider requires an object schema"
        );
    }
}

/// The examples that were this module's doc tests, kept as tests now
/// that the items they show are crate-private.
#[cfg(test)]
mod examples {
    use super::{ObjectSchemaError, require_object_schema};
    use serde_json::json;

    #[test]
    fn only_an_object_schema_passes() {
        assert!(require_object_schema(&json!({ "type": "object", "properties": {} })).is_ok());
        assert!(require_object_schema(&json!({ "type": ["object", "null"] })).is_err());
        assert!(require_object_schema(&json!(true)).is_err());
    }

    #[test]
    fn the_error_says_what_the_root_is() {
        let err = require_object_schema(&json!({ "type": "string" })).unwrap_err();
        assert_eq!(
            err,
            ObjectSchemaError::NotAnObject {
                found: "`\"type\": \"string\"`".into()
            }
        );
    }
}
