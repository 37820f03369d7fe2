//! `read_file`: a text file's lines, numbered.
//!
//! # Posture
//!
//! - `read_only = true`: it opens the file for reading and nothing else.
//! - `concurrency_safe = true`: two reads cannot interfere, and a
//!   concurrent batch holds only concurrency-safe calls, so no write of
//!   this tool set can run in the middle of it.
//! - `destructive` is left at its default (`false`): reading destroys
//!   nothing, and leaving it unsaid shows the default at work in the demo.
//! - `max_result_chars = 100_000`: source files are long and the model
//!   needs to see them whole to edit them; twice the default cap, still
//!   bounded. `limit` (2000 lines unless given) bounds a single read too.
//! - `aliases = ["Read", "cat"]`: names other agents use for this tool, so
//!   transcripts and prompts written for them keep working.
//! - Permission: [`PermissionDecision::Allow`] for a path inside the
//!   sandbox (the tool vouches for reading there), `Deny` otherwise.

use std::io;

use registry_core::{PermissionDecision, Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::io::AsyncBufReadExt;

use crate::sandbox::{Sandbox, SandboxError, check_paths};

/// Lines returned when the call gives no `limit`.
pub const DEFAULT_LIMIT: usize = 2000;

/// Read a UTF-8 text file from the workspace and return its lines, each
/// prefixed with its line number (counting from 1) and a tab, like `cat -n`.
///
/// Arguments:
/// - `path`: the file, relative to the workspace root.
/// - `offset` (optional): the first line to return, counting from 1.
/// - `limit` (optional): the most lines to return (default 2000).
///
/// When more lines follow, the result ends with a note giving the `offset`
/// to continue from. Binary files and directories are errors; use
/// `list_dir` for directories and `grep` to search many files.
#[tool(
    name = "read_file",
    aliases = ["Read", "cat"],
    concurrency_safe = true,
    read_only = true,
    max_result_chars = 100_000,
    search_hint = "open view show file contents lines",
)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadFile;

/// The arguments of `read_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileInput {
    /// Path of the file to read, relative to the workspace root.
    pub path: String,
    /// First line to return, counting from 1. Defaults to 1.
    #[serde(default)]
    pub offset: Option<usize>,
    /// Most lines to return. Defaults to 2000.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Why `read_file` failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadFileError {
    /// The path is not allowed, or there is no sandbox.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// Nothing exists at the path.
    #[error("file `{path}` does not exist")]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// The path is a directory.
    #[error("`{path}` is a directory, not a file; use list_dir to see what it holds")]
    IsADirectory {
        /// The path as given.
        path: String,
    },
    /// The file is not UTF-8 text.
    #[error("file `{path}` is not UTF-8 text (line {line} is not valid UTF-8)")]
    NotUtf8 {
        /// The path as given.
        path: String,
        /// The first line that is not valid UTF-8.
        line: usize,
    },
    /// `offset` or `limit` is zero.
    #[error("`{field}` must be at least 1")]
    Zero {
        /// The argument that is zero.
        field: &'static str,
    },
    /// `offset` is after the last line.
    #[error("`offset` is {offset}, but `{path}` has only {lines} line(s)")]
    OffsetPastEnd {
        /// The path as given.
        path: String,
        /// The requested first line.
        offset: usize,
        /// How many lines the file has.
        lines: usize,
    },
    /// Reading failed.
    #[error("could not read `{path}`: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
}

impl ReadFileInput {
    fn check(&self) -> Result<(), ReadFileError> {
        if self.offset == Some(0) {
            return Err(ReadFileError::Zero { field: "offset" });
        }
        if self.limit == Some(0) {
            return Err(ReadFileError::Zero { field: "limit" });
        }
        Ok(())
    }
}

impl Tool for ReadFile {
    type Input = ReadFileInput;
    type Output = String;
    type Error = ReadFileError;

    async fn call(&self, input: ReadFileInput, cx: &ToolContext) -> Result<String, ReadFileError> {
        input.check()?;
        let sandbox = Sandbox::from_context(cx)?;
        let full = sandbox.resolve(&input.path)?;
        let io_error = |source| io_error(&input.path, source);
        let metadata = tokio::fs::metadata(&full).await.map_err(io_error)?;
        if metadata.is_dir() {
            return Err(ReadFileError::IsADirectory {
                path: input.path.clone(),
            });
        }

        let file = tokio::fs::File::open(&full).await.map_err(io_error)?;
        let mut lines = tokio::io::BufReader::new(file).lines();
        let offset = input.offset.unwrap_or(1);
        let limit = input.limit.unwrap_or(DEFAULT_LIMIT);
        let mut out = String::new();
        let mut number = 0;
        let mut more = false;
        loop {
            let line = match lines.next_line().await {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(err) if err.kind() == io::ErrorKind::InvalidData => {
                    return Err(ReadFileError::NotUtf8 {
                        path: input.path.clone(),
                        line: number + 1,
                    });
                }
                Err(err) => return Err(io_error(err)),
            };
            number += 1;
            if number < offset {
                continue;
            }
            if number >= offset.saturating_add(limit) {
                more = true;
                break;
            }
            out.push_str(&format!("{number:>6}\t{line}\n"));
        }

        if number == 0 {
            return Ok(format!("(file `{}` is empty)", input.path));
        }
        if number < offset {
            return Err(ReadFileError::OffsetPastEnd {
                path: input.path.clone(),
                offset,
                lines: number,
            });
        }
        if more {
            out.push_str(&format!(
                "[more lines follow: continue with offset = {}]\n",
                offset.saturating_add(limit)
            ));
        }
        Ok(out)
    }

    fn validate_input(&self, input: &ReadFileInput, _cx: &ToolContext) -> Result<(), Self::Error> {
        input.check()
    }

    fn check_permissions(&self, input: &ReadFileInput, cx: &ToolContext) -> PermissionDecision {
        check_paths(cx, [input.path.as_str()], PermissionDecision::Allow)
    }
}

fn io_error(path: &str, source: io::Error) -> ReadFileError {
    match source.kind() {
        io::ErrorKind::NotFound => ReadFileError::NotFound {
            path: path.to_owned(),
        },
        _ => ReadFileError::Io {
            path: path.to_owned(),
            source,
        },
    }
}
