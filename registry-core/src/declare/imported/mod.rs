//! Tools someone else defined: an MCP tool definition (one entry of a
//! server's `tools/list` result), from a live server or from a file,
//! becomes a tool with this crate's fail-closed defaults.
//!
//! Owns: the typed definition ([`RemoteToolDefinition`],
//! [`RemoteAnnotations`]), the naming of imported tools
//! ([`imported_tool_name`], [`server_segment`], `imported_description`:
//! `mcp__<server>__<tool>`, safe for every provider, stable across
//! processes), what annotations may change (`ImportedPosture`,
//! `ALWAYS_LOAD_META_KEY`) and the one function that puts them together
//! ([`DefinitionImport`], its errors [`ImportError`]). `mcp::McpImport`
//! (feature `mcp`) makes every tool a live server lists through
//! [`DefinitionImport`], so a definition imported here is the tool a
//! connection would have made, with a handler of the caller's choosing
//! in place of the connection.
//!
//! Never does: talk to a server, believe a server's safety hints unless
//! told the server is trusted, or register anything (the caller registers
//! the handle, usually as a plugin owned by the server's
//! [`server_segment`]). Finishing a declaration into a handle
//! ([`DefinitionImport::import`]) lives in [`input`](crate::input), next
//! to [`ToolBuilder::build`](crate::declare::ToolBuilder::build).
//!
//! ```
//! use registry_core::declare::imported::{DefinitionImport, RemoteToolDefinition, server_segment};
//! use registry_core::{Flags, PermissionContext, ToolContext, ToolOutput, ToolRegistry};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A page of a server's `tools/list` result, as it came over the wire.
//! let page: serde_json::Value = serde_json::from_str(r#"{ "tools": [
//!     { "name": "search", "title": "Search notes",
//!       "description": "Find notes containing `q`.",
//!       "inputSchema": { "type": "object",
//!                        "properties": { "q": { "type": "string" } }, "required": ["q"] },
//!       "annotations": { "readOnlyHint": true },
//!       "_meta": { "anthropic/alwaysLoad": true } },
//!     { "name": "delete note", "inputSchema": { "type": "object" } }
//! ] }"#)?;
//! let definitions: Vec<RemoteToolDefinition> = serde_json::from_value(page["tools"].clone())?;
//!
//! let registry = ToolRegistry::new(registry_core::catalog::BaseTools::linked(&Flags::new())?);
//! let import = DefinitionImport::new("notes").trusted(true);
//! let mut guards = Vec::new();
//! for definition in &definitions {
//!     let remote = definition.name.clone();
//!     // What a call does: here, answer in-process instead of over MCP.
//!     let handle = import.import(definition, move |args, _cx| {
//!         let remote = remote.clone();
//!         async move { Ok(ToolOutput::text(format!("{remote} {args}"))) }
//!     })?;
//!     guards.push(registry.plugins().register(server_segment("notes"), handle)?);
//! }
//!
//! let pool = registry.assemble_tool_pool(&PermissionContext::new());
//! let search = pool.get("mcp__notes__search").expect("imported");
//! assert_eq!(search.spec().user_facing_name(), "Search notes");
//! assert_eq!(search.spec().remote_origin().map(|o| o.tool()), Some("search"));
//! let call = search.prepare(json!({ "q": "milk" }))?;
//! assert!(call.is_read_only() && call.is_concurrency_safe());
//! let output = search.call_json(json!({ "q": "milk" }), &ToolContext::new()).await?;
//! assert_eq!(output.as_str(), r#"search {"q":"milk"}"#);
//!
//! // A name no provider accepts is made safe, with a hash of the original;
//! // a tool the server said nothing about gets the strictest posture.
//! let delete = pool.iter().find(|t| t.name().starts_with("mcp__notes__delete_note-"));
//! let delete = delete.expect("imported under a safe name");
//! assert!(delete.prepare(json!({}))?.is_destructive());
//! # Ok(())
//! # }
//! ```

mod definition;
mod import;
mod naming;
mod posture;

pub use definition::{RemoteAnnotations, RemoteToolDefinition};
pub use import::{DefinitionImport, ImportError};
#[cfg_attr(not(feature = "mcp"), allow(unused_imports))]
pub(crate) use naming::bounded_description;
pub use naming::{imported_tool_name, server_segment};
