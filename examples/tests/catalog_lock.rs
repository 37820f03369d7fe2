//! The examples' catalog against its committed lock, `tools.lock.json`.
//!
//! Fails when a tool vanished without leaving an alias, a definition
//! changed (the prompt cache would miss), a posture was loosened, or a tool
//! is new. After reviewing an intended change, update the lock with
//! `REGISTRY_UPDATE_LOCK=1 cargo test -p registry-examples --test catalog_lock`
//! and commit it.
//!
//! The lock describes the default build, which has the `web` feature and so
//! `web_fetch`. Without that feature `web_fetch` is compiled out, and the
//! check would report it as vanished; rather than keep a second lock for a
//! reduced build, the test is compiled only with `web`
//! (`cargo test -p registry-examples --no-default-features` runs without
//! it). The default-feature run in CI checks the lock.

registry_core::link!(registry_examples);

#[cfg(feature = "web")]
#[test]
fn the_catalog_matches_its_lock() {
    use registry_core::lock::{self, LockOptions};

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tools.lock.json");
    let report = lock::check(path, &LockOptions::new()).unwrap_or_else(|err| panic!("{err}"));
    // Notes pass the check; show them (the harness prints this for a
    // failing test or under `--nocapture`).
    eprintln!("{report}");
    assert!(report.tool_count() > 0);
}
