//! Declare an LLM agent's tools once, with an attribute; get fail-closed
//! safety defaults, one authoritative tool list collected from every linked
//! crate, a permission decision and a batch for every call, renders for
//! every provider, and MCP both ways.
//!
//! ```standalone_crate
//! use registry_core::{Flags, PermissionMode, Tool, ToolCall, ToolContext, ToolRegistry, tool};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct ReadInput {
//!     /// Path relative to the workspace.
//!     path: String,
//! }
//!
//! /// Read a UTF-8 file.
//! #[tool(name = "read_file", aliases = ["cat"], read_only = true, concurrency_safe = true)]
//! struct ReadFile;
//!
//! impl Tool for ReadFile {
//!     type Input = ReadInput;
//!     type Output = String;
//!     type Error = std::io::Error;
//!     async fn call(&self, input: ReadInput, _cx: &ToolContext) -> std::io::Result<String> {
//!         # if input.path == "notes.txt" { return Ok("hello".into()); }
//!         std::fs::read_to_string(input.path)
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), registry_core::catalog::CatalogError> {
//! let registry = ToolRegistry::new(registry_core::catalog::BaseTools::linked(&Flags::new())?);
//! let executor = registry.executor().mode(PermissionMode::Default).build();
//! let calls = vec![ToolCall::new("toolu_1", "cat", serde_json::json!({ "path": "notes.txt" }))];
//! assert_eq!(executor.run_turn(calls).await[0].content(), "hello");
//! # Ok(())
//! # }
//! ```
//!
//! # The pipeline
//!
//! The modules are the stages a tool goes through, in order; a stage uses
//! only the stages before it. Each module's docs say what it owns and what
//! it never does.
//!
//! 1. [`text`], [`path`], [`access`]: the vocabulary every stage shares
//!    (canonical JSON and capped error text; the one path resolver; what a
//!    call reads and writes).
//! 2. [`declare`]: what `#[tool]` and [`ToolBuilder`] produce: the [`Tool`]
//!    trait, definitions, the fail-closed safety posture, naming; tool
//!    definitions imported in MCP's shape ([`declare::imported`]).
//! 3. [`input`]: preparing one call: the type-erased [`ToolHandle`], parsing
//!    and locating a bad argument, [`ToolError`].
//! 4. [`catalog`]: the authoritative list of every linked `#[tool]` (gates,
//!    flags, collisions, [`link!`]), runtime plugins, the catalog lock.
//! 5. [`permission`]: rules, the [`PermissionContext`], the modes and the
//!    pipeline that decides each call.
//! 6. [`pool`]: narrowing and cache-stable assembly; the [`ToolRegistry`] a
//!    runtime keeps.
//! 7. [`render`]: Anthropic, OpenAI Chat and Responses, MCP, the prompt
//!    catalog; byte-stable and cached.
//! 8. [`session`]: everything per conversation: state, modifiers, deferral,
//!    metrics.
//! 9. [`execute`]: the [`Executor`] and its [`ExecutorBuilder`]: one model
//!    turn from [`ToolCall`]s to [`ToolCallResult`]s.
//! 10. [`search`]: the tool-search index and the `tool_search` built-in.
//! 11. [`provider`]: a provider's response in, the next request out
//!     (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses).
//! 12. `mcp` (feature `mcp`): serving a pool and importing servers' tools.
//!
//! The crate root holds only the names every user writes; everything else
//! is reached through its module. `serde`, `serde_json` and `schemars` are
//! re-exported for tool code; the derives still need `serde` and
//! `schemars` as direct dependencies (or their `crate = "..."` attribute).
//!
//! # Features
//!
//! - `mcp`: the `mcp` module (rmcp, hyper).
//! - `lock`: `catalog::lock`, the test-time check of a committed
//!   `tools.lock.json`; enable it for test builds only.

#![forbid(unsafe_code)]
// docs.rs builds with `--cfg docsrs` on nightly: feature-gated items say
// which feature they need.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![warn(unnameable_types)]

// `#[tool]` expands to `::registry_core::...` paths; this lets the crate's
// own built-in (`tool_search`) use the macro too.
extern crate self as registry_core;

// The stages, in pipeline order: a module may import only the ones above
// it (`tests/it/module_order.rs` checks every `crate::` path). One comment per
// stage keeps rustfmt from sorting them by name.

// Vocabulary every stage shares.
pub mod text;
// The one path resolver.
pub mod path;
// What a call reads and writes.
pub mod access;
// What a tool is.
pub mod declare;
// One call's arguments.
pub mod input;
// Every tool the program has.
pub mod catalog;
// Rules and the per-call decision.
pub mod permission;
// What one context may use.
pub mod pool;
// What each provider is sent.
pub mod render;
// Everything per conversation.
pub mod session;
// One model turn.
pub mod execute;
// Finding deferred tools.
pub mod search;
// From a provider's response to the next request.
pub mod provider;
// Across processes.
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

#[doc(no_inline)]
pub use {schemars, serde, serde_json};

pub use catalog::Flags;
pub use declare::{
    BoxError, Json, PermissionContent, PermissionDecision, Tool, ToolBuilder, ToolContext,
    ToolOutput,
};
pub use execute::{Executor, ExecutorBuilder, ToolCall, ToolCallResult};
pub use input::{ToolError, ToolHandle};
pub use permission::{PermissionContext, PermissionMode};
pub use pool::ToolRegistry;

/// Declares a tool on a struct.
///
/// ```text
/// #[tool(
///     name = "read_file",                 // required, ^[a-zA-Z0-9_-]{1,64}$
///     aliases = ["Read", "cat"],          // old names; same rule, no repeats, not the name
///     description = "...",                // overrides the doc comment (one of the two is required)
///     concurrency_safe = true,            // true | false | fn(&Input) -> bool: a fn path or closure
///     read_only = true,                   // true | false | fn(&Input) -> bool: a fn path or closure
///     destructive = false,                // true | false | fn(&Input) -> bool: a fn path or closure
///     access = |i: &Input| Access::write(AccessKey::path(&i.path)), // fn(&Input) -> Access: what a call touches
///     search_hint = "open view file",     // words for tool search
///     input_examples = [r#"{"path": "src/lib.rs"}"#], // JSON objects; checked against Input when the list is built
///     strict = true,                      // ask the provider to hold the model to the schema
///     max_result_chars = 100_000,         // N >= 1 | unbounded
///     defer,                              // or always_load; not both
///     flag = "NAME",                      // runtime flag, checked when the list is built
///     enabled = path::to::check,          // fn() -> bool self-check
///     classifier_input = |i: &Input| i.command.clone(), // text for a safety classifier
///     user_facing_name = "Read file",     // a name for people
///     allowed_callers = ["direct", "program"], // the model, programs (code mode), or both
///     idempotent = true,                  // a repeated call does nothing more (MCP's idempotentHint)
///     open_world = false,                 // calls stay within a closed set of things (MCP's openWorldHint)
///     rule_of_two = ["private_data"],     // what calls bring: untrusted_input, private_data, external_effect; [] for none
///     long_running,                       // served over MCP as a task to clients that negotiate Tasks
///     internal,                           // never in the ordinary pool
///     cfg(feature = "web"),               // compile-time gate the catalog remembers
///     crate = "::registry_core",          // if registry-core is renamed; must be absolute
/// )]
/// ```
///
/// The struct must be a non-generic struct; a unit struct is constructed
/// as itself, any other through `Default` (when the list is built, not at
/// program start). It must also implement [`Tool`]. Every mistake in the
/// attribute is reported in one compile, on the token at fault: a bad name,
/// a repeated alias, an unknown key, a missing description, a posture
/// expression of the wrong type (the expression is underlined).
///
/// The input must be a struct with named fields (deriving `Deserialize`
/// and `JsonSchema`): every provider requires an object schema, and the
/// list refuses a tool whose `Input` renders anything else (a bare
/// `String`, an enum, an `Option`) with
/// [`CatalogError::InputNotObject`](catalog::CatalogError::InputNotObject).
/// An input example that is not JSON, or not an object, is a compile error
/// on its literal; one the `Input` type refuses (a missing field, a wrong
/// type) fails the list with
/// [`DefinitionError::InputExample`](declare::DefinitionError::InputExample).
///
/// ```
/// use registry_core::{tool, Tool, ToolContext};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct ShellInput {
///     /// The command line.
///     command: String,
/// }
///
/// fn is_listing(input: &ShellInput) -> bool {
///     input.command.starts_with("ls")
/// }
///
/// /// Run a shell command.
/// #[tool(
///     name = "sh",
///     concurrency_safe = is_listing,
///     read_only = is_listing,
///     destructive = |i: &ShellInput| i.command.starts_with("rm"),
/// )]
/// struct Shell;
///
/// impl Tool for Shell {
///     type Input = ShellInput;
///     type Output = String;
///     type Error = std::convert::Infallible;
///     async fn call(&self, input: ShellInput, _cx: &ToolContext) -> Result<String, Self::Error> {
///         Ok(format!("would run {}", input.command))
///     }
/// }
///
/// let shell = registry_core::ToolHandle::new(Shell);
/// let call = |command: &str| shell.prepare(serde_json::json!({ "command": command })).unwrap();
/// assert!(call("ls -l").is_concurrency_safe());
/// assert!(!call("rm -rf /").is_concurrency_safe());
/// assert!(call("rm -rf /").is_destructive());
/// ```
///
/// # Reading the generated code
///
/// `#[tool]` writes the struct unchanged and one `const _: () = { ... };`
/// block: a (doc-hidden) `ToolDeclaration` impl holding only what the
/// attribute said, and an `inventory::submit!` that puts the tool in the
/// list. `cargo expand` shows it; without cargo-expand,
/// `RUSTC_BOOTSTRAP=1 cargo rustc -p <crate> --lib --profile=check -- -Zunpretty=expanded`
/// prints the same unformatted (`RUSTC_BOOTSTRAP` lets a stable toolchain
/// take `-Z`, `--profile=check` skips code generation). Snapshots of
/// expansions live in the repository's `tests/ui-cases/expand/`, the
/// compile-time diagnostics, one file per rule, in `tests/ui-cases/ui/`.
pub use registry_macros::tool;
