//! `prepare`: arbitrary JSON through `ToolHandle::prepare` of every tool
//! (the example tools and [`tools`](crate::tools)).
//!
//! Property: no panic; a call that prepares keeps arguments that prepare
//! again, to themselves (null handling is idempotent, and what was
//! accepted once is accepted again).

use std::sync::LazyLock;

use registry_core::{PermissionContext, ToolHandle, ToolRegistry, catalog::BaseTools};

/// Every tool of the linked catalog, sorted by name.
pub static HANDLES: LazyLock<Vec<ToolHandle>> = LazyLock::new(|| {
    let registry = ToolRegistry::new(
        BaseTools::linked(&registry_core::Flags::new()).expect("the fuzz catalog builds"),
    );
    registry.tools(&PermissionContext::new())
});

/// The first byte picks the tool; the rest is the arguments.
pub fn run(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Some(args) = crate::json(rest) else {
        return;
    };
    let tool = &HANDLES[usize::from(pick) % HANDLES.len()];
    let Ok(prepared) = tool.prepare(args) else {
        return;
    };
    let kept = prepared.args().clone();
    match tool.prepare(kept.clone()) {
        Ok(again) => assert_eq!(again.args(), &kept, "{}: arguments changed", tool.name()),
        Err(err) => panic!("{}: {kept} prepared once, then: {err}", tool.name()),
    }
}
