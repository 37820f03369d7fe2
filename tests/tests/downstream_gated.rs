//! A downstream crate with `#[cfg]`-gated tools: a compiled-out tool leaves
//! a record the list can name and explain, and twins under gates that never
//! hold together are not a clash.

mod downstream_support;

use downstream_support::{GATED_LIB, names};
use registry_core::{
    Flags,
    catalog::{BaseTools, CfgPredicate, Missing},
};

registry_core::link!(tools_gated);

#[test]
fn compiled_out_tools_are_recorded_not_listed() {
    let tools = BaseTools::linked(&Flags::new()).unwrap();
    assert_eq!(names(&tools), ["gated_plain", "gated_shell"]);
    let out: Vec<_> = tools.compiled_out().iter().map(|t| t.name).collect();
    assert_eq!(out, ["gated_extra", "gated_shell"], "the other twin too");
    let extra = &tools.compiled_out()[0];
    assert_eq!(extra.aliases, ["gx"]);
    assert_eq!(extra.origin, GATED_LIB.origin_of("pub struct GatedExtra;"));
    assert_eq!(extra.gate, CfgPredicate::KeyValue("feature", "extra"));
}

#[test]
fn a_missing_tool_is_explained_by_its_gate() {
    let tools = BaseTools::linked(&Flags::new()).unwrap();
    for asked in ["gated_extra", "gx"] {
        let missing = tools.explain_missing(asked).unwrap();
        assert!(matches!(
            missing,
            Missing::CompiledOut {
                tool: "gated_extra",
                ..
            }
        ));
        assert_eq!(
            missing.to_string(),
            "tool `gated_extra` is compiled out of this build: `cfg(feature = \"extra\")` does not hold"
        );
    }
    assert_eq!(tools.explain_missing("gated_plain"), None);
}

#[test]
fn platform_twins_share_a_name_without_clashing() {
    let tools = BaseTools::linked(&Flags::new()).unwrap();
    let (shell, _) = tools.resolve("gsh").unwrap();
    assert_eq!(shell.name(), "gated_shell");
    let (present, absent, gate) = if cfg!(unix) {
        ("GatedShellUnix", "GatedShellOther", "unix")
    } else {
        ("GatedShellOther", "GatedShellUnix", "not(unix)")
    };
    assert_eq!(
        shell.spec().origin(),
        &GATED_LIB.origin_of(&format!("pub struct {present};"))
    );
    assert_eq!(tools.gate_of("gated_shell").unwrap().to_string(), gate);
    let twin = tools
        .compiled_out()
        .iter()
        .find(|t| t.name == "gated_shell");
    assert!(
        twin.is_some_and(|t| t.origin == GATED_LIB.origin_of(&format!("pub struct {absent};")))
    );
    assert!(tools.require_crates(&["tools-gated"]).is_ok());
}
