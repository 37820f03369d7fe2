//! Resource access: what each call reads and writes, so calls that
//! provably touch different things share a batch, even when they write.
//!
//! Owns the typed keys ([`Resource`]: a namespace per kind, paths
//! normalised lexically and canonicalised where they exist, hierarchical
//! so a directory covers its files), the per-call set of reads and writes
//! ([`Access`], with [`Access::everything`] as the strict end), and the
//! index the planner keeps of one open batch ([`Footprint`], which names
//! the conflicting key and the earlier call when a call may not join).
//!
//! Never does: decide a default (a tool without a declaration gets its
//! access from its boolean posture, in `execute/classify.rs`), or treat a
//! key it cannot anchor as disjoint from anything: a relative path meets
//! every absolute path, and a path whose target cannot be resolved covers
//! every path.

mod footprint;
mod resource;
mod set;
#[cfg(test)]
mod tests;

pub use footprint::{Conflict, Footprint};
pub use resource::{Namespace, Resource};
pub use set::{Access, AccessMode, Scope, Touch};
