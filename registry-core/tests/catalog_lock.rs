//! The catalog lock end to end, on `#[tool]` declarations, through its
//! one entry point: the whole catalog (runtime-flagged tools included), a
//! catalog narrowed by flags, and explicit tool sets.
//!
//! These tests must mean the same whether or not `REGISTRY_UPDATE_LOCK` is
//! set (someone updating a lock runs the whole suite with it), so they name
//! their mode, except where noted.
//!
//! A test binary of its own, not a module of the shared `it`: the catalog
//! these tests lock is the binary's whole linked list, which must be
//! exactly the two tools declared here and registry-core's `tool_search`
//! (the tests name all three and count them). In a binary shared with
//! other suites it would hold their tools too.

use std::path::Path;

use registry_core::catalog::lock::{
    self, CatalogLock, LockError, LockMode, LockOptions, LockProblem, LockReport, update_requested,
};
use registry_core::{
    Flags, Tool, ToolContext, ToolHandle, catalog::BaseTools, declare::PostureKind, tool,
};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct PathInput {
    /// Path relative to the workspace.
    path: String,
}

/// Read a file.
#[tool(name = "lock_read", aliases = ["lock_cat"], concurrency_safe = true, read_only = true)]
struct LockRead;

impl Tool for LockRead {
    type Input = PathInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: PathInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.path)
    }
}

/// Delete a file.
#[tool(name = "lock_delete", destructive = true, flag = "dangerous")]
struct LockDelete;

impl Tool for LockDelete {
    type Input = PathInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: PathInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.path)
    }
}

fn catalog() -> BaseTools {
    BaseTools::linked(&Flags::all()).expect("the catalog is consistent")
}

fn update(path: &Path, options: LockOptions) -> Result<LockReport, LockError> {
    lock::check(path, &options.mode(LockMode::Update))
}

fn verify(path: &Path, options: LockOptions) -> Result<LockReport, LockError> {
    lock::check(path, &options.mode(LockMode::Verify))
}

#[test]
fn the_whole_catalog_is_locked_runtime_flags_included() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");

    let created = update(&path, LockOptions::new()).unwrap();
    assert!(created.wrote_file());
    let lock = CatalogLock::read(&path).unwrap();
    let names: Vec<&str> = lock.entries().map(|e| e.name()).collect();
    // `tool_search` is registry-core's own built-in, behind its flag.
    assert_eq!(
        names,
        ["lock_delete", "lock_read", "tool_search"],
        "flagged-off tools too"
    );
    let delete = lock.get("lock_delete").unwrap();
    assert_eq!(
        delete.posture().destructive().value(),
        &PostureKind::Fixed(true)
    );
    assert_eq!(lock.get("lock_read").unwrap().aliases(), ["lock_cat"]);

    let bytes = std::fs::read(&path).unwrap();
    assert!(!update(&path, LockOptions::new()).unwrap().wrote_file());
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "byte-stable");

    let report = verify(&path, LockOptions::new()).unwrap();
    assert!(report.is_up_to_date() && report.notes().is_empty());
    assert_eq!(report.tool_count(), 3);
    // Whatever the environment says, the file is right, so the default
    // mode passes too.
    lock::check(&path, &LockOptions::new()).unwrap_or_else(|err| panic!("{err}"));
}

#[test]
fn runtime_flags_narrow_the_locked_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    update(&path, LockOptions::new()).unwrap();
    let err = verify(&path, LockOptions::new().flags(Flags::new())).unwrap_err();
    assert!(
        err.to_string().contains("tool `lock_delete` vanished"),
        "{err}"
    );
    verify(
        &path,
        LockOptions::new().flags(Flags::new().with("dangerous").with("tool_search")),
    )
    .unwrap();
}

#[test]
fn a_catalog_that_lost_a_tool_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    update(&path, LockOptions::new()).unwrap();

    // The same catalog without the flagged tool, as a binary that forgot a
    // flag (or a crate) would see it.
    let without: Vec<ToolHandle> = catalog()
        .iter()
        .filter(|t| t.name() != "lock_delete")
        .cloned()
        .collect();
    let err = verify(&path, LockOptions::new().tools(&without)).unwrap_err();
    let LockError::Mismatch { problems, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(
        problems.as_slice(),
        [LockProblem::Vanished {
            name: "lock_delete".into(),
            lost_aliases: vec![],
        }]
    );

    // The error displays as the full message. Only checkable in the
    // default mode when the environment does not ask for an update (which
    // would pass).
    if !update_requested() {
        let message = lock::check(&path, &LockOptions::new().tools(&without))
            .unwrap_err()
            .to_string();
        assert!(message.contains("tool `lock_delete` vanished"), "{message}");
        assert!(
            message.contains("REGISTRY_UPDATE_LOCK=1 cargo test"),
            "{message}"
        );
    }
}

#[test]
fn a_missing_lock_says_how_to_create_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    let err = verify(&path, LockOptions::new()).unwrap_err();
    assert!(matches!(err, LockError::NotFound { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("create it with `REGISTRY_UPDATE_LOCK=1 cargo test`"),
        "{err}"
    );
    // The environment-driven mode creates it or reports it missing.
    match lock::check(&path, &LockOptions::new()) {
        Ok(report) => assert!(update_requested() && report.wrote_file()),
        Err(err) => assert!(!update_requested() && matches!(err, LockError::NotFound { .. })),
    }
}

#[test]
fn an_explicit_subset_can_be_locked_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("subset.lock.json");
    let only_read = [ToolHandle::new(LockRead)];
    update(&path, LockOptions::new().tools(&only_read)).unwrap();
    verify(&path, LockOptions::new().tools(&only_read)).unwrap();
    let err = verify(&path, LockOptions::new().tools(&catalog())).unwrap_err();
    assert!(err.to_string().contains("new tool `lock_delete`"), "{err}");
}
