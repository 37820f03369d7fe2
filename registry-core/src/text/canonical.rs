//! Canonical JSON: object keys in byte order at every depth, whatever map
//! type `serde_json` was built with (a dependency enabling its
//! `preserve_order` feature must not change a single rendered byte).

use serde_json::{Map, Value};

/// Compact canonical JSON.
pub fn to_canonical_string(value: &Value) -> String {
    write(value, None)
}

/// Canonical JSON indented by two spaces, for files people read and diff.
pub fn to_canonical_pretty(value: &Value) -> String {
    write(value, Some("  "))
}

/// Writes into bytes (serde_json's escaping writes bytes, and a `Vec`
/// takes them without a per-key or per-scalar allocation).
fn write(value: &Value, indent: Option<&str>) -> String {
    let mut out = Vec::with_capacity(256);
    write_value(&mut out, value, indent, 0);
    // Every piece written is UTF-8 (serde_json's output and ASCII
    // punctuation), so this never copies; the lossy arm is unreachable.
    String::from_utf8(out)
        .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
}

fn write_value(out: &mut Vec<u8>, value: &Value, indent: Option<&str>, depth: usize) {
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline(out, indent, depth + 1);
                write_value(out, item, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push(b']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push(b'{');
            // serde_json's default map is already in byte order; only an
            // insertion-ordered one (`preserve_order`) needs a sort.
            if map.keys().is_sorted() {
                write_entries(out, map.iter(), indent, depth);
            } else {
                write_entries(out, sorted(map).into_iter(), indent, depth);
            }
            newline(out, indent, depth);
            out.push(b'}');
        }
        Value::String(text) => write_str(out, text),
        // Scalars, `[]` and `{}` print the same in every map implementation.
        scalar => write_json(out, scalar),
    }
}

fn sorted(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    entries
}

fn write_entries<'a>(
    out: &mut Vec<u8>,
    entries: impl Iterator<Item = (&'a String, &'a Value)>,
    indent: Option<&str>,
    depth: usize,
) {
    for (i, (key, item)) in entries.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        newline(out, indent, depth + 1);
        write_str(out, key);
        out.push(b':');
        if indent.is_some() {
            out.push(b' ');
        }
        write_value(out, item, indent, depth + 1);
    }
}

/// A JSON string exactly as serde_json prints it. Most strings (names,
/// descriptions, schema keywords) need no escape and are copied as they
/// are; serde_json escapes exactly `"`, `\\` and the controls below
/// U+0020, so anything else goes through its own escaper.
fn write_str(out: &mut Vec<u8>, text: &str) {
    if text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        write_json(out, text);
    } else {
        out.reserve(text.len() + 2);
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    }
}

/// A scalar (or an escaped string) exactly as serde_json prints it.
fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    // Serializing a string or a `Value` scalar into a `Vec` cannot fail:
    // serde_json errs only on I/O and on non-string map keys.
    let _ = serde_json::to_writer(out, value);
}

fn newline(out: &mut Vec<u8>, indent: Option<&str>, depth: usize) {
    if let Some(unit) = indent {
        out.push(b'\n');
        for _ in 0..depth {
            out.extend_from_slice(unit.as_bytes());
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
    fn strings_and_scalars_are_escaped_exactly_as_serde_json_does() {
        // With serde_json's default (sorted) map, compact canonical JSON is
        // serde_json's own output, byte for byte.
        let value = json!({
            "\u{0}\u{1f}\u{7f}\"\\/\u{8}\u{c}\n\r\t": ["\u{2028}", "é", "\u{1F600}"],
            "numbers": [0, -1, 1.5, 1e300, u64::MAX, i64::MIN],
            "empty": [{}, [], "", null, false]
        });
        assert_eq!(
            to_canonical_string(&value),
            serde_json::to_string(&value).unwrap()
        );
    }

    proptest::proptest! {
        #[test]
        fn any_string_prints_as_serde_json_prints_it(text in "\\PC*|[\\x00-\\x7f]*") {
            let value = Value::String(text);
            proptest::prop_assert_eq!(
                to_canonical_string(&value),
                serde_json::to_string(&value).unwrap()
            );
        }
    }

    #[test]
    fn output_parses_back_to_the_same_value() {
        let value = json!({"k\u{e9}y": "line\nbreak", "n": -0.25, "list": [{"b": 2, "a": 1}]});
        for text in [to_canonical_string(&value), to_canonical_pretty(&value)] {
            assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
        }
    }
}
