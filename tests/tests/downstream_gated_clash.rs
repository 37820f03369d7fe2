//! A clash that exists only when a feature is on fails the list in every
//! build: `tools-gated-clash` claims `gated_plain` under
//! `cfg(feature = "extra")`, which this build leaves off.

mod downstream_support;

use downstream_support::{GATED_CLASH_LIB, GATED_LIB};
use registry_core::{
    Flags,
    catalog::{BaseTools, CatalogError, CfgPredicate},
    declare::NameRole,
};

registry_core::link!(tools_gated, tools_gated_clash);

#[test]
fn a_feature_gated_clash_fails_the_default_build() {
    let Err(CatalogError::Collisions(collisions)) = BaseTools::linked(&Flags::new()) else {
        panic!("the gated clash must be reported");
    };
    assert_eq!(collisions.len(), 1, "{collisions:?}");
    let clash = &collisions[0];
    assert_eq!(clash.name, "gated_plain");
    assert_eq!(clash.first.tool, "gated_plain");
    assert_eq!(
        clash.first.origin,
        GATED_LIB.origin_of("pub struct GatedPlain;")
    );
    assert_eq!(clash.first.gate, None);
    assert_eq!(clash.second.tool, "clash_lookup");
    assert_eq!(clash.second.role, NameRole::Alias);
    assert_eq!(
        clash.second.origin,
        GATED_CLASH_LIB.origin_of("pub struct ClashLookup;")
    );
    assert_eq!(
        clash.second.gate,
        Some(CfgPredicate::KeyValue("feature", "extra"))
    );
    assert!(clash.second.compiled_out);
    let text = clash.to_string();
    assert!(
        text.contains("under `cfg(feature = \"extra\")`, compiled out of this build"),
        "{text}"
    );
}
