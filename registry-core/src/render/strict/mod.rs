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
//!
//! Layout: this file holds the entry point, the error and OpenAI's limits;
//! `keywords` says what the subset keeps, drops and refuses, keyword by
//! keyword; `transform` walks the schema.

mod keywords;
#[cfg(test)]
mod tests;
mod transform;

use serde_json::Value;

use transform::Transform;

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

/// Why a schema cannot be sent to OpenAI with `strict: true`. The renderers
/// then send the original schema with `strict: false`.
///
/// Every `path` is a JSON Pointer into the schema as a URI fragment
/// (`#` is the root, `#/properties/path` a property).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum StrictSchemaError {
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
/// [`to_canonical_string`](crate::text::to_canonical_string).
pub(crate) fn openai_strict_schema(schema: &Value) -> Result<Value> {
    // An object schema (what every provider requires), and nothing that
    // would make the root a union or a reference on top of that.
    crate::declare::require_object_schema(schema).map_err(|_| StrictSchemaError::RootNotObject)?;
    let Value::Object(root) = schema else {
        return Err(StrictSchemaError::RootNotObject);
    };
    if ["$ref", "anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| root.contains_key(*k))
    {
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
    let out = Transform::new(schema).root(root, defs)?;
    Ok(Value::Object(out))
}
