//! The catalog lock end to end, on `#[tool]` declarations: the whole
//! catalog (runtime-flagged tools included) through the panicking test
//! helper, and explicit tool sets through the `_with` variants.
//!
//! These tests must mean the same whether or not `REGISTRY_UPDATE_LOCK` is
//! set (someone updating a lock runs the whole suite with it), so they use
//! the functions that ignore it, except where noted.

use registry_core::testing::{
    check_catalog_lock, try_check_catalog_lock, update_catalog_lock, update_catalog_lock_with,
    update_requested, verify_catalog_lock, verify_catalog_lock_with,
};
use registry_core::{
    BaseTools, CatalogLock, Flags, LockError, LockProblem, PostureField, Tool, ToolContext,
    ToolHandle, tool, try_all_base_tools,
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
    try_all_base_tools(&Flags::all()).expect("the catalog is consistent")
}

#[test]
fn the_whole_catalog_is_locked_runtime_flags_included() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");

    let created = update_catalog_lock(&path).unwrap();
    assert!(created.wrote_file());
    let lock = CatalogLock::read(&path).unwrap();
    let names: Vec<&str> = lock.entries().map(|e| e.name()).collect();
    assert_eq!(names, ["lock_delete", "lock_read"], "flagged-off tools too");
    let delete = lock.get("lock_delete").unwrap();
    assert_eq!(
        delete
            .posture()
            .value(PostureField::Destructive)
            .to_string(),
        "true"
    );
    assert_eq!(lock.get("lock_read").unwrap().aliases(), ["lock_cat"]);

    let bytes = std::fs::read(&path).unwrap();
    assert!(!update_catalog_lock(&path).unwrap().wrote_file());
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "byte-stable");

    let report = verify_catalog_lock(&path).unwrap();
    assert!(report.is_up_to_date() && report.notes().is_empty());
    assert_eq!(report.tool_count(), 2);
    // Whatever the environment says, the file is right, so the helper passes.
    check_catalog_lock(&path);
}

#[test]
fn a_catalog_that_lost_a_tool_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    update_catalog_lock(&path).unwrap();

    // The same catalog without the flagged tool, as a binary that forgot a
    // flag (or a crate) would see it.
    let without: Vec<ToolHandle> = catalog()
        .iter()
        .filter(|t| t.name() != "lock_delete")
        .cloned()
        .collect();
    let err = verify_catalog_lock_with(&path, &without).unwrap_err();
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

    // The panicking helper carries the full message. Only checkable when
    // the environment does not ask for an update (which would pass).
    if !update_requested() {
        let message = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            registry_core::testing::check_catalog_lock_with(&path, &without)
        }))
        .expect_err("the check fails");
        let message = message
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
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
    let err = verify_catalog_lock(&path).unwrap_err();
    assert!(matches!(err, LockError::NotFound { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("create it with `REGISTRY_UPDATE_LOCK=1 cargo test`"),
        "{err}"
    );
    // The environment-driven variant creates it or reports it missing.
    match try_check_catalog_lock(&path) {
        Ok(report) => assert!(update_requested() && report.wrote_file()),
        Err(err) => assert!(!update_requested() && matches!(err, LockError::NotFound { .. })),
    }
}

#[test]
fn an_explicit_subset_can_be_locked_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("subset.lock.json");
    let only_read = [ToolHandle::new(LockRead)];
    update_catalog_lock_with(&path, &only_read).unwrap();
    verify_catalog_lock_with(&path, &only_read).unwrap();
    let err = verify_catalog_lock_with(&path, &catalog()).unwrap_err();
    assert!(err.to_string().contains("new tool `lock_delete`"), "{err}");
}
