//! `#[tool(crate = "...")]`: a crate that depends on registry-core under
//! another name (`core_renamed`) still compiles its tools, and they reach
//! the same list this test builds through `registry_core`.

mod downstream_support;

use downstream_support::{RENAMED_LIB, names};
use registry_core::{
    Flags, ToolContext,
    catalog::BaseTools,
    declare::{NameRole, PostureKind, ResultCap},
};
use serde_json::json;

registry_core::link!(renamed_core_user);

#[test]
fn the_fixture_really_renames_registry_core() {
    let manifest = include_str!("../crates/renamed-core-user/Cargo.toml");
    assert!(manifest.contains(r#"core_renamed = { package = "registry-core""#));
    assert!(!manifest.contains("registry-core.workspace"));
    assert!(RENAMED_LIB.source.contains(r#"crate = "::core_renamed""#));
    let code_naming_registry_core: Vec<&str> = RENAMED_LIB
        .source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//") && line.contains("registry_core"))
        .collect();
    assert!(
        code_naming_registry_core.is_empty(),
        "{code_naming_registry_core:?}"
    );
}

#[test]
fn a_tool_from_a_crate_that_renamed_registry_core_arrives() {
    let tools = BaseTools::linked(&Flags::new()).expect("consistent");
    assert_eq!(names(&tools), ["renamed_echo"]);
    tools
        .require_crates(&["renamed_core_user"])
        .expect("the crate is linked");

    let echo = tools.get("renamed_echo").unwrap();
    let spec = echo.spec();
    assert_eq!(
        spec.origin(),
        &RENAMED_LIB.origin_of("pub struct RenamedEcho;")
    );
    assert_eq!(
        spec.description(),
        "Echo the text back, from a crate that renamed registry-core."
    );
    assert_eq!(spec.read_only().value(), &PostureKind::Fixed(true));
    assert!(matches!(
        spec.concurrency_safe().value(),
        PostureKind::PerInput(expr) if expr.contains("is_empty")
    ));
    assert_eq!(
        spec.max_result_chars().value(),
        &ResultCap::Chars(64.try_into().unwrap())
    );

    let (tool, role) = tools.resolve("recho").unwrap();
    assert_eq!((tool.name(), role), ("renamed_echo", NameRole::Alias));
}

#[tokio::test]
async fn the_renamed_crates_tool_classifies_and_runs() {
    let tools = BaseTools::linked(&Flags::new()).unwrap();
    let echo = tools.get("renamed_echo").unwrap();
    assert!(
        echo.prepare(json!({"text": "hi"}))
            .unwrap()
            .is_concurrency_safe()
    );
    assert!(
        !echo
            .prepare(json!({"text": ""}))
            .unwrap()
            .is_concurrency_safe()
    );
    let out = echo
        .call_json(json!({"text": "hi"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out.as_str(), "hi");
}
