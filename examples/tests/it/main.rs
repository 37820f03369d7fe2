//! The examples' integration tests, one module per suite, linked into one
//! test binary: each binary links the whole dependency tree again, so one
//! instead of one per suite saves most of the link time and disk space.
//! Run one suite by its module's name:
//! `cargo test -p registry-examples --test it run_command::`.
//!
//! `tests/memory/` is a binary of its own: it declares `#[tool]`s of its
//! own, which here would join the linked catalog that `catalog` and
//! `catalog_lock` check exactly.

registry_core::link!(registry_examples);

mod agent_loop;
mod catalog;
mod catalog_lock;
mod demo;
mod deny_oracle;
// The enforcement oracle (a minute of real attacks on two cores) does not
// depend on `web`; built with the default features only, so .ci/run's
// second pass, with `web` off, does not run the same minute again.
#[cfg(feature = "web")]
mod enforcement_oracle;
mod gates;
mod git_hardening;
mod hostile_files;
mod huge_path;
mod mcp_child;
mod mcp_lazy_many;
mod mcp_node;
mod mcp_python;
#[cfg(feature = "web")]
mod mcp_replicas;
mod path_reading;
mod permission_content;
mod run_command;
mod shell_oracle;
mod tools;
mod typescript_api;
