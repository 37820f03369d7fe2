//! `grep`: search file contents with a regular expression.
//!
//! # Posture
//!
//! - `read_only = true`: it reads files and writes nothing.
//! - `concurrency_safe = true`: searches cannot interfere with each other,
//!   and no write runs in a concurrent batch.
//! - The default result cap (50,000 characters) is kept on purpose: a
//!   search that matches more than that is too broad to be useful to the
//!   model, and the truncation notice tells it to narrow the search. The
//!   tool also stops collecting after 1000 matches.
//! - Permission: `Allow` when the search path is inside the sandbox. The
//!   walk never follows symlinks, so it cannot read outside.

use std::io;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use regex::{Regex, RegexBuilder};
use registry_core::{PermissionDecision, Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::sandbox::{self, EntryKind, Sandbox, SandboxError, check_paths};

/// Most matching lines returned; the result says when there were more.
pub const MAX_MATCHES: usize = 1000;

/// Files larger than this are skipped (they are almost never source code).
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// Search the contents of workspace files with a regular expression and
/// return every matching line as `path:line:text`, sorted by path and then
/// line number. Paths are relative to the workspace root.
///
/// Arguments:
/// - `pattern`: a regular expression (Rust `regex` syntax, similar to
///   ripgrep's), matched against each line, e.g. `fn\s+main`, `TODO|FIXME`.
/// - `path` (optional): a file or directory to search, relative to the
///   workspace root; defaults to the whole workspace.
/// - `glob` (optional): only search files matching this glob. Without a
///   `/` it is matched against the file name (`*.rs`); with one, against
///   the path relative to `path` (`src/**/*.rs`).
/// - `case_insensitive` (optional, default false).
///
/// Files that are not UTF-8 text, files over 10 MB, `.git` directories and
/// symbolic links are skipped. At most 1000 matching lines are returned.
#[tool(
    name = "grep",
    concurrency_safe = true,
    read_only = true,
    search_hint = "search find text regex in files ripgrep"
)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Grep;

/// The arguments of `grep`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepInput {
    /// The regular expression to search for.
    pub pattern: String,
    /// The file or directory to search, relative to the workspace root.
    /// Defaults to the root (`.`).
    #[serde(default = "root")]
    pub path: String,
    /// Only search files matching this glob: against the file name when it
    /// has no `/` (e.g. `*.rs`), otherwise against the path relative to
    /// `path`.
    #[serde(default)]
    pub glob: Option<String>,
    /// Match letters regardless of case. Defaults to false.
    #[serde(default)]
    pub case_insensitive: bool,
}

fn root() -> String {
    ".".to_owned()
}

/// Why `grep` failed.
#[derive(Debug, thiserror::Error)]
pub enum GrepError {
    /// The path is not allowed, or there is no sandbox.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The pattern is not a valid regular expression.
    #[error("invalid regex in `{field}`: {source}")]
    InvalidRegex {
        /// The argument holding the pattern.
        field: &'static str,
        /// What is wrong with it.
        #[source]
        source: regex::Error,
    },
    /// The file filter is not a valid glob.
    #[error("invalid glob in `{field}`: {source}")]
    InvalidGlob {
        /// The argument holding the glob.
        field: &'static str,
        /// What is wrong with it.
        #[source]
        source: globset::Error,
    },
    /// Nothing exists at the path.
    #[error("`{path}` does not exist")]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// Reading failed.
    #[error("could not search `{path}`: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The background search did not finish (it panicked or was cancelled).
    #[error("the search did not finish: {0}")]
    Search(#[from] tokio::task::JoinError),
}

/// Which files a search looks at.
struct FileFilter {
    matcher: GlobMatcher,
    /// Match the whole relative path (the glob has a `/`), not the name.
    whole_path: bool,
}

impl FileFilter {
    fn new(glob: &str) -> Result<Self, GrepError> {
        let whole_path = glob.contains('/');
        let matcher = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|source| GrepError::InvalidGlob {
                field: "glob",
                source,
            })?
            .compile_matcher();
        Ok(FileFilter {
            matcher,
            whole_path,
        })
    }

    fn accepts(&self, relative: &str) -> bool {
        if self.whole_path {
            self.matcher.is_match(relative)
        } else {
            let name = relative.rsplit('/').next().unwrap_or(relative);
            self.matcher.is_match(name)
        }
    }
}

impl Tool for Grep {
    type Input = GrepInput;
    type Output = String;
    type Error = GrepError;

    async fn call(&self, input: GrepInput, cx: &ToolContext) -> Result<String, GrepError> {
        let regex = RegexBuilder::new(&input.pattern)
            .case_insensitive(input.case_insensitive)
            .build()
            .map_err(|source| GrepError::InvalidRegex {
                field: "pattern",
                source,
            })?;
        let filter = input.glob.as_deref().map(FileFilter::new).transpose()?;
        let sandbox = Sandbox::from_context(cx)?.clone();
        let start = sandbox.resolve(&input.path)?;
        let io_error = |source: io::Error| match source.kind() {
            io::ErrorKind::NotFound => GrepError::NotFound {
                path: input.path.clone(),
            },
            _ => GrepError::Io {
                path: input.path.clone(),
                source,
            },
        };
        let is_dir = tokio::fs::metadata(&start)
            .await
            .map_err(io_error)?
            .is_dir();

        let (lines, total) =
            tokio::task::spawn_blocking(move || search(&sandbox, &start, is_dir, &regex, filter))
                .await?
                .map_err(io_error)?;

        if lines.is_empty() {
            return Ok(format!("no matches for `{}`", input.pattern));
        }
        let mut out = lines.join("\n");
        out.push('\n');
        if total > lines.len() {
            out.push_str(&format!(
                "[{} more matching lines; narrow the pattern, the path or the glob]\n",
                total - lines.len()
            ));
        }
        Ok(out)
    }

    fn check_permissions(&self, input: &GrepInput, cx: &ToolContext) -> PermissionDecision {
        check_paths(cx, [input.path.as_str()], PermissionDecision::Allow)
    }
}

/// The matching lines (at most [`MAX_MATCHES`]) and how many there were.
fn search(
    sandbox: &Sandbox,
    start: &Path,
    is_dir: bool,
    regex: &Regex,
    filter: Option<FileFilter>,
) -> io::Result<(Vec<String>, usize)> {
    // (file, path relative to the search start), sorted.
    let files: Vec<(PathBuf, String)> = if is_dir {
        sandbox::walk(start)?
            .into_iter()
            .filter(|entry| entry.kind == EntryKind::File)
            .map(|entry| (entry.path, entry.relative))
            .collect()
    } else {
        let name = start
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        vec![(start.to_path_buf(), name)]
    };

    let mut shown = Vec::new();
    let mut total = 0;
    for (file, relative) in files {
        if filter.as_ref().is_some_and(|f| !f.accepts(&relative)) {
            continue;
        }
        match std::fs::metadata(&file) {
            Ok(metadata) if metadata.len() <= MAX_FILE_BYTES => {}
            _ => continue,
        }
        // Unreadable and non-UTF-8 files are skipped, not errors: a search
        // over a tree should not fail on one binary file.
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let display = sandbox.display_path(&file);
        for (index, line) in text.lines().enumerate() {
            if regex.is_match(line) {
                total += 1;
                if shown.len() < MAX_MATCHES {
                    shown.push(format!("{display}:{}:{line}", index + 1));
                }
            }
        }
    }
    Ok((shown, total))
}
