//! Compile-time diagnostics of `#[tool]` (`ui/*.rs`, each with its
//! `.stderr`), and the expansion inputs (`expand/*.rs`, whose snapshots
//! `registry-macros` checks) and `pass/*.rs` compiled as passing programs.
//!
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite` and review them.

#[test]
fn diagnostics() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*.rs");
    cases.pass("expand/minimal.rs");
    cases.pass("expand/full.rs");
    cases.pass("expand/cfg_gated.rs");
    cases.pass("expand/access.rs");
    cases.pass("pass/*.rs");
}
