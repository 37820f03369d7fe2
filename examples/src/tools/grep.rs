//! `grep`: search file contents with a regular expression.
//!
//! # Posture
//!
//! - `read_only = true`: it reads files and writes nothing.
//! - `concurrency_safe = true`: searches cannot interfere with each other.
//! - `access`: reads its `path` and so everything under it; the walk
//!   follows no symlink, so it reads nothing the key does not cover.
//! - The default result cap (50,000 characters) is kept on purpose: a
//!   search that matches more than that is too broad to be useful to the
//!   model, and the truncation notice tells it to narrow the search. The
//!   tool also stops collecting after 1000 matches.
//! - Permission: `Allow` when the search path is inside the sandbox. The
//!   walk never follows symlinks, so it cannot read outside.
//! - Permission content: the path, normalised lexically, so content
//!   rules such as `grep(secrets:*)` apply (a deny or ask rule is checked
//!   before the tool's own `Allow`).
//! - Bounded cost whatever the tree holds: files are read line by line,
//!   keeping at most [`MAX_LINE_BYTES`] of a line (matches further into a
//!   longer line are not found), files over [`MAX_FILE_BYTES`] are skipped,
//!   the pattern is capped at [`MAX_PATTERN_CHARS`] characters and its
//!   compiled size at [`MAX_REGEX_BYTES`]. FIFOs, sockets and devices are
//!   never opened: a walk lists them as skipped, and naming one as `path`
//!   is an error (see
//!   [the sandbox](crate::sandbox#what-the-file-tools-refuse-and-why)).

use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use globset::GlobSet;
use regex::{Regex, RegexBuilder};
use registry_core::{
    PermissionContent, PermissionDecision, Tool, ToolContext,
    access::{Access, AccessKey},
    text::cap_error_text,
    tool,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::sandbox::{
    self, EntryKind, LineReader, MAX_LINE_BYTES, MAX_PATTERN_CHARS, OpenError, Sandbox,
    SandboxError, SpecialFile, check_path_argument, check_paths, open_regular, shown,
};
// `Access` here is the resource access a call declares; the sandbox's
// open mode goes by another name.
use crate::sandbox::Access as OpenMode;
use crate::tools::glob::{GlobFailure, compile_glob};

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
/// Files that are not UTF-8 text, files over 10 MB, `.git` directories,
/// symbolic links and special files (FIFOs, sockets, devices) are skipped;
/// the result lists skipped large and special files. Only the first 4096
/// bytes of a line are searched and shown. At most 1000 matching lines are
/// returned; patterns and globs longer than 1024 characters are refused.
#[tool(
    name = "grep",
    concurrency_safe = true,
    read_only = true,
    access = |i: &GrepInput| Access::read(AccessKey::path(&i.path)),
    search_hint = "search find text regex in files ripgrep",
    // The workspace (or the conversation) is a closed world: MCP clients
    // are told so (`openWorldHint: false`).
    open_world = false,
    rule_of_two = ["private_data"],
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
    /// The pattern or the glob is longer than [`MAX_PATTERN_CHARS`].
    #[error("`{field}` is {len} characters long; the limit is {max}")]
    PatternTooLong {
        /// The argument holding the pattern.
        field: &'static str,
        /// Its length in characters.
        len: usize,
        /// The limit.
        max: usize,
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

/// The most bytes a compiled `pattern` may take (`RegexBuilder::size_limit`
/// and the lazy DFA's cache): ample for any real search, and a hostile
/// pattern such as `(a{1000}){1000}` is an error instead of a long compile.
pub const MAX_REGEX_BYTES: usize = 1 << 20;

/// How many skipped files of one kind (special, too large) a result names
/// before it only counts the rest.
const MAX_SKIPPED_SHOWN: usize = 10;

/// Compiles the search pattern, refusing over-long and over-large ones.
fn compile_regex(pattern: &str, case_insensitive: bool) -> Result<Regex, GrepError> {
    let len = pattern.chars().count();
    if len > MAX_PATTERN_CHARS {
        return Err(GrepError::PatternTooLong {
            field: "pattern",
            len,
            max: MAX_PATTERN_CHARS,
        });
    }
    RegexBuilder::new(pattern)
        .case_insensitive(case_insensitive)
        .size_limit(MAX_REGEX_BYTES)
        .dfa_size_limit(MAX_REGEX_BYTES)
        .build()
        .map_err(|source| GrepError::InvalidRegex {
            field: "pattern",
            source,
        })
}

impl GlobFailure for GrepError {
    fn too_long(field: &'static str, len: usize, max: usize) -> Self {
        GrepError::PatternTooLong { field, len, max }
    }

    fn invalid(field: &'static str, source: globset::Error) -> Self {
        GrepError::InvalidGlob { field, source }
    }
}

/// Which files a search looks at.
struct FileFilter {
    matcher: GlobSet,
    /// Match the whole relative path (the glob has a `/`), not the name.
    whole_path: bool,
}

impl FileFilter {
    fn new(glob: &str) -> Result<Self, GrepError> {
        let matcher = compile_glob::<GrepError>(glob, "glob")?;
        Ok(FileFilter {
            matcher,
            whole_path: glob.contains('/'),
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
        check_path_argument("path", &input.path)?;
        let regex = compile_regex(&input.pattern, input.case_insensitive)?;
        let filter = input.glob.as_deref().map(FileFilter::new).transpose()?;
        let sandbox = Sandbox::from_context(cx)?.clone();
        let start = sandbox.resolve(&input.path)?;
        let io_error = |source: io::Error| match source.kind() {
            io::ErrorKind::NotFound => GrepError::NotFound {
                path: shown(&input.path),
            },
            _ => GrepError::Io {
                path: shown(&input.path),
                source,
            },
        };
        // `symlink_metadata`: `start` is symlink-free, and a special file
        // named directly is refused here rather than opened.
        let file_type = tokio::fs::symlink_metadata(&start)
            .await
            .map_err(io_error)?
            .file_type();
        if !file_type.is_dir() && !file_type.is_file() {
            return Err(GrepError::Sandbox(SandboxError::NotARegularFile {
                path: shown(&input.path),
                kind: special_kind(&start),
            }));
        }
        let is_dir = file_type.is_dir();

        let found =
            tokio::task::spawn_blocking(move || search(&sandbox, &start, is_dir, &regex, filter))
                .await?
                .map_err(io_error)?;
        if !is_dir && let Some((_, kind)) = found.special.first() {
            // The file named as `path` was swapped for a special file.
            return Err(GrepError::Sandbox(SandboxError::NotARegularFile {
                path: shown(&input.path),
                kind: *kind,
            }));
        }
        Ok(found.render(&input.pattern))
    }

    /// A `path` no system call takes (over `PATH_MAX`) is refused by its
    /// length alone, before the permission pipeline normalises, matches
    /// or resolves it.
    fn validate_input(&self, input: &GrepInput, _cx: &ToolContext) -> Result<(), Self::Error> {
        Ok(check_path_argument("path", &input.path)?)
    }

    fn check_permissions(&self, input: &GrepInput, cx: &ToolContext) -> PermissionDecision {
        check_paths(cx, [input.path.as_str()], PermissionDecision::Allow)
    }

    /// The path, so rules like `grep(src/*)` apply; the pipeline matches it as written
    /// (normalised lexically) and as resolved against the sandbox root.
    fn permission_content(&self, input: &GrepInput) -> Option<PermissionContent> {
        Some(PermissionContent::path(&input.path))
    }
}

/// What `path` is, for a message about a file that is not regular.
fn special_kind(path: &Path) -> SpecialFile {
    match open_regular(path, OpenMode::Read) {
        Err(OpenError::NotRegular(kind)) => kind,
        _ => SpecialFile::Other,
    }
}

/// What a search found.
#[derive(Debug, Default)]
struct Found {
    /// The matching lines, at most [`MAX_MATCHES`], as `path:line:text`.
    shown: Vec<String>,
    /// How many lines matched in all.
    total: usize,
    /// Files that are not regular files (FIFOs, sockets, devices), which
    /// are never opened: path and kind.
    special: Vec<(String, SpecialFile)>,
    /// Files over [`MAX_FILE_BYTES`], not searched.
    too_large: Vec<String>,
}

impl Found {
    /// The result text: the matches (or a line saying there are none),
    /// then one note per kind of thing left out.
    fn render(&self, pattern: &str) -> String {
        let mut lines = if self.shown.is_empty() {
            vec![format!("no matches for `{}`", cap_error_text(pattern))]
        } else {
            self.shown.clone()
        };
        if self.total > self.shown.len() {
            lines.push(format!(
                "[{} more matching lines; narrow the pattern, the path or the glob]",
                self.total - self.shown.len()
            ));
        }
        if !self.special.is_empty() {
            let named = self
                .special
                .iter()
                .map(|(path, kind)| format!("`{path}` ({kind})"));
            lines.push(format!(
                "[skipped {} file(s) that are not regular files: {}]",
                self.special.len(),
                list_some(named, self.special.len())
            ));
        }
        if !self.too_large.is_empty() {
            let named = self.too_large.iter().map(|path| format!("`{path}`"));
            lines.push(format!(
                "[skipped {} file(s) over {MAX_FILE_BYTES} bytes: {}]",
                self.too_large.len(),
                list_some(named, self.too_large.len())
            ));
        }
        let mut out = lines.join("\n");
        // A bare "no matches" line reads as a sentence; lists end with a
        // line break, like every line-oriented result of the tool set.
        if lines.len() > 1 || !self.shown.is_empty() {
            out.push('\n');
        }
        out
    }
}

/// The first [`MAX_SKIPPED_SHOWN`] of `count` items, and how many more.
fn list_some(items: impl Iterator<Item = String>, count: usize) -> String {
    let mut text = items.take(MAX_SKIPPED_SHOWN).collect::<Vec<_>>().join(", ");
    if count > MAX_SKIPPED_SHOWN {
        text.push_str(&format!(" and {} more", count - MAX_SKIPPED_SHOWN));
    }
    text
}

/// Searches every regular file under `start` (or `start` itself).
fn search(
    sandbox: &Sandbox,
    start: &Path,
    is_dir: bool,
    regex: &Regex,
    filter: Option<FileFilter>,
) -> io::Result<Found> {
    // (file, path relative to the search start, is it a regular file), sorted.
    let files: Vec<(PathBuf, String, bool)> = if is_dir {
        sandbox::walk(start)?
            .into_iter()
            .filter(|entry| matches!(entry.kind, EntryKind::File | EntryKind::Other))
            .map(|entry| (entry.path, entry.relative, entry.kind == EntryKind::File))
            .collect()
    } else {
        let name = start
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        vec![(start.to_path_buf(), name, true)]
    };

    let mut found = Found::default();
    for (file, relative, regular) in files {
        if filter.as_ref().is_some_and(|f| !f.accepts(&relative)) {
            continue;
        }
        let display = sandbox.display_path(&file);
        let opened = if regular {
            open_regular(&file, OpenMode::Read)
        } else {
            Err(OpenError::NotRegular(special_kind(&file)))
        };
        let file = match opened {
            Ok(file) => file,
            Err(OpenError::NotRegular(SpecialFile::Directory)) => continue,
            Err(OpenError::NotRegular(kind)) => {
                found.special.push((display, kind));
                continue;
            }
            // Unreadable files are skipped, not errors: a search over a
            // tree should not fail on one file it may not read.
            Err(OpenError::Io(_)) => continue,
        };
        match file.metadata() {
            Ok(metadata) if metadata.len() <= MAX_FILE_BYTES => {}
            Ok(_) => {
                found.too_large.push(display);
                continue;
            }
            Err(_) => continue,
        }
        search_file(file, &display, regex, &mut found);
    }
    Ok(found)
}

/// Adds the matching lines of one file. A file that turns out not to be
/// UTF-8 text adds nothing: binary files are skipped, not errors.
fn search_file(file: std::fs::File, display: &str, regex: &Regex, found: &mut Found) {
    // At most MAX_FILE_BYTES even if the file grows while it is read.
    let reader = BufReader::new(file.take(MAX_FILE_BYTES));
    let mut lines = LineReader::new(reader, MAX_LINE_BYTES);
    let room = MAX_MATCHES.saturating_sub(found.shown.len());
    let mut shown = Vec::new();
    let mut total = 0;
    let mut number = 0;
    loop {
        let line = match lines.next_line(true) {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(_) => return,
        };
        number += 1;
        if !line.utf8 {
            return;
        }
        if regex.is_match(&line.text) {
            total += 1;
            if shown.len() < room {
                shown.push(format!("{display}:{number}:{}", line.shown()));
            }
        }
    }
    found.total += total;
    found.shown.extend(shown);
}
