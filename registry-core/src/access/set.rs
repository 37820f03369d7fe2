//! What one call touches: a set of reads and writes over resource keys,
//! or everything.

use std::fmt;
use std::ops::BitOr;
use std::path::Path;
use std::sync::{Arc, LazyLock};

use super::key::AccessKey;

/// Whether a call reads or writes a resource. Reads share a resource; a
/// write excludes every other access to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum AccessMode {
    /// Only looks.
    Read,
    /// Changes it (or may).
    Write,
}

impl fmt::Display for AccessMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccessMode::Read => "reads",
            AccessMode::Write => "writes",
        })
    }
}

/// What a touch is about: one resource key, or everything at once.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Scope {
    /// Every resource of every namespace.
    Everything,
    /// One key and everything it covers.
    AccessKey(AccessKey),
}

impl Scope {
    /// Whether the two scopes can meet.
    pub(crate) fn overlaps(&self, other: &Scope) -> bool {
        match (self, other) {
            (Scope::Everything, _) | (_, Scope::Everything) => true,
            (Scope::AccessKey(a), Scope::AccessKey(b)) => a.overlaps(b),
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Everything => f.write_str("everything"),
            Scope::AccessKey(resource) => write!(f, "{resource}"),
        }
    }
}

/// One read or write.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Touch {
    /// Read or write.
    pub(crate) mode: AccessMode,
    /// Of what.
    pub(crate) scope: Scope,
}

impl Touch {
    /// Whether two touches exclude each other: they meet, and at least one
    /// writes.
    pub(crate) fn conflicts_with(&self, other: &Touch) -> bool {
        (self.mode == AccessMode::Write || other.mode == AccessMode::Write)
            && self.scope.overlaps(&other.scope)
    }
}

impl fmt::Display for Touch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.mode, self.scope)
    }
}

/// Everything one call reads and writes.
///
/// A tool declares it per call with `#[tool(access = ...)]` (or
/// [`ToolBuilder::access`](crate::declare::ToolBuilder::access)); two calls whose
/// accesses do not conflict may share a batch even when they write. A tool
/// that declares nothing keeps the boolean rule, in these terms: a
/// concurrency-safe call [reads everything](Self::read_everything), any
/// other call [writes everything](Self::everything) and runs alone.
///
/// ```
/// use registry_core::access::{Access, AccessKey};
///
/// let edit_a = Access::write(AccessKey::path("/w/a.rs"));
/// let edit_b = Access::write(AccessKey::path("/w/b.rs"));
/// let list_w = Access::read(AccessKey::path("/w"));
/// assert!(!edit_a.conflicts(&edit_b));
/// // Writing a file conflicts with reading its directory.
/// assert!(edit_a.conflicts(&list_w));
/// // Reads share; `everything` excludes every access.
/// assert!(!list_w.conflicts(&Access::read(AccessKey::path("/w/a.rs"))));
/// assert!(Access::everything().conflicts(&list_w));
/// let both = edit_a | Access::read(AccessKey::table("main", "users"));
/// assert_eq!(both.to_string(), "writes path /w/a.rs, reads table main.users");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Access {
    /// Normalised: sorted by scope, one touch per scope (a write absorbs a
    /// read of the same scope), nothing else beside a write of
    /// everything, and no other read beside a read of everything. Shared,
    /// so the planner keeps a batch's accesses for its explanations at the
    /// cost of a reference count each.
    touches: Arc<[Touch]>,
}

/// The three accesses every call without a declaration (and every slot
/// the planner empties) takes, made once per process: handing one out is
/// a reference count, not an allocation per call.
static NONE: LazyLock<Access> = LazyLock::new(|| Access {
    touches: Arc::from([]),
});
static EVERYTHING: LazyLock<Access> =
    LazyLock::new(|| Access::one(AccessMode::Write, Scope::Everything));
static READ_EVERYTHING: LazyLock<Access> =
    LazyLock::new(|| Access::one(AccessMode::Read, Scope::Everything));

impl Default for Access {
    /// [`Access::none`].
    fn default() -> Self {
        NONE.clone()
    }
}

impl Access {
    /// Touches nothing: shares a batch with anything that does not write
    /// everything.
    pub fn none() -> Access {
        Access::default()
    }

    /// Reads one resource.
    pub fn read(resource: AccessKey) -> Access {
        Access::one(AccessMode::Read, Scope::AccessKey(resource))
    }

    /// Writes one resource.
    pub fn write(resource: AccessKey) -> Access {
        Access::one(AccessMode::Write, Scope::AccessKey(resource))
    }

    /// Reads each of `resources`.
    pub fn read_all(resources: impl IntoIterator<Item = AccessKey>) -> Access {
        Access::many(AccessMode::Read, resources)
    }

    /// Writes each of `resources`.
    pub fn write_all(resources: impl IntoIterator<Item = AccessKey>) -> Access {
        Access::many(AccessMode::Write, resources)
    }

    /// Writes everything: the strictest access, a call that runs alone.
    /// What an unsafe call without a declaration has, and what a panicking
    /// access expression means.
    pub fn everything() -> Access {
        EVERYTHING.clone()
    }

    /// Reads everything: shares a batch with readers, never with a writer.
    /// What a concurrency-safe call without a declaration has.
    pub fn read_everything() -> Access {
        READ_EVERYTHING.clone()
    }

    fn one(mode: AccessMode, scope: Scope) -> Access {
        Access {
            touches: Arc::from([Touch { mode, scope }]),
        }
    }

    fn many(mode: AccessMode, resources: impl IntoIterator<Item = AccessKey>) -> Access {
        Access::from_touches(resources.into_iter().map(|resource| Touch {
            mode,
            scope: Scope::AccessKey(resource),
        }))
    }

    fn from_touches(touches: impl IntoIterator<Item = Touch>) -> Access {
        let mut touches: Vec<Touch> = touches.into_iter().collect();
        // By scope, writes first, so `dedup` keeps the write of a scope.
        touches.sort_unstable_by(|a, b| a.scope.cmp(&b.scope).then(b.mode.cmp(&a.mode)));
        touches.dedup_by(|later, kept| later.scope == kept.scope);
        let everything = touches
            .iter()
            .find(|t| t.scope == Scope::Everything)
            .map(|t| t.mode);
        match everything {
            Some(AccessMode::Write) => return Access::everything(),
            Some(AccessMode::Read) => {
                touches.retain(|t| t.scope == Scope::Everything || t.mode == AccessMode::Write);
            }
            None => {}
        }
        Access {
            touches: touches.into(),
        }
    }

    /// Everything either access touches.
    pub fn union(self, other: Access) -> Access {
        Access::from_touches(self.touches.iter().chain(other.touches.iter()).cloned())
    }

    /// The reads and writes, ordered by scope.
    pub(crate) fn touches(&self) -> &[Touch] {
        &self.touches
    }

    /// Whether nothing is touched.
    pub fn is_none(&self) -> bool {
        self.touches.is_empty()
    }

    /// Whether this writes everything (and so runs alone).
    pub fn writes_everything(&self) -> bool {
        matches!(
            &*self.touches,
            [Touch {
                mode: AccessMode::Write,
                scope: Scope::Everything
            }]
        )
    }

    /// Whether this reads (at least) everything.
    pub fn reads_everything(&self) -> bool {
        self.touches.iter().any(|t| t.scope == Scope::Everything)
    }

    /// Whether this access and `other` exclude each other: some key one
    /// writes, the other reads or writes. Calls whose accesses do not
    /// conflict may run at the same time.
    pub fn conflicts(&self, other: &Access) -> bool {
        self.conflict_with(other).is_some()
    }

    /// The first pair of touches, this one's and `other`'s, that exclude
    /// each other; `None` when the two may run at the same time.
    pub(crate) fn conflict_with<'a>(&'a self, other: &'a Access) -> Option<(&'a Touch, &'a Touch)> {
        self.touches.iter().find_map(|mine| {
            other
                .touches
                .iter()
                .find(|theirs| mine.conflicts_with(theirs))
                .map(|theirs| (mine, theirs))
        })
    }

    /// Every path key anchored at `root` and canonicalised where it exists
    /// (see [`AccessKey::resolve`]; with no root, a relative path covers
    /// every path).
    pub fn resolve(&self, root: Option<&Path>) -> Access {
        if !self.touches.iter().any(
            |t| matches!(&t.scope, Scope::AccessKey(r) if r.namespace() == &super::Namespace::Path),
        ) {
            return self.clone();
        }
        Access::from_touches(self.touches.iter().map(|t| Touch {
            mode: t.mode,
            scope: match &t.scope {
                Scope::AccessKey(r) => Scope::AccessKey(r.resolve(root)),
                Scope::Everything => Scope::Everything,
            },
        }))
    }
}

impl BitOr for Access {
    type Output = Access;

    /// [`Access::union`].
    fn bitor(self, other: Access) -> Access {
        self.union(other)
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.touches.is_empty() {
            return f.write_str("touches nothing");
        }
        for (i, touch) in self.touches.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{touch}")?;
        }
        Ok(())
    }
}
