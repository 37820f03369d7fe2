//! Test fixture for `registry-tests`: a downstream crate holding nothing but
//! `#[tool]`s, like a real tool crate a binary depends on and never names.
//!
//! It depends on `registry-core` alone (plus serde and schemars for the input
//! derives). The `downstream_*` suites link it, leave it unlinked, and collide
//! it with `tools-beta`. Tests find the lines of these structs by searching
//! this file's text, so keep each `pub struct` line unique.

#![warn(missing_docs)]

use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

pub mod edit;

/// The input every alpha tool takes.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PathInput {
    /// The path the tool acts on.
    pub path: String,
}

/// Read a file from the alpha store.
#[tool(name = "alpha_read", aliases = ["aread"], read_only = true)]
pub struct AlphaRead;

impl Tool for AlphaRead {
    type Input = PathInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: PathInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("alpha contents of {}", input.path))
    }
}

/// An experimental alpha tool, present only when the `alpha_experimental`
/// runtime flag is set.
#[tool(
    name = "alpha_experimental",
    aliases = ["alpha_exp"],
    flag = "alpha_experimental"
)]
pub struct AlphaExperimental;

impl Tool for AlphaExperimental {
    type Input = PathInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: PathInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("experimenting on {}", input.path))
    }
}
