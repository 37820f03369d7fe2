//! A definition's JSON written member by member, straight into bytes.
//!
//! Every per-tool render writes its object here rather than building a
//! `serde_json::Value` and serializing it: the schemas inside go in as
//! bytes already rendered once per tool (see `render::schema`), names and
//! descriptions are escaped in place, and nothing is allocated per member.
//! A canonical object (keys in byte order, what the provider renders send)
//! is written by calling the members in that order; debug builds check it,
//! and the render tests parse every fragment and render it canonically
//! again to prove it.

use serde_json::Value;

use crate::text::{write_canonical, write_string};

/// One JSON object being written into `out`: `{` on open, `}` on
/// [`close`](Self::close), a comma before every member but the first.
pub(crate) struct ObjectWriter<'a> {
    out: &'a mut Vec<u8>,
    members: usize,
    /// `Some` for a canonical object: the last key written, which the
    /// next must sort after.
    canonical: Option<&'static str>,
}

impl<'a> ObjectWriter<'a> {
    /// An object whose keys the caller writes in byte order (canonical
    /// JSON).
    pub(crate) fn canonical(out: &'a mut Vec<u8>) -> Self {
        Self::open(out, Some(""))
    }

    /// An object whose keys go in the order written (MCP's wire order).
    pub(crate) fn in_order(out: &'a mut Vec<u8>) -> Self {
        Self::open(out, None)
    }

    fn open(out: &'a mut Vec<u8>, canonical: Option<&'static str>) -> Self {
        out.push(b'{');
        ObjectWriter {
            out,
            members: 0,
            canonical,
        }
    }

    fn key(&mut self, key: &'static str) -> &mut Vec<u8> {
        if let Some(last) = self.canonical.as_mut() {
            debug_assert!(
                self.members == 0 || *last < key,
                "`{key}` written after `{last}` in a canonical object"
            );
            *last = key;
        }
        if self.members > 0 {
            self.out.push(b',');
        }
        self.members += 1;
        write_string(self.out, key);
        self.out.push(b':');
        self.out
    }

    /// `"key":"text"`, escaped.
    pub(crate) fn string(&mut self, key: &'static str, text: &str) -> &mut Self {
        let out = self.key(key);
        write_string(out, text);
        self
    }

    /// `"key":true` or `"key":false`.
    pub(crate) fn bool(&mut self, key: &'static str, value: bool) -> &mut Self {
        let out = self.key(key);
        out.extend_from_slice(if value { b"true" } else { b"false" });
        self
    }

    /// `"key":` followed by JSON text rendered before (a cached schema).
    pub(crate) fn raw(&mut self, key: &'static str, json: &str) -> &mut Self {
        let out = self.key(key);
        out.extend_from_slice(json.as_bytes());
        self
    }

    /// `"key":` followed by `value` as canonical JSON.
    pub(crate) fn value(&mut self, key: &'static str, value: &Value) -> &mut Self {
        let out = self.key(key);
        write_canonical(out, value, &[]);
        self
    }

    /// `"key":` followed by a nested object the caller writes through
    /// `write`, canonical when this object is.
    pub(crate) fn object(
        &mut self,
        key: &'static str,
        write: impl FnOnce(&mut ObjectWriter<'_>),
    ) -> &mut Self {
        let canonical = self.canonical.is_some();
        let out = self.key(key);
        let mut inner = ObjectWriter::open(out, canonical.then_some(""));
        write(&mut inner);
        inner.close();
        self
    }

    /// Writes the closing brace.
    pub(crate) fn close(self) {
        self.out.push(b'}');
    }
}

/// The bytes written, as text. Every piece the writers append is UTF-8
/// (escaped strings, JSON punctuation, text rendered before), so this
/// never copies.
pub(crate) fn into_string(out: Vec<u8>) -> String {
    String::from_utf8(out)
        .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn members_are_written_in_call_order_with_commas_and_escapes() {
        let mut out = Vec::new();
        let mut object = ObjectWriter::in_order(&mut out);
        object
            .string("name", "a\"b")
            .object("inner", |inner| {
                inner.bool("yes", true);
            })
            .raw("schema", r#"{"type":"object"}"#)
            .value("list", &json!([{"b": 1, "a": 2}]));
        object.close();
        assert_eq!(
            into_string(out),
            r#"{"name":"a\"b","inner":{"yes":true},"schema":{"type":"object"},"list":[{"a":2,"b":1}]}"#
        );
        let mut out = Vec::new();
        ObjectWriter::canonical(&mut out).close();
        assert_eq!(out, b"{}");
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "`a` written after `b` in a canonical object")]
    fn a_canonical_object_refuses_keys_out_of_order_in_debug_builds() {
        let mut out = Vec::new();
        let mut object = ObjectWriter::canonical(&mut out);
        object.bool("b", true).bool("a", true);
    }
}
