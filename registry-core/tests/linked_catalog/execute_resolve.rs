//! Resolution of the names the linked list keeps out: a name behind a
//! runtime flag or a `cfg` gate is refused saying which. The rest of the
//! suite is `it/execute_resolve.rs`; this test reads the binary's linked
//! list, which the shared binary `it` cannot give it.

use std::sync::Arc;

use registry_core::{Executor, PermissionContext, ToolCall, ToolRegistry};
use serde_json::json;

use crate::execute_support::paused_runtime;

fn run(exec: &Executor, name: &str) -> (bool, String) {
    let results =
        paused_runtime().block_on(exec.run_turn(vec![ToolCall::new("id", name, json!({}))]));
    let result = results.into_iter().next().unwrap();
    (result.is_error(), result.into_content())
}

/// Only linked into this test binary: one tool behind a runtime flag, one
/// behind a `cfg` gate that never holds.
mod gated {
    use registry_core::{Tool, ToolContext, tool};

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct NoInput {}

    /// Behind a flag.
    #[tool(name = "beta_tool", aliases = ["beta"], flag = "beta")]
    pub struct BetaTool;

    impl Tool for BetaTool {
        type Input = NoInput;
        type Output = &'static str;
        type Error = std::convert::Infallible;
        async fn call(&self, _: NoInput, _: &ToolContext) -> Result<&'static str, Self::Error> {
            Ok("beta")
        }
    }

    /// Never compiled in.
    #[tool(name = "never_tool", cfg(any()))]
    pub struct NeverTool;

    #[cfg(any())]
    impl Tool for NeverTool {
        type Input = NoInput;
        type Output = &'static str;
        type Error = std::convert::Infallible;
        async fn call(&self, _: NoInput, _: &ToolContext) -> Result<&'static str, Self::Error> {
            Ok("never")
        }
    }
}

#[test]
fn names_kept_out_by_a_flag_or_a_cfg_gate_say_which() {
    let list = registry_core::catalog::BaseTools::linked(&registry_core::Flags::new()).unwrap();
    let registry = Arc::new(ToolRegistry::new(list));
    let cx = PermissionContext::new();
    let _pool = registry.assemble_tool_pool(&cx);
    let exec = registry.executor().permissions(cx).build();
    let flagged =
        "tool `beta_tool` is behind the runtime flag `beta`, which is not set; it cannot be called";
    assert_eq!(run(&exec, "beta_tool"), (true, flagged.to_owned()));
    assert_eq!(run(&exec, "beta"), (true, flagged.to_owned()));
    assert_eq!(
        run(&exec, "never_tool"),
        (
            true,
            "tool `never_tool` is compiled out of this build: `cfg(any())` does not hold; it cannot be called"
                .to_owned()
        )
    );
}
