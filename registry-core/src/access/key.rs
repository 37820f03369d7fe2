//! AccessKey keys: what a call can touch, typed by kind so keys of
//! different kinds never meet, and ordered so hierarchical conflicts are
//! prefix questions.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::path::MAX_PATH_BYTES;

/// The kind of an [`AccessKey`]. Keys of different kinds never conflict: a
/// file called `users` and a table called `users` are different things.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Namespace {
    /// A filesystem path.
    Path,
    /// A database, or a table within one.
    Table,
    /// Anything else, in a namespace the tool author names (`"http"`,
    /// `"git-index"`). Never equal to [`Path`](Self::Path) or
    /// [`Table`](Self::Table), whatever the name.
    Named(Box<str>),
}

impl fmt::Display for Namespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Namespace::Path => f.write_str("path"),
            Namespace::Table => f.write_str("table"),
            Namespace::Named(name) => write!(f, "{name}"),
        }
    }
}

/// One thing a call reads or writes: a namespace and a key made of parts,
/// where a key covers every key it is a prefix of (the directory `a`
/// covers `a/b.txt`; the database `main` covers its table `main.users`).
///
/// Paths are normalised lexically when the key is made (`.` dropped, `..`
/// applied, repeated and trailing separators ignored), so `./a/../a/b`
/// and `a//b/` are the same key as `a/b`. A relative path is anchored and
/// its symlinks resolved by [`resolve`](Self::resolve), which the executor
/// runs on every declared access before planning.
///
/// A path longer than [`MAX_PATH_BYTES`](crate::path::MAX_PATH_BYTES)
/// (Linux's `PATH_MAX`) is [`all_paths`](Self::all_paths), decided by its
/// length alone: no system call takes it, so it names no one file, and
/// every path is the one key never looser than what it could name. The
/// executor builds these keys from a model's arguments while it plans a
/// batch, before any validation; a 100 MB `a/a/a/…` would otherwise be
/// fifty million parts. So a key costs time linear in the path and
/// memory bounded by the limit, whatever was sent.
///
/// ```
/// use registry_core::access::AccessKey;
///
/// assert_eq!(AccessKey::path("./a/../a/b"), AccessKey::path("a//b/"));
/// assert!(AccessKey::path("a").covers(&AccessKey::path("a/b.txt")));
/// assert!(!AccessKey::path("a").covers(&AccessKey::path("ab")));
/// // A path and a table never meet.
/// assert!(!AccessKey::path("users").overlaps(&AccessKey::table("users", "users")));
/// ```
#[derive(Clone)]
pub struct AccessKey {
    namespace: Namespace,
    /// For a path: `/` first when it is absolute, then its normal
    /// components (a relative path may start with `..`).
    parts: Vec<OsString>,
    /// A hash of every prefix of the key, the namespace alone first and
    /// the whole key last: the planner's index compares these instead of
    /// the parts. Derived from the fields above, so it never changes what
    /// equality or order say.
    prefix_hashes: Box<[u64]>,
    /// For a path in which `..` cancelled a name (`link/../f`): the path
    /// as written. The OS resolves `link/..` to the parent of the link's
    /// *target*, so only the filesystem can say what it names; `resolve`
    /// asks it. Not part of the key: before resolution, lexical
    /// equality is what the type promises.
    climbs_through_name: Option<Box<Path>>,
}

// Equality, order and hash are the key's (namespace and parts); the
// other fields are derived from it or only steer `resolve`.
impl PartialEq for AccessKey {
    fn eq(&self, other: &Self) -> bool {
        self.namespace == other.namespace && self.parts == other.parts
    }
}

impl Eq for AccessKey {}

impl Hash for AccessKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.namespace.hash(state);
        self.parts.hash(state);
    }
}

impl PartialOrd for AccessKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for AccessKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.namespace, &self.parts).cmp(&(&other.namespace, &other.parts))
    }
}

impl fmt::Debug for AccessKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccessKey")
            .field("namespace", &self.namespace)
            .field("parts", &self.parts)
            .finish_non_exhaustive()
    }
}

/// The first part of an absolute path key.
const ROOT: &str = "/";
/// A leading part of a relative path key that climbs above its base.
const PARENT: &str = "..";

impl AccessKey {
    /// A filesystem path, normalised lexically. Relative paths are
    /// anchored later, by [`resolve`](Self::resolve).
    ///
    /// A path longer than [`MAX_PATH_BYTES`](crate::path::MAX_PATH_BYTES)
    /// is [`all_paths`](Self::all_paths), before a component is looked
    /// at, even when it would normalise to something short (`./././…/a`):
    /// the OS refuses it as written, and every path is never looser.
    ///
    /// ```
    /// use registry_core::{access::AccessKey, path::MAX_PATH_BYTES};
    ///
    /// let at_limit = "a/".repeat(MAX_PATH_BYTES / 2);
    /// assert_ne!(AccessKey::path(&at_limit), AccessKey::all_paths());
    /// let over = format!("{at_limit}a");
    /// assert_eq!(AccessKey::path(&over), AccessKey::all_paths());
    /// assert!(AccessKey::path(&over).overlaps(&AccessKey::path("src/lib.rs")));
    /// ```
    pub fn path(path: impl AsRef<Path>) -> AccessKey {
        let path = path.as_ref();
        if path.as_os_str().len() > MAX_PATH_BYTES {
            return AccessKey::all_paths();
        }
        // At most `MAX_PATH_BYTES / 2` components from here on, each
        // looked at a bounded number of times.
        let (parts, climbed) = lexical_parts(path);
        let mut key = AccessKey::from_parts(Namespace::Path, parts);
        if climbed {
            key.climbs_through_name = Some(path.into());
        }
        key
    }

    /// Every path: conflicts with any path key at all.
    pub fn all_paths() -> AccessKey {
        AccessKey::from_parts(Namespace::Path, vec![OsString::from(ROOT)])
    }

    /// A table of a database.
    pub fn table(database: impl Into<String>, table: impl Into<String>) -> AccessKey {
        AccessKey::from_parts(
            Namespace::Table,
            vec![
                OsString::from(database.into()),
                OsString::from(table.into()),
            ],
        )
    }

    /// A whole database: conflicts with each of its tables.
    pub fn database(database: impl Into<String>) -> AccessKey {
        AccessKey::from_parts(Namespace::Table, vec![OsString::from(database.into())])
    }

    /// A key in a namespace of the author's choosing. The key is one part:
    /// named keys conflict only when equal.
    pub fn named(namespace: impl Into<String>, key: impl Into<String>) -> AccessKey {
        AccessKey::from_parts(
            Namespace::Named(namespace.into().into_boxed_str()),
            vec![OsString::from(key.into())],
        )
    }

    /// The key's namespace.
    pub(crate) fn namespace(&self) -> &Namespace {
        &self.namespace
    }

    fn from_parts(namespace: Namespace, parts: Vec<OsString>) -> AccessKey {
        // SipHash with fixed keys: the same hashes in every run.
        let mut hasher = DefaultHasher::new();
        namespace.hash(&mut hasher);
        let mut prefix_hashes = Vec::with_capacity(parts.len() + 1);
        prefix_hashes.push(hasher.finish());
        for part in &parts {
            part.hash(&mut hasher);
            prefix_hashes.push(hasher.finish());
        }
        AccessKey {
            namespace,
            parts,
            prefix_hashes: prefix_hashes.into_boxed_slice(),
            climbs_through_name: None,
        }
    }

    /// The hash of each prefix of the key, shortest (the namespace alone)
    /// first, the whole key last.
    pub(crate) fn prefix_hashes(&self) -> &[u64] {
        &self.prefix_hashes
    }

    /// The hash of the whole key.
    pub(crate) fn key_hash(&self) -> u64 {
        self.prefix_hashes[self.prefix_hashes.len() - 1]
    }

    /// Whether this is a path that is not yet anchored to a root.
    pub fn is_relative_path(&self) -> bool {
        self.namespace == Namespace::Path && self.parts.first().is_none_or(|p| p != ROOT)
    }

    /// Whether `self` covers `other`: same namespace and `other`'s key
    /// starts with this key (a key covers itself).
    pub fn covers(&self, other: &AccessKey) -> bool {
        self.namespace == other.namespace && other.parts.starts_with(&self.parts)
    }

    /// Whether the two keys can name the same thing: one covers the other,
    /// or they are a relative and an absolute path, which cannot be told
    /// apart without a root and so are assumed to overlap.
    pub fn overlaps(&self, other: &AccessKey) -> bool {
        if self.namespace == Namespace::Path
            && other.namespace == Namespace::Path
            && self.is_relative_path() != other.is_relative_path()
        {
            return true;
        }
        self.covers(other) || other.covers(self)
    }

    /// The key anchored at `root` (for a relative path) and resolved as
    /// the OS will open it, by the one resolver every path decision uses
    /// ([`path::resolve`](crate::path::resolve)): links followed, `..`
    /// applied after them, so a symlink and its target are one key, and a
    /// file about to be created under a symlinked directory is keyed under
    /// the directory's target. A path that cannot be resolved (a loop, a
    /// path through `/proc`), or that resolves to one longer than
    /// [`MAX_PATH_BYTES`](crate::path::MAX_PATH_BYTES), covers every path.
    /// Keys of other namespaces are returned unchanged.
    ///
    /// The walk is bounded by the key: a path key holds at most
    /// `MAX_PATH_BYTES` bytes of path (a longer one is already every
    /// path), so at most that many lookups, whatever the caller sent.
    ///
    /// `root` should be the directory the tool itself resolves relative
    /// paths against (its sandbox or workspace root). A relative `root` is
    /// anchored at the process's working directory. With no root, or one
    /// that cannot be anchored, a relative key becomes
    /// [`all_paths`](Self::all_paths), which conflicts with every path: a
    /// key anchored at a guess could pass as disjoint from another name of
    /// the same file.
    pub fn resolve(&self, root: Option<&Path>) -> AccessKey {
        if self.namespace != Namespace::Path {
            return self.clone();
        }
        let base = if self.is_relative_path() {
            let Some(root) = root else {
                return AccessKey::all_paths();
            };
            match absolute(root) {
                Ok(root) => root,
                Err(err) => {
                    tracing::warn!(%err, "cannot anchor a relative access path; it covers every path");
                    return AccessKey::all_paths();
                }
            }
        } else {
            PathBuf::from("/")
        };
        // The path as written when `..` cancelled a name (the OS applies
        // it after following links), else the lexical key.
        let written = match &self.climbs_through_name {
            Some(written) => written.to_path_buf(),
            None => self.to_path_buf(),
        };
        match crate::path::resolve(&base, &written) {
            // Past the limit (a deep root, or links that grew it), this
            // is every path again: the OS would not take it either.
            Ok(resolved) => AccessKey::path(resolved.path),
            Err(err) => {
                tracing::debug!(%err, "an access path cannot be resolved; it covers every path");
                AccessKey::all_paths()
            }
        }
    }

    /// The path a path key names.
    fn to_path_buf(&self) -> PathBuf {
        self.parts.iter().collect()
    }
}

impl fmt::Display for AccessKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Namespace::Path if self.parts.is_empty() => f.write_str("path ."),
            Namespace::Path => {
                f.write_str("path ")?;
                let mut parts = self.parts.iter();
                if self.parts[0] == ROOT {
                    f.write_str(ROOT)?;
                    parts.next();
                    write_joined(f, parts, "/")
                } else {
                    write_joined(f, parts, "/")
                }
            }
            namespace => {
                write!(f, "{namespace} ")?;
                write_joined(f, self.parts.iter(), ".")
            }
        }
    }
}

fn write_joined<'a>(
    f: &mut fmt::Formatter<'_>,
    parts: impl Iterator<Item = &'a OsString>,
    sep: &str,
) -> fmt::Result {
    for (i, part) in parts.enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{}", part.to_string_lossy())?;
    }
    Ok(())
}

/// The parts of `path` with `.` dropped and `..` applied lexically; `..`
/// at the root stays at the root, `..` at the start of a relative path is
/// kept (its base is not known yet). Also whether a `..` cancelled a name,
/// which only the filesystem can resolve (see [`physical_key`]).
fn lexical_parts(path: &Path) -> (Vec<OsString>, bool) {
    let mut parts: Vec<OsString> = Vec::new();
    let mut climbed = false;
    let mut absolute = false;
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => parts.push(prefix.as_os_str().to_owned()),
            Component::RootDir => {
                absolute = true;
                parts.push(OsString::from(ROOT));
            }
            Component::CurDir => {}
            Component::ParentDir => match parts.last() {
                Some(last) if last != ROOT && last != PARENT && !is_prefix(last) => {
                    parts.pop();
                    climbed = true;
                }
                _ if absolute => {}
                _ => parts.push(OsString::from(PARENT)),
            },
            Component::Normal(name) => parts.push(name.to_owned()),
        }
    }
    (parts, climbed)
}

/// Whether `part` is a Windows path prefix (`C:`), which `..` cannot pop.
fn is_prefix(part: &OsStr) -> bool {
    matches!(
        Path::new(part).components().next(),
        Some(Component::Prefix(_))
    )
}

/// `path` made absolute against the working directory.
fn absolute(path: &Path) -> io::Result<PathBuf> {
    if path.is_absolute() {
        Ok(path.to_owned())
    } else {
        Ok(std::env::current_dir()?.join(path))
    }
}
