//! From the catalog to what a model sees: narrowing the authoritative list
//! for one [`PermissionContext`](crate::permission::PermissionContext) (`narrow`:
//! internal-only tools, whole-tool deny rules, the pool-filtering mode,
//! `enabled` self-checks, in that order), cache-stable assembly with the
//! plugins registered now (`assemble`: a [`ToolPool`]) and the registry a
//! runtime keeps ([`ToolRegistry`]), which does both.
//!
//! Assembly sorts built-ins and plugins separately and puts built-ins
//! first, so adding, removing or renaming a plugin never changes the
//! rendered built-in prefix, and the provider's prompt cache keeps
//! hitting. A plugin never takes a built-in's name or alias, even one
//! narrowed out of this pool.
//!
//! Never does: decide a single call (the [`permission`](crate::permission)
//! pipeline does, at execution), render (the pool only caches what
//! [`render`](crate::render) produces), or iterate a hash map into
//! anything ordered.
//!
//! # From the list to what the model sees
//!
//! [`ToolRegistry::tools`] narrows the list for one context;
//! [`ToolRegistry::assemble_tool_pool`] adds the plugins registered now.
//! Renders of a pool are byte-stable and cached in the pool, so assemble a
//! new pool (and render it) when its inputs change: the plugin generation
//! ([`PluginRegistry::subscribe`](crate::catalog::PluginRegistry::subscribe)
//! says when) or the permission context (rules, mode), which is yours to
//! track. An executor assembles its pool when it is built
//! ([`ToolRegistry::executor`]).
//!
//! ```standalone_crate
//! use registry_core::{
//!     Flags, PermissionContext, Tool, ToolBuilder, ToolContext, ToolOutput, ToolRegistry,
//!     catalog::BaseTools, permission::{RuleBehavior, RuleSource},
//!     render::AnthropicOptions, tool,
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
//! let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).unwrap());
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

pub(crate) mod assemble;
pub(crate) mod narrow;
mod registry;

pub(crate) use assemble::Partition;
pub use assemble::{PoolEntry, ToolPool};
pub use narrow::Removed;
pub use registry::ToolRegistry;
