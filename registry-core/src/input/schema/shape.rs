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

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::{MAX_WALK_DEPTH as MAX_DEPTH, follow_ref, ref_target};

/// The most union branches one value is checked against; past it the
/// remaining branches are not looked at (they can only make the check
/// accept more, never refuse more).
const MAX_BRANCHES: usize = 256;

/// A value of the wrong JSON kind where the schema wants an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// Where it is: empty for the arguments themselves, else in
    /// `serde_path_to_error`'s notation (`edits[0]`, `range.start`).
    pub(crate) path: String,
    /// What it is instead (`an array`), or [`TOO_DEEP`].
    pub(crate) found: &'static str,
}

/// What [`Mismatch::found`] says of arguments nested deeper than the walk
/// follows: refused, since what lies below could not be checked.
pub(crate) const TOO_DEEP: &str = "a value nested more than 64 levels deep";

/// The first place (in key order) where `args` holds something other than
/// an object while `schema` admits only objects there. At the top level
/// `null` counts as wrong too; below it, `null` is left to serde and to
/// the null handling of [`nulls`](crate::input::nulls).
pub(crate) fn first_mismatch(args: &Value, schema: &Value) -> Option<Mismatch> {
    let mut walk = Walk {
        root: schema,
        known: BTreeMap::new(),
        in_progress: Vec::new(),
    };
    if !args.is_object() && walk.only_objects(schema, false) {
        return Some(Mismatch {
            path: String::new(),
            found: json_kind(args),
        });
    }
    let mut path = String::new();
    walk.value(args, schema, &mut path, 0)
        .map(|found| Mismatch { path, found })
}

/// Whether every value `schema` admits is an object or `null`: the
/// question the walk asks of each property and item schema before it
/// refuses a non-object there. `root` resolves local references.
pub(crate) fn only_objects_or_null(schema: &Value, root: &Value) -> bool {
    Walk {
        root,
        known: BTreeMap::new(),
        in_progress: Vec::new(),
    }
    .only_objects(schema, true)
}

/// One check of one argument value against one schema. Answers about a
/// `$ref` are remembered, so a schema whose definitions share references
/// (`A = anyOf[B, B]`, `B = anyOf[C, C]`, ...) is read once per definition,
/// not once per path through it.
struct Walk<'s> {
    root: &'s Value,
    known: BTreeMap<(&'s str, bool), bool>,
    in_progress: Vec<(&'s str, bool)>,
}

impl<'s> Walk<'s> {
    /// Walks `value` along `schema`: the kind of the first child that must
    /// be an object and is not, with `path` pointing at it.
    fn value(
        &mut self,
        value: &Value,
        schema: &'s Value,
        path: &mut String,
        depth: usize,
    ) -> Option<&'static str> {
        if !(value.is_object() || value.is_array()) {
            return None;
        }
        if depth > MAX_DEPTH {
            return Some(TOO_DEEP);
        }
        // Most schemas are no union: at most one branch, and no work list
        // to allocate for it.
        if let Some(single) = self.single_branch(value, schema) {
            return self.children(value, single?, path, depth);
        }
        let branches = self.branches_for(value, schema);
        let mut first = None;
        for branch in &branches {
            // Refuse only what every branch that could take the value refuses.
            let before = path.len();
            match self.children(value, branch, path, depth) {
                None => {
                    path.truncate(before);
                    return None;
                }
                Some(found) if first.is_none() => first = Some((found, path.clone())),
                Some(_) => {}
            }
            path.truncate(before);
        }
        let (found, at) = first?;
        *path = at;
        Some(found)
    }

    /// The schemas `value` may be parsed with: `schema` after its `$ref`s,
    /// or, for a union (nested unions flattened, each schema once), the
    /// branches that admit a value of its kind (an object must hold every
    /// property a branch requires).
    fn branches_for(&mut self, value: &Value, schema: &'s Value) -> Vec<&'s Value> {
        let mut out = Vec::new();
        let mut seen: Vec<*const Value> = Vec::new();
        let mut pending = vec![schema];
        while let Some(next) = pending.pop() {
            let Some(next) = follow_ref(next, self.root, &mut Vec::new()) else {
                continue;
            };
            if seen.contains(&std::ptr::from_ref(next)) || seen.len() > MAX_BRANCHES {
                continue;
            }
            seen.push(std::ptr::from_ref(next));
            if let Some(branches) = ["anyOf", "oneOf"]
                .iter()
                .find_map(|key| next.get(*key).and_then(Value::as_array))
            {
                pending.extend(branches.iter().rev());
                continue;
            }
            if fits(value, next) {
                out.push(next);
            }
        }
        out
    }

    /// [`branches_for`](Self::branches_for) when `schema` (after its
    /// `$ref`s) is not a union: `Some` of its one branch, or of `None` when
    /// the value does not fit it (or the reference does not resolve).
    /// `None` for a union.
    fn single_branch(&self, value: &Value, schema: &'s Value) -> Option<Option<&'s Value>> {
        let Some(next) = follow_ref(schema, self.root, &mut Vec::new()) else {
            return Some(None);
        };
        if ["anyOf", "oneOf"]
            .iter()
            .any(|key| next.get(*key).is_some_and(Value::is_array))
        {
            return None;
        }
        Some(fits(value, next).then_some(next))
    }

    /// The children of `value` checked against `schema`'s `properties` or
    /// `items`.
    fn children(
        &mut self,
        value: &Value,
        schema: &'s Value,
        path: &mut String,
        depth: usize,
    ) -> Option<&'static str> {
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
                    if let Some(found) = self.child(child, child_schema, path, depth) {
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
                    let _ = write!(path, "[{index}]");
                    if let Some(found) = self.child(item, item_schema, path, depth) {
                        return Some(found);
                    }
                    path.truncate(before);
                }
                None
            }
            _ => None,
        }
    }

    fn child(
        &mut self,
        child: &Value,
        schema: &'s Value,
        path: &mut String,
        depth: usize,
    ) -> Option<&'static str> {
        if !child.is_object() && !child.is_null() && self.only_objects(schema, true) {
            Some(json_kind(child))
        } else {
            self.value(child, schema, path, depth + 1)
        }
    }

    /// Whether every value `schema` admits is an object (or `null`, when
    /// `allow_null`), by its `type` or the branches of its union. A schema
    /// that says nothing about the type admits anything: `false`. A
    /// reference met again on its own chain adds nothing (`false`, which
    /// refuses nothing).
    fn only_objects(&mut self, schema: &'s Value, allow_null: bool) -> bool {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let key = (reference, allow_null);
            if let Some(&answer) = self.known.get(&key) {
                return answer;
            }
            if self.in_progress.contains(&key) || self.in_progress.len() > MAX_DEPTH {
                return false;
            }
            let Some(target) = ref_target(self.root, reference) else {
                return false;
            };
            self.in_progress.push(key);
            let answer = self.only_objects(target, allow_null);
            self.in_progress.pop();
            self.known.insert(key, answer);
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
                if !self.only_objects(branch, allow_null) {
                    return false;
                }
                any_object = true;
            }
            any_object
        })
    }
}

/// Whether `value` can be parsed with the (non-union) `schema`: its kind
/// is one `type` admits, and an object holds every required property.
fn fits(value: &Value, schema: &Value) -> bool {
    let kind_fits = match (value, schema.get("type")) {
        (_, None) => true,
        (Value::Object(_), Some(t)) => admits_type(t, "object"),
        (Value::Array(_), Some(t)) => admits_type(t, "array"),
        _ => false,
    };
    let required_present = match (value, schema.get("required")) {
        (Value::Object(map), Some(Value::Array(required))) => required
            .iter()
            .all(|key| key.as_str().is_some_and(|key| map.contains_key(key))),
        _ => true,
    };
    kind_fits && required_present
}

/// Whether a `type` keyword (a name or a list of names) admits `kind`.
fn admits_type(types: &Value, kind: &str) -> bool {
    match types {
        Value::String(t) => t == kind,
        Value::Array(list) => list.iter().any(|t| t == kind),
        _ => true,
    }
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
        for _ in 0..60 {
            deep = json!({ "next": deep });
        }
        assert_eq!(first_mismatch(&deep, &schema), None);
        // Past the depth the walk follows, what lies below is unchecked:
        // refused, not waved through.
        for _ in 0..40 {
            deep = json!({ "next": deep });
        }
        assert_eq!(
            first_mismatch(&deep, &schema).map(|m| m.found),
            Some(TOO_DEEP)
        );
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

    #[test]
    fn shared_references_are_read_once_not_once_per_path() {
        // A_i = anyOf[A_i+1, A_i+1]: 2^40 paths through 40 definitions.
        let mut defs = serde_json::Map::new();
        for i in 0..40 {
            let next = json!({ "$ref": format!("#/$defs/A{}", i + 1) });
            defs.insert(format!("A{i}"), json!({ "anyOf": [next.clone(), next] }));
        }
        defs.insert("A40".into(), json!({ "type": "object" }));
        let schema = json!({
            "type": "object",
            "properties": { "x": { "$ref": "#/$defs/A0" } },
            "$defs": defs,
        });
        assert_eq!(
            first_mismatch(&json!({ "x": 1 }), &schema).map(|m| (m.path, m.found)),
            Some(("x".to_owned(), "a number"))
        );
        assert_eq!(first_mismatch(&json!({ "x": {} }), &schema), None);
    }

    #[test]
    fn a_struct_variant_among_unit_variants_is_still_checked() {
        // serde's externally tagged `enum Mode { Fast, Custom(Options) }`.
        let schema = json!({
            "type": "object",
            "properties": { "mode": { "$ref": "#/$defs/Mode" } },
            "$defs": {
                "Mode": { "oneOf": [
                    { "type": "string", "enum": ["Fast"] },
                    { "type": "object", "required": ["Custom"], "additionalProperties": false,
                      "properties": { "Custom": { "$ref": "#/$defs/Options" } } }
                ] },
                "Options": { "type": "object", "properties": { "level": { "type": "integer" } } }
            }
        });
        assert_eq!(
            first_mismatch(&json!({ "mode": { "Custom": [3] } }), &schema).map(|m| m.path),
            Some("mode.Custom".to_owned())
        );
        for fine in [
            json!({ "mode": "Fast" }),
            json!({ "mode": { "Custom": { "level": 3 } } }),
        ] {
            assert_eq!(first_mismatch(&fine, &schema), None, "{fine}");
        }
    }

    #[test]
    fn a_value_two_branches_could_take_is_refused_only_if_both_refuse() {
        let schema = json!({ "anyOf": [
            { "type": "object", "properties": { "a": { "type": "object" } } },
            { "type": "object", "properties": { "a": { "type": "array" } } }
        ] });
        assert_eq!(first_mismatch(&json!({ "a": [1] }), &schema), None);
        assert_eq!(
            first_mismatch(&json!({ "a": 1 }), &schema).map(|m| m.path),
            None,
            "the second branch does not promise an object"
        );
    }
}
