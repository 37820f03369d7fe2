//! The strict transform, on hand-written and schemars-generated schemas.

use super::keywords::{ARRAY_KEPT, NUMERIC_KEPT};
use super::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::collections::BTreeMap;

/// Asserts the strict-mode invariants on a transformed schema, at
/// every depth: closed objects, everything required, known keywords.
fn assert_compliant(schema: &Value) {
    fn walk(value: &Value, path: &str) {
        let Value::Object(map) = value else {
            panic!("non-object schema at {path}: {value}");
        };
        for key in map.keys() {
            let known = [
                "$defs",
                "$ref",
                "additionalProperties",
                "anyOf",
                "description",
                "enum",
                "format",
                "items",
                "properties",
                "required",
                "title",
                "type",
            ]
            .contains(&key.as_str())
                || NUMERIC_KEPT.contains(&key.as_str())
                || ARRAY_KEPT.contains(&key.as_str());
            assert!(known, "keyword `{key}` at {path}");
        }
        if map.contains_key("$ref") {
            assert_eq!(map.len(), 1, "$ref with siblings at {path}");
        }
        let is_object = match map.get("type") {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
            _ => false,
        };
        if is_object {
            assert_eq!(map["additionalProperties"], json!(false), "at {path}");
            let properties = map["properties"].as_object().unwrap();
            let mut names: Vec<&String> = properties.keys().collect();
            names.sort();
            let required: Vec<&str> = map["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert_eq!(
                names.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
                required,
                "at {path}"
            );
            for (name, property) in properties {
                walk(property, &format!("{path}/properties/{name}"));
            }
        }
        if let Some(items) = map.get("items") {
            walk(items, &format!("{path}/items"));
        }
        if let Some(Value::Array(branches)) = map.get("anyOf") {
            for (i, branch) in branches.iter().enumerate() {
                walk(branch, &format!("{path}/anyOf/{i}"));
            }
        }
        if let Some(Value::Object(defs)) = map.get("$defs") {
            for (name, def) in defs {
                walk(def, &format!("{path}/$defs/{name}"));
            }
        }
    }
    walk(schema, "#");
}

fn strict(schema: Value) -> Value {
    let out = openai_strict_schema(&schema).unwrap_or_else(|err| panic!("{err}"));
    assert_compliant(&out);
    out
}

fn schema_of<T: JsonSchema>() -> Value {
    let mut schema = schemars::schema_for!(T).to_value();
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
        map.remove("title");
    }
    schema
}

#[test]
fn optional_fields_become_required_and_nullable() {
    let out = strict(json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "minLength": 1, "pattern": "^a" },
            "count": { "type": "integer", "format": "uint32", "minimum": 0, "default": 3 },
            "tags": { "type": ["array", "null"], "items": { "type": "string" } },
            "when": { "type": "string", "format": "date-time" }
        },
        "required": ["name"]
    }));
    assert_eq!(
        out,
        json!({
            "type": "object",
            "properties": {
                "name": { "type": "string" },
                "count": { "type": ["integer", "null"], "minimum": 0 },
                "tags": { "type": ["array", "null"], "items": { "type": "string" } },
                "when": { "type": ["string", "null"], "format": "date-time" }
            },
            "required": ["count", "name", "tags", "when"],
            "additionalProperties": false
        })
    );
}

#[test]
fn nested_objects_and_arrays_of_objects_are_closed() {
    let out = strict(json!({
        "type": "object",
        "properties": {
            "outer": {
                "type": "object",
                "description": "Outer.",
                "properties": { "inner": { "type": "object", "properties": { "x": { "type": "number" } } } },
                "required": ["inner"]
            },
            "list": {
                "type": "array",
                "minItems": 1,
                "items": { "type": "object", "properties": { "a": { "type": "boolean" } }, "required": ["a"] }
            }
        },
        "required": ["outer", "list"]
    }));
    assert_eq!(
        out["properties"]["outer"]["properties"]["inner"],
        json!({
            "type": "object",
            "properties": { "x": { "type": ["number", "null"] } },
            "required": ["x"],
            "additionalProperties": false
        })
    );
    assert_eq!(out["properties"]["list"]["minItems"], json!(1));
    assert_eq!(
        out["properties"]["list"]["items"]["additionalProperties"],
        json!(false)
    );
}

#[test]
fn optional_enums_and_refs_become_null_unions() {
    let out = strict(json!({
        "type": "object",
        "properties": {
            "mode": { "type": "string", "enum": ["a", "b"], "description": "Mode." },
            "kind": { "const": "k" },
            "node": { "$ref": "#/$defs/Node" }
        },
        "$defs": {
            "Node": { "type": "object", "properties": { "next": { "$ref": "#/$defs/Node" } } }
        }
    }));
    assert_eq!(
        out["properties"]["mode"],
        json!({
            "description": "Mode.",
            "anyOf": [{ "type": "string", "enum": ["a", "b"] }, { "type": "null" }]
        })
    );
    assert_eq!(
        out["properties"]["kind"],
        json!({ "anyOf": [{ "type": "string", "enum": ["k"] }, { "type": "null" }] })
    );
    assert_eq!(
        out["properties"]["node"],
        json!({ "anyOf": [{ "$ref": "#/$defs/Node" }, { "type": "null" }] })
    );
    // A reference to a definition that already admits null is left as
    // it is: the schema module follows it.
    let maybe = strict(json!({
        "type": "object",
        "properties": { "n": { "$ref": "#/$defs/Maybe" } },
        "$defs": { "Maybe": { "type": ["integer", "null"] } }
    }));
    assert_eq!(maybe["properties"]["n"], json!({ "$ref": "#/$defs/Maybe" }));
    // Recursion through $defs stays a reference.
    assert_eq!(
        out["$defs"]["Node"]["properties"]["next"],
        json!({ "anyOf": [{ "$ref": "#/$defs/Node" }, { "type": "null" }] })
    );
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
enum Mode {
    /// Quickly.
    Fast,
    /// Carefully.
    Slow,
}

/// A range.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Range {
    start: u32,
    end: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Action {
    Move { to: String },
    Stop,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Input {
    /// The mode.
    mode: Mode,
    maybe: Option<Mode>,
    range: Range,
    ranges: Vec<Range>,
    action: Action,
    #[serde(default)]
    flag: bool,
}

#[test]
fn schemars_output_with_defs_one_of_and_const_is_made_strict() {
    let out = strict(schema_of::<Input>());
    // A documented `$ref` is inlined (OpenAI takes no siblings next to
    // `$ref`); `oneOf` of `const`s becomes `anyOf` of one-value enums.
    assert_eq!(
        out["properties"]["mode"],
        json!({
            "description": "The mode.",
            "anyOf": [
                { "type": "string", "enum": ["fast"], "description": "Quickly." },
                { "type": "string", "enum": ["slow"], "description": "Carefully." }
            ]
        })
    );
    assert_eq!(
        out["properties"]["maybe"]["anyOf"][1],
        json!({ "type": "null" })
    );
    assert_eq!(
        out["properties"]["flag"],
        json!({ "type": ["boolean", "null"] })
    );
    assert_eq!(
        out["$defs"]["Action"]["anyOf"][0]["additionalProperties"],
        json!(false)
    );
    assert_eq!(
        out["$defs"]["Range"]["properties"]["end"],
        json!({ "type": ["integer", "null"], "minimum": 0 })
    );
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WithMap {
    env: BTreeMap<String, String>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WithTuple {
    pair: (u8, String),
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WithValue {
    anything: Value,
}

#[test]
fn what_cannot_comply_is_an_error_naming_the_place() {
    let err = |schema: Value| openai_strict_schema(&schema).unwrap_err();
    assert_eq!(
        err(schema_of::<WithMap>()),
        StrictSchemaError::OpenObject {
            path: "#/properties/env".into()
        }
    );
    assert_eq!(
        err(schema_of::<WithTuple>()),
        StrictSchemaError::UnsupportedKeyword {
            path: "#/properties/pair".into(),
            keyword: "prefixItems".into()
        }
    );
    assert_eq!(
        err(schema_of::<WithValue>()),
        StrictSchemaError::Unconstrained {
            path: "#/properties/anything".into()
        }
    );
    assert_eq!(
        err(json!({ "type": "object" })),
        StrictSchemaError::OpenObject { path: "#".into() }
    );
    assert_eq!(
        err(json!({ "type": "string" })),
        StrictSchemaError::RootNotObject
    );
    assert_eq!(
        err(json!({ "anyOf": [{ "type": "object", "properties": {} }] })),
        StrictSchemaError::RootNotObject
    );
    assert!(matches!(
        err(json!({ "type": "object", "properties": { "a": { "allOf": [] } } })),
        StrictSchemaError::UnsupportedKeyword { keyword, .. } if keyword == "allOf"
    ));
    assert!(matches!(
        err(json!({ "type": "object", "properties": { "a": { "type": ["string", "integer"] } } })),
        StrictSchemaError::MultipleTypes { .. }
    ));
    assert!(matches!(
        err(json!({ "type": "object", "properties": { "a": { "type": "array" } } })),
        StrictSchemaError::ArrayWithoutItems { .. }
    ));
    assert!(matches!(
        err(json!({ "type": "object", "properties": { "a": { "$ref": "#/definitions/A" } } })),
        StrictSchemaError::UnsupportedRef { .. }
    ));
    assert!(matches!(
        err(json!({ "type": "object", "properties": { "a": { "$ref": "#/$defs/Missing" } } })),
        StrictSchemaError::UnsupportedRef { .. }
    ));
    assert!(matches!(
        err(json!({ "type": "object", "properties": { "a": { "type": "string", "x-custom": 1 } } })),
        StrictSchemaError::UnsupportedKeyword { keyword, .. } if keyword == "x-custom"
    ));
    assert!(matches!(
        err(json!({ "type": "object", "properties": {}, "required": ["ghost"] })),
        StrictSchemaError::Malformed { .. }
    ));
}

#[test]
fn a_ref_with_siblings_that_cycles_is_refused() {
    let schema = json!({
        "type": "object",
        "properties": { "a": { "$ref": "#/$defs/A", "description": "a" } },
        "required": ["a"],
        "$defs": {
            "A": { "type": "object", "properties": { "b": { "$ref": "#/$defs/A", "description": "again" } } }
        }
    });
    assert!(matches!(
        openai_strict_schema(&schema),
        Err(StrictSchemaError::RefCycle { .. })
    ));
    // The same recursion without siblings is fine.
    strict(json!({
        "type": "object",
        "properties": { "a": { "$ref": "#/$defs/A" }, "root": { "$ref": "#" } },
        "$defs": { "A": { "type": "object", "properties": { "b": { "$ref": "#/$defs/A" } } } }
    }));
}

#[test]
fn limits_are_enforced() {
    let mut schema = json!({ "type": "string" });
    for _ in 0..MAX_OBJECT_DEPTH {
        schema = json!({ "type": "object", "properties": { "x": schema }, "required": ["x"] });
    }
    strict(schema.clone());
    let deeper = json!({ "type": "object", "properties": { "x": schema }, "required": ["x"] });
    assert!(matches!(
        openai_strict_schema(&deeper),
        Err(StrictSchemaError::LimitExceeded {
            limit: MAX_OBJECT_DEPTH,
            ..
        })
    ));

    let values: Vec<String> = (0..=MAX_ENUM_VALUES).map(|i| format!("v{i}")).collect();
    let many = json!({ "type": "object", "properties": { "e": { "type": "string", "enum": values } }, "required": ["e"] });
    assert!(matches!(
        openai_strict_schema(&many),
        Err(StrictSchemaError::LimitExceeded {
            limit: MAX_ENUM_VALUES,
            ..
        })
    ));
}

#[test]
fn the_input_is_not_modified_and_the_output_is_deterministic() {
    let schema = schema_of::<Input>();
    let copy = schema.clone();
    let a = crate::text::to_canonical_string(&strict(schema.clone()));
    let b = crate::text::to_canonical_string(&strict(schema.clone()));
    assert_eq!(a, b);
    assert_eq!(schema, copy);
}

#[test]
fn an_optional_field_becomes_nullable_and_a_map_is_refused() {
    let strict = openai_strict_schema(&json!({
        "type": "object",
        "properties": {
            "path": { "type": "string" },
            "limit": { "type": "integer", "format": "uint64", "minimum": 0 }
        },
        "required": ["path"]
    }))
    .unwrap();
    assert_eq!(
        strict,
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "limit": { "type": ["integer", "null"], "minimum": 0 }
            },
            "required": ["limit", "path"],
            "additionalProperties": false
        })
    );

    // A map cannot be closed without changing its meaning.
    let map = json!({
        "type": "object",
        "properties": { "env": { "type": "object", "additionalProperties": { "type": "string" } } }
    });
    assert!(openai_strict_schema(&map).is_err());
}
