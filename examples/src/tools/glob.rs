//! `glob`: find paths by pattern.
//!
//! # Posture
//!
//! - `read_only = true`: it walks directories and matches names; it opens
//!   no file.
//! - `concurrency_safe = true`: walks cannot interfere with each other.
//! - `access`: reads its base `path` and so everything under it; the walk
//!   follows no symlink, so it reads nothing the key does not cover.
//! - `search_hint`: the words a model uses when it wants this tool ("find
//!   files", "wildcard") but that its name does not contain, so tool search
//!   finds it when tools are deferred.
//! - Permission: `Allow` when the base directory is inside the sandbox. The
//!   pattern cannot leave it: it is matched against paths found by a walk
//!   that starts inside and never follows symlinks.
//! - Permission content: the path, normalised lexically, so content
//!   rules such as `glob(secrets:*)` apply (a deny or ask rule is checked
//!   before the tool's own `Allow`).

use std::io;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use registry_core::{
    PermissionContent, PermissionDecision, Tool, ToolContext,
    access::{Access, AccessKey},
    text::cap_error_text,
    tool,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::sandbox::{
    self, EntryKind, MAX_PATTERN_CHARS, Sandbox, SandboxError, check_path_argument, check_paths,
    shown,
};

/// Most paths returned; the result says when there were more.
pub const MAX_RESULTS: usize = 1000;

/// Find files and directories in the workspace whose path matches a glob
/// pattern. Results are sorted, one per line, relative to the workspace
/// root; directories end with `/`.
///
/// Arguments:
/// - `pattern`: matched against each path relative to `path`. `*` and `?`
///   stay within one path component, `**` crosses directories, `{a,b}`
///   is either. Examples: `**/*.rs`, `src/*.{rs,toml}`, `**/test_*`.
/// - `path` (optional): the directory to search in, relative to the
///   workspace root; defaults to the root.
///
/// `.git` directories are skipped and symbolic links are not followed. At
/// most 1000 paths are returned. Patterns longer than 1024 characters are
/// refused.
#[tool(
    name = "glob",
    concurrency_safe = true,
    read_only = true,
    access = |i: &GlobInput| Access::read(AccessKey::path(&i.path)),
    search_hint = "find files by name pattern wildcard extension",
    // The workspace (or the conversation) is a closed world: MCP clients
    // are told so (`openWorldHint: false`).
    open_world = false,
    rule_of_two = ["private_data"],
)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Glob;

/// The arguments of `glob`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobInput {
    /// The glob pattern, matched against paths relative to `path`, e.g.
    /// `**/*.rs`.
    pub pattern: String,
    /// The directory to search in, relative to the workspace root. Defaults
    /// to the root (`.`).
    #[serde(default = "root")]
    pub path: String,
}

fn root() -> String {
    ".".to_owned()
}

/// Why `glob` failed.
#[derive(Debug, thiserror::Error)]
pub enum GlobError {
    /// The path is not allowed, or there is no sandbox.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The pattern is not a valid glob.
    #[error("invalid glob in `{field}`: {source}")]
    InvalidPattern {
        /// The argument holding the pattern.
        field: &'static str,
        /// What is wrong with it.
        #[source]
        source: globset::Error,
    },
    /// The pattern is longer than [`MAX_PATTERN_CHARS`].
    #[error("`{field}` is {len} characters long; the limit is {max}")]
    PatternTooLong {
        /// The argument holding the pattern.
        field: &'static str,
        /// Its length in characters.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The base path is not a directory.
    #[error("`{path}` is not a directory")]
    NotADirectory {
        /// The path as given.
        path: String,
    },
    /// Walking the directory failed.
    #[error("could not search `{path}`: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The background walk did not finish (it panicked or was cancelled).
    #[error("the directory walk did not finish: {0}")]
    Walk(#[from] tokio::task::JoinError),
}

/// The error type of a tool that takes a glob (this tool's `pattern`,
/// `grep`'s `glob`): how it says what [`compile_glob`] found wrong with the
/// argument named `field`.
pub(crate) trait GlobFailure {
    /// The pattern is longer than `max` characters.
    fn too_long(field: &'static str, len: usize, max: usize) -> Self;
    /// The pattern is not a glob, or its compiled form is too large.
    fn invalid(field: &'static str, source: globset::Error) -> Self;
}

/// Compiles the glob in argument `field`, in which `*` and `?` stay within
/// one path component.
///
/// Through a [`GlobSet`], not `Glob::compile_matcher`: the latter panics
/// when the compiled pattern exceeds globset's size limit (a long pattern
/// of wildcards does), while a set's `build` returns that as an error.
pub(crate) fn compile_glob<E: GlobFailure>(
    pattern: &str,
    field: &'static str,
) -> Result<GlobSet, E> {
    let len = pattern.chars().count();
    if len > MAX_PATTERN_CHARS {
        return Err(E::too_long(field, len, MAX_PATTERN_CHARS));
    }
    let invalid = |source| E::invalid(field, source);
    let glob = GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(invalid)?;
    GlobSetBuilder::new().add(glob).build().map_err(invalid)
}

impl GlobFailure for GlobError {
    fn too_long(field: &'static str, len: usize, max: usize) -> Self {
        GlobError::PatternTooLong { field, len, max }
    }

    fn invalid(field: &'static str, source: globset::Error) -> Self {
        GlobError::InvalidPattern { field, source }
    }
}

impl Tool for Glob {
    type Input = GlobInput;
    type Output = String;
    type Error = GlobError;

    async fn call(&self, input: GlobInput, cx: &ToolContext) -> Result<String, GlobError> {
        check_path_argument("path", &input.path)?;
        let matcher = compile_glob::<GlobError>(&input.pattern, "pattern")?;
        let sandbox = Sandbox::from_context(cx)?;
        let base = sandbox.resolve(&input.path)?;
        let io_error = |source| GlobError::Io {
            path: shown(&input.path),
            source,
        };
        if !tokio::fs::metadata(&base).await.map_err(io_error)?.is_dir() {
            return Err(GlobError::NotADirectory {
                path: shown(&input.path),
            });
        }

        let walk_from = base.clone();
        let entries = tokio::task::spawn_blocking(move || sandbox::walk(&walk_from))
            .await?
            .map_err(io_error)?;

        let mut found: Vec<String> = entries
            .iter()
            .filter(|entry| matcher.is_match(&entry.relative))
            .map(|entry| {
                let mut shown = sandbox.display_path(&entry.path);
                if entry.kind == EntryKind::Dir {
                    shown.push('/');
                }
                shown
            })
            .collect();
        found.sort();
        let total = found.len();
        found.truncate(MAX_RESULTS);

        if found.is_empty() {
            return Ok(format!(
                "no paths under `{}` match `{}`",
                sandbox.display_path(&base),
                cap_error_text(&input.pattern)
            ));
        }
        let mut out = found.join("\n");
        out.push('\n');
        if total > MAX_RESULTS {
            out.push_str(&format!(
                "[{} more paths match; narrow the pattern or the path]\n",
                total - MAX_RESULTS
            ));
        }
        Ok(out)
    }

    /// A `path` no system call takes (over `PATH_MAX`) is refused by its
    /// length alone, before the permission pipeline normalises, matches
    /// or resolves it.
    fn validate_input(&self, input: &GlobInput, _cx: &ToolContext) -> Result<(), Self::Error> {
        Ok(check_path_argument("path", &input.path)?)
    }

    fn check_permissions(&self, input: &GlobInput, cx: &ToolContext) -> PermissionDecision {
        check_paths(cx, [input.path.as_str()], PermissionDecision::Allow)
    }

    /// The path, so rules like `glob(src/*)` apply; the pipeline matches it as written
    /// (normalised lexically) and as resolved against the sandbox root.
    fn permission_content(&self, input: &GlobInput) -> Option<PermissionContent> {
        Some(PermissionContent::path(&input.path))
    }
}
