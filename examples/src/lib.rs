//! A working coding-agent tool set declared with `#[tool]`.
//!
//! Each tool is a struct carrying [`#[tool]`](registry_core::tool) and an
//! `impl Tool`: the attribute says what the tool is (name, description,
//! safety posture), the impl says what it does. Linking this crate is all it
//! takes for the tools to appear in
//! [`registry_core::catalog::BaseTools::linked`]:
//!
//! | tool | does | posture |
//! |---|---|---|
//! | [`read_file`](tools::read_file) (`Read`, `cat`) | numbered lines of a text file | read-only, concurrent |
//! | [`write_file`](tools::write_file) | create or overwrite a file | destructive, serial |
//! | [`edit_file`](tools::edit_file) | replace exact text in a file | writes, serial |
//! | [`list_dir`](tools::list_dir) | entries of a directory | read-only, concurrent |
//! | [`glob`](tools::glob) | paths matching a pattern | read-only, concurrent |
//! | [`grep`](tools::grep) | lines matching a regex | read-only, concurrent |
//! | [`run_command`](tools::run_command) | `sh -c` in the workspace | per input ([`command_safety`]) |
//! | [`todo_write`](tools::todo_write) | the session's plan | writes session state, serial |
//! | [`web_fetch`](tools::web_fetch) (feature `web`) | describes a GET request | read-only, concurrent, deferred |
//!
//! # The sandbox
//!
//! The file tools work in a [`Sandbox`] that the runtime puts into the
//! [`ToolContext`](registry_core::ToolContext). Paths are relative to its
//! root; a path that leaves it is denied by `check_permissions` and refused
//! again by `call`. A call without a sandbox fails with
//! [`SandboxError::Missing`]. What else the file tools refuse (FIFOs and
//! devices, writes into `.git`, over-long patterns) and why is listed in
//! [the `sandbox` module](sandbox#what-the-file-tools-refuse-and-why).
//!
//! ```
//! registry_core::link!(registry_examples);
//!
//! use registry_core::{Flags, ToolContext, catalog::BaseTools};
//! use registry_examples::Sandbox;
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let cx = Sandbox::new(dir.path())?.context();
//! let tools = BaseTools::linked(&Flags::new())?;
//!
//! let write = tools.get("write_file").ok_or("no write_file")?;
//! write.call_json(json!({"path": "a.txt", "content": "hello\n"}), &cx).await?;
//! let (read, _) = tools.resolve("cat").ok_or("no cat")?;
//! let out = read.call_json(json!({"path": "a.txt"}), &cx).await?;
//! assert_eq!(out.as_str(), "     1\thello\n");
//! # Ok(())
//! # }
//! ```
//!
//! # Errors
//!
//! Every tool has its own `thiserror` error enum; the runtime wraps it in
//! [`ToolError::Failed`](registry_core::ToolError::Failed), whose source can
//! be downcast back to the tool's type. Rules the JSON schema cannot express
//! (at most one todo in progress, a non-empty command) are checked in
//! `validate_input` with the same typed errors, rendered as text.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod command_safety;
pub mod demo_enforce;
pub mod demo_mcp;
pub mod demo_plan;
pub mod demo_policy;
pub mod demo_search;
pub mod sandbox;
pub mod tools;

pub use sandbox::{Sandbox, SandboxError};
