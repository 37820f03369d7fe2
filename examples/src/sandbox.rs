//! The directory every file tool works in, and the one place that decides
//! whether a path given by the model stays inside it.
//!
//! A runtime puts a [`Sandbox`] into the [`ToolContext`] of every call; the
//! tools take it out with [`Sandbox::from_context`]. A call without one
//! fails with [`SandboxError::Missing`] instead of falling back to the
//! process's working directory.
//!
//! # How a path is checked
//!
//! [`Sandbox::resolve`] turns the model's path into the absolute path the
//! tool then opens, so what is checked is exactly what is used. It is
//! registry-core's one resolver ([`registry_core::path::resolve`]), the
//! same the permission pipeline judges path rules and the `accept_edits`
//! workspace with, against the same base: the sandbox root is the call's
//! [working directory](registry_core::ToolContext::with_working_dir), and
//! [`Sandbox::from_context`] refuses a context whose working directory is
//! another one.
//!
//! 1. The path is walked from the root (an absolute path from `/`) one
//!    component at a time, as the kernel walks it: symlinks are followed
//!    as they are met, and `..` leaves the directory reached so far,
//!    *after* its links were followed.
//! 2. Components that do not exist yet (a file about to be created) are
//!    appended unchanged, since they cannot be symlinks.
//! 3. The result must lie under the canonical root. Anything else (a
//!    symlink pointing out, a dangling symlink whose target is outside, a
//!    path through `/proc`) is refused with an error naming the path as
//!    the model wrote it; a loop or a `..` after a missing directory
//!    cannot be resolved and is refused too.
//!
//! Every tool checks its paths twice: in `check_permissions` (a
//! [`PermissionDecision::Deny`] the runtime shows before anything runs) and
//! again in `call`, because code holding the concrete tool can call it
//! directly, without the permission step that
//! [`PreparedCall::run`](registry_core::input::PreparedCall::run) enforces.
//!
//! The check is a guard against mistakes and prompt injection, not a jail:
//! a symlink swapped in between the check and the use (a race with another
//! process) is not detected, except in the last component, which is opened
//! without following symlinks. `run_command` is not confined by it at all;
//! see that tool's documentation.
//!
//! # What the file tools refuse, and why
//!
//! - **Paths outside the root**, as above.
//! - **Anything but a regular file** where a file is read or written:
//!   FIFOs, sockets and devices ([`SandboxError::NotARegularFile`]). Opening
//!   a FIFO waits for the other end, possibly forever, and a device can
//!   stream without end; either would hang the call. The check is made on
//!   the opened descriptor, so a FIFO swapped in after the path was checked
//!   is refused too; `grep` skips such files while walking and says so.
//! - **Writes into git's internals** ([`SandboxError::GitInternals`]): any
//!   path with a `.git` component (any name some filesystem opens as
//!   `.git`: other letter cases, `.git.`, `.git `, HFS+-ignored code points,
//!   the NTFS short name `GIT~1`; see [`is_dot_git`]), however it is
//!   reached (`..`, symlinks and absolute paths are resolved first), or
//!   inside a directory shaped like a git directory (`HEAD`, `objects/`
//!   and `refs/`: a bare repository, a submodule's git directory). A
//!   written `core.fsmonitor`, `core.pager` or hook makes the next
//!   innocent-looking `git status` run a program of the model's choosing.
//!   A runtime that really wants the model to edit git internals says so
//!   with [`Sandbox::allow_git_internal_writes`].
//! - **Partial writes**: `edit_file` and `write_file` never truncate a
//!   file and write into it; the new contents go to a temporary file in
//!   the same directory that is renamed over the original once it is
//!   complete, so a full disk or an I/O error leaves the original as it was
//!   (the temporary file is created exclusively under a random name, starts
//!   owner-only and is removed on failure). A file `write_file` creates is
//!   removed again if writing it fails.
//! - **Unbounded reads**: lines longer than [`MAX_LINE_BYTES`] are cut
//!   (with a marker saying how much), and reading stops once the requested
//!   lines are found, so a huge file costs time, never memory.
//! - **Paths no system call takes**: longer than
//!   [`MAX_PATH_BYTES`](registry_core::path::MAX_PATH_BYTES), Linux's
//!   `PATH_MAX` ([`SandboxError::ArgumentTooLong`], by
//!   [`check_path_argument`]), decided by the length alone, before the
//!   path is normalised, matched against rules or resolved: each of those
//!   walks it component by component, and a 100 MB `a/a/a/…` has fifty
//!   million of them. Such a path's access key is every path
//!   ([`AccessKey::path`](registry_core::access::AccessKey::path) decides it
//!   by the length too), which costs nothing and is never looser.
//! - **Over-long patterns** ([`MAX_PATTERN_CHARS`]) and patterns whose
//!   compiled form is too big are error results naming the argument.
//!
//! What is not recognised as git internals: a git directory elsewhere that
//! a `gitdir:` file or `$GIT_DIR` points to, one the model builds file by
//! file (its `config` before its `HEAD`), or a hard link to a file inside
//! `.git` (only a program could make one); programs run through
//! `run_command` are not confined by the sandbox at all.

mod dotgit;
mod lines;
mod open;
mod replace;

use std::io;
use std::path::{Path, PathBuf};

use registry_core::{PermissionDecision, ToolContext};

pub use dotgit::is_dot_git;
pub(crate) use lines::LineReader;
pub use lines::MAX_LINE_BYTES;
pub use open::SpecialFile;
pub(crate) use open::{Access, OpenError, OpenFailure, open_regular};
pub(crate) use replace::replace_contents;

/// The longest glob or regular expression a tool accepts, in characters.
/// Real patterns are a few dozen characters; a longer one is a mistake or
/// an attempt to make compiling it expensive.
pub const MAX_PATTERN_CHARS: usize = 1024;

/// A path as it may appear inside an error message: capped, since the
/// model can send a path of any length and the error goes back to it.
pub(crate) fn shown(path: &str) -> String {
    registry_core::text::cap_error_text(path).into_owned()
}

/// The root directory the file tools may touch.
///
/// Build it once per session and put it into the context:
///
/// ```
/// use registry_core::ToolContext;
/// use registry_examples::Sandbox;
///
/// let dir = tempfile::tempdir().unwrap();
/// let cx = Sandbox::new(dir.path()).unwrap().context();
/// assert!(Sandbox::from_context(&cx).is_ok());
/// // The sandbox root is the one base relative paths resolve against.
/// assert_eq!(cx.working_dir(), Some(Sandbox::from_context(&cx).unwrap().root()));
/// // A sandbox in a context whose working directory is elsewhere is refused.
/// let elsewhere = ToolContext::new().with(Sandbox::new(dir.path()).unwrap());
/// assert!(Sandbox::from_context(&elsewhere).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// Canonical (symlink-free, absolute) root.
    root: PathBuf,
    /// Whether writers may touch git internals (off unless the runtime
    /// says so).
    git_internal_writes: bool,
}

/// Why a path, or the sandbox itself, cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The runtime did not put a [`Sandbox`] into the tool context.
    #[error(
        "no sandbox is configured for this call: the runtime must add a `Sandbox` to the tool context"
    )]
    Missing,
    /// The tool context's working directory is not the sandbox root (or
    /// it has none), so relative paths would be judged against one
    /// directory and opened in another.
    #[error(
        "the sandbox root `{}` is not the tool context's working directory ({}); add the sandbox with `Sandbox::context` or `Sandbox::install`",
        root.display(),
        working_dir.as_ref().map_or_else(|| "none is set".to_owned(), |d| format!("`{}`", d.display()))
    )]
    OtherWorkingDir {
        /// The sandbox root.
        root: PathBuf,
        /// The context's working directory, if any.
        working_dir: Option<PathBuf>,
    },
    /// A path argument longer than
    /// [`MAX_PATH_BYTES`](registry_core::path::MAX_PATH_BYTES): no system
    /// call takes a path that long, so it names no file. Refused by
    /// [`check_path_argument`] before anything walks, normalises or
    /// resolves it (a 100 MB `a/a/a/…` would cost time and memory in
    /// every one of those steps for a path that cannot be opened).
    #[error(
        "`{argument}` is a path of {len} bytes, over the {} bytes the operating system takes in one path (PATH_MAX), so it names no file; give a shorter path",
        registry_core::path::MAX_PATH_BYTES
    )]
    ArgumentTooLong {
        /// The argument, as the tool's schema names it.
        argument: &'static str,
        /// Its length in bytes.
        len: usize,
    },
    /// A path longer than
    /// [`MAX_PATH_BYTES`](registry_core::path::MAX_PATH_BYTES) reached
    /// [`Sandbox::resolve`] (a caller that did not check its arguments
    /// first): refused unresolved, for the same reason as
    /// [`ArgumentTooLong`](Self::ArgumentTooLong).
    #[error(
        "path `{path}` is {len} bytes long, over the {} bytes the operating system takes in one path (PATH_MAX), so it names no file",
        registry_core::path::MAX_PATH_BYTES
    )]
    PathTooLong {
        /// The path as the model wrote it (capped).
        path: String,
        /// Its length in bytes.
        len: usize,
    },
    /// The path leads outside the sandbox root (`..`, an absolute path
    /// elsewhere, or a symlink pointing out).
    #[error(
        "path `{path}` is outside the sandbox: use a path relative to the sandbox root, without `..` leading out of it or symlinks pointing out of it"
    )]
    Escapes {
        /// The path as the model wrote it.
        path: String,
    },
    /// A symlink on the path could not be followed (it is dangling or
    /// loops), so where the path leads is unknown.
    #[error("path `{path}` goes through a symlink that cannot be followed: {source}")]
    Unresolvable {
        /// The path as the model wrote it.
        path: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// Checking the path failed for another reason (a component is a file,
    /// permission denied, an invalid character).
    #[error("path `{path}` cannot be checked: {source}")]
    Inaccessible {
        /// The path as the model wrote it.
        path: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The path is not a regular file (a FIFO, a socket, a device), so
    /// opening it could block or stream forever.
    #[error(
        "`{path}` is {kind}, not a regular file; the file tools only read and write regular files"
    )]
    NotARegularFile {
        /// The path as the model wrote it.
        path: String,
        /// What it is instead.
        kind: SpecialFile,
    },
    /// A write would change git's internal files (`.git/config`, hooks),
    /// which git runs programs from.
    #[error(
        "path `{path}` is inside git's internal files ({reason}); writing there is refused because git config and hooks can run programs on the next git command. Change the work tree instead, or ask the user"
    )]
    GitInternals {
        /// The path as the model wrote it.
        path: String,
        /// Which rule matched.
        reason: &'static str,
    },
    /// The sandbox root given to [`Sandbox::new`] cannot be used.
    #[error("sandbox root `{}` cannot be used: {source}", root.display())]
    BadRoot {
        /// The root as given.
        root: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The sandbox root given to [`Sandbox::new`] is not a directory.
    #[error("sandbox root `{}` is not a directory", root.display())]
    RootNotADirectory {
        /// The root as given.
        root: PathBuf,
    },
}

impl Sandbox {
    /// A sandbox rooted at `root`, which must be an existing directory.
    /// The root is canonicalized once here.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, SandboxError> {
        let given = root.as_ref();
        let root = std::fs::canonicalize(given).map_err(|source| SandboxError::BadRoot {
            root: given.to_path_buf(),
            source,
        })?;
        if !root.is_dir() {
            return Err(SandboxError::RootNotADirectory {
                root: given.to_path_buf(),
            });
        }
        Ok(Sandbox {
            root,
            git_internal_writes: false,
        })
    }

    /// Lets `write_file` and `edit_file` write into git internals (`.git`
    /// directories and other git directories), which they refuse by
    /// default: see [what the file tools refuse](crate::sandbox#what-the-file-tools-refuse-and-why).
    /// Only for runtimes whose model is meant to manage repositories by
    /// hand and whose git never runs unattended.
    pub fn allow_git_internal_writes(mut self) -> Self {
        self.git_internal_writes = true;
        self
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A tool context holding this sandbox, with the sandbox root as its
    /// [working directory](ToolContext::with_working_dir).
    pub fn context(self) -> ToolContext {
        self.install(ToolContext::new())
    }

    /// `cx` with this sandbox added and the sandbox root as its working
    /// directory.
    pub fn install(self, cx: ToolContext) -> ToolContext {
        cx.with_working_dir(self.root.clone()).with(self)
    }

    /// The sandbox the runtime put into `cx`. Refused when the context's
    /// [working directory](ToolContext::working_dir) is not the sandbox
    /// root: the permission pipeline resolves relative paths against the
    /// working directory, and a tool resolving them against another root
    /// would write a file other than the one judged.
    pub fn from_context(cx: &ToolContext) -> Result<&Sandbox, SandboxError> {
        let sandbox = cx.get::<Sandbox>().ok_or(SandboxError::Missing)?;
        match cx.working_dir() {
            Some(dir) if dir == sandbox.root => Ok(sandbox),
            working_dir => Err(SandboxError::OtherWorkingDir {
                root: sandbox.root.clone(),
                working_dir: working_dir.map(Path::to_path_buf),
            }),
        }
    }

    /// The absolute path `path` refers to, if it stays inside the sandbox.
    /// Open exactly this path afterwards: it is the one that was checked.
    ///
    /// `path` is relative to the root; an absolute path is accepted only if
    /// it lies under the root. The path does not need to exist.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, SandboxError> {
        use registry_core::path::{ResolveError, resolve};
        match resolve(&self.root, Path::new(path)) {
            Ok(resolved) if resolved.path.starts_with(&self.root) => Ok(resolved.path),
            Ok(_) | Err(ResolveError::Procfs) => Err(SandboxError::Escapes { path: shown(path) }),
            // Refused by the resolver before it looked at a component.
            Err(ResolveError::TooLong { len }) => Err(SandboxError::PathTooLong {
                path: shown(path),
                len,
            }),
            Err(ResolveError::Io { source, .. }) => Err(SandboxError::Inaccessible {
                path: shown(path),
                source,
            }),
            Err(err) => Err(SandboxError::Unresolvable {
                path: shown(path),
                source: io::Error::other(err.to_string()),
            }),
        }
    }

    /// [`resolve`](Self::resolve) for a path about to be written: also
    /// refuses git internals unless
    /// [`allow_git_internal_writes`](Self::allow_git_internal_writes) was
    /// called. The check runs on the resolved path, so `..`, symlinks and
    /// absolute paths cannot route around it.
    pub fn resolve_for_write(&self, path: &str) -> Result<PathBuf, SandboxError> {
        let resolved = self.resolve(path)?;
        if !self.git_internal_writes
            && let Some(reason) = self.git_internals(&resolved)
        {
            return Err(SandboxError::GitInternals {
                path: shown(path),
                reason,
            });
        }
        Ok(resolved)
    }

    /// Why `resolved` (canonical, under the root) is part of a git
    /// directory, if it is.
    fn git_internals(&self, resolved: &Path) -> Option<&'static str> {
        if resolved.components().any(|c| is_dot_git(c.as_os_str())) {
            return Some("a `.git` path component, or a name a filesystem opens as `.git`");
        }
        // Directories shaped like git's own: a bare repository or a
        // submodule's git directory, whatever its name. Only directories
        // from the root down are looked at; the target itself is the file
        // being written, and parents that do not exist yet hold nothing.
        let mut dir = resolved.parent();
        while let Some(current) = dir {
            if !current.starts_with(&self.root) {
                break;
            }
            if looks_like_git_dir(current) {
                return Some("a directory with `HEAD`, `objects/` and `refs/`");
            }
            dir = current.parent();
        }
        None
    }

    /// `absolute` as the model should see it: relative to the root, with
    /// `/` separators, `.` for the root itself.
    pub fn display_path(&self, absolute: &Path) -> String {
        match absolute.strip_prefix(&self.root) {
            Ok(relative) => {
                let parts: Vec<_> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect();
                if parts.is_empty() {
                    ".".to_owned()
                } else {
                    parts.join("/")
                }
            }
            Err(_) => absolute.display().to_string(),
        }
    }
}

/// Refuses a path argument that no system call would take: longer than
/// [`MAX_PATH_BYTES`](registry_core::path::MAX_PATH_BYTES) (Linux's
/// `PATH_MAX`). A file tool calls it first, in `validate_input` (so the
/// executor answers before the permission pipeline normalises or resolves
/// anything) and again in `call` (for code that calls the tool directly).
/// Looks at the length only: constant time, whatever was sent.
///
/// ```
/// use registry_examples::sandbox::{SandboxError, check_path_argument};
///
/// assert!(check_path_argument("path", "src/lib.rs").is_ok());
/// let huge = "a/".repeat(10_000);
/// let err = check_path_argument("path", &huge).unwrap_err();
/// assert!(matches!(err, SandboxError::ArgumentTooLong { argument: "path", len: 20_000 }));
/// assert!(err.to_string().starts_with("`path` is a path of 20000 bytes"));
/// ```
pub fn check_path_argument(argument: &'static str, path: &str) -> Result<(), SandboxError> {
    let len = path.len();
    if len > registry_core::path::MAX_PATH_BYTES {
        return Err(SandboxError::ArgumentTooLong { argument, len });
    }
    Ok(())
}

/// The permission answer of a file tool: [`PermissionDecision::Deny`] when
/// the context has no sandbox or any of `paths` leaves it, otherwise
/// `inside`.
///
/// Read-only tools pass [`PermissionDecision::Allow`] (the tool vouches for
/// reading inside the sandbox). Tools that write pass
/// [`PermissionDecision::Delegate`]: the path is fine, but whether writing
/// is allowed at all is the general policy's call (a mode may ask first).
pub fn check_paths<'a>(
    cx: &ToolContext,
    paths: impl IntoIterator<Item = &'a str>,
    inside: PermissionDecision,
) -> PermissionDecision {
    check_with(cx, paths, inside, Sandbox::resolve)
}

/// [`check_paths`] for tools that write: also denies git internals (see
/// [`Sandbox::resolve_for_write`]).
pub fn check_write_paths<'a>(
    cx: &ToolContext,
    paths: impl IntoIterator<Item = &'a str>,
    inside: PermissionDecision,
) -> PermissionDecision {
    check_with(cx, paths, inside, Sandbox::resolve_for_write)
}

/// `Deny` with the reason when there is no sandbox or `resolve` refuses one
/// of `paths`, otherwise `inside`.
fn check_with<'a>(
    cx: &ToolContext,
    paths: impl IntoIterator<Item = &'a str>,
    inside: PermissionDecision,
    resolve: fn(&Sandbox, &str) -> Result<PathBuf, SandboxError>,
) -> PermissionDecision {
    let sandbox = match Sandbox::from_context(cx) {
        Ok(sandbox) => sandbox,
        Err(err) => {
            return PermissionDecision::Deny {
                reason: err.to_string(),
            };
        }
    };
    for path in paths {
        if let Err(err) = resolve(sandbox, path) {
            return PermissionDecision::Deny {
                reason: err.to_string(),
            };
        }
    }
    inside
}

/// Whether `dir` holds what git requires of a git directory.
fn looks_like_git_dir(dir: &Path) -> bool {
    let is = |name: &str, dir_expected: bool| {
        std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_dir() == dir_expected)
    };
    is("HEAD", false) && is("objects", true) && is("refs", true)
}

/// What a directory walk found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    /// A regular file.
    File,
    /// A directory (walked into).
    Dir,
    /// A symlink (listed, never followed).
    Symlink,
    /// Anything else (sockets, fifos, devices).
    Other,
}

/// One entry of a directory walk.
#[derive(Debug, Clone)]
pub(crate) struct WalkEntry {
    /// The absolute path.
    pub(crate) path: PathBuf,
    /// The path relative to where the walk started, `/`-separated.
    pub(crate) relative: String,
    /// What it is (symlinks are not followed).
    pub(crate) kind: EntryKind,
}

/// Every entry under the directory `start` (not `start` itself), sorted by
/// relative path. Symlinks are reported but never followed, so a walk
/// cannot leave the sandbox. Subdirectories that cannot be read are
/// skipped; `start` itself must be readable. Git directories (every name
/// [`is_dot_git`] accepts) are not entered: version-control internals are
/// noise for a model and can be huge.
pub(crate) fn walk(start: &Path) -> io::Result<Vec<WalkEntry>> {
    let mut entries = Vec::new();
    let mut pending: Vec<(PathBuf, String)> = vec![(start.to_path_buf(), String::new())];
    let mut first = true;
    while let Some((dir, prefix)) = pending.pop() {
        let reader = match std::fs::read_dir(&dir) {
            Ok(reader) => reader,
            Err(err) if first => return Err(err),
            Err(_) => continue,
        };
        first = false;
        for entry in reader {
            let Ok(entry) = entry else { continue };
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            let kind = if file_type.is_symlink() {
                EntryKind::Symlink
            } else if file_type.is_dir() {
                EntryKind::Dir
            } else if file_type.is_file() {
                EntryKind::File
            } else {
                EntryKind::Other
            };
            if kind == EntryKind::Dir {
                if is_dot_git(&entry.file_name()) {
                    continue;
                }
                pending.push((entry.path(), relative.clone()));
            }
            entries.push(WalkEntry {
                path: entry.path(),
                relative,
                kind,
            });
        }
    }
    entries.sort_by(|a, b| a.relative.cmp(&b.relative));
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_resolve_and_outside_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Sandbox::new(dir.path()).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();

        assert_eq!(sandbox.resolve(".").unwrap(), sandbox.root());
        assert_eq!(sandbox.resolve("").unwrap(), sandbox.root());
        assert_eq!(
            sandbox.resolve("sub/../new.txt").unwrap(),
            sandbox.root().join("new.txt")
        );
        assert_eq!(
            sandbox.resolve("sub/deeper/new.txt").unwrap(),
            sandbox.root().join("sub/deeper/new.txt")
        );
        let inside_absolute = sandbox.root().join("sub");
        assert_eq!(
            sandbox.resolve(&inside_absolute.to_string_lossy()).unwrap(),
            inside_absolute
        );

        for escaping in ["..", "../etc/passwd", "sub/../../x", "/etc/passwd", "/"] {
            let err = sandbox.resolve(escaping).unwrap_err();
            assert!(
                matches!(&err, SandboxError::Escapes { path } if path == escaping),
                "{escaping}: {err}"
            );
            assert!(err.to_string().contains(&format!("`{escaping}`")));
        }
    }

    #[test]
    fn paths_no_system_call_takes_are_refused_by_their_length() {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Sandbox::new(dir.path()).unwrap();
        let limit = registry_core::path::MAX_PATH_BYTES;
        let at_limit = "a".repeat(limit);
        assert!(check_path_argument("path", &at_limit).is_ok());
        // One byte more: refused unread, whatever it holds.
        let over = format!("{at_limit}/");
        assert!(matches!(
            check_path_argument("path", &over),
            Err(SandboxError::ArgumentTooLong { argument: "path", len }) if len == limit + 1
        ));
        // Past a caller that skipped the argument check, the resolver
        // refuses it before its first component, and says why (not "a
        // symlink that cannot be followed").
        let err = sandbox.resolve(&over).unwrap_err();
        assert!(
            matches!(&err, SandboxError::PathTooLong { len, .. } if *len == limit + 1),
            "{err}"
        );
        assert!(err.to_string().contains("PATH_MAX"), "{err}");
        // The error quotes the path capped, not whole.
        assert!(err.to_string().len() < 2 * limit, "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_followed_before_the_check() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Sandbox::new(dir.path()).unwrap();
        std::fs::write(dir.path().join("real.txt"), "r").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink("real.txt", dir.path().join("in.txt")).unwrap();
        std::os::unix::fs::symlink("/nonexistent/target", dir.path().join("dangling")).unwrap();

        assert!(matches!(
            sandbox.resolve("out/secret"),
            Err(SandboxError::Escapes { .. })
        ));
        assert!(matches!(
            sandbox.resolve("out/new-file"),
            Err(SandboxError::Escapes { .. })
        ));
        assert_eq!(
            sandbox.resolve("in.txt").unwrap(),
            sandbox.root().join("real.txt")
        );
        // A dangling link leads where writing through it would create a
        // file: outside, here.
        assert!(matches!(
            sandbox.resolve("dangling"),
            Err(SandboxError::Escapes { .. })
        ));
        // `..` after a link leaves the link's target, as the OS does.
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("a/b"), dir.path().join("ab")).unwrap();
        assert_eq!(
            sandbox.resolve("ab/../x").unwrap(),
            sandbox.root().join("a/x")
        );
    }

    #[test]
    fn display_path_is_relative_with_slashes() {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Sandbox::new(dir.path()).unwrap();
        assert_eq!(sandbox.display_path(sandbox.root()), ".");
        assert_eq!(
            sandbox.display_path(&sandbox.root().join("a").join("b")),
            "a/b"
        );
    }

    #[test]
    fn a_missing_root_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = Sandbox::new(dir.path().join("missing")).unwrap_err();
        assert!(matches!(err, SandboxError::BadRoot { .. }));
        std::fs::write(dir.path().join("file"), "").unwrap();
        let err = Sandbox::new(dir.path().join("file")).unwrap_err();
        assert!(matches!(err, SandboxError::RootNotADirectory { .. }));
    }

    #[test]
    fn walk_is_sorted_and_skips_git() {
        let dir = tempfile::tempdir().unwrap();
        for file in [
            "b.txt",
            "a/z.rs",
            "a/c/d.rs",
            ".git/config",
            ".GIT/config",
            "a/.git./config",
            "a/.git /config",
            "a/.g\u{200c}it/config",
            "a/GIT~1/config",
        ] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let found: Vec<_> = walk(dir.path())
            .unwrap()
            .into_iter()
            .map(|e| e.relative)
            .collect();
        assert_eq!(found, ["a", "a/c", "a/c/d.rs", "a/z.rs", "b.txt"]);
    }
}
