//! Test-only package: see `tests/` for the suites.

/// The README's Rust blocks, compiled and run as doctests
/// (`cargo test -p registry-tests --doc`), so the front door never shows
/// code that does not build. Blocks that declare tools or build the list
/// are `standalone_crate`: merged doctests share one binary, and so one
/// inventory, so a block's list would otherwise hold every other block's
/// tools.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct Readme;
