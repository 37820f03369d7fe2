//! Parsing a tool's input from the model's arguments, locating a failure
//! (`edits[2].path`) in the same pass.
//!
//! A tool's `Deserialize` impl is compiled once per deserializer type it is
//! used with, in the user's crate, once per tool. Parsing plainly and, on
//! failure, again through `serde_path_to_error` compiled it twice (and the
//! second copy, with its path-tracking wrappers, was the larger); this
//! deserializer is the only one, and costs nothing on success: it notes
//! where it was only when an error passes through on its way out.
//!
//! It reads a `serde_json::Value` exactly as serde_json's own `&Value`
//! deserializer does (the tests hold both to the same answers), and hands
//! it typed scalars as they are. Arrays, objects, options and newtypes are
//! walked here, so the nested values are read by this deserializer again;
//! shapes a visitor cannot take are refused here too, so that serde_json's
//! array and object readers are not compiled a second time for each
//! visitor. Enum payloads are read by serde_json's, so a failure inside
//! one is located at the enum.

use std::cell::{Cell, RefCell};

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Error, Map, Value};

use crate::declare::ToolInput;

/// One step of the path to a failure.
enum Segment<'de> {
    Key(&'de str),
    Index(usize),
    /// A key that failed to parse (`?`, as serde_path_to_error writes it).
    BadKey,
}

/// The steps to the value that failed, innermost first (pushed as the
/// error passes each level on its way out).
type Trail<'de> = RefCell<Vec<Segment<'de>>>;

/// Parses `T` from `args`; on failure, the field path (empty for the
/// arguments themselves) and serde's message.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(args: &Value) -> Result<T, (String, String)> {
    let trail = Trail::default();
    T::deserialize(Located {
        value: args,
        trail: &trail,
    })
    .map_err(|err| failure(&trail, &err))
}

/// Every `Deserialize + JsonSchema` type is a tool input, parsed here.
#[diagnostic::do_not_recommend]
impl<T: serde::de::DeserializeOwned + schemars::JsonSchema + Send + Sync + 'static> ToolInput
    for T
{
    fn __parse(args: &serde_json::Value) -> Result<Self, (String, String)> {
        // One deserializer, so the input's `Deserialize` impl is compiled
        // once per tool (see this module).
        parse(args)
    }

    fn __schema() -> serde_json::Value {
        schemars::schema_for!(T).to_value()
    }
}

/// The path as `serde_path_to_error` writes it (`a.b[0].c`), and the message.
fn failure(trail: &Trail<'_>, err: &Error) -> (String, String) {
    let mut path = String::new();
    for segment in trail.borrow().iter().rev() {
        match segment {
            Segment::Key(key) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Segment::BadKey => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push('?');
            }
            Segment::Index(index) => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
        }
    }
    (path, err.to_string())
}

/// How deep the trail is before a level reads its value.
fn mark(trail: &Trail<'_>) -> usize {
    trail.borrow().len()
}

/// After a level read its value: on failure, notes `segment` (the error is
/// passing through); on success, drops whatever deeper levels noted for
/// errors a visitor caught and recovered from. Not generic, like
/// everything here that does not touch a visitor or a seed: this module's
/// generic code is compiled once per tool.
fn settle<'de>(trail: &Trail<'de>, mark: usize, failed: bool, segment: Segment<'de>) {
    let mut steps = trail.borrow_mut();
    if failed {
        steps.push(segment);
    } else {
        steps.truncate(mark);
    }
}

/// The error for a collection with elements left unread.
fn leftover(len: usize, remaining: usize, expected: &'static str) -> Result<(), Error> {
    if remaining == 0 {
        Ok(())
    } else {
        Err(de::Error::invalid_length(len, &expected))
    }
}

/// serde_json's `invalid type` error for a value a visitor cannot take.
fn invalid_type(value: &Value, expected: &dyn de::Expected) -> Error {
    let unexpected = match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => de::Unexpected::Unsigned(u),
            (None, Some(i), _) => de::Unexpected::Signed(i),
            (None, None, f) => de::Unexpected::Float(f.unwrap_or(f64::NAN)),
        },
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    };
    de::Error::invalid_type(unexpected, expected)
}

#[derive(Clone, Copy)]
struct Located<'de, 't> {
    value: &'de Value,
    trail: &'t Trail<'de>,
}

impl<'de, 't> Located<'de, 't> {
    fn seq<V: Visitor<'de>>(self, array: &'de [Value], visitor: V) -> Result<V::Value, Error> {
        let len = array.len();
        let mut access = Elements {
            iter: array.iter(),
            index: 0,
            trail: self.trail,
        };
        let seq = visitor.visit_seq(&mut access)?;
        leftover(len, access.iter.len(), "fewer elements in array")?;
        Ok(seq)
    }

    fn map<V: Visitor<'de>>(
        self,
        object: &'de Map<String, Value>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let len = object.len();
        let mut access = Entries {
            iter: object.iter(),
            value: None,
            trail: self.trail,
        };
        let map = visitor.visit_map(&mut access)?;
        leftover(len, access.iter.len(), "fewer elements in map")?;
        Ok(map)
    }
}

/// Hands a method to serde_json's `&Value` deserializer.
macro_rules! forward_to_value {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Error> {
                de::Deserializer::$method(self.value, $($arg,)* visitor)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for Located<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(array) => self.seq(array, visitor),
            Value::Object(object) => self.map(object, visitor),
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => n.deserialize_any(visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        // serde_json's private names (`RawValue`) are its own business.
        if name.starts_with("$serde_json") {
            return de::Deserializer::deserialize_newtype_struct(self.value, name, visitor);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(array) => self.seq(array, visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(array) => self.seq(array, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(object) => self.map(object, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(array) => self.seq(array, visitor),
            Value::Object(object) => self.map(object, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    forward_to_value! {
        deserialize_bool()
        deserialize_i8() deserialize_i16() deserialize_i32() deserialize_i64() deserialize_i128()
        deserialize_u8() deserialize_u16() deserialize_u32() deserialize_u64() deserialize_u128()
        deserialize_f32() deserialize_f64()
        deserialize_char() deserialize_str() deserialize_string()
        deserialize_unit() deserialize_unit_struct(name: &'static str)
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
        deserialize_identifier() deserialize_ignored_any()
    }
}

struct Elements<'de, 't> {
    iter: std::slice::Iter<'de, Value>,
    index: usize,
    trail: &'t Trail<'de>,
}

impl<'de> SeqAccess<'de> for Elements<'de, '_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        let Some(value) = self.iter.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        let trail = self.trail;
        let mark = mark(trail);
        let result = seed.deserialize(Located { value, trail });
        settle(trail, mark, result.is_err(), Segment::Index(index));
        result.map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        exact(self.iter.size_hint())
    }
}

struct Entries<'de, 't> {
    iter: serde_json::map::Iter<'de>,
    value: Option<(&'de str, &'de Value)>,
    trail: &'t Trail<'de>,
}

impl<'de> MapAccess<'de> for Entries<'de, '_> {
    type Error = Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some((key, value));
        // A failure after the key was read (an unknown field) is located
        // at the key; one that never got that far (a key that should be a
        // number) at `?`, as serde_path_to_error does.
        let unread = Cell::new(false);
        let mark = mark(self.trail);
        let result = seed.deserialize(Key {
            key,
            unread: &unread,
        });
        let segment = if unread.get() {
            Segment::BadKey
        } else {
            Segment::Key(key)
        };
        settle(self.trail, mark, result.is_err(), segment);
        result.map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let Some((key, value)) = self.value.take() else {
            return Err(de::Error::custom("value is missing"));
        };
        let trail = self.trail;
        let mark = mark(trail);
        let result = seed.deserialize(Located { value, trail });
        settle(trail, mark, result.is_err(), Segment::Key(key));
        result
    }

    fn size_hint(&self) -> Option<usize> {
        exact(self.iter.size_hint())
    }
}

fn exact((lower, upper): (usize, Option<usize>)) -> Option<usize> {
    (Some(lower) == upper).then_some(lower)
}

/// An object's key, read as serde_json reads keys: a string, or a number
/// or boolean written in quotes when the map's key type is one.
struct Key<'de, 'u> {
    key: &'de str,
    /// Set when the key failed before any visitor saw it.
    unread: &'u Cell<bool>,
}

impl Key<'_, '_> {
    fn unread(&self, message: &str) -> Error {
        self.unread.set(true);
        de::Error::custom(message)
    }
}

/// Parses a numeric key with serde_json's number parser, as serde_json does.
macro_rules! numeric_key {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                if !self.key.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                    return Err(self.unread(NOT_NUMERIC));
                }
                let mut de = serde_json::Deserializer::from_str(self.key);
                let number = de::Deserializer::$method(&mut de, visitor)?;
                // Trailing text after a number (`"1x"`): located at the key as
                // sent, where serde_path_to_error shows the number it read.
                de.end().map_err(|_| de::Error::custom(NOT_NUMERIC))?;
                Ok(number)
            }
        )*
    };
}

/// serde_json's message for a key that should be a number.
const NOT_NUMERIC: &str = "invalid value: expected key to be a number in quotes";

impl<'de> de::Deserializer<'de> for Key<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.key)
    }

    numeric_key! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.key {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            other => {
                self.unread.set(true);
                Err(de::Error::invalid_type(
                    de::Unexpected::Str(other),
                    &visitor,
                ))
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // Keys cannot be null.
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        IntoDeserializer::<Error>::into_deserializer(self.key)
            .deserialize_enum(name, variants, visitor)
    }

    forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct
        map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::json;

    use super::parse;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Edit {
        path: String,
        line: Option<u32>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Input {
        edits: Vec<Edit>,
        #[serde(default)]
        by_line: BTreeMap<u32, bool>,
    }

    /// What serde_json's own deserializer says, and where
    /// serde_path_to_error locates it: the reference this module matches.
    fn reference<T: serde::de::DeserializeOwned>(
        args: &serde_json::Value,
    ) -> Result<T, (String, String)> {
        serde_path_to_error::deserialize::<_, T>(args).map_err(|err| {
            let path = err.path().to_string();
            let path = if path == "." { String::new() } else { path };
            (path, err.into_inner().to_string())
        })
    }

    #[test]
    fn matches_serde_json_and_serde_path_to_error() {
        let cases = [
            json!({"edits": [{"path": "a"}, {"path": "b", "line": 3}], "by_line": {"7": true}}),
            json!({"edits": [{"path": "a"}, {"path": 1}]}),
            json!({"edits": [{"path": "a", "line": -1}]}),
            json!({"edits": [{"line": 1}]}),
            json!({"edits": {"path": "a"}}),
            json!({"edits": [], "by_line": {"x": true}}),
            json!({"edits": [], "by_line": {"1": "yes"}}),
            json!({"edits": [], "by_line": {"99999999999": true}}),
            json!({"edits": [["a", 2]]}),
            json!({"edits": [["a", 2, 3]]}),
            json!({"edits": [{"path": "a", "line": null}]}),
            json!({"edits": [{"path": "a", "line": 1.5}]}),
            json!({"edits": [{"path": "a", "line": true}]}),
            json!({"edits": [{"path": ["a"]}]}),
            json!({"edits": [{"path": {}}]}),
            json!({"edits": ["a"]}),
            json!({"edits": [null]}),
            json!({"edits": 3}),
            json!({"edits": [{"path": "a", "extra": 1}], "unknown": 2}),
            json!([[]]),
            json!("edits"),
            json!(null),
        ];
        for args in cases {
            let ours = parse::<Input>(&args);
            let theirs = reference::<Input>(&args);
            assert_eq!(ours, theirs, "{args}");
        }
    }

    #[test]
    fn a_number_key_with_trailing_text_is_located_as_sent() {
        let args = json!({"edits": [], "by_line": {"1x": true}});
        let (path, message) = parse::<Input>(&args).unwrap_err();
        assert_eq!(path, "by_line.1x");
        assert_eq!(message, reference::<Input>(&args).unwrap_err().1);
    }

    #[test]
    fn a_recovered_error_leaves_no_trail() {
        #[derive(Debug, Deserialize, PartialEq)]
        #[serde(untagged)]
        enum Either {
            Number(u32),
            Named { path: String },
        }
        #[derive(Debug, Deserialize, PartialEq)]
        struct Outer {
            items: Vec<Either>,
            count: u32,
        }
        let args = json!({"items": [{"path": "a"}, 3], "count": "x"});
        assert_eq!(parse::<Outer>(&args), reference::<Outer>(&args));
        assert_eq!(parse::<Outer>(&args).unwrap_err().0, "count");
    }
}
