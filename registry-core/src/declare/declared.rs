//! What `#[tool]` implements on a struct: its static identity and the keys
//! the author wrote. Sealed, so every tool's metadata starts from
//! [`Declaration::new`]'s fail-closed defaults; reached by generated code
//! through `__private`.

use crate::declare::definition::{Declaration, Identity, Origin};
use crate::declare::tool::Tool;

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
