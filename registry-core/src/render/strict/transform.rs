//! The walk over a schema that produces its strict form.

use serde_json::{Map, Value, json};

use super::keywords::{
    ARRAY_KEPT, FORMATS_KEPT, NUMERIC_KEPT, STRIPPED, check_enum_types, has_structure, infer_types,
    is_known_keyword, parse_types, types_value, union_branches,
};
use super::{
    MAX_ENUM_VALUES, MAX_OBJECT_DEPTH, MAX_PROPERTIES, MAX_REF_CHAIN, MAX_SCHEMA_DEPTH,
    MAX_STRING_LEN, Result, StrictSchemaError,
};
use crate::input::schema;

pub(super) struct Transform<'a> {
    /// The schema being transformed: what `$ref`s resolve against.
    root: &'a Value,
    /// Definitions being inlined right now (cycle guard).
    inlining: Vec<String>,
    properties: usize,
    enum_values: usize,
    string_len: usize,
}

impl<'a> Transform<'a> {
    pub(super) fn new(root: &'a Value) -> Self {
        Transform {
            root,
            inlining: Vec::new(),
            properties: 0,
            enum_values: 0,
            string_len: 0,
        }
    }

    /// The whole transform: the root object, then its `$defs` (in byte
    /// order of their names), then OpenAI's size limits over both.
    pub(super) fn root(
        mut self,
        root: &Map<String, Value>,
        defs: Option<&Map<String, Value>>,
    ) -> Result<Map<String, Value>> {
        let mut out = self.schema_map(root, "#", 0, 0, true)?;
        if let Some(defs) = defs {
            let mut new_defs = Map::new();
            for (name, def) in sorted(defs) {
                self.string_len += name.len();
                let path = format!("#/$defs/{}", escape(name));
                new_defs.insert(name.clone(), Value::Object(self.schema(def, &path, 0, 0)?));
            }
            out.insert("$defs".into(), Value::Object(new_defs));
        }
        self.check_limits()?;
        Ok(out)
    }

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
