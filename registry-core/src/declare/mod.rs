//! Declaring a tool: what `#[tool]` and [`ToolBuilder`] produce before
//! any list, pool or call exists.
//!
//! Owns, in the order a tool is written: the [`Tool`] trait and its
//! [`ToolInput`] bound (`tool`), the sealed trait `#[tool]` implements
//! (`declared`), the definition it starts from (`definition`: identity,
//! [`ToolSpec`], origins), the fail-closed safety posture (`posture`:
//! [`SafetyPosture::DEFAULT`] is the one place the defaults are written),
//! the naming rule (`naming`) and the object-schema rule
//! (`object_schema`) every definition obeys, what a tool may say about a
//! call's permission (`decision`, `content`), what it gets and returns
//! (`context`, `output`), the per-session state its results change
//! (`state`, exported by [`session`](crate::session)), the runtime
//! builder (`builder`), their errors (`error`), and tools someone else
//! defined ([`imported`]: an MCP tool definition, its naming and the
//! posture its annotations may give, without a live connection).
//!
//! Never does: parse a call's arguments ([`input`](crate::input) does;
//! the blanket [`ToolInput`] impl, [`ToolBuilder::build`] and
//! [`DefinitionImport::import`](imported::DefinitionImport::import) live
//! there, next to the handle they make), collect tools into a list, or
//! decide a permission. It imports only the vocabulary stages before it
//! ([`text`](crate::text), [`path`](crate::path),
//! [`access`](crate::access)).
//!
//! # A first tool
//!
//! A tool is a struct with `#[tool(...)]` saying what it *is*, and an
//! [`impl Tool`](Tool) saying what it *does*. The doc comment is the
//! description the model reads.
//!
//! ```standalone_crate
//! use registry_core::{tool, Tool, ToolContext};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct ReadFileInput {
//!     /// Path relative to the workspace.
//!     path: String,
//! }
//!
//! /// Read a UTF-8 file and return its contents.
//! #[tool(
//!     name = "read_file",
//!     aliases = ["Read", "cat"],      // old names that must keep resolving
//!     concurrency_safe = true,        // reads never conflict
//!     read_only = true,
//!     max_result_chars = 100_000,
//! )]
//! struct ReadFile;
//!
//! impl Tool for ReadFile {
//!     type Input = ReadFileInput;
//!     type Output = String;
//!     type Error = std::io::Error;
//!
//!     async fn call(&self, input: ReadFileInput, _cx: &ToolContext) -> Result<String, std::io::Error> {
//!         # if input.path == "notes.txt" { return Ok("hello".into()); }
//!         std::fs::read_to_string(&input.path)
//!     }
//! }
//!
//! /// Delete a file. Says nothing about its posture, so it gets the strictest:
//! /// it runs alone, is assumed to write, and is destructive.
//! #[tool(name = "delete_file")]
//! struct DeleteFile;
//!
//! impl Tool for DeleteFile {
//!     type Input = ReadFileInput;
//!     type Output = &'static str;
//!     type Error = std::io::Error;
//!
//!     async fn call(&self, input: ReadFileInput, _cx: &ToolContext) -> Result<&'static str, std::io::Error> {
//!         std::fs::remove_file(&input.path).map(|()| "deleted")
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The one authoritative list: every #[tool] in every linked crate,
//! // gated by runtime flags, sorted by name, names and aliases unique.
//! let tools = registry_core::catalog::BaseTools::linked(&registry_core::Flags::new())?;
//! let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
//! assert_eq!(names, ["delete_file", "read_file"]);
//!
//! // Unsaid means strict: not concurrency-safe, not read-only, destructive
//! // (unless it only reads), capped output.
//! let delete = tools.get("delete_file").unwrap();
//! assert!(!delete.spec().concurrency_safe().is_declared());
//! assert_eq!(delete.spec().max_result_chars().value().limit(), Some(50_000));
//! let call = delete.prepare(serde_json::json!({ "path": "notes.txt" }))?;
//! assert!(!call.is_concurrency_safe() && !call.is_read_only() && call.is_destructive());
//!
//! // Old transcripts still call `cat`; it resolves to `read_file`.
//! let (read, _) = tools.resolve("cat").unwrap();
//!
//! // A call is parsed, then classified on its input, then run.
//! let call = read.prepare(serde_json::json!({ "path": "notes.txt" }))?;
//! // `read_only = true` and nothing said about `destructive`: not destructive.
//! assert!(call.is_concurrency_safe() && call.is_read_only() && !call.is_destructive());
//! let output = call.run(&ToolContext::new()).await?;
//! assert_eq!(output.as_str(), "hello");
//!
//! // A bad argument is an error naming the tool and the field, never a panic.
//! let err = read.prepare(serde_json::json!({ "path": 7 })).unwrap_err();
//! assert!(err.to_string().starts_with("invalid input for tool `read_file` at `path`"));
//! # Ok(())
//! # }
//! ```
//!
//! # What the attribute accepts
//!
//! See [`tool`](crate::tool) for every key. The safety-relevant ones default to the
//! strictest value, written in exactly one place
//! ([`SafetyPosture::DEFAULT`]), with one exception said plainly below:
//!
//! | key | unsaid means |
//! |---|---|
//! | `concurrency_safe` | `false`: the call runs alone |
//! | `read_only` | `false`: assumed to write |
//! | `destructive` | not read-only: `true`, unless `read_only` says the call only reads (evaluated per call when `read_only` is per input; MCP's own default) |
//! | `check_permissions` (trait hook) | delegated to the general permission policy |
//! | `max_result_chars` | 50,000 characters; `unbounded` only when written |
//! | `classifier_input` | empty: the safety classifier is **skipped**. Not a strict default: a convenience, so that tools need not all write classifier text; a tool whose calls a classifier should review must declare it |
//!
//! The three postures also take a posture expression over the parsed
//! input, evaluated per call: a function, or a closure capturing nothing,
//! of type `fn(&Input) -> bool`, such as
//! `concurrency_safe = |i: &RunInput| is_read_only(&i.command)`; one of the
//! wrong type is a compile error on the expression. (They are called
//! posture expressions; "classifier" is kept for the safety classifier that
//! reads `classifier_input`.) A posture expression that panics answers the strict way (not concurrency-safe, not
//! read-only, destructive); a declared `destructive` is independent of
//! `read_only`.
//!
//! # Tools made at run time
//!
//! MCP imports and tools from configuration go through [`ToolBuilder`],
//! which starts from the same defaults. A tool definition in MCP's own
//! shape (from a server's `tools/list`, or written down) is imported with
//! [`imported::DefinitionImport`], exactly as a live MCP import would.

pub(crate) mod blocks;
pub(crate) mod builder;
pub(crate) mod callers;
pub(crate) mod content;
pub(crate) mod context;
pub(crate) mod decision;
pub(crate) mod declared;
pub(crate) mod definition;
pub(crate) mod error;
pub(crate) mod exposure;
pub mod imported;
pub(crate) mod naming;
pub(crate) mod object_schema;
pub(crate) mod output;
pub(crate) mod posture;
#[cfg(test)]
mod posture_tests;
pub(crate) mod state;
pub(crate) mod tool;

pub use blocks::{Audio, ContentBlock, EmbeddedResource, Image, ResourceData, ResourceLink};
pub use builder::{BoxError, ToolBuilder};
pub use callers::Callers;
pub use content::PermissionContent;
pub use context::ToolContext;
pub use decision::PermissionDecision;
pub use definition::ToolSpec;
pub use definition::{Origin, RemoteOrigin};
pub use error::{DefinitionError, NameError, NameRole};
pub use exposure::{Exposure, Exposures};

pub use object_schema::ObjectSchemaError;
pub(crate) use object_schema::require_object_schema;
pub use output::{IntoToolOutput, Json, ToolOutput, Truncation};
pub use posture::{
    AccessKind, Loading, PostureField, PostureKind, PostureValue, ResultCap, SafetyPosture,
    Setting, Source,
};
pub use tool::{Tool, ToolInput};

/// A struct declared with `#[tool]`: what [`ToolHandle::new`](crate::input::ToolHandle::new)
/// accepts.
///
/// Only `#[tool]` implements it (the impl lives in its expansion, through a
/// doc-hidden module); a hand-written impl is not supported.
pub(crate) use declared::ToolDeclaration as DeclaredTool;
