//! The `#[tool]` attribute of [registry-core](https://docs.rs/registry-core).
//!
//! Depend on `registry-core`, which re-exports this macro and everything
//! the generated code refers to; this crate is an implementation detail.
//!
//! Layout: `attr` parses the arguments (darling), `ast` builds the checked
//! model, `check` holds the rules, `expand` generates code, `fallback`
//! keeps the user's crate type-checking when the attribute is wrong.

#![forbid(unsafe_code)]

mod ast;
mod attr;
mod check;
mod expand;
#[cfg(test)]
mod expand_snapshots;
mod fallback;
mod gate;

use proc_macro::TokenStream;

/// Declares a tool. See `registry_core::tool` for the full reference.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(args.into(), item.into()).into()
}
