//! The one resolver of a path: what file the operating system will reach
//! for a path a model named, relative to the directory the tool works in.
//!
//! The permission pipeline (path rules, the `accept_edits` workspace
//! check), the executor's access keys and file tools all call
//! [`resolve`], so a path is judged as the file it opens and never read
//! two ways. Relative paths are resolved against one base, the
//! [working directory](crate::declare::ToolContext::with_working_dir) of the call.
//!
//! # How a path is resolved
//!
//! Component by component, as the kernel walks it: a name is looked up in
//! the directory reached so far; a symbolic link is replaced by its target
//! (an absolute target restarts at `/`, a relative one continues from the
//! link's directory), at most `MAX_SYMLINKS` times; `..` leaves the
//! directory reached so far, *after* its links were followed (so
//! `link/..` is the parent of the link's target, not the directory holding
//! the link). Names that do not exist yet are appended as written (they
//! cannot be links), but a `..` after one is an error, as it is for the OS.
//!
//! # What cannot be resolved safely
//!
//! - A path through `/proc` ([`ResolveError::Procfs`]): its links
//!   (`/proc/self/root`, `/proc/self/fd/3`) name open files and other
//!   processes' views, not paths; resolution refuses them.
//! - A hard link: a second name of a file is a different path, and no
//!   resolution can tell which other names a file has. [`resolve`] reports
//!   the link count of an existing file ([`Resolved::links`]), so a caller
//!   can treat a file with several names as one it cannot check (the
//!   permission pipeline does, for deny and ask rules).
//! - A race: a link swapped in after the path was resolved. Tools that
//!   open the path afterwards should open it without following a link in
//!   the last component.
//!
//! Also here: `normalize_path`, the lexical normalisation path rules are
//! written in.
//!
//! Never does: decide whether a path may be used (the permission pipeline
//! does, on what this returns), read or write a file's contents, or guess
//! at what it cannot resolve: an error is the answer, and its callers
//! treat it as the worst case.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// How many symbolic links one resolution follows, as Linux's `ELOOP`
/// limit.
pub(crate) const MAX_SYMLINKS: usize = 40;

/// The longest path resolved, in bytes (Linux's `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// A path as the operating system will reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Absolute, every link followed, no `.` or `..`.
    pub path: PathBuf,
    /// Whether the whole path exists.
    pub exists: bool,
    /// How many names (hard links) the file has, when it exists and is not
    /// a directory; more than one means another path names it too.
    pub links: u64,
}

/// Why a path has no resolution.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// The path is longer than [`MAX_PATH_BYTES`].
    #[error("the path is {len} bytes long, over the {MAX_PATH_BYTES} bytes a path may have")]
    TooLong {
        /// Its length.
        len: usize,
    },
    /// More than `MAX_SYMLINKS` symbolic links (a loop).
    #[error("the path goes through more than {MAX_SYMLINKS} symbolic links (a loop?)")]
    Loop,
    /// A `..` after a name that does not exist.
    #[error("the path climbs with `..` out of `{}`, which does not exist", .0.display())]
    MissingParent(PathBuf),
    /// The path goes through `/proc`, whose links are not paths.
    #[error("the path goes through /proc, whose links name open files and processes, not paths")]
    Procfs,
    /// The base is not an absolute path.
    #[error("relative paths have no base directory to resolve against")]
    NoBase,
    /// The file system refused a lookup (permission denied, a component
    /// that is not a directory, ...).
    #[error("looking up `{}` failed: {source}", path.display())]
    Io {
        /// Where.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
}

/// Resolves `path` as the OS will: relative to `base` (which must be
/// absolute; an absolute `path` ignores it), links followed, `..`
/// applied after them.
///
/// ```
/// # #[cfg(unix)] {
/// use registry_core::path::resolve;
///
/// let dir = tempfile::tempdir().unwrap();
/// let root = dir.path().canonicalize().unwrap();
/// std::fs::create_dir_all(root.join("project/src")).unwrap();
/// std::os::unix::fs::symlink(root.join("project/src"), root.join("link")).unwrap();
///
/// // `link/..` is the parent of the link's target, as for the kernel.
/// let up = resolve(&root, "link/../notes.txt".as_ref()).unwrap();
/// assert_eq!(up.path, root.join("project/notes.txt"));
/// assert!(!up.exists);
/// # }
/// ```
pub fn resolve(base: &Path, path: &Path) -> Result<Resolved, ResolveError> {
    // First, before a component is looked at: the kernel refuses a longer
    // path outright, and this bound is what keeps the walk below cheap
    // (at most 2,048 components, each looked up once). A 100 MB
    // `a/a/a/…` has fifty million of them.
    let len = path.as_os_str().len();
    if len > MAX_PATH_BYTES {
        return Err(ResolveError::TooLong { len });
    }
    let mut at = if path.is_absolute() {
        PathBuf::from("/")
    } else {
        if !base.is_absolute() {
            return Err(ResolveError::NoBase);
        }
        // The base is resolved like any path (it may hold links itself).
        resolve(Path::new("/"), base)?.path
    };
    let mut pending: VecDeque<OsString> = names(path);
    let mut hops = 0;
    // Set once a name did not exist: the rest is appended as written.
    let mut missing: Option<PathBuf> = None;
    let mut last = None;
    while let Some(name) = pending.pop_front() {
        // A name or `..` after a file: the OS says "not a directory".
        if last
            .as_ref()
            .is_some_and(|meta: &std::fs::Metadata| !meta.is_dir())
        {
            return Err(ResolveError::Io {
                path: at,
                source: io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
            });
        }
        if name == ".." {
            if let Some(missing) = missing {
                return Err(ResolveError::MissingParent(missing));
            }
            at.pop();
            last = None;
            continue;
        }
        let next = at.join(&name);
        if missing.is_some() {
            at = next;
            continue;
        }
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINKS {
                    return Err(ResolveError::Loop);
                }
                let target = std::fs::read_link(&next).map_err(|source| ResolveError::Io {
                    path: next.clone(),
                    source,
                })?;
                if target.is_absolute() {
                    at = PathBuf::from("/");
                }
                for part in names(&target).into_iter().rev() {
                    pending.push_front(part);
                }
            }
            Ok(meta) => {
                at = next;
                last = Some(meta);
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                missing = Some(next.clone());
                at = next;
            }
            Err(source) => return Err(ResolveError::Io { path: next, source }),
        }
        if at.starts_with("/proc") {
            return Err(ResolveError::Procfs);
        }
    }
    let exists = missing.is_none();
    let links = match (&last, exists) {
        (Some(meta), true) if !meta.is_dir() => link_count(meta),
        _ => 1,
    };
    Ok(Resolved {
        path: at,
        exists,
        links,
    })
}

/// The names of a path in order, `.` and the root dropped, `..` kept.
fn names(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_owned()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect()
}

#[cfg(unix)]
fn link_count(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn link_count(_: &std::fs::Metadata) -> u64 {
    1
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("sandbox/project/sub")).unwrap();
        std::fs::write(root.join("sandbox/project/.env"), "secret").unwrap();
        std::fs::write(root.join("sandbox/notes.txt"), "n").unwrap();
        (dir, root)
    }

    #[test]
    fn relative_paths_resolve_against_the_base() {
        let (_dir, root) = tree();
        let base = root.join("sandbox/project");
        let r = resolve(&base, "sub/../.env".as_ref()).unwrap();
        assert_eq!(r.path, base.join(".env"));
        assert!(r.exists);
        let r = resolve(&base, "../notes.txt".as_ref()).unwrap();
        assert_eq!(r.path, root.join("sandbox/notes.txt"));
        let r = resolve(&base, "./new/file.txt".as_ref()).unwrap();
        assert_eq!(r.path, base.join("new/file.txt"));
        assert!(!r.exists);
        // `..` at the root stays at the root.
        let r = resolve(&base, "/../../etc".as_ref()).unwrap();
        assert_eq!(r.path, Path::new("/etc"));
    }

    #[test]
    fn links_are_followed_before_dot_dot() {
        let (_dir, root) = tree();
        let base = root.join("sandbox");
        symlink(root.join("sandbox/project/sub"), base.join("deep")).unwrap();
        symlink("project/.env", base.join("innocent")).unwrap();
        symlink("loop", base.join("loop")).unwrap();
        symlink("/nonexistent/target", base.join("dangling")).unwrap();
        // A second spelling of a denied file.
        let r = resolve(&base, "innocent".as_ref()).unwrap();
        assert_eq!(r.path, base.join("project/.env"));
        // `deep/..` is `project`, not `sandbox`.
        let r = resolve(&base, "deep/../.env".as_ref()).unwrap();
        assert_eq!(r.path, base.join("project/.env"));
        assert!(matches!(
            resolve(&base, "loop".as_ref()),
            Err(ResolveError::Loop)
        ));
        // A dangling link leads where a write through it would create a
        // file.
        let r = resolve(&base, "dangling".as_ref()).unwrap();
        assert_eq!(r.path, Path::new("/nonexistent/target"));
        assert!(!r.exists);
        assert!(matches!(
            resolve(&base, "missing/../notes.txt".as_ref()),
            Err(ResolveError::MissingParent(_))
        ));
    }

    #[test]
    fn what_cannot_be_resolved_safely_says_so() {
        let (_dir, root) = tree();
        let base = root.join("sandbox");
        // /proc's links name open files and other processes' roots.
        assert!(matches!(
            resolve(&base, "/proc/self/root/etc/passwd".as_ref()),
            Err(ResolveError::Procfs)
        ));
        symlink("/proc/self/cwd", base.join("here")).unwrap();
        assert!(matches!(
            resolve(&base, "here/x".as_ref()),
            Err(ResolveError::Procfs)
        ));
        // A hard link is another name of the same file: resolution cannot
        // see the other name, but says the file has more than one.
        std::fs::hard_link(base.join("project/.env"), base.join("hard.txt")).unwrap();
        let r = resolve(&base, "hard.txt".as_ref()).unwrap();
        assert_eq!(r.path, base.join("hard.txt"));
        assert_eq!(r.links, 2);
        let long = "a/".repeat(MAX_PATH_BYTES);
        assert!(matches!(
            resolve(&base, long.as_ref()),
            Err(ResolveError::TooLong { .. })
        ));
        assert!(matches!(
            resolve(Path::new("relative"), "x".as_ref()),
            Err(ResolveError::NoBase)
        ));
    }
}

/// Normalises a `/`-separated path lexically, without touching the file
/// system: empty and `.` components are dropped, `name/..` cancels out,
/// `..` directly under the root `/` is dropped, and a trailing `/` goes.
/// An empty relative result is `.`.
///
/// Not normalised, on purpose or because it cannot be done lexically:
/// symbolic links (`link/..` is taken to be the directory holding `link`),
/// `..` leading out of a relative path (kept: `../x` stays `../x` and
/// matches no rule written for paths inside), relative versus absolute
/// (`src/a` and `/work/src/a` are different texts), case, `~`, `\` (an
/// ordinary character on Unix) and Unicode normalisation. Rules about
/// paths are a first filter; the tool's own sandbox check, which resolves
/// the real path, remains the gate.
pub(crate) fn normalize_path(path: &str) -> String {
    // Built in place, in one string no longer than the input (plus the
    // `/` or `.` an empty result gets), and in one pass: the text is
    // anything a model sent, and a vector of its components would cost
    // a pointer and a length for every `a/` of a 100 MB path.
    let absolute = path.starts_with('/');
    let mut out = String::with_capacity(path.len() + 1);
    if absolute {
        out.push('/');
    }
    // Where the components start in `out` (after the root's `/`).
    let floor = out.len();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                // The last component kept, if any: it is only looked at
                // here, and then either removed or a `..` (two bytes),
                // so every byte is scanned a bounded number of times.
                let start = out[floor..].rfind('/').map_or(floor, |i| floor + i + 1);
                match &out[start..] {
                    // `/..` is `/`; a relative path keeps a leading `..`.
                    "" if absolute => {}
                    "" | ".." => push_part(&mut out, floor, ".."),
                    _ => out.truncate(start.saturating_sub(1).max(floor)),
                }
            }
            part => push_part(&mut out, floor, part),
        }
    }
    if out.is_empty() {
        out.push('.');
    }
    out
}

/// Appends one component to a path being normalised, after a `/` unless
/// it is the first.
fn push_part(out: &mut String, floor: usize, part: &str) {
    if out.len() > floor {
        out.push('/');
    }
    out.push_str(part);
}

#[cfg(test)]
mod lexical_tests {
    use super::*;

    #[test]
    fn paths_normalise_lexically() {
        let cases = [
            ("src/lib.rs", "src/lib.rs"),
            ("./src/lib.rs", "src/lib.rs"),
            ("src//lib.rs", "src/lib.rs"),
            ("src/x/../lib.rs", "src/lib.rs"),
            ("src/", "src"),
            ("", "."),
            (".", "."),
            ("a/..", "."),
            ("../a", "../a"),
            ("../../a/../b", "../../b"),
            ("/", "/"),
            ("/..", "/"),
            ("/a/../../b", "/b"),
            (r"a\..\b", r"a\..\b"),
        ];
        for (given, normalised) in cases {
            assert_eq!(normalize_path(given), normalised, "{given:?}");
        }
    }

    /// The normalisation this module had before it was built in place:
    /// a vector of the components, joined.
    fn by_components(path: &str) -> String {
        let absolute = path.starts_with('/');
        let mut parts: Vec<&str> = Vec::new();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => match parts.last() {
                    Some(&last) if last != ".." => {
                        parts.pop();
                    }
                    _ if absolute => {}
                    _ => parts.push(".."),
                },
                part => parts.push(part),
            }
        }
        let joined = parts.join("/");
        match (absolute, joined.is_empty()) {
            (true, _) => format!("/{joined}"),
            (false, true) => ".".to_owned(),
            (false, false) => joined,
        }
    }

    proptest::proptest! {
        #[test]
        fn normalising_in_place_agrees_with_the_components(path in "[/.ab]{0,16}") {
            proptest::prop_assert_eq!(normalize_path(&path), by_components(&path));
        }
    }

    #[test]
    fn a_path_of_many_components_normalises_in_one_pass() {
        // Fifty thousand components, then as many `..` less one: each
        // `..` looks at one component, whatever came before.
        let mut path = "a/".repeat(50_000);
        path.push_str(&"../".repeat(49_999));
        assert_eq!(normalize_path(&path), "a");
        path.push_str("../../../b");
        assert_eq!(normalize_path(&path), "../../b");
        assert_eq!(normalize_path(&format!("/{path}")), "/b");
    }
}

/// The examples that were this module's doc tests, kept as tests now
/// that the items they show are crate-private.
#[cfg(test)]
mod examples {
    use super::normalize_path;

    #[test]
    fn normalize_path_examples() {
        assert_eq!(normalize_path("src/./a//b/../c.rs"), "src/a/c.rs");
        assert_eq!(normalize_path("/../etc/passwd"), "/etc/passwd");
        assert_eq!(normalize_path("../outside"), "../outside");
        assert_eq!(normalize_path("./"), ".");
    }
}
