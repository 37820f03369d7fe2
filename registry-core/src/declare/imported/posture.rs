//! What an imported tool's annotations are allowed to change.
//!
//! MCP annotations are hints from the server, and a server can say
//! anything. So a missing annotation means the strictest reading (the MCP
//! spec's own defaults: not read-only, destructive, open-world; and this
//! crate's: not concurrency-safe), and a hint that would loosen anything
//! is believed only from a server the configuration marks as trusted.

use serde_json::Value;

use crate::declare::builder::ToolBuilder;
use crate::declare::posture::Loading;

/// The `_meta` key a server sets to `true` on a tool that must not be
/// deferred (the convention Anthropic's clients read). Any other value,
/// or its absence, leaves the tool deferred.
pub const ALWAYS_LOAD_META_KEY: &str = "anthropic/alwaysLoad";

/// The safety posture an imported tool gets from its annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportedPosture {
    /// Calls only read.
    pub read_only: bool,
    /// Calls may share a concurrent batch.
    pub concurrency_safe: bool,
    /// Calls may destroy data.
    pub destructive: bool,
}

impl ImportedPosture {
    /// What nothing said means, and all an untrusted server ever gets.
    pub const STRICTEST: ImportedPosture = ImportedPosture {
        read_only: false,
        concurrency_safe: false,
        destructive: true,
    };

    /// The posture for a tool whose server hinted `read_only_hint` and
    /// `destructive_hint` (each `None` when absent).
    ///
    /// Untrusted: always [`STRICTEST`](Self::STRICTEST). Trusted:
    /// `readOnlyHint: true` makes calls read-only, concurrency-safe and
    /// not destructive; otherwise calls write, run alone, and are
    /// destructive unless `destructiveHint: false`.
    pub fn from_hints(
        read_only_hint: Option<bool>,
        destructive_hint: Option<bool>,
        trusted: bool,
    ) -> Self {
        if !trusted {
            return Self::STRICTEST;
        }
        if read_only_hint == Some(true) {
            return ImportedPosture {
                read_only: true,
                concurrency_safe: true,
                destructive: false,
            };
        }
        ImportedPosture {
            destructive: destructive_hint != Some(false),
            ..Self::STRICTEST
        }
    }

    /// Declares the posture on `builder`. The strictest posture is left
    /// undeclared (it is the builder's default), so re-serving an imported
    /// tool never turns a guess into a declared hint.
    pub(crate) fn apply(self, builder: ToolBuilder) -> ToolBuilder {
        if self == Self::STRICTEST {
            return builder;
        }
        builder
            .read_only(self.read_only)
            .concurrency_safe(self.concurrency_safe)
            .destructive(self.destructive)
    }
}

/// Deferred, unless the tool's `_meta` sets [`ALWAYS_LOAD_META_KEY`] to
/// `true`.
pub(crate) fn loading_from_meta(meta: Option<&serde_json::Map<String, Value>>) -> Loading {
    match meta.and_then(|meta| meta.get(ALWAYS_LOAD_META_KEY)) {
        Some(Value::Bool(true)) => Loading::AlwaysLoad,
        _ => Loading::Deferred,
    }
}

/// Checks what `require_object_schema` does not: that the parts of an
/// object schema a provider reads are well-formed (`properties` an object
/// of schemas, `required` a list of names). `Err` says what is wrong.
pub(crate) fn check_schema_shape(schema: &Value) -> Result<(), String> {
    crate::declare::require_object_schema(schema).map_err(|err| err.to_string())?;
    if let Some(properties) = schema.get("properties") {
        let Value::Object(properties) = properties else {
            return Err(format!("`properties` is {properties}, not an object"));
        };
        if let Some((key, bad)) = properties
            .iter()
            .find(|(_, v)| !matches!(v, Value::Object(_) | Value::Bool(_)))
        {
            return Err(format!(
                "property `{key}` has the schema {bad}, not a schema object"
            ));
        }
    }
    if let Some(required) = schema.get("required") {
        let names = required
            .as_array()
            .filter(|r| r.iter().all(Value::is_string));
        if names.is_none() {
            return Err(format!("`required` is {required}, not a list of names"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_hint_combination_is_strict_unless_trusted() {
        let hints = [None, Some(false), Some(true)];
        for ro in hints {
            for de in hints {
                assert_eq!(
                    ImportedPosture::from_hints(ro, de, false),
                    ImportedPosture::STRICTEST
                );
                let trusted = ImportedPosture::from_hints(ro, de, true);
                assert_eq!(trusted.read_only, ro == Some(true));
                assert_eq!(trusted.concurrency_safe, ro == Some(true));
                assert_eq!(
                    trusted.destructive,
                    ro != Some(true) && de != Some(false),
                    "{ro:?} {de:?}"
                );
            }
        }
    }

    #[test]
    fn only_a_true_always_load_keeps_a_tool_eager() {
        let meta = |v: Value| json!({ ALWAYS_LOAD_META_KEY: v }).as_object().cloned();
        assert_eq!(loading_from_meta(None), Loading::Deferred);
        assert_eq!(
            loading_from_meta(meta(json!(true)).as_ref()),
            Loading::AlwaysLoad
        );
        for v in [json!(false), json!("true"), json!(1), json!(null)] {
            assert_eq!(loading_from_meta(meta(v).as_ref()), Loading::Deferred);
        }
    }

    #[test]
    fn malformed_object_schemas_are_refused_with_a_reason() {
        assert!(check_schema_shape(&json!({ "type": "object" })).is_ok());
        assert!(
            check_schema_shape(
                &json!({ "type": "object", "properties": { "a": true }, "required": ["a"] })
            )
            .is_ok()
        );
        for bad in [
            json!({ "type": "string" }),
            json!({ "properties": {} }),
            json!({ "type": "object", "properties": [] }),
            json!({ "type": "object", "properties": { "a": 3 } }),
            json!({ "type": "object", "required": "a" }),
            json!({ "type": "object", "required": [1] }),
        ] {
            let err = check_schema_shape(&bad).expect_err(&bad.to_string());
            assert!(!err.is_empty());
        }
    }
}

/// The examples that were this module's doc tests, kept as tests now
/// that the items they show are crate-private.
#[cfg(test)]
mod examples {
    use super::ImportedPosture;

    #[test]
    fn hints_count_only_when_trusted() {
        let lying = ImportedPosture::from_hints(Some(true), Some(false), false);
        assert_eq!(lying, ImportedPosture::STRICTEST);
        let reader = ImportedPosture::from_hints(Some(true), None, true);
        assert!(reader.read_only && reader.concurrency_safe && !reader.destructive);
    }
}
