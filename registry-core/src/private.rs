//! Not public API. Everything generated code needs, under one absolute
//! path (`::registry_core::__private`), so a downstream crate depends on
//! `registry-core` alone.

#[doc(hidden)]
pub use inventory;
#[doc(hidden)]
pub use schemars;
#[doc(hidden)]
pub use serde;
#[doc(hidden)]
pub use serde_json;

pub use crate::base_list::{LinkedCrate, Registration};
pub use crate::definition::{Declaration, ErasedAccess, ErasedPosture, Origin};
pub use crate::gate::CfgPredicate;
pub use crate::posture::{Loading, ResultCap};

use crate::definition::Identity;
use crate::tool::Tool;

/// Not public API. Only `#[tool]` implements it, so every tool's metadata
/// starts from [`Declaration::new`]'s fail-closed defaults.
pub trait Sealed {}

/// Not public API. What `#[tool]` says about a struct.
///
/// The generated impl holds only what the author wrote; everything unsaid
/// comes from [`Declaration::new`].
pub trait ToolDeclaration: Tool + Sealed + Sized {
    /// The model-facing name.
    const NAME: &'static str;
    /// Old names that keep resolving.
    const ALIASES: &'static [&'static str];
    /// The description (doc comment or `description = "..."`).
    const DESCRIPTION: &'static str;
    /// The runtime flag gating the tool.
    const FLAG: Option<&'static str>;
    /// Where the struct is declared.
    const ORIGIN: Origin;

    /// Builds the tool when the list is built.
    fn construct() -> Self;

    /// Applies the declared keys on top of the defaults.
    fn declare(declaration: Declaration<Self::Input>) -> Declaration<Self::Input> {
        declaration
    }
}

/// The full definition of a declared tool: defaults, identity, declared
/// keys; then the identity again, so the name and aliases a handle reports
/// are always the static ones the catalog checked for collisions, whatever
/// `declare` did.
pub(crate) fn declaration_of<T: ToolDeclaration>() -> Declaration<T::Input> {
    // Everything but `declare` and two struct moves is non-generic code
    // compiled once here, not once per tool in every user's crate.
    let identity = Identity {
        name: T::NAME,
        aliases: T::ALIASES,
        description: T::DESCRIPTION,
        flag: T::FLAG,
        origin: T::ORIGIN,
    };
    T::declare(Declaration::from_spec(identity.spec())).with_identity(&identity)
}

/// Not public API. A posture fixed by the author (`read_only = true`).
pub const fn fixed(value: bool) -> ErasedPosture {
    ErasedPosture::fixed(value)
}

/// Not public API. Wraps a posture expression, already coerced to
/// `fn(&Input) -> bool` by the macro (where a mistake is reported on the
/// expression itself), with its text for display. A function pointer
/// rather than a closure type, so nothing here is generic but the input.
pub fn per_input<I: 'static>(eval: fn(&I) -> bool, expr: &'static str) -> ErasedPosture {
    ErasedPosture::per_input(eval, expr.to_owned())
}

/// Not public API. Wraps an access expression, already coerced to
/// `fn(&Input) -> Access` by the macro, with its text for display.
pub fn access<I: 'static>(eval: fn(&I) -> crate::Access, expr: &'static str) -> ErasedAccess {
    ErasedAccess::new(eval, expr.to_owned())
}

/// Not public API. A result cap the macro has already checked is non-zero.
pub const fn cap(chars: usize) -> ResultCap {
    match std::num::NonZeroUsize::new(chars) {
        Some(n) => ResultCap::Chars(n),
        None => ResultCap::DEFAULT,
    }
}
