//! MCP both ways (feature `mcp`, off by default:
//! `registry-core = { version = "0.1", features = ["mcp"] }`): serve a
//! tool pool as an MCP server, and import MCP servers' tools as plugins.
//! Built on `rmcp`, the official Rust SDK, over stdio, child processes and
//! streamable HTTP; tested against the official Python and TypeScript
//! SDKs and `server-everything`.
//!
//! ```no_run
//! use registry_core::mcp::{HttpOptions, McpImport, McpServer, McpServerConfig};
//! use registry_core::{Flags, PermissionMode, ToolRegistry, catalog::BaseTools};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = ToolRegistry::new(BaseTools::linked(&Flags::new())?);
//! // Another server's tools join this registry as plugins, `mcp__notes__*`...
//! let notes = McpServerConfig::command("notes", "notes-mcp", ["--stdio"]);
//! let _import = McpImport::connect(registry.plugins(), notes).await?;
//! // ...and the whole pool is served, every call through the executor.
//! let server = McpServer::new(registry.executor().mode(PermissionMode::Default));
//! let addr = "127.0.0.1:8080".parse()?;
//! let _http = server.serve_http(HttpOptions::new(addr).bearer_token("secret")).await?;
//! server.serve_stdio().await?;
//! # Ok(())
//! # }
//! ```
//!
//! # Serving
//!
//! [`McpServer`] answers `tools/list` with the MCP render of the pool
//! ([`ToolPool::render_mcp_tools_list`](crate::pool::ToolPool::render_mcp_tools_list),
//! paginated) and runs `tools/call` through the [`Executor`](crate::execute::Executor),
//! so deny rules, the permission mode, caps and timeouts apply exactly as
//! for a model's own calls. Serve it with [`McpServer::serve_stdio`],
//! [`McpServer::serve_io`] or [`McpServer::serve_http`] (optionally behind
//! a bearer token).
//!
//! - [`McpServer::with_client_approvals`]: an ask goes to the client's
//!   user through elicitation (a 2025 session's `elicitation/create`, a
//!   2026-07-28 input-required result), and an "always" holds for the
//!   conversation.
//! - [`McpServer::with_deferral`]: deferred tools stay out of a
//!   conversation's `tools/list` until its `tool_search` finds them.
//! - A tool declared [`long_running`](crate::declare::ToolSpec::long_running)
//!   (`#[tool(long_running)]`) is run as a task for a client that
//!   declares the Tasks extension (`io.modelcontextprotocol/tasks`): the
//!   client gets a handle at once and polls `tasks/get`; an ask goes
//!   through the task (`input_required`, answered with `tasks/update`);
//!   `tasks/cancel` cancels the tool. Every other client gets the same
//!   call as an ordinary one. A task nobody polls within 10 s of its
//!   creation is cancelled (its client never got the handle).
//! - [`McpServer::with_session_store`]: replicas behind a load balancer
//!   share every conversation (records, answers relayed to the replica
//!   that asked, SSE events for replay). A 2026-07-28 request, which has
//!   no session, names its conversation by the handle under
//!   `"tool-registry.dev/conversation"` in `_meta` (the key under which
//!   the server hands the handle out in a result's `_meta`). The deployment, what is stored
//!   and what a client sees when a part fails are on the "Serving on many
//!   machines" page (`docs/serving.md`).
//!
//! # Importing
//!
//! [`McpImport::connect`] reaches a server ([`McpServerConfig::command`],
//! [`McpServerConfig::http`]), lists every page of its tools and registers
//! each in a [`PluginRegistry`](crate::catalog::PluginRegistry) owned by the server:
//!
//! - named `mcp__<server>__<tool>`, made safe for every provider: each
//!   character outside `[a-zA-Z0-9_-]` becomes `_`, and a hash of the
//!   original names is appended when anything was replaced or the name
//!   would pass 64 characters (the server's own name is kept for the
//!   call, [`RemoteOrigin`](crate::declare::RemoteOrigin));
//! - described by the server's description, cut at 2,048 characters with
//!   a marker;
//! - with the strictest posture (not read-only, not concurrency-safe,
//!   destructive) unless the server is configured as trusted
//!   ([`McpServerConfig::trusted`]);
//! - matched by content rules (`mcp__srv__tool(...)`) against its
//!   arguments as canonical JSON (keys sorted, no spaces), so the same
//!   arguments always give the same text;
//! - deferred unless its `_meta` sets `"anthropic/alwaysLoad": true`;
//! - callable when the server runs it as a task (the Tasks extension,
//!   which the import declares): a 2026-07-28 server's task is polled with
//!   `tasks/get`; a 2025-11-25 tool listed with `execution.taskSupport:
//!   "required"` is called with `params.task`, polled, and its result read
//!   with `tasks/result`. The task's status messages are the call's
//!   progress (`ExecEvent::Progress`), each poll is answered within the
//!   call timeout and the whole call within its hard limit, and a call
//!   that stops waiting cancels its task (`tasks/cancel`);
//! - refused, alone and with a logged reason ([`McpImport::refused`]),
//!   when its input schema is not a well-formed object schema or its name
//!   collides after normalisation.
//!
//! Every listed tool is made by
//! [`DefinitionImport`](crate::declare::imported::DefinitionImport), which
//! also imports a definition without a connection (from a file, a cached
//! `tools/list`) into exactly the same tool.
//!
//! A runtime with many servers need not start them all before its first
//! turn: [`McpImport::manifest`] is a server's listing as a versioned,
//! byte-stable JSON record ([`McpManifest`], with a digest that refuses an
//! edited file as a typed [`ManifestError`]), and [`McpImport::lazy`]
//! registers a manifest's tools, exactly as the live listing would, with
//! no server running. The first call of one of them starts the server
//! (once, however many calls race), lists its tools and checks them
//! against the manifest: the registrations follow the server, and any
//! difference is logged and kept ([`McpImport::manifest_drift`]). A start
//! that fails is that call's error result, retried by a later call after
//! a backoff ([`McpServerConfig::start_backoff`]); a server that exits is
//! started again by the next call, its tools registered all along.
//!
//! # What a hostile server costs
//!
//! Every message a server sends is read by a guard before rmcp parses
//! it: a line of a child's stdout or an in-process stream, and over
//! streamable HTTP each JSON body and each SSE event (the import reads
//! the answers to its POSTs itself, through the same checks). A message
//! is held whole only up to 16 MiB (rmcp's own limit; a longer one is
//! read through and not kept, or over HTTP not read further), and an
//! answer that is too big, lists more than 10,000 tools, is not UTF-8,
//! not JSON, nested past 128 levels or not shaped as an MCP message
//! fails its request at once with an error saying which, instead of
//! leaving it to time out; the connection stays up. Over HTTP, anything
//! unreadable on the SSE stream that answers a POST is taken as that
//! request's answer (the stream is closed there), and a JSON body that
//! answers no request in flight (or none) fails the request it was posted
//! for. Answers to
//! ids this client never sent are dropped. A listing stops at 1,000
//! pages, at a cursor that comes back, and at 10,000 tools; a flood of
//! `list_changed` runs one refresh at a time with at most one waiting.
//! A server that sends nothing, or stops halfway through an answer,
//! costs that call its timeout ([`McpServerConfig::call_timeout`]).
//! `tests/tests/hostile_mcp.rs` (stdio) and `hostile_mcp_http.rs` (HTTP,
//! JSON and SSE answers) hold each case to 5 s and 64 MiB of peak
//! memory, with other servers unaffected.
//!
//! # Lifecycle
//!
//! A `list_changed` notification re-lists and re-registers the server's
//! tools (the plugin generation moves, so a server re-serving the pool
//! tells its own clients). When the server exits or the connection
//! breaks, its tools are unregistered by owner and calls in flight fail at
//! once with an error result; every call also has a timeout
//! ([`McpServerConfig::call_timeout`]). Over HTTP, where nothing signals a
//! vanished server, imports ping it ([`McpServerConfig::heartbeat`]) and
//! can reconnect with a backoff ([`McpServerConfig::reconnect`]).
//!
//! # Errors
//!
//! Everything fails with an [`McpError`] naming the step and the server.
//! Why connecting failed is a [`ConnectError`] (a refused or missing
//! bearer token with its HTTP status, a refused connection, a name that
//! does not resolve, no MCP endpoint, another HTTP status, a handshake
//! timeout, a child that exited, with its [`ChildReport`]); why listing
//! failed is a [`ListError`]; why serving a client failed is a
//! [`ServeError`]. They are told apart by rmcp's error types and HTTP
//! statuses, never by error text, so a caller can match on them; their
//! `Display` is meant for a user.
//!
//! # What this module never does
//!
//! Never does: decide permissions (the executor and its pipeline do), trust a remote
//! server's hints unless told to, or let `rmcp` types into its public
//! signatures: everything here takes and returns this crate's types and
//! tokio streams.

mod approval;
mod child;
mod code_listing;
mod content;
mod error;
mod guard;
mod http;
mod import;
mod replicas;
mod server;
mod shared;

pub use child::{ChildReport, StderrTo};
pub use error::{ConnectError, ListError, McpError, ServeError};
pub use http::{HttpOptions, HttpServerHandle};
pub use import::{ManifestDrift, ManifestError, McpImport, McpManifest, McpServerConfig};
pub use server::McpServer;
