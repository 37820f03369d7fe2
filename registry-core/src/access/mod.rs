//! AccessKey access: what each call reads and writes, so calls that
//! provably touch different things share a batch, even when they write.
//!
//! A boolean posture serialises two edits of two different files, or two
//! queries of two different databases, for no reason: a turn of ten edits
//! takes ten times as long as it needs to. A tool that declares
//! `access = |i: &Input| Access::write(AccessKey::path(&i.path))` says what
//! each call touches instead, and that is how two edits by an `edit_file`
//! that is not concurrency-safe share a batch. The declaration is a
//! promise to name *everything* a call touches, process-wide state
//! included (use an [`AccessKey::named`] key or [`Access::everything`]);
//! once declared it decides batching, whatever `concurrency_safe` says.
//!
//! Owns the typed keys ([`AccessKey`]: a namespace per kind, paths
//! normalised lexically and canonicalised where they exist, hierarchical
//! so a directory covers its files), the per-call set of reads and writes
//! ([`Access`], with [`Access::everything`] as the strict end), and the
//! index the planner keeps of one open batch (`Footprint`, which names
//! the conflicting key and the earlier call when a call may not join).
//!
//! Never does: decide a default (a tool without a declaration gets its
//! access from its boolean posture, in `execute/classify.rs`), or treat a
//! key it cannot anchor as disjoint from anything: a relative path meets
//! every absolute path, and a path whose target cannot be resolved covers
//! every path.

mod footprint;
mod key;
mod set;
#[cfg(test)]
mod tests;

pub(crate) use footprint::{Conflict, Footprint};
pub use key::AccessKey;
pub(crate) use key::Namespace;
pub use set::Access;
#[cfg(test)]
pub(crate) use set::{AccessMode, Scope, Touch};
