//! The errors of a definition: a name that breaks the naming rule, a
//! runtime definition `#[tool]` would have refused at compile time.

use std::fmt;

use crate::declare::object_schema::ObjectSchemaError;
use crate::text::capped;

/// A tool name or alias that breaks `^[a-zA-Z0-9_-]{1,64}$`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name is the empty string.
    #[error("tool name is empty; names must match ^[a-zA-Z0-9_-]{{1,64}}$")]
    Empty,
    /// The name is longer than 64 bytes.
    #[error("tool name `{}` is {len} characters long; the limit is 64", capped(.name))]
    TooLong {
        /// The offending name.
        name: String,
        /// Its length in bytes.
        len: usize,
    },
    /// The name holds a character outside `[a-zA-Z0-9_-]`.
    #[error(
        "tool name `{}` has `{ch}` at byte {index}; only ASCII letters, digits, `_` and `-` are allowed",
        capped(.name)
    )]
    BadChar {
        /// The offending name.
        name: String,
        /// The first character that is not allowed.
        ch: char,
        /// Its byte offset.
        index: usize,
    },
}

/// A runtime tool definition that breaks a rule `#[tool]` would have caught
/// at compile time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    /// The name or an alias breaks the naming rule.
    #[error("tool `{}`: {source}", capped(.tool))]
    Name {
        /// The tool being defined.
        tool: String,
        /// What is wrong with the name.
        #[source]
        source: NameError,
    },
    /// An alias equals the tool's own name.
    #[error("tool `{}`: alias `{}` is the tool's own name", capped(.tool), capped(.alias))]
    AliasIsName {
        /// The tool being defined.
        tool: String,
        /// The alias.
        alias: String,
    },
    /// The same alias is listed twice.
    #[error("tool `{}`: alias `{}` is listed twice", capped(.tool), capped(.alias))]
    RepeatedAlias {
        /// The tool being defined.
        tool: String,
        /// The alias.
        alias: String,
    },
    /// The input schema is not an object schema, which every provider
    /// requires.
    #[error("tool `{tool}`: {source}; pass one to `ToolBuilder::input_schema`")]
    InputNotObject {
        /// The tool being defined.
        tool: String,
        /// What the schema is instead.
        #[source]
        source: ObjectSchemaError,
    },
    /// The description is empty; the model could not choose the tool.
    #[error(
        "tool `{}` has an empty description; the model chooses tools by their description",
        capped(.tool)
    )]
    EmptyDescription {
        /// The tool being defined.
        tool: String,
    },
    /// An example input the tool's own input does not accept.
    #[error("tool `{}`: input example {index} is not a valid input: {why}", capped(.tool))]
    InputExample {
        /// The tool being defined.
        tool: String,
        /// Which example (from 0).
        index: usize,
        /// Why the tool's input refuses it.
        why: String,
    },
}

/// How a name is used by a definition: the thing two definitions fight over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRole {
    /// The tool's primary name.
    Name,
    /// One of the tool's aliases.
    Alias,
}

impl fmt::Display for NameRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NameRole::Name => "name",
            NameRole::Alias => "alias",
        })
    }
}
