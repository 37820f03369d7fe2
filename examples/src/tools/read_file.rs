//! `read_file`: a text file's lines, numbered.
//!
//! # Posture
//!
//! - `read_only = true`: it opens the file for reading and nothing else.
//! - `concurrency_safe = true`: two reads cannot interfere.
//! - `access`: reads its `path`, and nothing else. Batching follows it: a
//!   read shares a batch with other reads and with writes of other files,
//!   never with a write of this file or of a directory above it (`a/` as
//!   a whole covers `a/b.rs`).
//! - `destructive` is left at its default (`false`): reading destroys
//!   nothing, and leaving it unsaid shows the default at work in the demo.
//! - `max_result_chars = 100_000`: source files are long and the model
//!   needs to see them whole to edit them; twice the default cap, still
//!   bounded. `limit` (2000 lines unless given) bounds a single read too,
//!   and so does [`MAX_OUTPUT_BYTES`]: the read stops at a line boundary
//!   below the cap and says which `offset` continues it.
//! - Memory is bounded whatever the file: lines longer than
//!   [`MAX_LINE_BYTES`] are cut with a marker, lines before `offset` are
//!   skipped without being kept, and reading stops after the last
//!   requested line.
//! - An image (PNG, JPEG, GIF, WebP: by extension *and* by its first
//!   bytes, so a text file named `.png` is read as text) comes back as an
//!   image block the model can see, up to [`MAX_IMAGE_BYTES`].
//! - FIFOs, sockets and devices are refused before they are read (see
//!   [the sandbox](crate::sandbox#what-the-file-tools-refuse-and-why)).
//! - A `path` longer than
//!   [`MAX_PATH_BYTES`](registry_core::path::MAX_PATH_BYTES) (`PATH_MAX`)
//!   is an error result from `validate_input`, decided by its length alone:
//!   no system call takes it, and walking a 100 MB `a/a/a/…` component by
//!   component would cost seconds and gigabytes. Its `access` key is
//!   every path ([`AccessKey::path`] decides that by the length too), so
//!   planning the batch does not walk it either.
//! - `aliases = ["Read", "cat"]`: names other agents use for this tool, so
//!   transcripts and prompts written for them keep working.
//! - Permission: [`PermissionDecision::Allow`] for a path inside the
//!   sandbox (the tool vouches for reading there), `Deny` otherwise.
//! - Permission content: the path, normalised lexically, so content
//!   rules such as `read_file(secrets:*)` apply (a deny or ask rule is checked
//!   before the tool's own `Allow`).

use std::io::{self, BufReader, Read as _};
use std::path::Path;

use registry_core::{
    PermissionContent, PermissionDecision, Tool, ToolContext, ToolOutput,
    access::{Access, AccessKey},
    declare::Image,
    tool,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::sandbox::{
    LineReader, MAX_LINE_BYTES, OpenError, OpenFailure, Sandbox, SandboxError, check_path_argument,
    check_paths, open_regular, shown,
};
// `Access` here is the resource access a call declares; the sandbox's
// open mode goes by another name.
use crate::sandbox::Access as OpenMode;

/// Lines returned when the call gives no `limit`.
pub const DEFAULT_LIMIT: usize = 2000;

/// A read stops at the line that would take its result past this many
/// bytes (and says where to continue), so the result fits the tool's
/// `max_result_chars` and the model is told how to page rather than
/// finding its result cut.
pub const MAX_OUTPUT_BYTES: usize = 90_000;

/// The largest image `read_file` returns as an image (the size providers
/// take per image).
pub const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;

/// Image files by extension, with the first bytes each format starts with.
const IMAGE_KINDS: [(&str, &str, &[u8]); 5] = [
    ("png", "image/png", b"\x89PNG\r\n\x1a\n"),
    ("jpg", "image/jpeg", b"\xff\xd8\xff"),
    ("jpeg", "image/jpeg", b"\xff\xd8\xff"),
    ("gif", "image/gif", b"GIF8"),
    ("webp", "image/webp", b"RIFF"),
];

/// Read a UTF-8 text file from the workspace and return its lines, each
/// prefixed with its line number (counting from 1) and a tab, like `cat -n`.
///
/// Arguments:
/// - `path`: the file, relative to the workspace root.
/// - `offset` (optional): the first line to return, counting from 1.
/// - `limit` (optional): the most lines to return (default 2000).
///
/// When more lines follow, the result ends with a note giving the `offset`
/// to continue from. PNG, JPEG, GIF and WebP images are returned as
/// images. Lines longer than 4096 bytes are cut, with a note
/// saying how much is missing. Binary files, directories and special files
/// (FIFOs, devices) are errors; use `list_dir` for directories and `grep`
/// to search many files.
#[tool(
    name = "read_file",
    aliases = ["Read", "cat"],
    concurrency_safe = true,
    read_only = true,
    max_result_chars = 100_000,
    access = |i: &ReadFileInput| Access::read(AccessKey::path(&i.path)),
    search_hint = "open view show file contents lines",
    // The workspace's files may hold secrets; they are the user's own, so
    // not untrusted input (a runtime working on a stranger's repository
    // would say so too).
    // The workspace (or the conversation) is a closed world: MCP clients
    // are told so (`openWorldHint: false`).
    open_world = false,
    rule_of_two = ["private_data"],
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
    /// An image over [`MAX_IMAGE_BYTES`].
    #[error(
        "image `{path}` is {bytes} bytes; read_file returns images up to {MAX_IMAGE_BYTES} bytes"
    )]
    ImageTooLarge {
        /// The path as given.
        path: String,
        /// Its size.
        bytes: u64,
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
    /// The background read did not finish (it panicked or was cancelled).
    #[error("the read did not finish: {0}")]
    Read(#[from] tokio::task::JoinError),
}

impl ReadFileInput {
    /// The checks that need no file system, cheapest first: a path no
    /// system call takes (over `PATH_MAX`) is refused by its length alone,
    /// before the permission pipeline normalises, matches or resolves it.
    fn check(&self) -> Result<(), ReadFileError> {
        check_path_argument("path", &self.path)?;
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
    type Output = ToolOutput;
    type Error = ReadFileError;

    async fn call(
        &self,
        input: ReadFileInput,
        cx: &ToolContext,
    ) -> Result<ToolOutput, ReadFileError> {
        input.check()?;
        let sandbox = Sandbox::from_context(cx)?;
        let full = sandbox.resolve(&input.path)?;
        let request = Request {
            path: input.path,
            offset: input.offset.unwrap_or(1),
            limit: input.limit.unwrap_or(DEFAULT_LIMIT),
        };
        // Blocking reads on a blocking thread: a large file must not stall
        // the runtime's workers.
        tokio::task::spawn_blocking(move || match read_image(&full, &request.path)? {
            Some(image) => Ok(image),
            None => read(&full, &request).map(ToolOutput::text),
        })
        .await?
    }

    fn validate_input(&self, input: &ReadFileInput, _cx: &ToolContext) -> Result<(), Self::Error> {
        input.check()
    }

    fn check_permissions(&self, input: &ReadFileInput, cx: &ToolContext) -> PermissionDecision {
        check_paths(cx, [input.path.as_str()], PermissionDecision::Allow)
    }

    /// The path, so rules like `read_file(src/*)` apply; the pipeline matches it as written
    /// (normalised lexically) and as resolved against the sandbox root.
    fn permission_content(&self, input: &ReadFileInput) -> Option<PermissionContent> {
        Some(PermissionContent::path(&input.path))
    }
}

/// One read, as checked.
struct Request {
    path: String,
    offset: usize,
    limit: usize,
}

/// Reads the requested lines of the regular file at `full`, keeping at
/// most [`MAX_LINE_BYTES`] of each line and stopping as soon as the
/// requested lines (or [`MAX_OUTPUT_BYTES`] of them) are in.
fn read(full: &Path, request: &Request) -> Result<String, ReadFileError> {
    let (path, offset, limit) = (request.path.as_str(), request.offset, request.limit);
    let file = open_regular(full, OpenMode::Read)
        .map_err(|err| err.into_tool_error::<ReadFileError>(path))?;
    let mut lines = LineReader::new(BufReader::new(file), MAX_LINE_BYTES);
    let mut out = String::new();
    let mut number = 0;
    // The line to continue from, when the read stopped before the end.
    let mut next = None;
    loop {
        let wanted = number + 1 >= offset;
        let Some(line) = lines.next_line(wanted).map_err(|err| io_error(path, err))? else {
            break;
        };
        number += 1;
        if !line.utf8 {
            return Err(ReadFileError::NotUtf8 {
                path: shown(path),
                line: number,
            });
        }
        if !wanted {
            continue;
        }
        let numbered = format!("{number:>6}\t{}\n", line.shown());
        if out.len() + numbered.len() > MAX_OUTPUT_BYTES && !out.is_empty() {
            next = Some(number);
            break;
        }
        out.push_str(&numbered);
        if number - offset + 1 == limit {
            if !lines.at_end().map_err(|err| io_error(path, err))? {
                next = Some(number + 1);
            }
            break;
        }
    }

    if number == 0 {
        return Ok(format!("(file `{}` is empty)", shown(path)));
    }
    if number < offset {
        return Err(ReadFileError::OffsetPastEnd {
            path: shown(path),
            offset,
            lines: number,
        });
    }
    if let Some(next) = next {
        out.push_str(&format!(
            "[more lines follow: continue with offset = {next}]\n"
        ));
    }
    Ok(out)
}

/// The file as an image block when its extension names an image format
/// and its first bytes are that format's; `None` to read it as text.
fn read_image(full: &Path, path: &str) -> Result<Option<ToolOutput>, ReadFileError> {
    let extension = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let Some((_, media_type, magic)) = IMAGE_KINDS
        .iter()
        .find(|(ext, _, _)| extension.as_deref() == Some(*ext))
    else {
        return Ok(None);
    };
    let file = open_regular(full, OpenMode::Read)
        .map_err(|err| err.into_tool_error::<ReadFileError>(path))?;
    // The first bytes decide (a text file named `.png` is read as text),
    // before the size does.
    let mut data = Vec::new();
    (&file)
        .take(12)
        .read_to_end(&mut data)
        .map_err(|err| io_error(path, err))?;
    let webp = data.get(8..12) == Some(b"WEBP".as_slice());
    if !data.starts_with(magic) || (*media_type == "image/webp" && !webp) {
        return Ok(None);
    }
    let bytes = file.metadata().map_err(|err| io_error(path, err))?.len();
    if bytes > MAX_IMAGE_BYTES {
        return Err(ReadFileError::ImageTooLarge {
            path: shown(path),
            bytes,
        });
    }
    // Bounded even if the file grows while it is read.
    (&file)
        .take(MAX_IMAGE_BYTES + 1 - data.len() as u64)
        .read_to_end(&mut data)
        .map_err(|err| io_error(path, err))?;
    if data.len() as u64 > MAX_IMAGE_BYTES {
        return Err(ReadFileError::ImageTooLarge {
            path: shown(path),
            bytes: data.len() as u64,
        });
    }
    let summary = format!(
        "image `{}` ({media_type}, {} bytes)",
        shown(path),
        data.len()
    );
    Ok(Some(
        ToolOutput::text(summary).with(Image::new(data, *media_type)),
    ))
}

/// A failed read, mapped as a failed open is.
fn io_error(path: &str, source: io::Error) -> ReadFileError {
    OpenError::from(source).into_tool_error(path)
}

impl OpenFailure for ReadFileError {
    fn is_a_directory(path: String) -> Self {
        ReadFileError::IsADirectory { path }
    }

    fn not_found(path: String, _source: io::Error) -> Self {
        ReadFileError::NotFound { path }
    }

    fn io(path: String, source: io::Error) -> Self {
        ReadFileError::Io { path, source }
    }
}
