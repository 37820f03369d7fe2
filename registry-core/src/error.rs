//! Typed errors for everything that can go wrong at run time: a bad name, a
//! catalog that does not add up, a call that fails.

use std::fmt;

use crate::definition::Origin;
use crate::gate::CfgPredicate;

/// A tool name or alias that breaks `^[a-zA-Z0-9_-]{1,64}$`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name is the empty string.
    #[error("tool name is empty; names must match ^[a-zA-Z0-9_-]{{1,64}}$")]
    Empty,
    /// The name is longer than 64 bytes.
    #[error("tool name `{name}` is {len} characters long; the limit is 64")]
    TooLong {
        /// The offending name.
        name: String,
        /// Its length in bytes.
        len: usize,
    },
    /// The name holds a character outside `[a-zA-Z0-9_-]`.
    #[error(
        "tool name `{name}` has `{ch}` at byte {index}; only ASCII letters, digits, `_` and `-` are allowed"
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
    #[error("tool `{tool}`: {source}")]
    Name {
        /// The tool being defined.
        tool: String,
        /// What is wrong with the name.
        #[source]
        source: NameError,
    },
    /// An alias equals the tool's own name.
    #[error("tool `{tool}`: alias `{alias}` is the tool's own name")]
    AliasIsName {
        /// The tool being defined.
        tool: String,
        /// The alias.
        alias: String,
    },
    /// The same alias is listed twice.
    #[error("tool `{tool}`: alias `{alias}` is listed twice")]
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
        source: crate::schema::ObjectSchemaError,
    },
    /// The description is empty; the model could not choose the tool.
    #[error("tool `{tool}` has an empty description; the model chooses tools by their description")]
    EmptyDescription {
        /// The tool being defined.
        tool: String,
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

/// One side of a name collision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The tool's primary name.
    pub tool: String,
    /// Whether the contested string is that tool's name or an alias.
    pub role: NameRole,
    /// Where the tool is declared.
    pub origin: Origin,
    /// The `#[cfg]` gate on the tool, if any: a clash with a gated tool is
    /// reported in every build, whether or not the gate holds in this one.
    pub gate: Option<CfgPredicate>,
    /// Whether this build compiled the tool out (its gate does not hold).
    pub compiled_out: bool,
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.role {
            NameRole::Name => write!(f, "the name of tool `{}` ({}", self.tool, self.origin)?,
            NameRole::Alias => write!(f, "an alias of tool `{}` ({}", self.tool, self.origin)?,
        }
        match (&self.gate, self.compiled_out) {
            (Some(gate), true) => write!(f, ", under `cfg({gate})`, compiled out of this build)"),
            (Some(gate), false) => write!(f, ", under `cfg({gate})`)"),
            (None, _) => f.write_str(")"),
        }
    }
}

/// Two definitions claim the same model-facing name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{name}` is claimed twice: as {first} and as {second}")]
pub struct Collision {
    /// The contested name.
    pub name: String,
    /// The definition met first (in sorted order).
    pub first: Claim,
    /// The other definition.
    pub second: Claim,
}

/// The authoritative list could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// Names or aliases collide across the linked catalog.
    #[error("{} tool name collision(s) in the linked catalog:\n{}", .0.len(), list(.0))]
    Collisions(Vec<Collision>),
    /// A tool's constructor panicked while the list was built.
    #[error("constructing tool `{tool}` ({origin}) panicked: {message}")]
    ConstructorPanicked {
        /// The tool's name.
        tool: String,
        /// Where it is declared.
        origin: Origin,
        /// The panic payload, when it was a string.
        message: String,
    },
    /// A tool's `type Input` does not render an object schema, so no
    /// provider would accept its definition.
    #[error(
        "tool `{tool}` ({origin}): {source}; make its `type Input` a struct with named fields \
         deriving `Deserialize` and `JsonSchema` (wrap a bare value: `struct Input {{ text: String }}`)"
    )]
    InputNotObject {
        /// The tool's name.
        tool: String,
        /// Where it is declared.
        origin: Origin,
        /// What the schema is instead, and the fix.
        #[source]
        source: crate::schema::ObjectSchemaError,
    },
    /// A runtime definition broke a naming rule.
    #[error(transparent)]
    Definition(#[from] DefinitionError),
    /// A crate that should contribute tools contributed none: it is most
    /// likely not linked into this binary.
    #[error(
        "no tool from crate `{crate_name}` is in the list: the crate is probably not linked into this binary. \
         Add `registry_core::link!({crate_name});` to the binary (see the `link!` docs)"
    )]
    CrateNotLinked {
        /// The crate's name as `CARGO_CRATE_NAME` spells it.
        crate_name: String,
    },
}

fn list(collisions: &[Collision]) -> String {
    collisions
        .iter()
        .map(|c| format!("  - {c}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A call could not be made or did not succeed. Every variant names the tool.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments do not fit the tool's input type.
    #[error("invalid input for tool `{tool}` at `{path}`: {message}")]
    InvalidInput {
        /// The tool called.
        tool: String,
        /// The field path (`.` is the whole input, `edits[2].old` a nested field).
        path: String,
        /// What serde said about it.
        message: String,
    },
    /// The tool's own `validate_input` rejected the parsed input.
    #[error("tool `{tool}` rejected its input: {source}")]
    Rejected {
        /// The tool called.
        tool: String,
        /// The tool's typed explanation, shown to the model.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The permission check denied the call.
    #[error("tool `{tool}` may not run: {reason}")]
    PermissionDenied {
        /// The tool called.
        tool: String,
        /// Why not.
        reason: String,
    },
    /// The tool asks for a person's approval of this call, and the call was
    /// run without it (see [`PreparedCall::run_approved`](crate::PreparedCall::run_approved)).
    #[error("tool `{tool}` needs approval before it runs: {reason}")]
    NeedsApproval {
        /// The tool called.
        tool: String,
        /// What the person is asked to confirm.
        reason: String,
    },
    /// The tool ran and returned its error.
    #[error("tool `{tool}` failed: {source}")]
    Failed {
        /// The tool called.
        tool: String,
        /// The tool's typed error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The tool's output could not be turned into text for the model.
    #[error("tool `{tool}` produced output that could not be rendered: {message}")]
    Output {
        /// The tool called.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// A value prepared for one tool was handed to another.
    #[error("input prepared for another tool was passed to `{tool}`")]
    InputMismatch {
        /// The tool called.
        tool: String,
    },
}

/// A change to a [`PermissionContext`](crate::PermissionContext) that was
/// refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContextError {
    /// The rule string is malformed.
    #[error(transparent)]
    Rule(#[from] crate::permission::RuleError),
    /// Policy rules are set by an administrator, not through the context.
    #[error("policy rules are read-only; `{rule}` was not added")]
    PolicyIsReadOnly {
        /// The rule that was refused.
        rule: String,
    },
}
