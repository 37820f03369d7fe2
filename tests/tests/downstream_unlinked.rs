//! The failure mode `link!` exists for: a tool crate that is a dependency
//! of the binary but that the binary never names is not linked, and its
//! tools silently vanish from the list.
//!
//! This test crate has `tools-alpha` as a dev-dependency (cargo hands rustc
//! `--extern` for it) but never names that crate in code: the crate name
//! appears below only inside string literals. It links `tools-beta` with
//! `link!`, so the list is not trivially empty.

mod downstream_support;

use downstream_support::{BETA_LIB, BETA_SEARCH, names};
use registry_core::{
    Flags,
    catalog::{BaseTools, CatalogError},
    declare::NameRole,
};

registry_core::link!(tools_beta);

#[test]
fn the_unnamed_crate_is_a_dependency_of_this_test_crate() {
    let manifest = include_str!("../Cargo.toml");
    assert!(
        manifest.contains(r#"tools-alpha = { path = "crates/tools-alpha" }"#),
        "the failure mode needs tools-alpha to be a dependency:\n{manifest}"
    );
}

#[test]
fn a_dependency_the_binary_never_names_contributes_no_tools() {
    let tools = BaseTools::linked(&Flags::new()).expect("beta alone is consistent");
    assert_eq!(
        names(&tools),
        ["alpha_write", "beta_lab", "beta_plain", "beta_search"]
    );
    // registry_core registers its own `tool_search` (behind a flag).
    assert_eq!(
        tools.crates().iter().copied().collect::<Vec<_>>(),
        ["registry_core", "tools_beta"]
    );
    assert!(
        tools
            .iter()
            .all(|tool| tool.spec().origin().crate_name != "tools_alpha")
    );
    assert!(tools.get("alpha_read").is_none());
    assert!(tools.resolve("alpha_exp").is_none());

    // Not even behind its runtime flag.
    let flagged = BaseTools::linked(&Flags::new().with("alpha_experimental")).unwrap();
    assert_eq!(names(&flagged), names(&tools));
    assert!(flagged.resolve("alpha_exp").is_none());
}

#[test]
fn require_crates_reports_the_unlinked_crate_and_the_remedy() {
    let tools = BaseTools::linked(&Flags::new()).unwrap();
    tools
        .require_crates(&["tools_beta"])
        .expect("the linked crate is present");

    let err = tools
        .require_crates(&["tools_beta", "tools_alpha"])
        .expect_err("tools_alpha is not linked");
    assert!(
        matches!(&err, CatalogError::CrateNotLinked { crate_name } if crate_name == "tools_alpha"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "no tool from crate `tools_alpha` is in the list: the crate is probably not linked into \
         this binary. Add `registry_core::link!(tools_alpha);` to the binary (see the `link!` docs)"
    );
}

/// Why a silent drop is dangerous, not merely inconvenient: with
/// `tools-alpha` missing, its names are free, so `tools-beta`'s tools
/// answer to them and no collision is reported. Only `require_crates`
/// notices.
#[test]
fn a_missing_crate_also_hides_the_collisions_it_would_cause() {
    let tools = BaseTools::linked(&Flags::new()).expect("no collision without tools-alpha");

    let shadow = tools.get("alpha_write").expect("beta's tool has the name");
    assert_eq!(
        shadow.spec().origin(),
        &BETA_LIB.origin_of("pub struct ShadowWrite;")
    );
    for alias in ["alpha_read", "aread"] {
        let (tool, role) = tools.resolve(alias).expect("beta's alias resolves");
        assert_eq!((tool.name(), role), ("beta_search", NameRole::Alias));
        assert_eq!(
            tool.spec().origin(),
            &BETA_SEARCH.origin_of("pub struct BetaSearch;")
        );
    }
    let (tool, role) = tools.resolve("alpha_experimental").unwrap();
    assert_eq!((tool.name(), role), ("beta_lab", NameRole::Alias));

    assert!(tools.require_crates(&["tools_alpha"]).is_err());
}
