//! `write_file`: create a file or replace its contents.
//!
//! # Posture
//!
//! - `read_only = false`, declared rather than left to the default: writing
//!   is the point of the tool, and the table should show someone decided.
//! - `concurrency_safe = false`: two writes to one file race, and a read in
//!   the same batch could see either version.
//! - `destructive = true`, for every call. It would be more precise to call
//!   only overwrites destructive, but a posture is decided on the parsed
//!   input alone: the evaluator has no sandbox to look in, and even with one
//!   the file could appear between classification and the write. Saying
//!   "destructive" for a create is a harmless over-warning; saying "not
//!   destructive" for an overwrite would lose data without asking. The
//!   result still tells the model which of the two happened.
//! - Permission: `Deny` for a path outside the sandbox, otherwise
//!   [`PermissionDecision::Delegate`]: the path is fine, whether writing is
//!   allowed right now is for the general policy (a mode may ask first).

use std::io;

use registry_core::{PermissionDecision, Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::sandbox::{Sandbox, SandboxError, check_paths};

/// Create a file in the workspace, or replace the whole contents of an
/// existing one, with the given text. Missing parent directories are
/// created.
///
/// Arguments:
/// - `path`: the file, relative to the workspace root.
/// - `content`: the complete new contents.
///
/// Overwriting discards the old contents: to change part of a file, use
/// `edit_file`, or read the file first. The result says whether the file
/// was created or overwritten.
#[tool(
    name = "write_file",
    concurrency_safe = false,
    read_only = false,
    destructive = true,
    search_hint = "create save overwrite file"
)]
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteFile;

/// The arguments of `write_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileInput {
    /// Path of the file to write, relative to the workspace root.
    pub path: String,
    /// The complete new contents of the file.
    pub content: String,
}

/// Why `write_file` failed.
#[derive(Debug, thiserror::Error)]
pub enum WriteFileError {
    /// The path is not allowed, or there is no sandbox.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The path is a directory.
    #[error("`{path}` is a directory; give the path of a file inside it")]
    IsADirectory {
        /// The path as given.
        path: String,
    },
    /// Creating directories or writing failed.
    #[error("could not write `{path}`: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
}

impl Tool for WriteFile {
    type Input = WriteFileInput;
    type Output = String;
    type Error = WriteFileError;

    async fn call(
        &self,
        input: WriteFileInput,
        cx: &ToolContext,
    ) -> Result<String, WriteFileError> {
        let sandbox = Sandbox::from_context(cx)?;
        let full = sandbox.resolve(&input.path)?;
        let io_error = |source| WriteFileError::Io {
            path: input.path.clone(),
            source,
        };

        let previous = match tokio::fs::metadata(&full).await {
            Ok(metadata) if metadata.is_dir() => {
                return Err(WriteFileError::IsADirectory {
                    path: input.path.clone(),
                });
            }
            Ok(metadata) => Some(metadata.len()),
            Err(err) if err.kind() == io::ErrorKind::NotFound => None,
            Err(err) => return Err(io_error(err)),
        };
        if let Some(parent) = full.parent() {
            tokio::fs::create_dir_all(parent).await.map_err(io_error)?;
        }
        tokio::fs::write(&full, &input.content)
            .await
            .map_err(io_error)?;

        let lines = input.content.lines().count();
        let bytes = input.content.len();
        let shown = sandbox.display_path(&full);
        Ok(match previous {
            None => format!("created `{shown}` ({lines} line(s), {bytes} bytes)"),
            Some(old) => {
                format!("overwrote `{shown}` ({lines} line(s), {bytes} bytes; it had {old} bytes)")
            }
        })
    }

    fn check_permissions(&self, input: &WriteFileInput, cx: &ToolContext) -> PermissionDecision {
        check_paths(cx, [input.path.as_str()], PermissionDecision::Delegate)
    }
}
