//! The catalog: every tool the program has, before any permission
//! narrows it. Two sources, each checked the same way: the authoritative
//! list of `#[tool]`s collected from every linked crate ([`BaseTools`]),
//! and the tools registered while the program runs ([`PluginRegistry`]).
//!
//! Owns, in the order the list is built: compile-time gates kept as data
//! (`gate`: [`CfgPredicate`]), collecting, constructing, flag-gating,
//! sorting and collision-checking the list (`base_list`: [`Flags`],
//! [`BaseTools::linked`]), making sure tool crates are linked
//! ([`link!`](crate::link)), runtime plugins with owners and guards
//! (`plugins`), the catalog's errors (`error`) and, with the crate feature
//! `lock`, the committed catalog lock ([`lock`]).
//!
//! Never does: apply a permission rule or a mode (the
//! [`pool`](crate::pool) stage narrows), render for a model, or run a
//! tool. Nothing downstream iterates the inventory: every consumer starts
//! from a [`BaseTools`].
//!
//! # Gates
//!
//! `cfg(...)` inside the attribute gates the tool at compile time:
//! `#[tool(name = "web_fetch", cfg(feature = "web"))]` compiles the struct
//! and its generated code only under that predicate, and in every other
//! build leaves a record of the tool's names and gate. The list checks
//! names across both, so a clash that exists only with a feature on fails
//! every build (gates that can never hold together, `cfg(unix)` and
//! `cfg(windows)` twins, are not a clash), and
//! [`BaseTools::explain_missing`] says "tool `web_fetch` is compiled out of
//! this build: `cfg(feature = "web")` does not hold". One lock serves every
//! feature set. Gate the tool's other items (`impl Tool`, its input type)
//! with an ordinary `#[cfg]`. A `#[cfg]` written on the struct itself also removes the tool,
//! but rustc evaluates it before `#[tool]` runs, so no record is left
//! (likewise a `#[cfg]` on the enclosing module). `flag = "NAME"` removes a
//! tool when the list is built without that [`Flags`] entry. Consumers
//! never repeat either condition.
//!
//! # Duplicate names fail the build
//!
//! Every name and alias a linked tool claims is also an exported marker
//! symbol (`registry_core$tool_name_or_alias$<name>`), so a binary that
//! links two crates claiming one name fails to link, and rust-lld names
//! both definitions:
//!
//! ```text
//! rust-lld: error: duplicate symbol: registry_core$tool_name_or_alias$read_file
//! >>> defined at lib.rs:10 (fs_tools/src/lib.rs:10)
//! >>> defined at lib.rs:24 (other_tools/src/lib.rs:24)
//! ```
//!
//! The run-time check in [`BaseTools::linked`] stays: `cargo check` does
//! not link, a crate the binary never links cannot clash at link time, and
//! compiled-out tools have no symbol. A crate that must link a clash on
//! purpose (a test of the run-time report) opts out from its build script:
//!
//! ```no_run
//! // build.rs
//! # #[allow(clippy::needless_doctest_main)]
//! fn main() {
//!     println!("cargo::rustc-check-cfg=cfg(registry_core_skip_link_check)");
//!     println!("cargo::rustc-cfg=registry_core_skip_link_check");
//! }
//! ```
//!
//! # Tools in other crates
//!
//! Tools from a dependency reach the list only if the binary links that
//! crate, and a crate holding nothing but tools is often never referred
//! to; write [`link!`](crate::link)`(that_crate)` once in the binary (or
//! the test) that builds the list, and guard it in a test with
//! [`BaseTools::require_crates`], which fails when a named crate
//! contributed no tool.
//!
//! # Guarding the catalog in CI
//!
//! With the crate feature `lock` (for test builds: a dev-dependency
//! feature), `registry_core::catalog::lock::check` compares the catalog with a
//! committed `tools.lock.json` (the examples keep theirs in
//! `examples/tools.lock.json`) and fails when a tool vanished, a definition
//! changed (the prompt cache would miss) or a posture was loosened.

pub(crate) mod base_list;
pub(crate) mod error;
pub(crate) mod gate;
mod link;
#[cfg(feature = "lock")]
#[cfg_attr(docsrs, doc(cfg(feature = "lock")))]
pub mod lock;
pub(crate) mod plugins;

pub use base_list::{BaseTools, CompiledOut, Flags, Missing};
pub use error::{CatalogError, Claim, Collision};
pub use gate::CfgPredicate;
pub use plugins::{PluginError, PluginGuard, PluginRegistry};
pub(crate) use plugins::{PluginSnapshot, PluginTool};
