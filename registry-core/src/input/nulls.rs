//! `null` for an optional field means "absent".
//!
//! Strict provider modes (OpenAI `strict: true`) require every property and
//! make optional ones nullable, so models send `null` where a Rust input has
//! `#[serde(default)] limit: usize`, which serde would reject. Before
//! parsing, such nulls are removed, guided by the tool's own schema: only
//! properties that are not required and whose schema does not admit null.

use serde_json::Value;

use crate::input::schema::plan::may_contain_null;
use crate::input::schema::{MAX_WALK_DEPTH as MAX_DEPTH, admits_null, follow_ref};

/// Removes nulls the schema does not allow for optional properties, at
/// every depth the schema describes (objects, arrays, unions, `$ref` to
/// `$defs`).
pub(crate) fn drop_null_optionals(args: &mut Value, schema: &Value) {
    walk(args, schema, schema, &mut Vec::new(), 0);
}

/// `refs` holds the `$ref`s already followed for this same value, so a
/// recursive union (`anyOf: [{$ref: Expr}, ...]` inside `Expr`) is visited
/// once, not forever or exponentially.
fn walk<'s>(
    value: &mut Value,
    schema: &'s Value,
    root: &'s Value,
    refs: &mut Vec<&'s str>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(schema) = follow_ref(schema, root, refs) else {
        return;
    };
    // `Option<Struct>` is `anyOf: [{$ref}, {type: null}]`: a non-null value
    // is described by the branches, so walk each of them.
    if !value.is_null() {
        for key in ["anyOf", "oneOf"] {
            for branch in schema
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                walk(value, branch, root, refs, depth);
            }
        }
    }
    match value {
        Value::Object(map) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let required = schema.get("required").and_then(Value::as_array);
            let is_required =
                |key: &str| required.is_some_and(|r| r.iter().any(|k| k.as_str() == Some(key)));
            map.retain(|key, value| {
                !(value.is_null()
                    && !is_required(key)
                    && properties.get(key).is_some_and(|p| !admits_null(p, root)))
            });
            for (key, child) in map.iter_mut() {
                // At the top, a property whose value holds no null is left
                // alone: one linear scan instead of a schema-guided
                // descent. Only there: scanning again at every level would
                // grow with the square of the nesting.
                if depth == 0 && !may_contain_null(child, MAX_DEPTH) {
                    continue;
                }
                if let Some(child_schema) = properties.get(key) {
                    walk(child, child_schema, root, &mut Vec::new(), depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    walk(item, item_schema, root, &mut Vec::new(), depth + 1);
                }
            }
        }
        _ => {}
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
    fn optional_structs_are_walked_through_their_union() {
        let schema = json!({
            "type": "object",
            "properties": {"range": {"anyOf": [{"$ref": "#/$defs/Range"}, {"type": "null"}]}},
            "$defs": {"Range": {"type": "object", "properties": {"start": {"type": "integer"}, "step": {"type": "integer"}}, "required": ["start"]}}
        });
        let mut args = json!({"range": {"start": 1, "step": null}});
        drop_null_optionals(&mut args, &schema);
        assert_eq!(args, json!({"range": {"start": 1}}));
        let mut none = json!({"range": null});
        drop_null_optionals(&mut none, &schema);
        assert_eq!(none, json!({"range": null}), "null is a valid None here");
    }

    #[test]
    fn unions_of_the_same_recursive_ref_do_not_explode() {
        // Two newtype variants of one untagged recursive enum.
        let schema = json!({
            "type": "object",
            "properties": {"expr": {"$ref": "#/$defs/Expr"}},
            "$defs": {"Expr": {"anyOf": [
                {"$ref": "#/$defs/Expr"}, {"$ref": "#/$defs/Expr"}, {"$ref": "#/$defs/Expr"},
                {"type": "object", "properties": {"lit": {"type": "integer"}}}
            ]}}
        });
        let mut args = json!({"expr": {"lit": null}});
        drop_null_optionals(&mut args, &schema);
        assert_eq!(args, json!({"expr": {}}));
    }

    #[test]
    fn recursive_unions_terminate() {
        // `#[serde(untagged)] enum Expr { Not(Box<Expr>), Lit(i64) }` as `Option<Expr>`.
        let schema = json!({
            "type": "object",
            "properties": {"expr": {"$ref": "#/$defs/Expr"}},
            "$defs": {"Expr": {"anyOf": [{"$ref": "#/$defs/Expr"}, {"type": "integer"}]}}
        });
        let mut args = json!({"expr": null});
        drop_null_optionals(&mut args, &schema);
        assert_eq!(args, json!({}));
        let mut nested = json!({"expr": 3});
        drop_null_optionals(&mut nested, &schema);
        assert_eq!(nested, json!({"expr": 3}));
    }

    #[test]
    fn a_nullable_type_narrowed_by_an_enum_without_null_does_not_admit_it() {
        // `type` says null is fine, `enum` says it is not: both must agree.
        let schema = json!({
            "type": "object",
            "properties": {"mode": {"type": ["string", "null"], "enum": ["fast", "exact"]}}
        });
        let mut args = json!({"mode": null});
        drop_null_optionals(&mut args, &schema);
        assert_eq!(args, json!({}));
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
