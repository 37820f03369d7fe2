//! Where the schema promises an object, the arguments hold an object.
//!
//! serde reads a struct from an object *or* from an array of its fields in
//! declaration order, so `["ls"]` parses as `{"command": "ls"}` and
//! `{"edits": [["old", "new"]]}` as a list of edit structs. No schema
//! advertises that form, no provider sends it on purpose, and accepting it
//! means a model's confused output runs with guessed field meanings. This
//! module finds such values before serde sees them, guided by the tool's
//! own input schema. It owns that one question; it never changes the
//! arguments.

use serde_json::Value;

use super::{follow_ref, ref_target};

/// How deep the walk follows the arguments (and `$ref` chains): deep enough
/// for any real input, and bounded so a recursive schema applied to a deep
/// value cannot exhaust the stack.
const MAX_DEPTH: usize = 64;

/// A value of the wrong JSON kind where the schema wants an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// Where it is: empty for the arguments themselves, else in
    /// `serde_path_to_error`'s notation (`edits[0]`, `range.start`).
    pub(crate) path: String,
    /// What it is instead (`an array`).
    pub(crate) found: &'static str,
}

/// The first place (in key order) where `args` holds something other than
/// an object while `schema` admits only objects there. At the top level
/// `null` counts as wrong too; below it, `null` is left to serde and to
/// the null handling of [`nulls`](crate::nulls).
pub(crate) fn first_mismatch(args: &Value, schema: &Value) -> Option<Mismatch> {
    if !args.is_object() && only_objects(schema, schema, false, 0) {
        return Some(Mismatch {
            path: String::new(),
            found: json_kind(args),
        });
    }
    let mut path = String::new();
    walk(args, schema, schema, &mut path, 0).map(|found| Mismatch { path, found })
}

/// Walks `value` along `schema`: the kind of the first child that must be
/// an object and is not, with `path` pointing at it.
fn walk(
    value: &Value,
    schema: &Value,
    root: &Value,
    path: &mut String,
    depth: usize,
) -> Option<&'static str> {
    if depth > MAX_DEPTH {
        return None;
    }
    let schema = single_branch(schema, root, depth)?;
    let check = |child: &Value, child_schema: &Value, path: &mut String| {
        if !child.is_object() && !child.is_null() && only_objects(child_schema, root, true, depth) {
            Some(json_kind(child))
        } else {
            walk(child, child_schema, root, path, depth + 1)
        }
    };
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object)?;
            for (key, child) in map {
                let Some(child_schema) = properties.get(key) else {
                    continue;
                };
                let before = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                if let Some(found) = check(child, child_schema, path) {
                    return Some(found);
                }
                path.truncate(before);
            }
            None
        }
        Value::Array(items) => {
            let item_schema = schema.get("items").filter(|s| s.is_object())?;
            for (index, item) in items.iter().enumerate() {
                let before = path.len();
                path.push_str(&format!("[{index}]"));
                if let Some(found) = check(item, item_schema, path) {
                    return Some(found);
                }
                path.truncate(before);
            }
            None
        }
        _ => None,
    }
}

/// The schema that describes a non-null value: `schema` itself after its
/// `$ref`s, or the only non-null branch of a union (`Option<Struct>` is
/// `anyOf: [{$ref}, {type: null}]`). `None` for unions of several kinds of
/// value, whose branch cannot be known before parsing.
fn single_branch<'s>(schema: &'s Value, root: &'s Value, depth: usize) -> Option<&'s Value> {
    let schema = resolve(schema, root, depth)?;
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let mut non_null = branches
                .iter()
                .filter_map(|b| resolve(b, root, depth))
                .filter(|b| b.get("type") != Some(&Value::String("null".into())));
            let first = non_null.next()?;
            return match non_null.next() {
                None => single_branch(first, root, depth + 1),
                Some(_) => None,
            };
        }
    }
    Some(schema)
}

/// Follows a chain of `$ref`s to `#/...`; a cycle or a dangling
/// reference gives `None`.
fn resolve<'s>(schema: &'s Value, root: &'s Value, depth: usize) -> Option<&'s Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    follow_ref(schema, root, &mut Vec::new())
}

/// Whether every value `schema` admits is an object (or `null`, when
/// `allow_null`), by its `type` or the branches of its union. A schema
/// that says nothing about the type admits anything: `false`.
fn only_objects(schema: &Value, root: &Value, allow_null: bool, depth: usize) -> bool {
    only_objects_along(schema, root, allow_null, &mut Vec::new(), depth)
}

/// [`only_objects`], with the `$ref`s being followed on this chain: a
/// reference met again adds nothing (answering `false`, which refuses
/// nothing), so a recursive union (`Expr = anyOf [Expr, Expr, ...]`) is
/// unfolded once, not exponentially.
fn only_objects_along<'s>(
    schema: &'s Value,
    root: &'s Value,
    allow_null: bool,
    refs: &mut Vec<&'s str>,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        if refs.contains(&reference) {
            return false;
        }
        let Some(target) = ref_target(root, reference) else {
            return false;
        };
        refs.push(reference);
        let answer = only_objects_along(target, root, allow_null, refs, depth + 1);
        refs.pop();
        return answer;
    }
    let kind_ok = |t: &Value| t == "object" || (allow_null && t == "null");
    match schema.get("type") {
        Some(Value::String(t)) => return t == "object",
        Some(Value::Array(types)) => {
            return types.iter().any(|t| t == "object") && types.iter().all(kind_ok);
        }
        _ => {}
    }
    ["anyOf", "oneOf"].iter().any(|key| {
        let Some(branches) = schema.get(*key).and_then(Value::as_array) else {
            return false;
        };
        let mut any_object = false;
        for branch in branches {
            if allow_null && branch.get("type") == Some(&Value::String("null".into())) {
                continue;
            }
            if !only_objects_along(branch, root, allow_null, refs, depth + 1) {
                return false;
            }
            any_object = true;
        }
        any_object
    })
}

/// What kind of JSON value `value` is, for a message.
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
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
                "path": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}},
                "range": {"anyOf": [{"$ref": "#/$defs/Range"}, {"type": "null"}]},
                "either": {"anyOf": [{"$ref": "#/$defs/Range"}, {"type": "string"}]},
                "free": {}
            },
            "$defs": {
                "Edit": {"type": "object", "properties": {"old": {"type": "string"}, "at": {"$ref": "#/$defs/Range"}}},
                "Range": {"type": "object", "properties": {"start": {"type": "integer"}}}
            }
        })
    }

    fn mismatch(args: Value) -> Option<(String, &'static str)> {
        first_mismatch(&args, &schema()).map(|m| (m.path, m.found))
    }

    #[test]
    fn the_sequence_form_of_a_struct_is_found_at_any_depth() {
        assert_eq!(mismatch(json!(["a"])), Some((String::new(), "an array")));
        assert_eq!(mismatch(json!(null)), Some((String::new(), "null")));
        assert_eq!(
            mismatch(json!({"edits": [{"old": "a"}, ["b"]]})),
            Some(("edits[1]".into(), "an array"))
        );
        assert_eq!(
            mismatch(json!({"edits": [{"old": "a", "at": [3]}]})),
            Some(("edits[0].at".into(), "an array"))
        );
        assert_eq!(
            mismatch(json!({"range": [1]})),
            Some(("range".into(), "an array"))
        );
        assert_eq!(
            mismatch(json!({"range": "1"})),
            Some(("range".into(), "a string"))
        );
    }

    #[test]
    fn what_the_schema_allows_passes() {
        for args in [
            json!({}),
            json!({"path": "a", "tags": ["x"], "edits": [{"old": "a", "at": {"start": 1}}]}),
            json!({"range": null, "edits": [{"at": null}]}),
            json!({"either": "text"}),
            json!({"either": {"start": 1}}),
            json!({"free": [1, 2]}),
            json!({"unknown": [1]}),
        ] {
            assert_eq!(mismatch(args.clone()), None, "{args}");
        }
        // A schema that does not say "object" constrains nothing here.
        assert_eq!(
            first_mismatch(&json!("ls"), &json!({"type": "string"})),
            None
        );
        assert_eq!(first_mismatch(&json!(["ls"]), &json!({})), None);
    }

    #[test]
    fn unions_of_objects_count_as_objects() {
        let schema = json!({"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}}},
            {"$ref": "#/$defs/B"}
        ], "$defs": {"B": {"type": "object"}}});
        assert_eq!(
            first_mismatch(&json!(["a"]), &schema).map(|m| m.found),
            Some("an array")
        );
        assert_eq!(first_mismatch(&json!({"kind": "a"}), &schema), None);
    }

    #[test]
    fn recursive_schemas_and_deep_values_terminate() {
        let schema = json!({
            "$ref": "#/$defs/Node",
            "$defs": {
                "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
                "Loop": {"$ref": "#/$defs/Loop"}
            }
        });
        let mut deep = json!({});
        for _ in 0..100 {
            deep = json!({ "next": deep });
        }
        assert_eq!(first_mismatch(&deep, &schema), None);
        let looping = json!({"$ref": "#/$defs/Loop", "$defs": {"Loop": {"$ref": "#/$defs/Loop"}}});
        assert_eq!(first_mismatch(&json!([1]), &looping), None);
    }

    #[test]
    fn recursive_unions_are_unfolded_once() {
        // Three branches deep 64 times would be 3^64 visits.
        let schema = json!({
            "type": "object",
            "properties": {"expr": {"$ref": "#/$defs/Expr"}},
            "$defs": {"Expr": {"anyOf": [
                {"$ref": "#/$defs/Expr"}, {"$ref": "#/$defs/Expr"}, {"$ref": "#/$defs/Expr"},
                {"type": "object"}
            ]}}
        });
        let args = json!({"expr": [1]});
        assert_eq!(first_mismatch(&args, &schema), None);
    }
}
