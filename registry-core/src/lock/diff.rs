//! Small, dependency-free diffs for showing what changed in a locked
//! definition: a JSON-path diff for input schemas and a line diff for
//! descriptions.

use std::fmt;

use serde_json::Value;

use crate::canonical::to_canonical_string;

/// The longest rendering of a value inside a [`JsonChange`] message; longer
/// values are cut and end in `…`.
const MAX_SHOWN: usize = 160;

/// One difference between two JSON documents, located by a JSON path
/// (`$` is the root, `$.properties.path.type` a nested key,
/// `$.anyOf[1]` an array item, `$["odd key"]` a key that is not an
/// identifier).
///
/// Arrays of scalars (`required`, `enum`) are compared whole, so a reorder or
/// an insertion reads as one change; arrays holding objects or arrays are
/// compared item by item.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum JsonChange {
    /// A key or array item exists only in the new document.
    Added {
        /// Where.
        path: String,
        /// The new value.
        new: Value,
    },
    /// A key or array item exists only in the old document.
    Removed {
        /// Where.
        path: String,
        /// The old value.
        old: Value,
    },
    /// The value at `path` differs.
    Changed {
        /// Where.
        path: String,
        /// The old value.
        old: Value,
        /// The new value.
        new: Value,
    },
}

impl JsonChange {
    /// The JSON path of the change.
    pub fn path(&self) -> &str {
        match self {
            JsonChange::Added { path, .. }
            | JsonChange::Removed { path, .. }
            | JsonChange::Changed { path, .. } => path,
        }
    }
}

impl fmt::Display for JsonChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonChange::Added { path, new } => write!(f, "added   {path}: {}", shown(new)),
            JsonChange::Removed { path, old } => write!(f, "removed {path}: {}", shown(old)),
            JsonChange::Changed { path, old, new } => {
                write!(f, "changed {path}: {} -> {}", shown(old), shown(new))
            }
        }
    }
}

/// A value as compact canonical JSON, cut to [`MAX_SHOWN`] characters.
fn shown(value: &Value) -> String {
    let text = to_canonical_string(value);
    match text.char_indices().nth(MAX_SHOWN) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// Every difference between `old` and `new`, in a stable order (object keys
/// in byte order, array items by index).
pub(crate) fn json_diff(old: &Value, new: &Value) -> Vec<JsonChange> {
    let mut changes = Vec::new();
    diff_at(&mut changes, "$".to_owned(), old, new);
    changes
}

fn diff_at(out: &mut Vec<JsonChange>, path: String, old: &Value, new: &Value) {
    if old == new {
        return;
    }
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                diff_pair(out, key_path(&path, key), a.get(key), b.get(key));
            }
        }
        (Value::Array(a), Value::Array(b)) if !(all_scalars(a) && all_scalars(b)) => {
            for i in 0..a.len().max(b.len()) {
                diff_pair(out, format!("{path}[{i}]"), a.get(i), b.get(i));
            }
        }
        _ => out.push(JsonChange::Changed {
            path,
            old: old.clone(),
            new: new.clone(),
        }),
    }
}

fn all_scalars(items: &[Value]) -> bool {
    items
        .iter()
        .all(|v| !matches!(v, Value::Object(_) | Value::Array(_)))
}

fn key_path(parent: &str, key: &str) -> String {
    let mut chars = key.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        format!("{parent}.{key}")
    } else {
        format!("{parent}[{}]", Value::String(key.to_owned()))
    }
}

/// One line of a line diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// In both texts.
    Same(&'a str),
    /// Only in the old text.
    Old(&'a str),
    /// Only in the new text.
    New(&'a str),
}

/// Above this many line pairs the diff does not search for common lines and
/// shows the old text, then the new.
const MAX_LINE_PAIRS: usize = 1_000_000;

/// A longest-common-subsequence line diff of `old` and `new`.
pub(crate) fn line_diff<'a>(old: &'a str, new: &'a str) -> Vec<Line<'a>> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    if a.len().saturating_mul(b.len()) > MAX_LINE_PAIRS {
        return a
            .iter()
            .map(|l| Line::Old(l))
            .chain(b.iter().map(|l| Line::New(l)))
            .collect();
    }
    // lcs[i][j]: length of the longest common subsequence of a[i..], b[j..].
    let width = b.len() + 1;
    let mut lcs = vec![0usize; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i * width + j] = if a[i] == b[j] {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            out.push(Line::Same(a[i]));
            i += 1;
            j += 1;
        } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
            out.push(Line::Old(a[i]));
            i += 1;
        } else {
            out.push(Line::New(b[j]));
            j += 1;
        }
    }
    out.extend(a[i..].iter().map(|l| Line::Old(l)));
    out.extend(b[j..].iter().map(|l| Line::New(l)));
    out
}

/// One key or index present on either side: recurse, or record it as added
/// or removed.
fn diff_pair(out: &mut Vec<JsonChange>, path: String, old: Option<&Value>, new: Option<&Value>) {
    match (old, new) {
        (Some(x), Some(y)) => diff_at(out, path, x, y),
        (Some(x), None) => out.push(JsonChange::Removed {
            path,
            old: x.clone(),
        }),
        (None, Some(y)) => out.push(JsonChange::Added {
            path,
            new: y.clone(),
        }),
        (None, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rendered(old: Value, new: Value) -> Vec<String> {
        json_diff(&old, &new)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn equal_documents_have_no_changes() {
        let doc = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert!(json_diff(&doc, &doc).is_empty());
    }

    #[test]
    fn nested_keys_are_located_by_path_in_key_order() {
        let old = json!({
            "properties": {"path": {"type": "string"}, "gone": {"type": "integer"}},
            "required": ["path"],
            "odd key": 1,
        });
        let new = json!({
            "properties": {"path": {"type": "integer"}, "limit": {"type": "integer"}},
            "required": ["path", "limit"],
            "odd key": 2,
        });
        assert_eq!(
            rendered(old, new),
            [
                r#"changed $["odd key"]: 1 -> 2"#,
                r#"removed $.properties.gone: {"type":"integer"}"#,
                r#"added   $.properties.limit: {"type":"integer"}"#,
                r#"changed $.properties.path.type: "string" -> "integer""#,
                r#"changed $.required: ["path"] -> ["path","limit"]"#,
            ]
        );
    }

    #[test]
    fn arrays_of_objects_are_compared_by_index() {
        let old = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        let new = json!({"anyOf": [{"type": "integer"}]});
        assert_eq!(
            rendered(old, new),
            [
                r#"changed $.anyOf[0].type: "string" -> "integer""#,
                r#"removed $.anyOf[1]: {"type":"null"}"#,
            ]
        );
    }

    #[test]
    fn a_type_change_is_one_change_and_long_values_are_cut() {
        let long = "x".repeat(500);
        let changes = rendered(json!({"a": 1}), json!({"a": {"long": long}}));
        assert_eq!(changes.len(), 1);
        assert!(changes[0].starts_with("changed $.a: 1 -> {\"long\":\"xxx"));
        assert!(changes[0].ends_with('…'));
        assert!(changes[0].chars().count() < 200);
    }

    #[test]
    fn line_diff_keeps_common_lines() {
        let diff = line_diff(
            "Read a file.\n\nArguments: path",
            "Read a UTF-8 file.\n\nArguments: path",
        );
        assert_eq!(
            diff,
            [
                Line::Old("Read a file."),
                Line::New("Read a UTF-8 file."),
                Line::Same(""),
                Line::Same("Arguments: path"),
            ]
        );
        assert_eq!(line_diff("a", "a"), [Line::Same("a")]);
        assert_eq!(line_diff("", "b"), [Line::New("b")]);
    }
}
