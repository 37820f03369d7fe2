//! `edit_file`: replace an exact piece of text in a file.
//!
//! # Posture
//!
//! - `read_only = false`: it rewrites the file.
//! - `concurrency_safe = false`: it reads, changes and writes back the
//!   whole file; two edits of one file in parallel would lose one of them,
//!   and a read in the same batch could see either version.
//! - `access`: writes its `path`. Batching follows it rather than
//!   `concurrency_safe`, so ten edits of ten files run as one batch, while
//!   two edits of one file (or an edit and a read of it, or a listing of
//!   its directory) keep the model's order.
//! - `destructive = false`, declared: the change is exactly what the input
//!   spells out (`old_string` becomes `new_string`), the call fails rather
//!   than guess when `old_string` is missing or ambiguous, and nothing else
//!   in the file is touched. Compare `write_file`, which can discard a whole
//!   file the model never looked at.
//! - Permission: as `write_file`: `Deny` outside the sandbox and inside
//!   git's internals, otherwise [`PermissionDecision::Delegate`] to the
//!   general policy.
//! - Permission content: the path, normalised lexically, so content
//!   rules such as `edit_file(src/*.rs)` apply (a deny or ask rule is checked
//!   before the tool's own `Allow`).
//! - Only regular files are edited: FIFOs, sockets and devices are refused
//!   before they are read (see
//!   [the sandbox](crate::sandbox#what-the-file-tools-refuse-and-why)).
//! - The edited text is written to a temporary file in the same directory
//!   and renamed over the original, so a failed write (a full disk) leaves
//!   the original unchanged. The file keeps its permission bits; it is a
//!   new inode, so hard links to it keep the old text.

use std::io::{self, Read, Write};
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

/// The largest file `edit_file` reads, and the largest it writes: an edit
/// holds the file and its edited copy in memory, so the limit bounds what
/// one call can cost. The size of the result is computed from the counts
/// before anything is replaced, since `replace_all` with a long
/// `new_string` multiplies it (a 200 KB file of `a` with `a` replaced by
/// 100 characters would be 20 MB).
pub const MAX_EDIT_BYTES: u64 = 16 * 1024 * 1024;

/// Replace an exact piece of text in a workspace file.
///
/// Arguments:
/// - `path`: the file, relative to the workspace root.
/// - `old_string`: the text to replace, copied exactly, including
///   indentation and line breaks.
/// - `new_string`: the text to put in its place (must differ).
/// - `replace_all` (optional, default false): replace every occurrence.
///
/// Without `replace_all`, `old_string` must occur exactly once: if it is
/// missing or occurs several times the call fails and nothing changes, so
/// include enough surrounding lines to make it unique. Files inside `.git`
/// (git's internal files) and special files (FIFOs, devices) are refused,
/// and so are files, and edits, over 16 MiB.
#[tool(
    name = "edit_file",
    concurrency_safe = false,
    read_only = false,
    destructive = false,
    access = |i: &EditFileInput| Access::write(AccessKey::path(&i.path)),
    search_hint = "modify change replace text in file",
    // The workspace (or the conversation) is a closed world: MCP clients
    // are told so (`openWorldHint: false`).
    open_world = false,
    rule_of_two = ["external_effect"],
)]
#[derive(Debug, Clone, Copy, Default)]
pub struct EditFile;

/// The arguments of `edit_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileInput {
    /// Path of the file to edit, relative to the workspace root.
    pub path: String,
    /// The exact text to replace, including whitespace and line breaks.
    pub old_string: String,
    /// The text to put in place of `old_string`; must differ from it.
    pub new_string: String,
    /// Replace every occurrence of `old_string` instead of requiring exactly
    /// one. Defaults to false.
    #[serde(default)]
    pub replace_all: bool,
}

/// Why `edit_file` failed. The file is unchanged in every case.
#[derive(Debug, thiserror::Error)]
pub enum EditFileError {
    /// The path is not allowed, or there is no sandbox.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// `old_string` is empty.
    #[error("`old_string` is empty; give the exact text to replace")]
    EmptyOldString,
    /// `old_string` equals `new_string`.
    #[error("`old_string` and `new_string` are the same; the edit would change nothing")]
    NoChange,
    /// Nothing exists at the path.
    #[error("file `{path}` does not exist; use write_file to create it")]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// The path is a directory.
    #[error("`{path}` is a directory, not a file")]
    IsADirectory {
        /// The path as given.
        path: String,
    },
    /// The file is not UTF-8 text.
    #[error("file `{path}` is not UTF-8 text")]
    NotUtf8 {
        /// The path as given.
        path: String,
    },
    /// The file is larger than [`MAX_EDIT_BYTES`].
    #[error("file `{path}` has {size} bytes; edit_file only edits files up to {max} bytes")]
    TooLarge {
        /// The path as given.
        path: String,
        /// Its size in bytes (at least).
        size: u64,
        /// The limit.
        max: u64,
    },
    /// The edited file would be larger than [`MAX_EDIT_BYTES`]: `new_string`
    /// is too long, or too long for the number of occurrences replaced.
    #[error(
        "`{field}` would make `{path}` {size} bytes long; edit_file writes files up to {max} bytes: use a shorter `{field}` or replace fewer occurrences"
    )]
    ResultTooLarge {
        /// The path as given.
        path: String,
        /// The argument that makes the result too large (`new_string`).
        field: &'static str,
        /// The size the edited file would have (at least), in bytes.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// `old_string` does not occur in the file.
    #[error(
        "`old_string` does not occur in `{path}`; read the file and copy the text exactly, including whitespace"
    )]
    OldStringNotFound {
        /// The path as given.
        path: String,
    },
    /// `old_string` occurs more than once and `replace_all` is false.
    #[error(
        "`old_string` occurs {count} times in `{path}`; include more surrounding text to make it unique, or set `replace_all` to true"
    )]
    Ambiguous {
        /// The path as given.
        path: String,
        /// How many times it occurs.
        count: usize,
    },
    /// Reading or writing failed.
    #[error("could not edit `{path}`: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The background edit did not finish (it panicked or was cancelled).
    #[error("the edit did not finish: {0}")]
    Edit(#[from] tokio::task::JoinError),
}

impl OpenFailure for EditFileError {
    fn is_a_directory(path: String) -> Self {
        EditFileError::IsADirectory { path }
    }

    fn not_found(path: String, _source: io::Error) -> Self {
        EditFileError::NotFound { path }
    }

    fn io(path: String, source: io::Error) -> Self {
        EditFileError::Io { path, source }
    }
}

impl EditFileInput {
    /// The checks that need no file system, cheapest first: a path no
    /// system call takes (over `PATH_MAX`) is refused by its length alone,
    /// before the permission pipeline normalises, matches or resolves it.
    fn check(&self) -> Result<(), EditFileError> {
        check_path_argument("path", &self.path)?;
        if self.old_string.is_empty() {
            return Err(EditFileError::EmptyOldString);
        }
        if self.old_string == self.new_string {
            return Err(EditFileError::NoChange);
        }
        // The edited file holds `new_string` at least once: refused before
        // the file is even read.
        let new_len = u64::try_from(self.new_string.len()).unwrap_or(u64::MAX);
        if new_len > MAX_EDIT_BYTES {
            return Err(self.result_too_large(new_len));
        }
        Ok(())
    }

    fn result_too_large(&self, size: u64) -> EditFileError {
        EditFileError::ResultTooLarge {
            path: shown(&self.path),
            field: "new_string",
            size,
            max: MAX_EDIT_BYTES,
        }
    }
}

/// The size of a text of `len` bytes once `count` occurrences of a
/// `old`-byte string are replaced by a `new`-byte one; `None` when it does
/// not fit in a `u64` (which is past any limit anyway).
fn edited_len(len: usize, count: usize, old: usize, new: usize) -> Option<u64> {
    let [len, count, old, new] = [len, count, old, new].map(|n| u64::try_from(n).ok());
    let (count, len) = (count?, len?);
    len.checked_sub(count.checked_mul(old?)?)?
        .checked_add(count.checked_mul(new?)?)
}

impl Tool for EditFile {
    type Input = EditFileInput;
    type Output = String;
    type Error = EditFileError;

    async fn call(&self, input: EditFileInput, cx: &ToolContext) -> Result<String, EditFileError> {
        input.check()?;
        let sandbox = Sandbox::from_context(cx)?;
        let full = sandbox.resolve_for_write(&input.path)?;
        let shown_path = sandbox.display_path(&full);
        let count = tokio::task::spawn_blocking(move || edit(&full, &input)).await??;
        Ok(if count == 1 {
            format!("edited `{shown_path}`: replaced 1 occurrence")
        } else {
            format!("edited `{shown_path}`: replaced {count} occurrences")
        })
    }

    fn validate_input(&self, input: &EditFileInput, _cx: &ToolContext) -> Result<(), Self::Error> {
        input.check()
    }

    fn check_permissions(&self, input: &EditFileInput, cx: &ToolContext) -> PermissionDecision {
        check_write_paths(cx, [input.path.as_str()], PermissionDecision::Delegate)
    }

    /// The path, so rules like `edit_file(src/*)` apply; the pipeline matches it as written
    /// (normalised lexically) and as resolved against the sandbox root.
    fn permission_content(&self, input: &EditFileInput) -> Option<PermissionContent> {
        Some(PermissionContent::path(&input.path))
    }
}

/// Applies the edit to the regular file at `full`; how many occurrences
/// were replaced. The file is read through the descriptor that was checked
/// (a regular file, writable), and the edited text replaces it through a
/// temporary file renamed over it, so it is whole before or after, never
/// in between.
fn edit(full: &Path, input: &EditFileInput) -> Result<usize, EditFileError> {
    let path = || shown(&input.path);
    let io_error =
        |source: io::Error| OpenError::from(source).into_tool_error::<EditFileError>(&input.path);
    let mut file = open_regular(full, OpenMode::ReadWrite)
        .map_err(|err| err.into_tool_error::<EditFileError>(&input.path))?;
    let too_large = |size: u64| EditFileError::TooLarge {
        path: path(),
        size,
        max: MAX_EDIT_BYTES,
    };
    let size = file.metadata().map_err(io_error)?.len();
    if size > MAX_EDIT_BYTES {
        return Err(too_large(size));
    }
    // `take`: the file may have grown since `metadata`.
    let mut bytes = Vec::new();
    (&mut file)
        .take(MAX_EDIT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > MAX_EDIT_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    let text = String::from_utf8(bytes).map_err(|_| EditFileError::NotUtf8 { path: path() })?;

    let count = text.matches(input.old_string.as_str()).count();
    match count {
        0 => return Err(EditFileError::OldStringNotFound { path: path() }),
        1 => {}
        _ if input.replace_all => {}
        _ => {
            return Err(EditFileError::Ambiguous {
                path: path(),
                count,
            });
        }
    }
    // Sized before anything is built: the replacement itself must not be
    // what runs out of memory.
    let size = edited_len(
        text.len(),
        count,
        input.old_string.len(),
        input.new_string.len(),
    )
    .unwrap_or(u64::MAX);
    if size > MAX_EDIT_BYTES {
        return Err(input.result_too_large(size));
    }
    let edited = text.replace(&input.old_string, &input.new_string);
    // Never in place: a failed write must not cost the original.
    replace_contents(full, &file, |out| out.write_all(edited.as_bytes())).map_err(io_error)?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edited_len_is_exact_and_overflow_is_none() {
        assert_eq!(edited_len(10, 2, 1, 3), Some(14));
        assert_eq!(edited_len(10, 10, 1, 0), Some(0));
        assert_eq!(edited_len(200_000, 200_000, 1, 100), Some(20_000_000));
        assert_eq!(edited_len(16 << 20, 16 << 20, 1, 1024), Some(16 << 30));
        assert_eq!(edited_len(usize::MAX, usize::MAX, 1, 2), None);
        // More removed than there is: inconsistent counts, not a wrap.
        assert_eq!(edited_len(1, 2, 1, 0), None);
    }
}
