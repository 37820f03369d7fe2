//! The automatic transformation of an input schema into OpenAI's strict
//! subset, or a typed reason why it cannot be done.
//!
//! See the [render module docs](super) for the rules; the short form:
//!
//! - every object gets `additionalProperties: false` and lists every
//!   property in `required` (byte order); a property that was optional
//!   becomes nullable (`"type": [T, "null"]`, or an `anyOf` with
//!   `{"type": "null"}`);
//! - `oneOf` becomes `anyOf`, `const` becomes a one-value `enum`, a `$ref`
//!   with sibling keywords is replaced by its (merged) definition;
//! - documented-supported constraints are kept, validation-only keywords
//!   OpenAI does not document are dropped, anything else is an error.

use serde_json::{Map, Value, json};

use crate::schema;

/// Object nesting OpenAI accepts (counted on the schema as written, root
/// object = 1; references are not followed).
const MAX_OBJECT_DEPTH: usize = 10;
/// Object properties, summed over the whole schema.
const MAX_PROPERTIES: usize = 5_000;
/// `enum` values, summed over the whole schema.
const MAX_ENUM_VALUES: usize = 1_000;
/// Property names, definition names and string enum values, summed.
const MAX_STRING_LEN: usize = 120_000;
/// Guard against pathological nesting (stack depth), any keyword.
const MAX_SCHEMA_DEPTH: usize = 64;
/// How many `$ref`-with-siblings hops one inlining may follow.
const MAX_REF_CHAIN: usize = 32;

/// Numeric constraints OpenAI documents as supported in strict mode; kept
/// on `integer` / `number` schemas, dropped elsewhere.
const NUMERIC_KEPT: &[&str] = &[
    "exclusiveMaximum",
    "exclusiveMinimum",
    "maximum",
    "minimum",
    "multipleOf",
];
/// Array constraints OpenAI documents as supported; kept on `array`
/// schemas, dropped elsewhere.
const ARRAY_KEPT: &[&str] = &["maxItems", "minItems"];
/// String formats OpenAI documents as supported; any other `format`
/// (schemars' `uint32`, `double`, `int64`, ...) is dropped.
const FORMATS_KEPT: &[&str] = &[
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
const STRIPPED: &[&str] = &[
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
const TYPES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// Why a schema cannot be sent to OpenAI with `strict: true`. The renderers
/// then send the original schema with `strict: false`.
///
/// Every `path` is a JSON Pointer into the schema as a URI fragment
/// (`#` is the root, `#/properties/path` a property).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StrictSchemaError {
    /// Strict mode needs a root `{"type": "object", ...}` (not a union, not
    /// nullable, not a reference).
    #[error("the root of the schema is not a plain object schema")]
    RootNotObject,
    /// A keyword outside the strict subset that cannot be dropped safely
    /// (`allOf`, `not`, `if`, `prefixItems`, `patternProperties`, ...).
    #[error("unsupported keyword `{keyword}` at `{path}`")]
    UnsupportedKeyword {
        /// Where.
        path: String,
        /// The keyword.
        keyword: String,
    },
    /// An object that admits keys it does not list (a map, or a free-form
    /// object): `additionalProperties: false` would change its meaning.
    #[error("open object at `{path}`: it admits properties it does not list")]
    OpenObject {
        /// Where.
        path: String,
    },
    /// A schema that admits any value (`true`, `{}`, or only annotations).
    #[error("unconstrained schema at `{path}`: strict mode needs a type")]
    Unconstrained {
        /// Where.
        path: String,
    },
    /// An array whose items are not described by one schema.
    #[error("array without an `items` schema at `{path}`")]
    ArrayWithoutItems {
        /// Where.
        path: String,
    },
    /// More than one non-null type (`"type": ["string", "integer"]`).
    #[error("more than one non-null type at `{path}`")]
    MultipleTypes {
        /// Where.
        path: String,
    },
    /// A reference other than `#` or `#/$defs/<name>` (with `<name>`
    /// defined), or one that cannot be inlined.
    #[error("unsupported reference `{reference}` at `{path}`")]
    UnsupportedRef {
        /// Where.
        path: String,
        /// The reference.
        reference: String,
    },
    /// Inlining a `$ref` that carries sibling keywords led back to itself.
    #[error("reference cycle through `{reference}` at `{path}`")]
    RefCycle {
        /// Where.
        path: String,
        /// The reference that closed the cycle.
        reference: String,
    },
    /// Valid JSON Schema, but a shape strict mode does not take (a union
    /// next to `type`, an `enum` value that is an object, ...).
    #[error("unsupported schema at `{path}`: {reason}")]
    Unsupported {
        /// Where.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// Not a valid schema (`type` not a string, `required` not a list of
    /// property names, ...).
    #[error("malformed schema at `{path}`: {reason}")]
    Malformed {
        /// Where.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// One of OpenAI's documented size limits.
    #[error("the schema exceeds strict mode's limit of {limit} {what}")]
    LimitExceeded {
        /// What is counted.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
}

type Result<T> = std::result::Result<T, StrictSchemaError>;

/// Transforms an input schema into OpenAI's strict subset, or says why it
/// cannot: the caller then sends the original with `strict: false`.
///
/// The result always has, on every object, `additionalProperties: false`
/// and every property in `required`; a property that was optional admits
/// `null` instead. Keys are not ordered here; render through
/// [`to_canonical_string`](crate::to_canonical_string).
///
/// ```
/// use registry_core::openai_strict_schema;
/// use serde_json::json;
///
/// let strict = openai_strict_schema(&json!({
///     "type": "object",
///     "properties": {
///         "path": { "type": "string" },
///         "limit": { "type": "integer", "format": "uint64", "minimum": 0 }
///     },
///     "required": ["path"]
/// }))
/// .unwrap();
/// assert_eq!(strict, json!({
///     "type": "object",
///     "properties": {
///         "path": { "type": "string" },
///         "limit": { "type": ["integer", "null"], "minimum": 0 }
///     },
///     "required": ["limit", "path"],
///     "additionalProperties": false
/// }));
///
/// // A map cannot be closed without changing its meaning.
/// let map = json!({
///     "type": "object",
///     "properties": { "env": { "type": "object", "additionalProperties": { "type": "string" } } }
/// });
/// assert!(openai_strict_schema(&map).is_err());
/// ```
pub fn openai_strict_schema(schema: &Value) -> Result<Value> {
    let Value::Object(root) = schema else {
        return Err(StrictSchemaError::RootNotObject);
    };
    let plain_object = root.get("type") == Some(&Value::String("object".into()))
        && !["$ref", "anyOf", "oneOf", "allOf"]
            .iter()
            .any(|k| root.contains_key(*k));
    if !plain_object {
        return Err(StrictSchemaError::RootNotObject);
    }
    let defs = match root.get("$defs") {
        None => None,
        Some(Value::Object(defs)) => Some(defs),
        Some(_) => {
            return Err(StrictSchemaError::Malformed {
                path: "#/$defs".into(),
                reason: "`$defs` is not an object".into(),
            });
        }
    };
    let mut cx = Transform {
        root: schema,
        inlining: Vec::new(),
        properties: 0,
        enum_values: 0,
        string_len: 0,
    };
    let mut out = cx.schema_map(root, "#", 0, 0, true)?;
    if let Some(defs) = defs {
        let mut new_defs = Map::new();
        for (name, def) in sorted(defs) {
            cx.string_len += name.len();
            let path = format!("#/$defs/{}", escape(name));
            new_defs.insert(name.clone(), Value::Object(cx.schema(def, &path, 0, 0)?));
        }
        out.insert("$defs".into(), Value::Object(new_defs));
    }
    cx.check_limits()?;
    Ok(Value::Object(out))
}

struct Transform<'a> {
    /// The schema being transformed: what `$ref`s resolve against.
    root: &'a Value,
    /// Definitions being inlined right now (cycle guard).
    inlining: Vec<String>,
    properties: usize,
    enum_values: usize,
    string_len: usize,
}

impl Transform<'_> {
    fn check_limits(&self) -> Result<()> {
        let limits = [
            (self.properties, MAX_PROPERTIES, "object properties"),
            (self.enum_values, MAX_ENUM_VALUES, "enum values"),
            (
                self.string_len,
                MAX_STRING_LEN,
                "characters of property names, definition names and enum values",
            ),
        ];
        for (found, limit, what) in limits {
            if found > limit {
                return Err(StrictSchemaError::LimitExceeded { what, limit });
            }
        }
        Ok(())
    }

    /// One subschema. `objects` is how many objects enclose it, `nesting`
    /// how many schemas.
    fn schema(
        &mut self,
        value: &Value,
        path: &str,
        objects: usize,
        nesting: usize,
    ) -> Result<Map<String, Value>> {
        if nesting > MAX_SCHEMA_DEPTH {
            return Err(StrictSchemaError::LimitExceeded {
                what: "levels of schema nesting",
                limit: MAX_SCHEMA_DEPTH,
            });
        }
        let Value::Object(map) = value else {
            return Err(match value {
                Value::Bool(_) => StrictSchemaError::Unconstrained { path: path.into() },
                _ => StrictSchemaError::Malformed {
                    path: path.into(),
                    reason: "a schema must be an object".into(),
                },
            });
        };
        match map.get("$ref") {
            None => self.schema_map(map, path, objects, nesting, false),
            Some(Value::String(reference)) => {
                self.check_ref(reference, path)?;
                if map.len() == 1 {
                    return Ok(map.clone());
                }
                self.inline(map, reference, path, objects, nesting)
            }
            Some(_) => Err(StrictSchemaError::Malformed {
                path: path.into(),
                reason: "`$ref` is not a string".into(),
            }),
        }
    }

    /// `#` or `#/$defs/<name>` with `<name>` defined; returns the name.
    fn check_ref<'r>(&self, reference: &'r str, path: &str) -> Result<Option<&'r str>> {
        if reference == "#" {
            return Ok(None);
        }
        let unsupported = || StrictSchemaError::UnsupportedRef {
            path: path.into(),
            reference: reference.into(),
        };
        let name = reference
            .strip_prefix("#/$defs/")
            .filter(|name| !name.contains(['/', '~', '%']))
            .ok_or_else(unsupported)?;
        match schema::ref_target(self.root, reference) {
            Some(_) => Ok(Some(name)),
            None => Err(unsupported()),
        }
    }

    /// A `$ref` with sibling keywords: OpenAI's own SDK replaces it by the
    /// definition merged with the siblings (the siblings win), because the
    /// API does not take siblings next to `$ref`.
    fn inline(
        &mut self,
        map: &Map<String, Value>,
        reference: &str,
        path: &str,
        objects: usize,
        nesting: usize,
    ) -> Result<Map<String, Value>> {
        let mut merged = map.clone();
        let mut reference = reference.to_owned();
        let mut pushed = 0;
        let result = (|| {
            for _ in 0..MAX_REF_CHAIN {
                let Some(name) = self.check_ref(&reference, path)? else {
                    // The root cannot be inlined into itself.
                    return Err(StrictSchemaError::UnsupportedRef {
                        path: path.into(),
                        reference,
                    });
                };
                if self.inlining.iter().any(|n| n == name) {
                    return Err(StrictSchemaError::RefCycle {
                        path: path.into(),
                        reference,
                    });
                }
                self.inlining.push(name.to_owned());
                pushed += 1;
                let Some(Value::Object(target)) = schema::ref_target(self.root, &reference) else {
                    return Err(StrictSchemaError::UnsupportedRef {
                        path: path.into(),
                        reference,
                    });
                };
                merged.remove("$ref");
                let siblings = std::mem::take(&mut merged);
                merged = target.clone();
                merged.extend(siblings);
                match merged.get("$ref") {
                    None => return self.schema_map(&merged, path, objects, nesting, false),
                    Some(Value::String(next)) if merged.len() == 1 => {
                        let next = next.clone();
                        self.check_ref(&next, path)?;
                        return Ok(merged);
                    }
                    Some(Value::String(next)) => reference = next.clone(),
                    Some(_) => {
                        return Err(StrictSchemaError::Malformed {
                            path: path.into(),
                            reason: "`$ref` is not a string".into(),
                        });
                    }
                }
            }
            Err(StrictSchemaError::RefCycle {
                path: path.into(),
                reference,
            })
        })();
        let keep = self.inlining.len() - pushed;
        self.inlining.truncate(keep);
        result
    }

    /// A schema object without `$ref`.
    fn schema_map(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        objects: usize,
        nesting: usize,
        at_root: bool,
    ) -> Result<Map<String, Value>> {
        if let Some((keyword, _)) = sorted(map)
            .into_iter()
            .find(|(k, _)| !is_known_keyword(k, at_root))
        {
            return Err(StrictSchemaError::UnsupportedKeyword {
                path: path.into(),
                keyword: keyword.clone(),
            });
        }
        let declared_types = parse_types(map.get("type"), path)?;
        let enum_values = self.enum_values(map, path)?;
        let union = union_branches(map, path)?;
        let types = match (&declared_types, &enum_values, &union) {
            (Some(types), _, _) => types.clone(),
            (None, _, Some(_)) => Vec::new(),
            (None, Some(values), None) => infer_types(values, path)?,
            (None, _, _) => {
                return Err(if has_structure(map) {
                    StrictSchemaError::Unsupported {
                        path: path.into(),
                        reason: "no `type`".into(),
                    }
                } else {
                    StrictSchemaError::Unconstrained { path: path.into() }
                });
            }
        };
        let non_null: Vec<&str> = types
            .iter()
            .map(String::as_str)
            .filter(|t| *t != "null")
            .collect();
        if non_null.len() > 1 {
            return Err(StrictSchemaError::MultipleTypes { path: path.into() });
        }
        let kind = non_null.first().copied();

        let mut out = Map::new();
        for (key, value) in sorted(map) {
            match key.as_str() {
                "type"
                | "enum"
                | "const"
                | "anyOf"
                | "oneOf"
                | "properties"
                | "required"
                | "additionalProperties"
                | "items" => {}
                "$defs" if at_root => {}
                "description" | "title" => match value {
                    Value::String(_) => {
                        out.insert(key.clone(), value.clone());
                    }
                    _ => {
                        return Err(StrictSchemaError::Malformed {
                            path: path.into(),
                            reason: format!("`{key}` is not a string"),
                        });
                    }
                },
                "format" => {
                    let known = value.as_str().is_some_and(|f| FORMATS_KEPT.contains(&f));
                    if kind == Some("string") && known {
                        out.insert(key.clone(), value.clone());
                    }
                }
                k if NUMERIC_KEPT.contains(&k) => {
                    if !value.is_number() {
                        return Err(StrictSchemaError::Malformed {
                            path: path.into(),
                            reason: format!("`{key}` is not a number"),
                        });
                    }
                    if matches!(kind, Some("integer" | "number")) {
                        out.insert(key.clone(), value.clone());
                    }
                }
                k if ARRAY_KEPT.contains(&k) => {
                    if !value.is_u64() {
                        return Err(StrictSchemaError::Malformed {
                            path: path.into(),
                            reason: format!("`{key}` is not a non-negative integer"),
                        });
                    }
                    if kind == Some("array") {
                        out.insert(key.clone(), value.clone());
                    }
                }
                k if STRIPPED.contains(&k) => {}
                _ => {
                    return Err(StrictSchemaError::UnsupportedKeyword {
                        path: path.into(),
                        keyword: key.clone(),
                    });
                }
            }
        }

        if let Some((keyword, branches)) = union {
            let others = [
                "type",
                "enum",
                "const",
                "properties",
                "required",
                "additionalProperties",
                "items",
            ];
            if let Some(other) = others.iter().find(|k| map.contains_key(**k)) {
                return Err(StrictSchemaError::Unsupported {
                    path: path.into(),
                    reason: format!("`{keyword}` next to `{other}`"),
                });
            }
            let mut transformed = Vec::with_capacity(branches.len());
            for (i, branch) in branches.iter().enumerate() {
                let branch_path = format!("{path}/{keyword}/{i}");
                transformed.push(Value::Object(self.schema(
                    branch,
                    &branch_path,
                    objects,
                    nesting + 1,
                )?));
            }
            out.insert("anyOf".into(), Value::Array(transformed));
            return Ok(out);
        }

        out.insert("type".into(), types_value(&types));
        if let Some(values) = enum_values {
            check_enum_types(&values, &types, path)?;
            out.insert("enum".into(), Value::Array(values));
        }

        let object_keys = ["properties", "required", "additionalProperties"];
        if kind == Some("object") {
            self.object(map, path, objects + 1, nesting, &mut out)?;
        } else if let Some(key) = object_keys.iter().find(|k| map.contains_key(**k)) {
            return Err(StrictSchemaError::Unsupported {
                path: path.into(),
                reason: format!("`{key}` on a schema that is not an object"),
            });
        }

        if kind == Some("array") {
            match map.get("items") {
                Some(items @ Value::Object(_)) => {
                    let items =
                        self.schema(items, &format!("{path}/items"), objects, nesting + 1)?;
                    out.insert("items".into(), Value::Object(items));
                }
                Some(Value::Bool(true)) | None => {
                    return Err(StrictSchemaError::ArrayWithoutItems { path: path.into() });
                }
                Some(_) => {
                    return Err(StrictSchemaError::Malformed {
                        path: path.into(),
                        reason: "`items` is not a schema".into(),
                    });
                }
            }
        } else if map.contains_key("items") {
            return Err(StrictSchemaError::Unsupported {
                path: path.into(),
                reason: "`items` on a schema that is not an array".into(),
            });
        }
        Ok(out)
    }

    /// Closes an object: `additionalProperties: false`, every property
    /// required, optional ones nullable.
    fn object(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        objects: usize,
        nesting: usize,
        out: &mut Map<String, Value>,
    ) -> Result<()> {
        if objects > MAX_OBJECT_DEPTH {
            return Err(StrictSchemaError::LimitExceeded {
                what: "levels of object nesting",
                limit: MAX_OBJECT_DEPTH,
            });
        }
        let properties = match map.get("properties") {
            None => None,
            Some(Value::Object(properties)) => Some(properties),
            Some(_) => {
                return Err(StrictSchemaError::Malformed {
                    path: path.into(),
                    reason: "`properties` is not an object".into(),
                });
            }
        };
        match map.get("additionalProperties") {
            None if properties.is_some() => {}
            Some(Value::Bool(false)) => {}
            _ => return Err(StrictSchemaError::OpenObject { path: path.into() }),
        }
        let required: Vec<&str> = match map.get("required") {
            None => Vec::new(),
            Some(Value::Array(names)) => names
                .iter()
                .map(|name| {
                    name.as_str().ok_or_else(|| StrictSchemaError::Malformed {
                        path: path.into(),
                        reason: "`required` holds a non-string".into(),
                    })
                })
                .collect::<Result<_>>()?,
            Some(_) => {
                return Err(StrictSchemaError::Malformed {
                    path: path.into(),
                    reason: "`required` is not an array".into(),
                });
            }
        };
        let empty = Map::new();
        let properties = properties.unwrap_or(&empty);
        if let Some(missing) = required
            .iter()
            .find(|name| !properties.contains_key(**name))
        {
            return Err(StrictSchemaError::Malformed {
                path: path.into(),
                reason: format!("`required` names `{missing}`, which is not a property"),
            });
        }

        let mut new_properties = Map::new();
        let mut names = Vec::with_capacity(properties.len());
        for (name, property) in sorted(properties) {
            self.properties += 1;
            self.string_len += name.len();
            let property_path = format!("{path}/properties/{}", escape(name));
            let mut schema = self.schema(property, &property_path, objects, nesting + 1)?;
            if !required.contains(&name.as_str()) {
                schema = nullable(schema, self.root);
            }
            new_properties.insert(name.clone(), Value::Object(schema));
            names.push(Value::String(name.clone()));
        }
        out.insert("properties".into(), Value::Object(new_properties));
        out.insert("required".into(), Value::Array(names));
        out.insert("additionalProperties".into(), Value::Bool(false));
        Ok(())
    }

    /// `enum`, or `const` as a one-value `enum`; values must be scalars.
    fn enum_values(&mut self, map: &Map<String, Value>, path: &str) -> Result<Option<Vec<Value>>> {
        let values = match (map.get("enum"), map.get("const")) {
            (None, None) => return Ok(None),
            (Some(_), Some(_)) => {
                return Err(StrictSchemaError::Unsupported {
                    path: path.into(),
                    reason: "both `enum` and `const`".into(),
                });
            }
            (Some(Value::Array(values)), None) if !values.is_empty() => values.clone(),
            (Some(_), None) => {
                return Err(StrictSchemaError::Malformed {
                    path: path.into(),
                    reason: "`enum` is not a non-empty array".into(),
                });
            }
            (None, Some(value)) => vec![value.clone()],
        };
        for value in &values {
            match value {
                Value::String(s) => self.string_len += s.len(),
                Value::Number(_) | Value::Bool(_) | Value::Null => {}
                _ => {
                    return Err(StrictSchemaError::Unsupported {
                        path: path.into(),
                        reason: "an `enum` or `const` value that is an object or array".into(),
                    });
                }
            }
        }
        self.enum_values += values.len();
        Ok(Some(values))
    }
}

/// Makes an already transformed schema admit `null`. `root` is the
/// original schema: a transformed definition admits `null` exactly when
/// the original does, so a reference is answered from there.
fn nullable(mut schema: Map<String, Value>, root: &Value) -> Map<String, Value> {
    if schema::object_admits_null(&schema, root) {
        return schema;
    }
    let simple = !schema.contains_key("enum") && !schema.contains_key("anyOf");
    if simple {
        match schema.get("type").cloned() {
            Some(Value::String(t)) => {
                schema.insert("type".into(), json!([t, "null"]));
                return schema;
            }
            Some(Value::Array(mut types)) => {
                types.push(Value::String("null".into()));
                schema.insert("type".into(), Value::Array(types));
                return schema;
            }
            _ => {}
        }
    }
    let mut outer = Map::new();
    for annotation in ["description", "title"] {
        if let Some(value) = schema.remove(annotation) {
            outer.insert(annotation.into(), value);
        }
    }
    let null = json!({ "type": "null" });
    match schema.remove("anyOf") {
        // A bare union: add the null branch to it.
        Some(Value::Array(mut branches)) if schema.is_empty() => {
            branches.push(null);
            outer.insert("anyOf".into(), Value::Array(branches));
        }
        other => {
            if let Some(branches) = other {
                schema.insert("anyOf".into(), branches);
            }
            outer.insert(
                "anyOf".into(),
                Value::Array(vec![Value::Object(schema), null]),
            );
        }
    }
    outer
}

/// `type` as a list of names (`None` when absent).
fn parse_types(value: Option<&Value>, path: &str) -> Result<Option<Vec<String>>> {
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

fn types_value(types: &[String]) -> Value {
    match types {
        [one] => Value::String(one.clone()),
        many => Value::Array(many.iter().cloned().map(Value::String).collect()),
    }
}

/// The JSON type of an enum value, as strict mode names it.
fn value_type(value: &Value) -> &'static str {
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
fn infer_types(values: &[Value], path: &str) -> Result<Vec<String>> {
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

fn check_enum_types(values: &[Value], types: &[String], path: &str) -> Result<()> {
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
fn union_branches<'a>(
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
const STRUCTURAL: &[&str] = &[
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

fn is_known_keyword(keyword: &str, at_root: bool) -> bool {
    STRUCTURAL.contains(&keyword)
        || NUMERIC_KEPT.contains(&keyword)
        || ARRAY_KEPT.contains(&keyword)
        || STRIPPED.contains(&keyword)
        || (at_root && keyword == "$defs")
}

/// Whether a type-less schema says anything beyond annotations.
fn has_structure(map: &Map<String, Value>) -> bool {
    map.keys()
        .any(|k| !matches!(k.as_str(), "description" | "title") && !STRIPPED.contains(&k.as_str()))
}

/// Entries in byte order of the key, whatever map type `serde_json` uses,
/// so the first error reported is the same in every build.
fn sorted(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

/// A JSON Pointer segment.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::JsonSchema;
    use serde::Deserialize;
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
            err(
                json!({ "type": "object", "properties": { "a": { "type": ["string", "integer"] } } })
            ),
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
        let a = crate::to_canonical_string(&strict(schema.clone()));
        let b = crate::to_canonical_string(&strict(schema.clone()));
        assert_eq!(a, b);
        assert_eq!(schema, copy);
    }
}
