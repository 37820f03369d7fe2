//! `write_file`: create a file or replace its contents.
//!
//! # Posture
//!
//! - `read_only = false`, declared rather than left to the default: writing
//!   is the point of the tool, and the table should show someone decided.
//! - `concurrency_safe = false`: two writes to one file race, and a read in
//!   the same batch could see either version.
//! - `access`: writes its `path`. That, not `concurrency_safe`, decides
//!   batching: writes of different files share a batch, while a write and
//!   any other access to the same file (or to a directory above it) keep
//!   the model's order.
//! - `destructive = true`, for every call. It would be more precise to call
//!   only overwrites destructive, but a posture is decided on the parsed
//!   input alone: the evaluator has no sandbox to look in, and even with one
//!   the file could appear between classification and the write. Saying
//!   "destructive" for a create is a harmless over-warning; saying "not
//!   destructive" for an overwrite would lose data without asking. The
//!   result still tells the model which of the two happened.
//! - Permission: `Deny` for a path outside the sandbox or inside git's
//!   internals, otherwise [`PermissionDecision::Delegate`]: the path is
//!   fine, whether writing is allowed right now is for the general policy
//!   (a mode may ask first).
//! - Permission content: the path, normalised lexically, so content
//!   rules such as `write_file(.env)` apply (a deny or ask rule is checked
//!   before the tool's own `Allow`).
//! - Only regular files are written: a FIFO, socket or device at the path
//!   is refused without being truncated or blocked on, and a symlink
//!   swapped in for the file after the check is not followed (see
//!   [the sandbox](crate::sandbox#what-the-file-tools-refuse-and-why)).
//! - No partial files: an overwrite goes through a temporary file in the
//!   same directory, renamed over the original once complete (permission
//!   bits kept), and a created file is removed if writing it fails.

use std::io::{self, Write};
use std::path::Path;

use registry_core::{
    PermissionContent, PermissionDecision, Tool, ToolContext,
    access::{Access, AccessKey},
    tool,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::sandbox::{
    OpenError, OpenFailure, Sandbox, SandboxError, check_path_argument, check_write_paths,
    open_regular, replace_contents, shown,
};
// `Access` here is the resource access a call declares; the sandbox's
// open mode goes by another name.
use crate::sandbox::Access as OpenMode;

/// The largest `content` `write_file` writes, in bytes: the same limit as
/// [`MAX_EDIT_BYTES`](crate::tools::edit_file::MAX_EDIT_BYTES), so a file
/// one tool writes can be edited by the other. The model writes the
/// content, so without a limit one call could fill the disk.
pub const MAX_WRITE_BYTES: u64 = crate::tools::edit_file::MAX_EDIT_BYTES;

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
/// was created or overwritten. Files inside `.git` (git's internal files),
/// special files (FIFOs, devices) and `content` over 16 MiB are refused.
#[tool(
    name = "write_file",
    concurrency_safe = false,
    read_only = false,
    destructive = true,
    access = |i: &WriteFileInput| Access::write(AccessKey::path(&i.path)),
    search_hint = "create save overwrite file",
    // The workspace (or the conversation) is a closed world: MCP clients
    // are told so (`openWorldHint: false`).
    open_world = false,
    rule_of_two = ["external_effect"],
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
    /// `content` is longer than [`MAX_WRITE_BYTES`].
    #[error("`{field}` is {size} bytes long; write_file writes files up to {max} bytes")]
    TooLarge {
        /// The argument that is too large (`content`).
        field: &'static str,
        /// Its size in bytes.
        size: u64,
        /// The limit.
        max: u64,
    },
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
    /// The background write did not finish (it panicked or was cancelled).
    #[error("the write did not finish: {0}")]
    Write(#[from] tokio::task::JoinError),
}

/// A missing file is created, so "not found" is only ever an I/O error
/// here (a parent removed mid-write): the default of the trait.
impl OpenFailure for WriteFileError {
    fn is_a_directory(path: String) -> Self {
        WriteFileError::IsADirectory { path }
    }

    fn io(path: String, source: io::Error) -> Self {
        WriteFileError::Io { path, source }
    }
}

impl WriteFileInput {
    /// The checks that need no file system, cheapest first: a path no
    /// system call takes (over `PATH_MAX`) is refused by its length alone,
    /// before the permission pipeline normalises, matches or resolves it.
    fn check(&self) -> Result<(), WriteFileError> {
        check_path_argument("path", &self.path)?;
        let size = u64::try_from(self.content.len()).unwrap_or(u64::MAX);
        if size > MAX_WRITE_BYTES {
            return Err(WriteFileError::TooLarge {
                field: "content",
                size,
                max: MAX_WRITE_BYTES,
            });
        }
        Ok(())
    }
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
        input.check()?;
        let sandbox = Sandbox::from_context(cx)?;
        let full = sandbox.resolve_for_write(&input.path)?;
        let shown_path = sandbox.display_path(&full);
        let lines = input.content.lines().count();
        let bytes = input.content.len();
        let previous =
            tokio::task::spawn_blocking(move || write(&full, &input.path, &input.content))
                .await??;
        Ok(match previous {
            None => format!("created `{shown_path}` ({lines} line(s), {bytes} bytes)"),
            Some(old) => format!(
                "overwrote `{shown_path}` ({lines} line(s), {bytes} bytes; it had {old} bytes)"
            ),
        })
    }

    fn validate_input(&self, input: &WriteFileInput, _cx: &ToolContext) -> Result<(), Self::Error> {
        input.check()
    }

    fn check_permissions(&self, input: &WriteFileInput, cx: &ToolContext) -> PermissionDecision {
        check_write_paths(cx, [input.path.as_str()], PermissionDecision::Delegate)
    }

    /// The path, so rules like `write_file(src/*)` apply; the pipeline matches it as written
    /// (normalised lexically) and as resolved against the sandbox root.
    fn permission_content(&self, input: &WriteFileInput) -> Option<PermissionContent> {
        Some(PermissionContent::path(&input.path))
    }
}

/// Writes `content` to the regular file at `full`, creating it (and its
/// parents) if needed; the size it had before, `None` if it was created.
///
/// An existing file is checked through the descriptor `open_regular` gives
/// (regular, writable) and then replaced through a temporary file renamed
/// over it, so a failed write leaves the old contents. A new file is
/// created exclusively and removed again if writing it fails, so a failed
/// call leaves nothing behind either way.
fn write(full: &Path, path: &str, content: &str) -> Result<Option<u64>, WriteFileError> {
    let io_error = |source| WriteFileError::Io {
        path: shown(path),
        source,
    };
    let refused = |err: OpenError| err.into_tool_error::<WriteFileError>(path);
    match open_regular(full, OpenMode::ReadWrite) {
        Ok(original) => {
            let old = original.metadata().map_err(io_error)?.len();
            replace_contents(full, &original, |out| out.write_all(content.as_bytes()))
                .map_err(io_error)?;
            Ok(Some(old))
        }
        Err(OpenError::Io(err)) if err.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = full.parent() {
                std::fs::create_dir_all(parent).map_err(io_error)?;
            }
            let mut file = open_regular(full, OpenMode::CreateNew).map_err(refused)?;
            let written = file
                .write_all(content.as_bytes())
                .and_then(|()| file.sync_all());
            if let Err(err) = written {
                // Ours alone: it was created exclusively just now.
                drop(file);
                let _ = std::fs::remove_file(full);
                return Err(io_error(err));
            }
            Ok(None)
        }
        Err(err) => Err(refused(err)),
    }
}
