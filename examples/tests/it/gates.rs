//! `web_fetch` is gated with `#[tool(cfg(feature = "web"))]`: in a build
//! without the feature it is not in the list, but the catalog still knows
//! it, and says why it is missing.

use registry_core::{
    Flags,
    catalog::{BaseTools, CfgPredicate, Missing},
};

const WEB: CfgPredicate = CfgPredicate::KeyValue("feature", "web");

#[test]
fn web_fetch_is_listed_or_explained_never_unknown() {
    let tools = BaseTools::linked(&Flags::new()).unwrap();
    if cfg!(feature = "web") {
        assert!(tools.get("web_fetch").is_some());
        assert_eq!(tools.gate_of("web_fetch"), Some(&WEB));
        assert_eq!(tools.explain_missing("web_fetch"), None);
        assert!(tools.compiled_out().is_empty());
    } else {
        assert!(tools.get("web_fetch").is_none());
        assert_eq!(
            tools.explain_missing("web_fetch"),
            Some(Missing::CompiledOut {
                tool: "web_fetch",
                gate: WEB
            })
        );
        let names: Vec<_> = tools.compiled_out().iter().map(|t| t.name).collect();
        assert_eq!(names, ["web_fetch"]);
    }
}
