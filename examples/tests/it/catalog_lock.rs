//! The examples' catalog against its committed lock, `tools.lock.json`.
//!
//! Fails when a tool vanished without leaving an alias, a definition
//! changed (the prompt cache would miss), a posture was loosened, or a tool
//! is new. After reviewing an intended change, update the lock with
//! `REGISTRY_UPDATE_LOCK=1 cargo test -p registry-examples --test it catalog_lock`
//! (in the default build, which compiles every tool) and commit it.
//!
//! One lock serves both feature sets: `web_fetch` is gated with
//! `#[tool(cfg(feature = "web"))]`, so a build without `web` knows it is
//! compiled out and leaves its entry alone (CI runs this test both ways).

use registry_core::catalog::lock::{self, LockOptions};

#[test]
fn the_catalog_matches_its_lock() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tools.lock.json");
    let report = lock::check(path, &LockOptions::new()).unwrap_or_else(|err| panic!("{err}"));
    // Notes pass the check; show them (the harness prints this for a
    // failing test or under `--nocapture`).
    eprintln!("{report}");
    assert!(report.tool_count() > 0);
}

#[test]
fn the_lock_records_the_gate_of_web_fetch() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tools.lock.json");
    let locked = lock::CatalogLock::read(path).unwrap_or_else(|err| panic!("{err}"));
    let web = locked.get("web_fetch").expect("locked in every build");
    assert_eq!(web.cfg(), Some("feature = \"web\""));
    assert!(
        locked
            .entries()
            .filter(|e| e.name() != "web_fetch")
            .all(|e| e.cfg().is_none())
    );
}
