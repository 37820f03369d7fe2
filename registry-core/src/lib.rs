//! Declare an LLM agent's tools once, with an attribute; get fail-closed
//! safety defaults, one authoritative tool list collected from every linked
//! crate, and per-call classification of what may run concurrently.
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
//! let tools = registry_core::try_all_base_tools(&registry_core::Flags::new())?;
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
//! See [`tool`] for every key. The safety-relevant ones default to the
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
//! input, evaluated per call:
//! `concurrency_safe = |i: &RunInput| is_read_only(&i.command)`. A posture
//! expression that panics answers the strict way (not concurrency-safe, not
//! read-only, destructive); a declared `destructive` is independent of
//! `read_only`.
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
//! [`BaseTools::explain_missing`] says "compiled out: `cfg(feature =
//! "web")`". A `#[cfg]` written on the struct itself also removes the tool,
//! but rustc evaluates it before `#[tool]` runs, so no record is left
//! (likewise a `#[cfg]` on the enclosing module). `flag = "NAME"` removes a
//! tool when the list is built without that [`Flags`] entry. Consumers
//! never repeat either condition.
//!
//! # Duplicate names fail the build
//!
//! Every name and alias a linked tool claims is also an exported marker
//! symbol (`registry_core$tool_name_or_alias$<name>`), so a binary that
//! links two crates claiming one name fails to link with "duplicate
//! symbol", and rust-lld names both definitions' files and lines. The
//! run-time check in [`try_all_base_tools`] stays: `cargo check` does not
//! link, a crate the binary never links cannot clash at link time, and
//! compiled-out tools have no symbol. A crate that must link a clash on
//! purpose (a test of the run-time report) opts out from its build script
//! with `cargo::rustc-cfg=registry_core_skip_link_check`.
//!
//! # Tools in other crates
//!
//! Tools from a dependency reach the list only if the binary links that
//! crate; write [`link!`]`(that_crate)` in the binary, and guard it in a
//! test with [`BaseTools::require_crates`].
//!
//! # Tools made at run time
//!
//! MCP imports and tools from configuration go through [`ToolBuilder`],
//! which starts from the same defaults.
//!
//! # From the list to what the model sees
//!
//! The list is narrowed per [`PermissionContext`] ([`tools`]: internal-only
//! tools, whole-tool deny rules, the [`Mode`], `enabled` self-checks), then
//! assembled with runtime plugin tools into a [`ToolPool`]: built-ins sorted,
//! plugins sorted, built-ins first and winning name clashes. Renders of a
//! pool are byte-stable and cached.
//!
//! ```standalone_crate
//! use registry_core::{
//!     AnthropicOptions, Flags, PermissionContext, RuleBehavior, RuleSource, Tool, ToolBuilder,
//!     ToolContext, ToolOutput, ToolRegistry, tool, try_all_base_tools,
//! };
//!
//! /// List a directory.
//! #[tool(name = "list_dir", read_only = true, concurrency_safe = true)]
//! struct ListDir;
//!
//! /// Run a shell command.
//! #[tool(name = "run_command")]
//! struct RunCommand;
//!
//! # #[derive(serde::Deserialize, schemars::JsonSchema)] struct Args {}
//! # macro_rules! body { ($t:ty) => { impl Tool for $t {
//! #     type Input = Args; type Output = String; type Error = std::convert::Infallible;
//! #     async fn call(&self, _: Args, _: &ToolContext) -> Result<String, Self::Error> { Ok(String::new()) }
//! # } } }
//! # body!(ListDir);
//! # body!(RunCommand);
//! let registry = ToolRegistry::new(try_all_base_tools(&Flags::new()).unwrap());
//!
//! // A plugin (say, an MCP server) adds a tool; dropping the guard removes it.
//! let search = ToolBuilder::new("mcp__docs__search", "Search the docs.")
//!     .read_only(true)
//!     .build(|_, _| async { Ok(ToolOutput::text("")) })
//!     .unwrap();
//! let guard = registry.plugins().register("docs", search).unwrap();
//!
//! // A project rule denies the shell outright: it leaves the pool.
//! let mut cx = PermissionContext::new();
//! cx.add_rule(RuleSource::Project, RuleBehavior::Deny, "run_command").unwrap();
//! let pool = registry.assemble_tool_pool(&cx);
//! let names: Vec<&str> = pool.iter().map(|t| t.name()).collect();
//! assert_eq!(names, ["list_dir", "mcp__docs__search"]);
//!
//! // Provider formats, byte-stable; a second render of the pool is a cache hit.
//! let anthropic = pool.render_anthropic(AnthropicOptions::new().with_cache_control(true));
//! assert!(anthropic.starts_with(r#"[{"cache_control":{"type":"ephemeral"},"description":"List a directory.""#));
//! assert!(std::sync::Arc::ptr_eq(&anthropic, &pool.render_anthropic(AnthropicOptions::new().with_cache_control(true))));
//! assert!(pool.render_prompt_catalog().starts_with("- list_dir: List a directory.\n"));
//!
//! drop(guard);
//! assert_eq!(registry.assemble_tool_pool(&cx).len(), 1);
//! ```
//!
//! # Deciding each call: the permission pipeline
//!
//! Assembly removed whole tools; at execution a [`PermissionPipeline`]
//! decides each parsed call against the *current* [`PermissionContext`]:
//! deny rules, then ask rules, then allow rules (`Tool`, `Tool(content)`,
//! `mcp__server`), the tool's own [`check_permissions`](Tool::check_permissions)
//! (its `Deny` always holds), and for what the tool delegates, the session's
//! [`PermissionMode`] (`default`, `accept_edits`, `plan`, `bypass`,
//! `dont_ask`, `auto`). An ask goes to the runtime's [`Approver`]; with none,
//! it is a deny whose reason says approval was needed. Content rules match
//! what the tool names with [`Tool::permission_content`] (a path, a
//! command); a tool that names nothing fails closed. The full order is in
//! the [`PermissionPipeline`] module docs.
//!
//! ```
//! use std::sync::Arc;
//! use registry_core::{
//!     AllowedBy, Approval, ApprovalRequest, Approver, Authorization, DeniedBy, JudgeFuture,
//!     PermissionContext, PermissionMode, PermissionPipeline, ToolBuilder, ToolContext, ToolOutput,
//! };
//!
//! /// Says "always" to everything (a real one asks a person).
//! struct Yes;
//! impl Approver for Yes {
//!     fn approve<'a>(&'a self, _: &'a ApprovalRequest) -> JudgeFuture<'a, Approval> {
//!         Box::pin(async { Approval::AllowAlways })
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let deploy = ToolBuilder::new("deploy", "Deploy the site.")
//!     .build(|_, _| async { Ok(ToolOutput::text("deployed")) })
//!     .unwrap();
//! let call = deploy.prepare(serde_json::json!({})).unwrap();
//! let (cx, tool_cx) = (PermissionContext::new(), ToolContext::new());
//!
//! // Not read-only: the default mode asks, and nobody can answer.
//! let alone = PermissionPipeline::new(PermissionMode::Default);
//! let answer = alone.authorize(&cx, &call, "call_1", &tool_cx).await;
//! assert!(matches!(answer, Authorization::Denied { by: DeniedBy::NoApprover, .. }));
//!
//! // With an approver, "always" grants the tool for the rest of the session.
//! let asked = PermissionPipeline::new(PermissionMode::Default).with_approver(Arc::new(Yes));
//! let first = asked.authorize(&cx, &call, "call_2", &tool_cx).await;
//! assert_eq!(first, Authorization::Allowed { by: AllowedBy::Approver });
//! let again = asked.authorize(&cx, &call, "call_3", &tool_cx).await;
//! assert_eq!(again, Authorization::Allowed { by: AllowedBy::SessionRule("deploy".into()) });
//!
//! // Plan mode refuses it outright, telling the model why.
//! let plan = PermissionPipeline::new(PermissionMode::Plan);
//! let answer = plan.authorize(&cx, &call, "call_4", &tool_cx).await;
//! assert!(answer.denial_reason().unwrap().starts_with("plan mode only runs read-only calls"));
//! # }
//! ```
//!
//! # Executing a turn
//!
//! An [`Executor`] runs a model's turn of calls against the pool of that
//! turn, and returns exactly one [`ToolCallResult`] per call, in call
//! order. Per call: the name is resolved (a name or alias in the pool runs;
//! a name some layer removed is refused with that layer, see [`Removed`]; a
//! deferred tool must first be discovered in the [`Session`]), the input is
//! parsed and classified on its value; the turn is planned into batches
//! ([`Plan`]: consecutive concurrency-safe calls run together, at most 10
//! at once by default, every other call alone; a tool that declares what
//! each call reads and writes, `access`, shares a batch with every call it
//! does not conflict with, see [`Access`] and [`AccessRule`]); then each call is
//! validated, authorized by the [`PermissionPipeline`] against the
//! *current* [`PermissionContext`], run (with its timeout, if any) and
//! capped. A panic, a timeout or a denial is that call's error result; the
//! others proceed. Dropping the turn's future drops every call in flight.
//!
//! ```standalone_crate
//! use std::sync::Arc;
//! use registry_core::{
//!     Executor, Flags, PermissionContext, PermissionMode, PermissionPipeline, Session, Tool,
//!     ToolCall, ToolContext, ToolRegistry, tool, try_all_base_tools,
//! };
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
//! let registry = Arc::new(ToolRegistry::new(try_all_base_tools(&Flags::new()).unwrap()));
//! let rules = PermissionContext::new();
//! let pool = registry.assemble_tool_pool(&rules);
//! let executor = Executor::new(
//!     registry,
//!     &pool,
//!     rules,
//!     // No approver: a call that needs one is denied.
//!     PermissionPipeline::new(PermissionMode::Default),
//!     Arc::new(Session::new()),
//! );
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
//!
//! # Guarding the catalog in CI
//!
//! With the crate feature `lock` (for test builds: a dev-dependency
//! feature), `registry_core::lock::check` compares the catalog with a
//! committed `tools.lock.json` and fails when a tool vanished, a definition
//! changed (the prompt cache would miss) or a posture was loosened.
//!
//! # Across processes: MCP
//!
//! With the crate feature `mcp`, `mcp::McpServer` serves a pool over MCP
//! (stdio or streamable HTTP; every call through the executor) and
//! `mcp::McpImport` registers an MCP server's tools as plugins named
//! `mcp__<server>__<tool>`, with the strict posture unless the server is
//! trusted. See the `registry_core::mcp` module.

#![warn(missing_docs)]

mod access;
// `#[tool]` expands to `::registry_core::...` paths; this lets the crate's
// own built-in (`tool_search`) use the macro too.
extern crate self as registry_core;

mod base_list;
mod builder;
mod canonical;
mod context;
mod definition;
mod error;
mod execute;
mod gate;
mod handle;
mod link;
mod located;
#[cfg(feature = "lock")]
pub mod lock;
#[cfg(feature = "mcp")]
pub mod mcp;
mod naming;
mod nulls;
mod output;
pub mod path;
mod permission;
mod plugins;
mod pool;
mod posture;
mod render;
mod schema;
pub mod search;
mod tool;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// A struct declared with `#[tool]`: what [`ToolHandle::new`] accepts.
///
/// Only `#[tool]` implements it (the impl lives in its expansion, through a
/// doc-hidden module); a hand-written impl is not supported.
pub use __private::ToolDeclaration as DeclaredTool;
pub use access::{Access, AccessMode, Conflict, Footprint, Namespace, Resource, Scope, Touch};
pub use base_list::{
    BaseTools, CompiledOut, FlaggedOff, Flags, Missing, all_base_tools, try_all_base_tools,
};
pub use builder::{BoxError, RuntimeToolError, ToolBuilder};
pub use canonical::{to_canonical_pretty, to_canonical_string};
pub use context::ToolContext;
pub use definition::{Declaration, Origin, RemoteOrigin, ToolSpec};
pub use error::{
    CatalogError, Claim, Collision, ContextError, DefinitionError, MAX_ERROR_MESSAGE_CHARS,
    MAX_ERROR_TEXT_CHARS, NameError, NameRole, ToolError, cap_error_text,
};
pub use execute::{
    AccessRule, Batch, BatchMode, BatchReason, CallClass, CallError, ConcurrencySafeRule,
    ConflictRule, ContextModifier, DEFAULT_MAX_CONCURRENCY, DEFAULT_PREVIEW_CHARS,
    DEFAULT_TURN_BUDGET_CHARS, ExecEvent, Executor, ExecutorConfig, OpenBatch, Plan, PlanItem,
    Session, SessionState, ToolCall, ToolCallResult, ToolMetrics, plan,
};
pub use gate::CfgPredicate;
pub use handle::{PreparedCall, ToolHandle};
pub use naming::{MAX_NAME_LEN, validate_name};
pub use output::{IntoToolOutput, Json, ToolOutput, Truncation};
pub use permission::{
    AllowedBy, Approval, ApprovalRequest, Approver, Authorization, ClassifierError,
    ClassifierRequest, ContentKind, ContentPattern, DeniedBy, JudgeFuture, Mode, ModeFilter,
    PermissionContent, PermissionContext, PermissionDecision, PermissionMode, PermissionPipeline,
    PermissionRule, RuleBehavior, RuleError, RuleSet, RuleSource, RuleTarget, SafetyClassifier,
    SafetyVerdict, UnknownPermissionMode, normalize_path,
};
pub use plugins::{PluginError, PluginGuard, PluginRegistry, PluginSnapshot, PluginTool};
pub use pool::{
    Partition, PoolEntry, Removed, ToolPool, ToolRegistry, assemble_tool_pool, merged_tools, tools,
};
pub use posture::{
    AccessKind, DeclaredAccess, Loading, Posture, PostureField, PostureKind, PostureValue,
    ResultCap, SafetyPosture, Setting, Source,
};
pub use render::mcp_output_schema;
pub use render::mcp_tool_json;
pub use render::{
    AnthropicOptions, SessionTools, StrictSchemaError, anthropic_tool, anthropic_tool_references,
    mcp_tool, openai_chat_tool, openai_responses_tool, openai_strict_schema, prompt_catalog_entry,
    provider_input_schema,
};
pub use schema::{ObjectSchemaError, require_object_schema};

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
///     access = |i: &Input| Access::write(Resource::path(&i.path)), // fn(&Input) -> Access: what a call touches
///     search_hint = "open view file",     // words for tool search
///     max_result_chars = 100_000,         // N >= 1 | unbounded
///     defer,                              // or always_load; not both
///     flag = "NAME",                      // runtime flag, checked when the list is built
///     enabled = path::to::check,          // fn() -> bool self-check
///     classifier_input = |i: &Input| i.command.clone(), // text for a safety classifier
///     user_facing_name = "Read file",     // a name for people
///     internal,                           // never in the ordinary pool
///     cfg(feature = "web"),               // compile-time gate the catalog remembers
///     crate = "::registry_core",          // if registry-core is renamed; must be absolute
/// )]
/// ```
///
/// The struct must be a non-generic struct; a unit struct is constructed
/// as itself, any other through `Default` (when the list is built, not at
/// program start). It must also implement [`Tool`]. Every mistake in the
/// attribute is reported in one compile, on the token at fault.
///
/// The input must be a struct with named fields (deriving `Deserialize`
/// and `JsonSchema`): every provider requires an object schema, and the
/// list refuses a tool whose `Input` renders anything else (a bare
/// `String`, an enum, an `Option`) with [`CatalogError::InputNotObject`].
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
pub use registry_macros::tool;
pub use tool::{Tool, ToolInput};

/// The text of a panic payload, for error messages.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "<non-string panic payload>".to_owned())
}
