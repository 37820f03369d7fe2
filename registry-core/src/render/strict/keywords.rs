//! What OpenAI's strict subset does with each keyword: kept, rewritten,
//! dropped or refused, and the small readers of `type` and `enum` the
//! transform needs.

use serde_json::{Map, Value};

use super::{Result, StrictSchemaError};

/// Numeric constraints OpenAI documents as supported in strict mode; kept
/// on `integer` / `number` schemas, dropped elsewhere.
pub(super) const NUMERIC_KEPT: &[&str] = &[
    "exclusiveMaximum",
    "exclusiveMinimum",
    "maximum",
    "minimum",
    "multipleOf",
];
/// Array constraints OpenAI documents as supported; kept on `array`
/// schemas, dropped elsewhere.
pub(super) const ARRAY_KEPT: &[&str] = &["maxItems", "minItems"];
/// String formats OpenAI documents as supported; any other `format`
/// (schemars' `uint32`, `double`, `int64`, ...) is dropped.
pub(super) const FORMATS_KEPT: &[&str] = &[
    "date",
    "date-time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "time",
    "uuid",
];
/// Keywords dropped without replacement: annotations, and validation the
/// strict subset does not document (or, for `pattern`, whose regular
/// expression dialect may differ). Dropping one only widens what the
/// schema admits; the tool's own parsing and `validate_input` still run.
pub(super) const STRIPPED: &[&str] = &[
    "$comment",
    "$schema",
    "contentEncoding",
    "contentMediaType",
    "default",
    "deprecated",
    "examples",
    "maxLength",
    "maxProperties",
    "minLength",
    "minProperties",
    "pattern",
    "readOnly",
    "uniqueItems",
    "writeOnly",
];
/// The JSON types strict mode knows.
pub(super) const TYPES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// `type` as a list of names (`None` when absent).
pub(super) fn parse_types(value: Option<&Value>, path: &str) -> Result<Option<Vec<String>>> {
    let malformed = |reason: &str| StrictSchemaError::Malformed {
        path: path.into(),
        reason: reason.into(),
    };
    let names: Vec<String> = match value {
        None => return Ok(None),
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(types)) if !types.is_empty() => types
            .iter()
            .map(|t| {
                t.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| malformed("`type` holds a non-string"))
            })
            .collect::<Result<_>>()?,
        Some(_) => return Err(malformed("`type` is not a string or a non-empty array")),
    };
    if let Some(unknown) = names.iter().find(|t| !TYPES.contains(&t.as_str())) {
        return Err(malformed(&format!("unknown type `{unknown}`")));
    }
    let mut dedup = names.clone();
    dedup.sort();
    dedup.dedup();
    if dedup.len() != names.len() {
        return Err(malformed("`type` repeats a type"));
    }
    Ok(Some(names))
}

pub(super) fn types_value(types: &[String]) -> Value {
    match types {
        [one] => Value::String(one.clone()),
        many => Value::Array(many.iter().cloned().map(Value::String).collect()),
    }
}

/// The JSON type of an enum value, as strict mode names it.
pub(super) fn value_type(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "string",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The `type` of an `enum` written without one, when its values agree.
pub(super) fn infer_types(values: &[Value], path: &str) -> Result<Vec<String>> {
    let mut types: Vec<&str> = values.iter().map(value_type).collect();
    if types.contains(&"number") {
        types.iter_mut().for_each(|t| {
            if *t == "integer" {
                *t = "number";
            }
        });
    }
    types.sort_unstable();
    types.dedup();
    // `null` last, as in `["string", "null"]`.
    types.sort_by_key(|t| *t == "null");
    if types.iter().filter(|t| **t != "null").count() > 1 {
        return Err(StrictSchemaError::MultipleTypes { path: path.into() });
    }
    Ok(types.into_iter().map(str::to_owned).collect())
}

pub(super) fn check_enum_types(values: &[Value], types: &[String], path: &str) -> Result<()> {
    for value in values {
        let t = value_type(value);
        let fits = types
            .iter()
            .any(|declared| declared == t || (declared == "number" && t == "integer"));
        if !fits {
            return Err(StrictSchemaError::Malformed {
                path: path.into(),
                reason: format!("an `enum` value of type `{t}` outside the declared `type`"),
            });
        }
    }
    Ok(())
}

/// `anyOf` or `oneOf` (as `anyOf`), with its branches.
pub(super) fn union_branches<'a>(
    map: &'a Map<String, Value>,
    path: &str,
) -> Result<Option<(&'static str, &'a Vec<Value>)>> {
    let found = match (map.get("anyOf"), map.get("oneOf")) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(StrictSchemaError::Unsupported {
                path: path.into(),
                reason: "both `anyOf` and `oneOf`".into(),
            });
        }
        (Some(branches), None) => ("anyOf", branches),
        (None, Some(branches)) => ("oneOf", branches),
    };
    match found.1 {
        Value::Array(branches) if !branches.is_empty() => Ok(Some((found.0, branches))),
        _ => Err(StrictSchemaError::Malformed {
            path: path.into(),
            reason: format!("`{}` is not a non-empty array", found.0),
        }),
    }
}

/// Keywords the transform understands (keeps, rewrites or drops).
pub(super) const STRUCTURAL: &[&str] = &[
    "additionalProperties",
    "anyOf",
    "const",
    "description",
    "enum",
    "format",
    "items",
    "oneOf",
    "properties",
    "required",
    "title",
    "type",
];

pub(super) fn is_known_keyword(keyword: &str, at_root: bool) -> bool {
    STRUCTURAL.contains(&keyword)
        || NUMERIC_KEPT.contains(&keyword)
        || ARRAY_KEPT.contains(&keyword)
        || STRIPPED.contains(&keyword)
        || (at_root && keyword == "$defs")
}

/// Whether a type-less schema says anything beyond annotations.
pub(super) fn has_structure(map: &Map<String, Value>) -> bool {
    map.keys()
        .any(|k| !matches!(k.as_str(), "description" | "title") && !STRIPPED.contains(&k.as_str()))
}
