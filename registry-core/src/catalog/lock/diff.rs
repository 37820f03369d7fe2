//! Showing what changed in a locked definition: RFC 6902 differences of
//! input schemas (`json-patch`), located by JSON Pointer, and line
//! differences of descriptions (`similar`).

use std::fmt;

use json_patch::PatchOperation;
use serde_json::Value;

use crate::text::to_canonical_string;

/// The longest rendering of a value inside a [`JsonChange`] message; longer
/// values are cut and end in `…`.
const MAX_SHOWN: usize = 160;

/// One difference between two JSON documents, located by a JSON Pointer
/// (RFC 6901: `/properties/path/type`, `/anyOf/1`, `""` for the whole
/// document).
///
/// The changes are those of an RFC 6902 patch from the old document to the
/// new, in order: array items are compared by index, and a pointer after a
/// removal from an array refers to the array as already changed by the
/// changes before it.
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
    /// The JSON Pointer of the change.
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
        let at = |path: &str| match path {
            "" => "(whole document)".to_owned(),
            path => path.to_owned(),
        };
        match self {
            JsonChange::Added { path, new } => write!(f, "added   {}: {}", at(path), shown(new)),
            JsonChange::Removed { path, old } => {
                write!(f, "removed {}: {}", at(path), shown(old))
            }
            JsonChange::Changed { path, old, new } => {
                write!(f, "changed {}: {} -> {}", at(path), shown(old), shown(new))
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

/// Every difference between `old` and `new`, in a stable order (object
/// keys in byte order, array items by index).
pub(crate) fn json_diff(old: &Value, new: &Value) -> Vec<JsonChange> {
    // `json_patch::diff` walks maps in their iteration order; re-reading
    // the canonical text makes that byte order whichever map type
    // `serde_json` was built with.
    let (old, new) = (canonical(old), canonical(new));
    let patch = json_patch::diff(&old, &new);
    // The old value at each step: the operations apply in sequence.
    let mut doc = old.clone();
    let mut changes = Vec::with_capacity(patch.0.len());
    for op in &patch.0 {
        let before = |path: &str| doc.pointer(path).cloned().unwrap_or(Value::Null);
        changes.push(match op {
            PatchOperation::Add(op) => JsonChange::Added {
                path: op.path.to_string(),
                new: op.value.clone(),
            },
            PatchOperation::Remove(op) => JsonChange::Removed {
                path: op.path.to_string(),
                old: before(op.path.as_str()),
            },
            PatchOperation::Replace(op) => JsonChange::Changed {
                path: op.path.to_string(),
                old: before(op.path.as_str()),
                new: op.value.clone(),
            },
            // A diff only adds, removes and replaces.
            PatchOperation::Move(_) | PatchOperation::Copy(_) | PatchOperation::Test(_) => {
                continue;
            }
        });
        if json_patch::patch(&mut doc, std::slice::from_ref(op)).is_err() {
            // A patch json-patch computed from `old` always applies; should
            // it not, say the whole document changed rather than mislabel.
            return vec![JsonChange::Changed {
                path: String::new(),
                old,
                new,
            }];
        }
    }
    changes
}

fn canonical(value: &Value) -> Value {
    serde_json::from_str(&to_canonical_string(value)).unwrap_or_else(|_| value.clone())
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

/// A line diff of `old` and `new` (Myers, from `similar`). Lines are split
/// as [`str::lines`] does, so `\r\n` and `\n` endings compare equal.
pub(crate) fn line_diff<'a>(old: &'a str, new: &'a str) -> Vec<Line<'a>> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b)
        .iter()
        .flat_map(|op| op.iter_changes(&a, &b))
        .map(|change| match change.tag() {
            similar::ChangeTag::Equal => Line::Same(change.value()),
            similar::ChangeTag::Delete => Line::Old(change.value()),
            similar::ChangeTag::Insert => Line::New(change.value()),
        })
        .collect()
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
    fn nested_keys_are_located_by_pointer() {
        let old = json!({
            "properties": {"path": {"type": "string"}, "gone": {"type": "integer"}},
            "required": ["path"],
            "odd/key": 1,
        });
        let new = json!({
            "properties": {"path": {"type": "integer"}, "limit": {"type": "integer"}},
            "required": ["path", "limit"],
            "odd/key": 2,
        });
        let mut changes = rendered(old, new);
        changes.sort();
        assert_eq!(
            changes,
            [
                r#"added   /properties/limit: {"type":"integer"}"#,
                r#"added   /required/1: "limit""#,
                r#"changed /odd~1key: 1 -> 2"#,
                r#"changed /properties/path/type: "string" -> "integer""#,
                r#"removed /properties/gone: {"type":"integer"}"#,
            ]
        );
    }

    #[test]
    fn removals_from_an_array_show_the_removed_items() {
        let old = json!({"anyOf": [{"type": "string"}, {"type": "null"}, {"type": "integer"}]});
        let new = json!({"anyOf": [{"type": "integer"}]});
        assert_eq!(
            rendered(old, new),
            [
                r#"changed /anyOf/0/type: "string" -> "integer""#,
                r#"removed /anyOf/1: {"type":"null"}"#,
                r#"removed /anyOf/1: {"type":"integer"}"#,
            ]
        );
    }

    #[test]
    fn a_type_change_is_one_change_and_long_values_are_cut() {
        let long = "x".repeat(500);
        let changes = rendered(json!({"a": 1}), json!({"a": {"long": long}}));
        assert_eq!(changes.len(), 1);
        assert!(changes[0].starts_with("changed /a: 1 -> {\"long\":\"xxx"));
        assert!(changes[0].ends_with('…'));
        assert!(changes[0].chars().count() < 200);
        assert_eq!(
            rendered(json!(1), json!("one")),
            [r#"changed (whole document): 1 -> "one""#]
        );
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
        assert_eq!(
            line_diff("a\r\nb", "a\nb"),
            [Line::Same("a"), Line::Same("b")]
        );
    }
}
