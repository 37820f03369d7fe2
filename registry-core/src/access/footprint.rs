//! The accesses of one open batch, indexed so the planner asks "does this
//! call conflict with anything already in the batch?" in a few integer
//! map lookups per key instead of a scan of every earlier call.
//!
//! Keys are indexed by the hashes of their prefixes (see
//! [`AccessKey`]): a key meets a stored key when one of its prefixes is a
//! stored key (an ancestor, or itself) or when it is a prefix of a stored
//! key (a descendant). Two different keys with the same 64-bit hash would
//! count as meeting: the error can only serialise two calls, never let
//! conflicting calls share a batch.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

use super::key::{AccessKey, Namespace};
use super::set::{Access, AccessMode, Scope, Touch};

/// Why a call may not join a batch: one of its touches excludes one of an
/// earlier call's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Conflict {
    /// The earlier call, by its index in the turn.
    pub(crate) earlier: usize,
    /// The earlier call's touch.
    pub(crate) earlier_touch: Touch,
    /// The later call's touch.
    pub(crate) touch: Touch,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, which #{} {}",
            self.touch, self.earlier, self.earlier_touch
        )
    }
}

/// The keys are hashes already: hashing them again buys nothing.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used; fold anything else in deterministically.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A touch of the batch: which member, which of its touches. Looked up,
/// never iterated, so the map's order cannot leak into a plan.
type ByHash = HashMap<u64, (u32, u32), BuildHasherDefault<PassThrough>>;

/// One mode's keys.
#[derive(Default)]
struct Keys {
    /// Whole keys.
    exact: ByHash,
    /// Every prefix of every key.
    prefixes: ByHash,
}

impl Keys {
    /// A stored key that `resource` covers or is covered by.
    fn meeting(&self, resource: &AccessKey) -> Option<(u32, u32)> {
        if self.exact.is_empty() {
            return None;
        }
        resource
            .prefix_hashes()
            .iter()
            .find_map(|h| self.exact.get(h))
            .or_else(|| self.prefixes.get(&resource.key_hash()))
            .copied()
    }

    fn insert(&mut self, resource: &AccessKey, at: (u32, u32)) {
        self.exact.entry(resource.key_hash()).or_insert(at);
        for &h in resource.prefix_hashes() {
            self.prefixes.entry(h).or_insert(at);
        }
    }
}

/// The first touch of the batch of some kind: which member, which touch.
type First = Option<(u32, u32)>;

/// Everything the calls of one open batch touch.
#[derive(Default)]
pub(crate) struct Footprint {
    /// The batch's calls: their index in the turn and their access.
    members: Vec<(usize, Access)>,
    /// The first touch of anything, and the first write.
    any: First,
    any_write: First,
    /// The first read and the first write of everything.
    read_everything: First,
    write_everything: First,
    /// For paths not yet anchored to a root, and paths that are: the first
    /// read and write of each, since a relative and an absolute path
    /// cannot be told apart and count as overlapping.
    relative_paths: [First; 2],
    absolute_paths: [First; 2],
    reads: Keys,
    writes: Keys,
}

impl fmt::Debug for Footprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Footprint")
            .field("members", &self.members)
            .finish_non_exhaustive()
    }
}

impl Footprint {
    /// An empty batch.
    pub(crate) fn new() -> Footprint {
        Footprint::default()
    }

    /// Adds call `index` with `access` when it conflicts with nothing
    /// admitted so far; otherwise says which earlier touch it meets and
    /// leaves the footprint unchanged.
    ///
    /// Touches only are compared: a call that touches nothing admits a
    /// later write of everything. The planner never asks that, since a
    /// call that writes everything runs alone.
    pub(crate) fn admit(&mut self, index: usize, access: &Access) -> Result<(), Box<Conflict>> {
        for touch in access.touches() {
            if let Some((member, at)) = self.first_conflict(touch) {
                let (earlier, earlier_access) = &self.members[member as usize];
                return Err(Box::new(Conflict {
                    earlier: *earlier,
                    earlier_touch: earlier_access.touches()[at as usize].clone(),
                    touch: touch.clone(),
                }));
            }
        }
        let member = u32::try_from(self.members.len()).unwrap_or(u32::MAX);
        for (at, touch) in access.touches().iter().enumerate() {
            self.insert((member, u32::try_from(at).unwrap_or(u32::MAX)), touch);
        }
        self.members.push((index, access.clone()));
        Ok(())
    }

    fn first_conflict(&self, touch: &Touch) -> First {
        let write = touch.mode == AccessMode::Write;
        let resource = match &touch.scope {
            Scope::Everything if write => return self.any,
            Scope::Everything => return self.any_write,
            Scope::AccessKey(resource) => resource,
        };
        if self.write_everything.is_some() {
            return self.write_everything;
        }
        if write && self.read_everything.is_some() {
            return self.read_everything;
        }
        if *resource.namespace() == Namespace::Path {
            let other = if resource.is_relative_path() {
                &self.absolute_paths
            } else {
                &self.relative_paths
            };
            let hit = if write {
                other[0].or(other[1])
            } else {
                other[1]
            };
            if hit.is_some() {
                return hit;
            }
        }
        self.writes
            .meeting(resource)
            .or_else(|| write.then(|| self.reads.meeting(resource)).flatten())
    }

    fn insert(&mut self, at: (u32, u32), touch: &Touch) {
        let first = |slot: &mut First| {
            slot.get_or_insert(at);
        };
        first(&mut self.any);
        let write = touch.mode == AccessMode::Write;
        if write {
            first(&mut self.any_write);
        }
        let resource = match &touch.scope {
            Scope::Everything if write => return first(&mut self.write_everything),
            Scope::Everything => return first(&mut self.read_everything),
            Scope::AccessKey(resource) => resource,
        };
        if *resource.namespace() == Namespace::Path {
            let anchoring = if resource.is_relative_path() {
                &mut self.relative_paths
            } else {
                &mut self.absolute_paths
            };
            first(&mut anchoring[usize::from(write)]);
        }
        let keys = if write {
            &mut self.writes
        } else {
            &mut self.reads
        };
        keys.insert(resource, at);
    }
}
