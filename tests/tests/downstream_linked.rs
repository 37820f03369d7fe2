//! The remedy: one `registry_core::link!` line, and a tool crate the test
//! names nowhere else contributes its tools, with their origins, in sorted
//! order, gated by their runtime flags.

mod downstream_support;

use downstream_support::{ALPHA_EDIT, ALPHA_LIB, names};
use registry_core::{
    Flags, ToolContext,
    catalog::BaseTools,
    declare::{NameRole, PostureKind},
};
use serde_json::json;

registry_core::link!(tools_alpha);

#[test]
fn linked_tools_arrive_sorted_with_their_origins() {
    let tools = BaseTools::linked(&Flags::new()).expect("tools-alpha alone is consistent");
    assert_eq!(names(&tools), ["alpha_read", "alpha_write"]);

    let read = tools.get("alpha_read").expect("alpha_read arrived");
    assert_eq!(
        read.spec().origin(),
        &ALPHA_LIB.origin_of("pub struct AlphaRead;")
    );
    assert_eq!(
        read.spec().description(),
        "Read a file from the alpha store."
    );
    assert_eq!(read.spec().aliases(), ["aread"]);
    assert_eq!(read.spec().read_only().value(), &PostureKind::Fixed(true));

    let write = tools.get("alpha_write").expect("alpha_write arrived");
    assert_eq!(
        write.spec().origin(),
        &ALPHA_EDIT.origin_of("pub struct AlphaWrite;")
    );
    assert_eq!(
        write.spec().destructive().value(),
        &PostureKind::Fixed(true)
    );

    // The panicking form builds the same list.
    assert_eq!(
        names(&BaseTools::linked(&Flags::new()).unwrap()),
        names(&tools)
    );
}

#[test]
fn require_crates_passes_once_linked() {
    let tools = BaseTools::linked(&Flags::new()).unwrap();
    // registry_core registers its own `tool_search` (behind a flag).
    assert_eq!(
        tools.crates().iter().copied().collect::<Vec<_>>(),
        ["registry_core", "tools_alpha"]
    );
    tools
        .require_crates(&["tools_alpha"])
        .expect("tools_alpha is linked");
}

#[test]
fn aliases_of_linked_tools_resolve() {
    let tools = BaseTools::linked(&Flags::new()).unwrap();
    let (tool, role) = tools.resolve("aread").expect("the alias resolves");
    assert_eq!(tool.name(), "alpha_read");
    assert_eq!(role, NameRole::Alias);
    assert!(
        tools.get("aread").is_none(),
        "an alias is not a primary name"
    );
}

#[tokio::test]
async fn linked_tools_run() {
    let tools = BaseTools::linked(&Flags::new()).unwrap();
    let out = tools
        .get("alpha_read")
        .unwrap()
        .call_json(json!({"path": "notes.txt"}), &ToolContext::new())
        .await
        .expect("alpha_read succeeds");
    assert_eq!(out.as_str(), "alpha contents of notes.txt");
}

#[test]
fn a_flagged_tool_is_absent_without_its_flag() {
    for flags in [Flags::new(), Flags::new().with("some_other_flag")] {
        let tools = BaseTools::linked(&flags).unwrap();
        assert_eq!(names(&tools), ["alpha_read", "alpha_write"], "{flags:?}");
        assert!(tools.get("alpha_experimental").is_none());
        assert!(
            tools.resolve("alpha_exp").is_none(),
            "its alias is gone too"
        );
    }
}

#[test]
fn a_flagged_tool_is_present_with_its_flag() {
    let tools = BaseTools::linked(&Flags::new().with("alpha_experimental")).unwrap();
    assert_eq!(
        names(&tools),
        ["alpha_experimental", "alpha_read", "alpha_write"]
    );
    let experimental = tools.get("alpha_experimental").unwrap();
    assert_eq!(experimental.spec().flag(), Some("alpha_experimental"));
    assert_eq!(
        experimental.spec().origin(),
        &ALPHA_LIB.origin_of("pub struct AlphaExperimental;")
    );
    let (tool, role) = tools.resolve("alpha_exp").expect("its alias resolves");
    assert_eq!((tool.name(), role), ("alpha_experimental", NameRole::Alias));
}
