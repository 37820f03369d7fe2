//! `null` for an optional field means "absent".
//!
//! Strict provider modes (OpenAI `strict: true`) require every property and
//! make optional ones nullable, so models send `null` where a Rust input has
//! `#[serde(default)] limit: usize`, which serde would reject. Before
//! parsing, such nulls are removed, guided by the tool's own schema: only
//! properties that are not required and whose schema does not admit null.

use serde_json::{Map, Value};

/// Removes nulls the schema does not allow for optional properties, at
/// every depth the schema describes (objects, arrays, `$ref` to `$defs`).
pub(crate) fn drop_null_optionals(args: &mut Value, schema: &Value) {
    walk(args, schema, schema, 0);
}

// Deep enough for any real input; stops a recursive `$ref` cycle on a
// recursive value from running away.
const MAX_DEPTH: usize = 64;

fn walk(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = resolve(schema, root);
    match value {
        Value::Object(map) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            drop_nulls(map, properties, &required, root);
            for (key, child) in map.iter_mut() {
                if let Some(child_schema) = properties.get(key) {
                    walk(child, child_schema, root, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    walk(item, item_schema, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn drop_nulls(
    map: &mut Map<String, Value>,
    properties: &Map<String, Value>,
    required: &[&str],
    root: &Value,
) {
    map.retain(|key, value| {
        !(value.is_null()
            && !required.contains(&key.as_str())
            && properties
                .get(key)
                .is_some_and(|p| !admits_null(resolve(p, root), root)))
    });
}

/// `#/$defs/Name` (and the older `#/definitions/Name`) to its schema.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
        return schema;
    };
    let Some(pointer) = reference.strip_prefix('#') else {
        return schema;
    };
    root.pointer(pointer).unwrap_or(schema)
}

fn admits_null(schema: &Value, root: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(map) => {
            if map.is_empty() {
                return true;
            }
            let by_type = match map.get("type") {
                Some(Value::String(t)) => t == "null",
                Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
                _ => false,
            };
            let by_union = ["anyOf", "oneOf"].iter().any(|key| {
                map.get(*key).and_then(Value::as_array).is_some_and(|alts| {
                    alts.iter().any(|alt| admits_null(resolve(alt, root), root))
                })
            });
            let by_enum = map
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|values| values.iter().any(Value::is_null));
            by_type || by_union || by_enum || map.get("const") == Some(&Value::Null)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "limit": {"type": "integer", "default": 10},
                "glob": {"type": ["string", "null"]},
                "mode": {"$ref": "#/$defs/Mode"},
                "nested": {"type": "object", "properties": {"depth": {"type": "integer"}}},
                "edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}}
            },
            "required": ["pattern"],
            "$defs": {
                "Mode": {"enum": ["fast", "exact"]},
                "Edit": {"type": "object", "properties": {"old": {"type": "string"}, "all": {"type": "boolean"}}, "required": ["old"]}
            }
        })
    }

    #[test]
    fn nulls_of_optional_non_nullable_fields_are_dropped_at_every_depth() {
        let mut args = json!({
            "pattern": null,
            "limit": null,
            "glob": null,
            "mode": null,
            "nested": {"depth": null},
            "edits": [{"old": "a", "all": null}, {"old": null}]
        });
        drop_null_optionals(&mut args, &schema());
        assert_eq!(
            args,
            json!({
                "pattern": null,
                "glob": null,
                "nested": {},
                "edits": [{"old": "a"}, {"old": null}]
            }),
            "required fields keep their null (serde names them); nullable ones keep it as None"
        );
    }

    #[test]
    fn values_that_are_not_null_or_not_described_are_untouched() {
        let mut args = json!({"pattern": "x", "limit": 3, "extra": null});
        let before = args.clone();
        drop_null_optionals(&mut args, &schema());
        assert_eq!(args, before);
        let mut scalar = json!("text");
        drop_null_optionals(&mut scalar, &json!({"type": "string"}));
        assert_eq!(scalar, json!("text"));
    }
}
