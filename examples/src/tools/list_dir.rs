//! `list_dir`: the entries of one directory.
//!
//! # Posture
//!
//! - `read_only = true`: it only reads directory entries.
//! - `concurrency_safe = true`: listings cannot interfere with each other.
//! - `access`: reads its `path`, which covers every path under it: a write
//!   of a file in the listed directory waits for the listing (or the
//!   listing for it), in the model's order.
//! - `destructive`, the result cap and loading keep their defaults: nothing
//!   is destroyed, and a listing of one directory fits the default cap.
//! - Permission: `Allow` inside the sandbox, `Deny` outside.
//! - Permission content: the path, normalised lexically, so content
//!   rules such as `list_dir(secrets:*)` apply (a deny or ask rule is checked
//!   before the tool's own `Allow`).

use std::io;

use registry_core::{
    PermissionContent, PermissionDecision, Tool, ToolContext,
    access::{Access, AccessKey},
    tool,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::sandbox::{Sandbox, SandboxError, check_path_argument, check_paths, shown};

/// List the entries of a workspace directory (not recursive), sorted by
/// name, one per line. Directories end with `/` and symbolic links with
/// `@`.
///
/// Arguments:
/// - `path` (optional): the directory, relative to the workspace root;
///   defaults to the root itself (`.`).
///
/// Use `glob` to find files at any depth.
#[tool(
    name = "list_dir",
    concurrency_safe = true,
    read_only = true,
    access = |i: &ListDirInput| Access::read(AccessKey::path(&i.path)),
    search_hint = "ls directory folder entries",
    // The workspace (or the conversation) is a closed world: MCP clients
    // are told so (`openWorldHint: false`).
    open_world = false,
    rule_of_two = ["private_data"],
)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ListDir;

/// The arguments of `list_dir`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirInput {
    /// The directory to list, relative to the workspace root. Defaults to
    /// the root (`.`).
    #[serde(default = "root")]
    pub path: String,
}

fn root() -> String {
    ".".to_owned()
}

/// Why `list_dir` failed.
#[derive(Debug, thiserror::Error)]
pub enum ListDirError {
    /// The path is not allowed, or there is no sandbox.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// Nothing exists at the path.
    #[error("directory `{path}` does not exist")]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// The path is not a directory.
    #[error("`{path}` is a file, not a directory; use read_file to read it")]
    NotADirectory {
        /// The path as given.
        path: String,
    },
    /// Reading the directory failed.
    #[error("could not list `{path}`: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
}

impl Tool for ListDir {
    type Input = ListDirInput;
    type Output = String;
    type Error = ListDirError;

    async fn call(&self, input: ListDirInput, cx: &ToolContext) -> Result<String, ListDirError> {
        check_path_argument("path", &input.path)?;
        let sandbox = Sandbox::from_context(cx)?;
        let full = sandbox.resolve(&input.path)?;
        let io_error = |source: io::Error| match source.kind() {
            io::ErrorKind::NotFound => ListDirError::NotFound {
                path: shown(&input.path),
            },
            _ => ListDirError::Io {
                path: shown(&input.path),
                source,
            },
        };

        if !tokio::fs::metadata(&full).await.map_err(io_error)?.is_dir() {
            return Err(ListDirError::NotADirectory {
                path: shown(&input.path),
            });
        }
        let mut reader = tokio::fs::read_dir(&full).await.map_err(io_error)?;
        let mut names = Vec::new();
        while let Some(entry) = reader.next_entry().await.map_err(io_error)? {
            let mut name = entry.file_name().to_string_lossy().into_owned();
            match entry.file_type().await {
                Ok(kind) if kind.is_symlink() => name.push('@'),
                Ok(kind) if kind.is_dir() => name.push('/'),
                _ => {}
            }
            names.push(name);
        }
        names.sort();

        if names.is_empty() {
            return Ok(format!(
                "(directory `{}` is empty)",
                sandbox.display_path(&full)
            ));
        }
        let mut out = names.join("\n");
        out.push('\n');
        Ok(out)
    }

    /// A `path` no system call takes (over `PATH_MAX`) is refused by its
    /// length alone, before the permission pipeline normalises, matches
    /// or resolves it.
    fn validate_input(&self, input: &ListDirInput, _cx: &ToolContext) -> Result<(), Self::Error> {
        Ok(check_path_argument("path", &input.path)?)
    }

    fn check_permissions(&self, input: &ListDirInput, cx: &ToolContext) -> PermissionDecision {
        check_paths(cx, [input.path.as_str()], PermissionDecision::Allow)
    }

    /// The path, so rules like `list_dir(src/*)` apply; the pipeline matches it as written
    /// (normalised lexically) and as resolved against the sandbox root.
    fn permission_content(&self, input: &ListDirInput) -> Option<PermissionContent> {
        Some(PermissionContent::path(&input.path))
    }
}
