//! Test helpers: the catalog lock check, for any crate's test suite.
//!
//! A catalog lock is a committed file, conventionally `tools.lock.json`,
//! recording for every tool of the catalog its name, aliases, a hash of its
//! rendered definition, the definition itself and its safety posture. A
//! test compares the catalog with it, so that a change which would break old
//! transcripts, miss the prompt cache or loosen a safety posture cannot land
//! without someone updating the lock, which shows up in review.
//!
//! ```no_run
//! // tests/catalog_lock.rs of a crate that declares tools. A crate testing
//! // tools of a dependency also writes `registry_core::link!(that_crate);`.
//! #[test]
//! fn the_catalog_matches_its_lock() {
//!     registry_core::testing::check_catalog_lock(
//!         concat!(env!("CARGO_MANIFEST_DIR"), "/tools.lock.json"),
//!     );
//! }
//! # fn main() {}
//! ```
//!
//! After reviewing an intended change, update the lock and commit it:
//!
//! ```text
//! REGISTRY_UPDATE_LOCK=1 cargo test
//! ```
//!
//! # What the check covers
//!
//! [`check_catalog_lock`] builds the catalog with
//! [`try_all_base_tools`]`(&`[`Flags::all()`](Flags::all)`)`, so tools behind
//! a runtime flag are locked too. Tools behind a `#[cfg]` are not compiled
//! at all: check the lock under the features it was written with. The
//! `_with` variants take any set of tools instead (a [`BaseTools`], a slice
//! or vector of [`ToolHandle`]s).
//!
//! # What fails
//!
//! Every problem is listed, not just the first, each with what to do. The
//! check fails when:
//!
//! 1. **a tool vanished** and its name is not an alias of any tool: old
//!    transcripts that call it would break. If the name is now an alias of
//!    another tool, that is a rename and passes with a note. A locked
//!    **alias that no longer resolves** fails the same way.
//! 2. **a definition changed**: the canonical JSON of
//!    `{name, description, input_schema, loading}` hashes differently, so
//!    the prompt cache will miss. The message shows the old and new
//!    description lines and every input-schema path that differs.
//! 3. **a posture was loosened**, field by field:
//!
//!    | field | loosening (fails) | tightening (passes, with a note) |
//!    |---|---|---|
//!    | `concurrency_safe` | `false` → per input or `true`; per input → `true` | the reverse |
//!    | `read_only` | `false` → per input or `true`; per input → `true` | the reverse |
//!    | `destructive` | `true` → per input or `false`; per input → `false` | the reverse |
//!    | `max_result_chars` | raised, or bounded → `unbounded` | lowered, or `unbounded` → bounded |
//!    | `classifier_input` | some → none (the safety classifier is skipped) | none → some |
//!    | `internal` | internal → exposed | exposed → internal |
//!    | aliases | an alias no longer resolves (as 1.) | an alias added, or moved to another tool |
//!
//!    A change from one per-input expression to another fails too: the lock
//!    cannot tell which way it goes. Expressions are compared without
//!    whitespace, so a compiler printing the same tokens differently does
//!    not fail the check; runtime tools built with
//!    [`ToolBuilder`](crate::ToolBuilder)'s `*_when` all record
//!    `<runtime closure>`, so such changes are not seen for them. Only the
//!    expression is locked, not the body of a function it names: editing
//!    `is_read_only_command` itself is invisible to the lock, so keep such
//!    classifiers under their own table tests. A renamed
//!    tool is held to its old entry's posture: loosening across a rename
//!    fails. A value that changes only from default to declared, or back,
//!    passes with a note.
//! 4. **a tool is new**: it passes every rule above but is not in the lock,
//!    and an unlocked tool escapes review, so the check fails until the
//!    lock is updated and committed. This is also why a rename fails until
//!    the lock is updated: the new name is a new tool.
//!
//! The lock file itself being missing, unreadable, malformed, of another
//! version, or edited by hand (a hash that does not match its recorded
//! definition) is a typed [`LockError`] naming the path.
//!
//! # Notes
//!
//! Changes that pass (tightenings, renames to an alias, added aliases) are
//! returned in the [`LockReport`]. The `try_` functions print nothing; the
//! panicking helpers print the report with `eprintln!` when it has anything
//! to say, which the test harness shows for a failing test or under
//! `--nocapture` (a test suite rarely installs a `tracing` subscriber, so
//! `tracing` would usually show nothing). A passing check with notes leaves
//! the file out of date ([`LockReport::is_up_to_date`]); updating records
//! them.
//!
//! # Updating
//!
//! With `REGISTRY_UPDATE_LOCK` set to anything but empty or `0`, the
//! checking functions write the lock instead of failing, and report what
//! they accepted. [`update_catalog_lock`] always writes;
//! [`verify_catalog_lock`] never does. The file is written only when its
//! bytes change.
//!
//! # The file
//!
//! Canonical JSON (keys in byte order at every depth, two-space indent,
//! ending in a newline): `about`, `tools` (an object keyed by tool name, so
//! sorted by name) and `version` ([`LOCK_VERSION`](crate::LOCK_VERSION)).
//! Each tool records `aliases` (sorted), `description`, `hash`
//! (`fnv1a64:` and 16 hex digits of the compact canonical definition, see
//! [`LockEntry::canonical_definition`](crate::LockEntry::canonical_definition)),
//! `input_schema`, `loading` (`eager`, `deferred` or `always`) and
//! `posture`: the six fields above, a per-input value written as
//! `{"per_input": "<expression>"}`, and `declared`, the fields the author
//! wrote rather than left to the fail-closed default. Updating twice writes
//! identical bytes.
//!
//! Relative paths are resolved against the current directory, which
//! `cargo test` sets to the package root; `concat!(env!("CARGO_MANIFEST_DIR"),
//! "/tools.lock.json")` says so explicitly.

use std::path::Path;

use crate::base_list::{BaseTools, Flags, try_all_base_tools};
use crate::handle::ToolHandle;
use crate::lock::{self, CatalogLock, LockError, LockReport};

/// The environment variable that turns a check into an update:
/// `REGISTRY_UPDATE_LOCK`.
pub const UPDATE_LOCK_VAR: &str = lock::UPDATE_VAR;

/// Whether [`UPDATE_LOCK_VAR`] asks for an update: set, not empty, not `0`,
/// and not under CI (`CI` set to anything but empty or `false`). On CI an
/// update would make the check pass by rewriting the lock it guards, so
/// there the check always checks.
pub fn update_requested() -> bool {
    let set =
        |var: &str, off: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty() && v != off);
    set(UPDATE_LOCK_VAR, "0") && !set("CI", "false")
}

/// Checks the whole compiled-in catalog against the lock at `path`, or
/// updates the lock when [`UPDATE_LOCK_VAR`] is set.
///
/// This is a test helper: call it from a `#[test]`.
///
/// # Panics
///
/// With the full, readable message of the [`LockError`]: every problem,
/// what changed, and what to do. Prints the report (notes, what an update
/// accepted) to standard error when it has anything to say.
#[track_caller]
pub fn check_catalog_lock(path: impl AsRef<Path>) -> LockReport {
    passed_or_panic(try_check_catalog_lock(path))
}

/// [`check_catalog_lock`] for an explicit set of tools: a
/// [`BaseTools`], a slice or vector of [`ToolHandle`]s.
///
/// # Panics
///
/// As [`check_catalog_lock`]: a test helper.
#[track_caller]
pub fn check_catalog_lock_with<'a>(
    path: impl AsRef<Path>,
    tools: impl IntoIterator<Item = &'a ToolHandle>,
) -> LockReport {
    passed_or_panic(try_check_catalog_lock_with(path, tools))
}

/// Checks the whole compiled-in catalog (every runtime flag set) against
/// the lock at `path`, or updates the lock when [`UPDATE_LOCK_VAR`] is set.
/// Prints nothing.
pub fn try_check_catalog_lock(path: impl AsRef<Path>) -> Result<LockReport, LockError> {
    let tools = full_catalog()?;
    try_check_catalog_lock_with(path, &tools)
}

/// [`try_check_catalog_lock`] for an explicit set of tools.
pub fn try_check_catalog_lock_with<'a>(
    path: impl AsRef<Path>,
    tools: impl IntoIterator<Item = &'a ToolHandle>,
) -> Result<LockReport, LockError> {
    if update_requested() {
        update_catalog_lock_with(path, tools)
    } else {
        verify_catalog_lock_with(path, tools)
    }
}

/// Checks the whole compiled-in catalog against the lock at `path`; never
/// writes, whatever the environment says.
pub fn verify_catalog_lock(path: impl AsRef<Path>) -> Result<LockReport, LockError> {
    let tools = full_catalog()?;
    verify_catalog_lock_with(path, &tools)
}

/// Checks `tools` against the lock at `path`; never writes, whatever the
/// environment says.
pub fn verify_catalog_lock_with<'a>(
    path: impl AsRef<Path>,
    tools: impl IntoIterator<Item = &'a ToolHandle>,
) -> Result<LockReport, LockError> {
    lock::verify(path.as_ref(), &CatalogLock::from_tools(tools)?)
}

/// Writes the lock of the whole compiled-in catalog (every runtime flag
/// set) to `path`, whatever the environment says. The report lists what
/// the update accepted relative to the previous file.
pub fn update_catalog_lock(path: impl AsRef<Path>) -> Result<LockReport, LockError> {
    let tools = full_catalog()?;
    update_catalog_lock_with(path, &tools)
}

/// Writes the lock of `tools` to `path`, whatever the environment says.
pub fn update_catalog_lock_with<'a>(
    path: impl AsRef<Path>,
    tools: impl IntoIterator<Item = &'a ToolHandle>,
) -> Result<LockReport, LockError> {
    lock::update(path.as_ref(), &CatalogLock::from_tools(tools)?)
}

fn full_catalog() -> Result<BaseTools, LockError> {
    Ok(try_all_base_tools(&Flags::all())?)
}

#[track_caller]
fn passed_or_panic(result: Result<LockReport, LockError>) -> LockReport {
    match result {
        Ok(report) => {
            if report.was_update() || !report.notes().is_empty() || !report.is_up_to_date() {
                eprintln!("{report}");
            }
            report
        }
        Err(err) => panic!("{err}"),
    }
}
