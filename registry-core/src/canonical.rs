//! Canonical JSON: object keys in byte order at every depth, whatever map
//! type `serde_json` was built with (a dependency enabling its
//! `preserve_order` feature must not change a single rendered byte).

use serde_json::Value;

/// Compact canonical JSON.
pub fn to_canonical_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, None, 0);
    out
}

/// Canonical JSON indented by two spaces, for files people read and diff.
pub fn to_canonical_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, Some("  "), 0);
    out
}

fn write_value(out: &mut String, value: &Value, indent: Option<&str>, depth: usize) {
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write_value(out, item, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_value(out, item, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push('}');
        }
        // Scalars, `[]` and `{}` print the same in every map implementation.
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn newline(out: &mut String, indent: Option<&str>, depth: usize) {
    if let Some(unit) = indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(unit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_at_every_depth() {
        let value =
            json!({"b": 1, "a": {"z": [true, null, {"y": "x", "c": 1.5}], "m": {}}, "e": []});
        assert_eq!(
            to_canonical_string(&value),
            r#"{"a":{"m":{},"z":[true,null,{"c":1.5,"y":"x"}]},"b":1,"e":[]}"#
        );
        assert_eq!(
            to_canonical_pretty(&json!({"b": [1], "a": "\"q\""})),
            "{\n  \"a\": \"\\\"q\\\"\",\n  \"b\": [\n    1\n  ]\n}"
        );
    }

    #[test]
    fn output_parses_back_to_the_same_value() {
        let value = json!({"k\u{e9}y": "line\nbreak", "n": -0.25, "list": [{"b": 2, "a": 1}]});
        for text in [to_canonical_string(&value), to_canonical_pretty(&value)] {
            assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
        }
    }
}
