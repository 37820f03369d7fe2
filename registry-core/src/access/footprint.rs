//! The accesses of one open batch, indexed so the planner asks "does this
//! call conflict with anything already in the batch?" in a few map
//! lookups per key instead of a scan of every earlier call.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::ops::Bound;

use super::resource::{Namespace, Resource};
use super::set::{Access, AccessMode, Scope, Touch};

/// Why a call may not join a batch: one of its touches excludes one of an
/// earlier call's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Conflict {
    /// The earlier call, by its index in the turn.
    pub earlier: usize,
    /// The earlier call's touch.
    pub earlier_touch: Touch,
    /// The later call's touch.
    pub touch: Touch,
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

/// Key parts to the first call of the batch that touched exactly that key.
type ByKey = BTreeMap<Vec<OsString>, usize>;

/// One namespace's keys, by mode.
#[derive(Debug, Default)]
struct Keys {
    reads: ByKey,
    writes: ByKey,
}

/// The first call of the batch to touch something in a way, and how.
type First = Option<(usize, Touch)>;

/// Everything the calls of one open batch touch.
#[derive(Debug, Default)]
pub struct Footprint {
    /// The first call that touched anything / wrote anything.
    any: First,
    any_write: First,
    /// The first that read / wrote everything.
    read_everything: First,
    write_everything: First,
    /// For paths not yet anchored to a root and paths that are: the first
    /// reader and writer of each kind, since a relative and an absolute
    /// path cannot be told apart and count as overlapping.
    relative_paths: [First; 2],
    absolute_paths: [First; 2],
    keys: BTreeMap<Namespace, Keys>,
}

impl Footprint {
    /// An empty batch.
    pub fn new() -> Footprint {
        Footprint::default()
    }

    /// Adds call `index` with `access` when it conflicts with nothing
    /// admitted so far; otherwise says which earlier touch it meets and
    /// leaves the footprint unchanged.
    ///
    /// Touches only are compared: a call that touches nothing admits a
    /// later write of everything. The planner never asks that, since a
    /// call that writes everything runs alone.
    pub fn admit(&mut self, index: usize, access: &Access) -> Result<(), Conflict> {
        for touch in access.touches() {
            if let Some((earlier, earlier_touch)) = self.first_conflict(touch) {
                return Err(Conflict {
                    earlier,
                    earlier_touch,
                    touch: touch.clone(),
                });
            }
        }
        for touch in access.touches() {
            self.insert(index, touch);
        }
        Ok(())
    }

    fn first_conflict(&self, touch: &Touch) -> Option<(usize, Touch)> {
        let write = touch.mode == AccessMode::Write;
        let resource = match &touch.scope {
            Scope::Everything if write => return self.any.clone(),
            Scope::Everything => return self.any_write.clone(),
            Scope::Resource(resource) => resource,
        };
        if let Some(hit) = &self.write_everything {
            return Some(hit.clone());
        }
        if write && let Some(hit) = &self.read_everything {
            return Some(hit.clone());
        }
        if *resource.namespace() == Namespace::Path {
            let other = if resource.is_relative_path() {
                &self.absolute_paths
            } else {
                &self.relative_paths
            };
            let hit = if write {
                other[0].as_ref().or(other[1].as_ref())
            } else {
                other[1].as_ref()
            };
            if let Some(hit) = hit {
                return Some(hit.clone());
            }
        }
        let keys = self.keys.get(resource.namespace())?;
        let hit = overlapping(&keys.writes, resource.parts())
            .map(|(parts, index)| (AccessMode::Write, parts, index))
            .or_else(|| {
                write
                    .then(|| overlapping(&keys.reads, resource.parts()))
                    .flatten()
                    .map(|(parts, index)| (AccessMode::Read, parts, index))
            })?;
        let (mode, parts, index) = hit;
        let earlier = Resource::from_parts(resource.namespace().clone(), parts.to_vec());
        Some((
            index,
            Touch {
                mode,
                scope: Scope::Resource(earlier),
            },
        ))
    }

    fn insert(&mut self, index: usize, touch: &Touch) {
        let first = |slot: &mut First| {
            slot.get_or_insert_with(|| (index, touch.clone()));
        };
        first(&mut self.any);
        let write = touch.mode == AccessMode::Write;
        if write {
            first(&mut self.any_write);
        }
        let resource = match &touch.scope {
            Scope::Everything if write => return first(&mut self.write_everything),
            Scope::Everything => return first(&mut self.read_everything),
            Scope::Resource(resource) => resource,
        };
        if *resource.namespace() == Namespace::Path {
            let anchoring = if resource.is_relative_path() {
                &mut self.relative_paths
            } else {
                &mut self.absolute_paths
            };
            first(&mut anchoring[usize::from(write)]);
        }
        let keys = self.keys.entry(resource.namespace().clone()).or_default();
        let map = if write {
            &mut keys.writes
        } else {
            &mut keys.reads
        };
        map.entry(resource.parts().to_vec()).or_insert(index);
    }
}

/// A key in `map` that `parts` covers or is covered by, with its call.
fn overlapping<'m>(map: &'m ByKey, parts: &[OsString]) -> Option<(&'m [OsString], usize)> {
    if map.is_empty() {
        return None;
    }
    // Ancestors and the key itself: one lookup per prefix.
    for len in 0..=parts.len() {
        if let Some((key, &index)) = map.get_key_value(&parts[..len]) {
            return Some((key, index));
        }
    }
    // Descendants sort right after the key, before anything else.
    map.range::<[OsString], _>((Bound::Excluded(parts), Bound::Unbounded))
        .next()
        .filter(|(key, _)| key.starts_with(parts))
        .map(|(key, &index)| (key.as_slice(), index))
}
