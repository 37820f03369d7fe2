//! Why the authoritative list could not be built: names claimed twice, a
//! constructor that panicked, an input that is not an object, a crate that
//! is not linked.

use std::fmt;

use crate::catalog::gate::CfgPredicate;
use crate::declare::{DefinitionError, NameRole, ObjectSchemaError, Origin};

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
        source: ObjectSchemaError,
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
