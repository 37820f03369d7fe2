//! The suites that read their test binary's linked tool list
//! (`BaseTools::linked`), which the shared binary `it` cannot give them:
//! its list holds every suite's tools, and some of those stop it from
//! building. Here the list is this binary's few tools, no two of one name,
//! and no suite asserts the whole list, only its own tools in it, so these
//! suites share one binary:
//!
//! - `input_examples`: examples the input refuses fail the list;
//! - `execute_resolve`: a name a runtime flag or a `cfg` gate keeps out
//!   of the list says which (the rest of that suite is in `it`).
//!
//! And `mcp_asking`, which builds its list from its own handles, but
//! declares a `write_note` tool as `mcp_serve` (in `it`) does: `#[tool]`
//! claims every name as a link-time symbol, so the two cannot share a
//! binary.
//!
//! Run one suite with its module name as the filter:
//! `cargo test -p registry-core --test linked_catalog input_examples::`.

#[path = "../it/execute_support/mod.rs"]
mod execute_support;

mod execute_resolve;
mod input_examples;
mod mcp_asking;
