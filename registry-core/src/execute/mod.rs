//! Execution: runs a model's turn of tool calls against one pool.
//!
//! Owns, in pipeline order: resolving names (`resolve`: pool first, an
//! alias of a pooled tool runs it, anything else is refused with the layer
//! that removed it), parsing (through [`ToolHandle::prepare`](crate::input::ToolHandle::prepare)),
//! classification (`classify`: postures and resource access), planning
//! (`plan()`: a pure function behind a `ConflictRule`, by
//! default `AccessRule`, each batch with its `BatchReason`), running batches on tokio with permission,
//! timeouts and cancellation (`runner`), caps and spilling (`cap`),
//! applying session-state modifiers and counting per-tool metrics (both
//! defined in [`session`](crate::session)), events for UIs ([`ExecEvent`]),
//! hooks around each call (`hooks`), turns that wait for a person across
//! restarts (`durable`: [`TurnOutcome`], [`SuspendedTurn`]);
//! and the one way to make an executor ([`ExecutorBuilder`], from
//! [`ToolRegistry::executor`](crate::pool::ToolRegistry::executor)).
//!
//! Never does: read the unfiltered tool list on the hot path (only to
//! explain a refusal), decide permissions itself (the
//! [`PermissionPolicy`](crate::permission::PermissionPolicy) does), spawn a task
//! that could outlive the turn, or panic across its API (author code is
//! caught; a panic becomes that call's error result).
//!
//! # Executing a turn
//!
//! An [`Executor`] runs a model's turn of calls against the pool of that
//! turn, and returns exactly one [`ToolCallResult`] per call, in call
//! order. Per call: the name is resolved (a name or alias in the pool runs;
//! a name some layer removed is refused with that layer, see [`Removed`](crate::pool::Removed); a
//! deferred tool must first be discovered in the [`Session`](crate::session::Session)), the input is
//! parsed and classified on its value; the turn is planned into batches
//! ([`Plan`]: consecutive concurrency-safe calls run together, at most 10
//! at once by default, every other call alone; a tool that declares what
//! each call reads and writes, `access`, shares a batch with every call it
//! does not conflict with, see [`Access`](crate::access::Access) and `AccessRule`); then each call is
//! validated, authorized by the [`PermissionPolicy`](crate::permission::PermissionPolicy) against the
//! *current* [`PermissionContext`](crate::PermissionContext), run (with its timeout, if any) and
//! capped. A panic, a timeout or a denial is that call's error result; the
//! others proceed. Dropping the turn's future drops every call in flight.
//!
//! Every call gets a `tracing` span (`tool_call`, with the call's index,
//! id, name and batch) with a child span per phase (`resolve`, `parse`,
//! `classify`, `permission`, `run`, `cap`), inside a span per batch (index,
//! mode, size); [`Executor::run_turn_streaming`] reports the same steps as
//! [`ExecEvent`]s for a UI.
//!
//! ```standalone_crate
//! use registry_core::catalog::BaseTools;
//! use registry_core::{Flags, PermissionMode, Tool, ToolCall, ToolContext, ToolRegistry, tool};
//! use serde_json::json;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct PathInput {
//!     path: String,
//! }
//!
//! /// Read a file.
//! #[tool(name = "read_file", aliases = ["cat"], read_only = true, concurrency_safe = true)]
//! struct ReadFile;
//!
//! impl Tool for ReadFile {
//!     type Input = PathInput;
//!     type Output = String;
//!     type Error = std::convert::Infallible;
//!     async fn call(&self, input: PathInput, _cx: &ToolContext) -> Result<String, Self::Error> {
//!         Ok(format!("contents of {}", input.path))
//!     }
//! }
//!
//! /// Delete a file.
//! #[tool(name = "delete_file")]
//! struct DeleteFile;
//!
//! impl Tool for DeleteFile {
//!     type Input = PathInput;
//!     type Output = &'static str;
//!     type Error = std::convert::Infallible;
//!     async fn call(&self, _: PathInput, _cx: &ToolContext) -> Result<&'static str, Self::Error> {
//!         Ok("deleted")
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).unwrap());
//! // No approver: a call that needs one is denied.
//! let executor = registry.executor().mode(PermissionMode::Default).build();
//! let calls = vec![
//!     ToolCall::new("1", "read_file", json!({ "path": "a.rs" })),
//!     ToolCall::new("2", "cat", json!({ "path": "b.rs" })),
//!     ToolCall::new("3", "delete_file", json!({ "path": "a.rs" })),
//!     ToolCall::new("4", "format_disk", json!({})),
//! ];
//! assert_eq!(
//!     executor.plan_turn(&calls).to_string(),
//!     "batch 0: concurrent, at most 10 at once: #0 read_file (read-only), #1 read_file (read-only)\n\
//!      batch 1: serial: #2 delete_file (writes, destructive)\n"
//! );
//! let results = executor.run_turn(calls).await;
//! assert_eq!(results[1].content(), "contents of b.rs");
//! assert!(results[2].is_error()); // writes need approval; nobody can give it
//! assert_eq!(results[3].content(), "no such tool: `format_disk`");
//! # }
//! ```

mod builder;
mod call;
mod cap;
mod classify;
mod config;
mod durable;
mod error;
mod events;
mod executor;
pub(crate) mod hooks;
mod plan;
#[cfg(test)]
mod plan_tests;
mod resolve;
mod runner;

pub use builder::ExecutorBuilder;
#[cfg(feature = "mcp")]
pub(crate) use builder::ExecutorTemplate;
pub use call::{ToolCall, ToolCallResult};
pub use config::ExecutorConfig;
pub use durable::{Answer, DurableError, PendingApproval, SuspendedTurn, TurnOutcome};
pub use events::ExecEvent;
pub use executor::Executor;
pub use hooks::{AfterCall, BatchVerdict, BeforeCall, CallHook, HookFuture, HookedCall};
pub use plan::Plan;
