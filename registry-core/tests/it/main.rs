//! registry-core's integration tests, one module per suite, linked into one
//! binary: each test binary links the whole crate and its dependencies, so
//! one binary instead of one per suite is most of the build time and disk
//! of `cargo test`. Run one suite with its module name as the filter:
//! `cargo test -p registry-core --test it execute_caps::`.
//!
//! Sharing a binary has two rules. `#[tool]` claims each name and alias as
//! a link-time symbol, so no two suites here may declare the same tool
//! name. And no suite here reads the binary's linked tool list
//! (`BaseTools::linked`, a `LockOptions` without `.tools`): it holds
//! every suite's tools, so each suite builds its list from its own
//! handles (`BaseTools::__from_handles`). The suites that cannot follow
//! these rules are binaries of their own, each saying why in its doc
//! comment: `catalog_lock.rs`, `input_object.rs`, `render.rs` and
//! `linked_catalog/`.
//!
//! proptest keeps a suite's regressions in
//! `tests/proptest-regressions/<suite>.txt` (next to this directory, the
//! place it looks for a binary with a `main.rs`).

// Support shared by several suites.
mod durable_turns;
mod execute_support;
#[cfg(feature = "mcp")]
mod mcp_support;
// The search evaluation's parts, shared by `search_eval` and
// `search_heldout` (registry-embed's evals include the same files).
#[path = "search_eval/bm25.rs"]
mod bm25;
#[path = "search_eval/harness.rs"]
mod harness;

mod call_boundary;
mod execute_access;
mod execute_batches;
mod execute_caps;
mod execute_faults;
mod execute_hooks;
mod execute_nested;
mod execute_resolve;
mod execute_review;
mod execute_spans;
mod fail_closed;
mod import_definition;
mod mcp_connect;
mod mcp_import;
mod mcp_lazy;
mod mcp_serve;
mod mcp_tasks;
mod mcp_wire;
mod module_order;
mod permission_pipeline;
mod pool;
mod provider;
mod public_api;
mod rich_results;
mod rule_of_two;
mod search_eval;
mod search_heldout;
mod search_tool;
