//! Test fixture for `registry-tests`: `clash_lookup` claims the alias
//! `gated_plain`, the name of a `tools-gated` tool, but only when the
//! `extra` feature is on. No test build turns it on, yet a binary linking
//! both crates must refuse to build its list: the clash exists in some
//! build, so it is reported in every build.

#![warn(missing_docs)]

use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// The input of the lookup tool.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LookupInput {
    /// What to look up.
    pub key: String,
}

/// Look a key up.
#[tool(name = "clash_lookup", aliases = ["gated_plain"], cfg(feature = "extra"))]
pub struct ClashLookup;

#[cfg(feature = "extra")]
impl Tool for ClashLookup {
    type Input = LookupInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: LookupInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.key)
    }
}

/// A tool that is always there, so the crate is linked in every build.
#[tool(name = "clash_always")]
pub struct ClashAlways;

impl Tool for ClashAlways {
    type Input = LookupInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: LookupInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.key)
    }
}
