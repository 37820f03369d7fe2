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

/// Appends `value` to `out` as compact canonical JSON, leaving out the
/// top-level object keys named in `skip` (the renders drop an input
/// schema's `$schema` and `title` this way instead of copying the schema
/// without them).
pub(crate) fn write_canonical(out: &mut Vec<u8>, value: &Value, skip: &[&str]) {
    match value {
        Value::Object(map) if !skip.is_empty() => {
            out.push(b'{');
            let kept = |entry: &(&String, &Value)| !skip.contains(&entry.0.as_str());
            if maps_are_sorted() || map.keys().is_sorted() {
                write_entries(out, map.iter().filter(kept), None, 0);
            } else {
                write_entries(out, sorted(map).into_iter().filter(kept), None, 0);
            }
            out.push(b'}');
        }
        value => write_value(out, value, None, 0),
    }
}

/// Appends `text` to `out` as a JSON string, escaped exactly as
/// serde_json escapes it.
pub(crate) fn write_string(out: &mut Vec<u8>, text: &str) {
    write_str(out, text);
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
            if maps_are_sorted() || map.keys().is_sorted() {
                write_entries(out, map.iter(), indent, depth);
            } else {
                write_entries(out, sorted(map).into_iter(), indent, depth);
            }
            newline(out, indent, depth);
            out.push(b'}');
        }
        Value::String(text) => write_str(out, text),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Null => out.extend_from_slice(b"null"),
        // Numbers, `[]` and `{}` print the same in every map implementation.
        scalar => write_json(out, scalar),
    }
}

/// Whether serde_json's `Map` is its default, a `BTreeMap` that iterates
/// in key order, rather than the insertion-ordered map a dependency
/// enabling `preserve_order` makes it. Asked once per process.
fn maps_are_sorted() -> bool {
    static SORTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SORTED.get_or_init(|| {
        let mut probe = Map::new();
        probe.insert("b".to_owned(), Value::Null);
        probe.insert("a".to_owned(), Value::Null);
        probe.keys().is_sorted()
    })
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

/// A JSON string exactly as serde_json prints it: `"` and `\\` escaped
/// with a backslash, `\b`, `\f`, `\n`, `\r` and `\t` by their short
/// forms, every other control below U+0020 as `\u00xx` (lowercase hex),
/// everything else (U+007F and beyond included) as it is. Runs of bytes
/// that need no escape are copied whole.
fn write_str(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    // Most strings (names, descriptions, schema keywords) need no escape:
    // eight bytes at a time up to the first that might, then a table
    // lookup per byte; a clean string is then one copy.
    let clean = clean_prefix(bytes);
    let first = bytes[clean..]
        .iter()
        .position(|&byte| ESCAPE[usize::from(byte)] != 0)
        .map_or(bytes.len(), |at| clean + at);
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    out.extend_from_slice(&bytes[..first]);
    if first < bytes.len() {
        write_escaped(out, &bytes[first..]);
    }
    out.push(b'"');
}

/// The rest of a string from its first byte that needs an escape.
fn write_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let escape = ESCAPE[usize::from(byte)];
        if escape == 0 {
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        start = i + 1;
        if escape == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]);
        } else {
            out.extend_from_slice(&[b'\\', escape]);
        }
    }
    out.extend_from_slice(&bytes[start..]);
}

/// How many leading bytes of `bytes` certainly need no escape, found
/// eight at a time: a word is clean when none of its bytes is below
/// 0x20, `"` or `\\` (the classic "has a byte less than n" and "has a
/// zero byte" word tests, which say exactly whether such a byte is in the
/// word); from the first word that has one, [`ESCAPE`] decides byte by
/// byte.
fn clean_prefix(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGH != 0;
    let mut clean = 0;
    for chunk in bytes.chunks_exact(8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH != 0;
        if control
            || has_zero(word ^ (ONES * u64::from(b'"')))
            || has_zero(word ^ (ONES * u64::from(b'\\')))
        {
            break;
        }
        clean += 8;
    }
    clean
}

/// Per byte: 0 when it is written as it is, else the letter after the
/// backslash (`u` for the `\u00xx` form). serde_json's own table.
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// A scalar exactly as serde_json prints it.
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
    fn an_escape_at_any_position_of_any_word_is_found() {
        for len in 0..20 {
            for at in 0..len {
                for special in ['"', '\\', '\u{0}', '\u{1f}', '\n', '\u{7f}', 'é'] {
                    let text: String = (0..len)
                        .map(|i| if i == at { special } else { 'a' })
                        .collect();
                    let mut out = Vec::new();
                    write_str(&mut out, &text);
                    assert_eq!(
                        String::from_utf8(out).unwrap(),
                        serde_json::to_string(&text).unwrap(),
                        "{text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn skipped_top_level_keys_are_left_out_and_nested_ones_kept() {
        let value = json!({"$schema": "x", "title": "T", "type": "object",
            "properties": {"title": {"title": "Title"}}});
        let mut out = Vec::new();
        write_canonical(&mut out, &value, &["$schema", "title"]);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"properties":{"title":{"title":"Title"}},"type":"object"}"#
        );
        let mut out = Vec::new();
        write_canonical(&mut out, &json!({"title": "T"}), &["title"]);
        assert_eq!(out, b"{}");
        let mut out = Vec::new();
        write_canonical(&mut out, &json!([{"title": "T"}]), &["title"]);
        assert_eq!(out, br#"[{"title":"T"}]"#);
    }

    #[test]
    fn output_parses_back_to_the_same_value() {
        let value = json!({"k\u{e9}y": "line\nbreak", "n": -0.25, "list": [{"b": 2, "a": 1}]});
        for text in [to_canonical_string(&value), to_canonical_pretty(&value)] {
            assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
        }
    }
}
