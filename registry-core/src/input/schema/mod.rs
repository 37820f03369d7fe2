//! The JSON Schema questions the runtime asks of a tool's input schema,
//! answered in one place: where a local `$ref` points, whether a schema
//! admits `null`, whether a schema is the object schema every provider
//! requires as a tool's input, and ([`shape`]) where arguments hold
//! something other than the object their schema promises.
//!
//! This module only reads schemas. Rewriting one (OpenAI's strict subset)
//! belongs to the strict renderer; dropping nulls from arguments belongs to
//! [`nulls`](crate::input::nulls). Both ask their questions here, so the two can
//! never disagree about what a schema means.

pub(crate) mod plan;
pub(crate) mod shape;

/// How deep the argument walks (the shape check in [`shape`], the null
/// handling in [`nulls`](crate::input::nulls)) follow arguments and `$ref`
/// chains: deep enough for any real input, and bounded so a recursive
/// schema applied to a deep value cannot exhaust the stack. One number, so
/// the walks and the plan that skips them agree.
pub(crate) const MAX_WALK_DEPTH: usize = 64;

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The schema a local reference (`#`, `#/$defs/Name`, any `#/json/pointer`)
/// points at inside `root`; `None` for a remote or dangling reference.
///
/// Resolved as [`Value::pointer`] does, without its allocation per token:
/// the walks in [`shape`] and [`nulls`](crate::input::nulls) resolve a reference
/// for every argument value they visit, and a token is only unescaped
/// when it holds a `~` (schemars' `#/$defs/Name` never does).
pub(crate) fn ref_target<'s>(root: &'s Value, reference: &str) -> Option<&'s Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    pointer
        .strip_prefix('/')?
        .split('/')
        .try_fold(root, |target, token| {
            let token: Cow<'_, str> = if token.contains('~') {
                Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
            } else {
                Cow::Borrowed(token)
            };
            match target {
                Value::Object(map) => map.get(token.as_ref()),
                Value::Array(list) => array_index(&token).and_then(|i| list.get(i)),
                _ => None,
            }
        })
}

/// A JSON Pointer array index: decimal, no sign, no leading zero.
fn array_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

/// Follows `schema`'s `$ref` (and a chain of bare references) to the schema
/// that says something. `seen` holds the references already followed for
/// the value at hand: a reference met again, or one that does not resolve,
/// gives `None`, so a recursive union (`anyOf: [{$ref: Expr}, ...]` inside
/// `Expr`) is visited once rather than forever. Schemas without `$ref` come
/// back as they are.
pub(crate) fn follow_ref<'s>(
    mut schema: &'s Value,
    root: &'s Value,
    seen: &mut Vec<&'s str>,
) -> Option<&'s Value> {
    while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        if seen.contains(&reference) {
            return None;
        }
        seen.push(reference);
        schema = ref_target(root, reference)?;
    }
    Some(schema)
}

/// Whether `null` is a valid instance of `schema`, resolving local
/// references against `root`.
///
/// Every assertion keyword must allow `null`: `type`, `enum`, `const`,
/// some branch of `anyOf` / `oneOf`, every branch of `allOf`, the target of
/// `$ref`, and `not` must exclude it. Keywords that only constrain other
/// types (`minimum`, `properties`, `format`, ...) and annotations say
/// nothing about `null`, so `true`, `{}` and `{"description": ...}` admit
/// it. A reference that does not resolve answers no; one that leads back
/// to itself contributes nothing on that path (the least fixed point: a
/// schema admits `null` only through a branch that ends).
pub(crate) fn admits_null(schema: &Value, root: &Value) -> bool {
    NullCheck::new(root).admits(schema)
}

/// [`admits_null`] for a schema held as its map.
pub(crate) fn object_admits_null(schema: &Map<String, Value>, root: &Value) -> bool {
    NullCheck::new(root).admits_map(schema)
}

/// One [`admits_null`] question: remembers each reference's answer, so a
/// schema that names one definition many times is still read once.
struct NullCheck<'s> {
    root: &'s Value,
    in_progress: Vec<&'s str>,
    known: BTreeMap<&'s str, bool>,
}

impl<'s> NullCheck<'s> {
    fn new(root: &'s Value) -> Self {
        NullCheck {
            root,
            in_progress: Vec::new(),
            known: BTreeMap::new(),
        }
    }

    fn admits(&mut self, schema: &'s Value) -> bool {
        match schema {
            Value::Bool(b) => *b,
            Value::Object(map) => self.admits_map(map),
            _ => false,
        }
    }

    fn admits_map(&mut self, map: &'s Map<String, Value>) -> bool {
        let by_type = match map.get("type") {
            None => true,
            Some(Value::String(t)) => t == "null",
            Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
            Some(_) => false,
        };
        let by_enum = map
            .get("enum")
            .is_none_or(|values| values.as_array().is_some_and(|v| v.contains(&Value::Null)));
        let by_const = map.get("const").is_none_or(Value::is_null);
        if !(by_type && by_enum && by_const) {
            return false;
        }
        let some_branch = |this: &mut Self, key: &str| match map.get(key) {
            None => true,
            Some(Value::Array(branches)) => branches.iter().any(|b| this.admits(b)),
            Some(_) => false,
        };
        if !some_branch(self, "anyOf") || !some_branch(self, "oneOf") {
            return false;
        }
        if let Some(all) = map.get("allOf") {
            let Some(branches) = all.as_array() else {
                return false;
            };
            if !branches.iter().all(|b| self.admits(b)) {
                return false;
            }
        }
        if map.get("not").is_some_and(|not| self.admits(not)) {
            return false;
        }
        match map.get("$ref") {
            None => true,
            Some(Value::String(reference)) => self.reference(reference),
            Some(_) => false,
        }
    }

    fn reference(&mut self, reference: &'s str) -> bool {
        if let Some(answer) = self.known.get(reference) {
            return *answer;
        }
        if self.in_progress.contains(&reference) {
            return false;
        }
        let Some(target) = ref_target(self.root, reference) else {
            return false;
        };
        self.in_progress.push(reference);
        let answer = self.admits(target);
        self.in_progress.pop();
        self.known.insert(reference, answer);
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn admits(schema: Value) -> bool {
        admits_null(&schema, &schema)
    }

    #[test]
    fn null_follows_every_assertion_keyword() {
        assert!(admits(json!(true)));
        assert!(!admits(json!(false)));
        assert!(admits(json!({})));
        assert!(admits(json!({ "description": "anything" })));
        assert!(admits(json!({ "type": "null" })));
        assert!(admits(json!({ "type": ["string", "null"] })));
        assert!(!admits(json!({ "type": "string" })));
        assert!(admits(json!({ "enum": ["a", null] })));
        assert!(!admits(json!({ "enum": ["a", "b"] })));
        assert!(admits(json!({ "const": null })));
        assert!(!admits(json!({ "const": "a" })));
        assert!(admits(
            json!({ "anyOf": [{ "type": "string" }, { "type": "null" }] })
        ));
        assert!(admits(
            json!({ "oneOf": [{ "type": "string" }, { "type": "null" }] })
        ));
        assert!(!admits(json!({ "anyOf": [{ "type": "string" }] })));
        assert!(!admits(
            json!({ "allOf": [{ "type": ["string", "null"] }, { "type": "string" }] })
        ));
        assert!(!admits(json!({ "not": { "type": "null" } })));
        assert!(admits(json!({ "not": { "type": "string" } })));
    }

    #[test]
    fn every_keyword_must_agree() {
        // A nullable type narrowed by an enum without null.
        assert!(!admits(
            json!({ "type": ["string", "null"], "enum": ["a"] })
        ));
        // A union next to a type that excludes null.
        assert!(!admits(
            json!({ "type": "string", "anyOf": [{ "type": "null" }] })
        ));
        assert!(admits(
            json!({ "type": ["string", "null"], "enum": ["a", null] })
        ));
    }

    #[test]
    fn references_are_followed_once_and_cycles_end() {
        let root = json!({
            "$defs": {
                "Maybe": { "type": ["integer", "null"] },
                "Alias": { "$ref": "#/$defs/Maybe" },
                "Expr": { "anyOf": [{ "$ref": "#/$defs/Expr" }, { "type": "integer" }] },
                "Loop": { "$ref": "#/$defs/Loop" }
            }
        });
        let check = |schema: Value| admits_null(&schema, &root);
        assert!(check(json!({ "$ref": "#/$defs/Maybe" })));
        assert!(check(json!({ "$ref": "#/$defs/Alias" })));
        assert!(!check(json!({ "$ref": "#/$defs/Expr" })));
        assert!(!check(json!({ "$ref": "#/$defs/Loop" })));
        assert!(!check(json!({ "$ref": "#/$defs/Missing" })));
        assert!(!check(json!({ "$ref": "https://example.invalid/schema" })));
        // The same definition reached on two paths gives one answer.
        assert!(check(json!({ "anyOf": [
            { "allOf": [{ "$ref": "#/$defs/Maybe" }, { "type": "string" }] },
            { "$ref": "#/$defs/Maybe" }
        ] })));
    }

    #[test]
    fn refs_resolve_as_json_pointers() {
        let root = json!({ "$defs": { "a/b": { "type": "string" }, "A": { "type": "integer" } } });
        assert_eq!(ref_target(&root, "#"), Some(&root));
        assert_eq!(
            ref_target(&root, "#/$defs/A"),
            Some(&json!({ "type": "integer" }))
        );
        assert_eq!(
            ref_target(&root, "#/$defs/a~1b"),
            Some(&json!({ "type": "string" }))
        );
        assert_eq!(ref_target(&root, "#/$defs/B"), None);
        assert_eq!(ref_target(&root, "other.json#/A"), None);
    }

    #[test]
    fn refs_resolve_exactly_as_serde_json_pointers_do() {
        let root = json!({
            "$defs": { "a/b": 1, "m~n": 2, "": 3, "A": { "x": [10, 11, { "y": 12 }] } },
            "list": [0, 1, 2]
        });
        for pointer in [
            "",
            "/",
            "/$defs",
            "/$defs/A",
            "/$defs/A/x/2/y",
            "/$defs/a~1b",
            "/$defs/m~0n",
            "/$defs/m~01",
            "/$defs/",
            "/list/0",
            "/list/2",
            "/list/3",
            "/list/01",
            "/list/+1",
            "/list/-1",
            "/list/x",
            "/$defs/A/x/1/z",
            "nope",
            "/missing",
            "//",
        ] {
            assert_eq!(
                ref_target(&root, &format!("#{pointer}")),
                root.pointer(pointer),
                "{pointer:?}"
            );
        }
    }

    #[test]
    fn follow_ref_walks_chains_and_stops_at_a_repeat() {
        let root = json!({ "$defs": {
            "A": { "$ref": "#/$defs/B" },
            "B": { "type": "integer" },
            "Self": { "$ref": "#/$defs/Self" }
        } });
        let mut seen = Vec::new();
        let start = json!({ "$ref": "#/$defs/A" });
        assert_eq!(
            follow_ref(&start, &root, &mut seen),
            Some(&json!({ "type": "integer" }))
        );
        assert_eq!(seen, ["#/$defs/A", "#/$defs/B"]);
        assert_eq!(
            follow_ref(&start, &root, &mut seen),
            None,
            "already followed"
        );
        let plain = json!({ "type": "string" });
        assert_eq!(follow_ref(&plain, &root, &mut Vec::new()), Some(&plain));
        let cycle = json!({ "$ref": "#/$defs/Self" });
        assert_eq!(follow_ref(&cycle, &root, &mut Vec::new()), None);
    }
}
