//! Test fixture for `registry-tests`: a second downstream tool crate whose
//! names clash with `tools-alpha`'s, so a binary linking both has an
//! inconsistent catalog.
//!
//! - `beta_search` keeps the aliases `alpha_read` (`tools-alpha`'s primary
//!   name for another tool: alias against name) and `aread` (an alias
//!   `tools-alpha` uses too: alias against alias).
//! - `beta_lab` keeps the alias `alpha_experimental`, the name of a
//!   `tools-alpha` tool that is behind a runtime flag: the clash must be
//!   reported whether or not that flag is set.
//! - `ShadowWrite` is named `alpha_write`, like a `tools-alpha` tool: name
//!   against name.
//! - `beta_plain` clashes with nothing.
//!
//! On its own (without `tools-alpha`) the crate is consistent, and its
//! clashing names then silently stand in for `tools-alpha`'s. Tests find
//! the lines of these structs by searching this crate's text, so keep each
//! `pub struct` line unique.

#![warn(missing_docs)]

use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

pub mod search;

/// The input every beta tool takes.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct QueryInput {
    /// What to look for.
    pub query: String,
}

/// Run something in the beta lab.
#[tool(name = "beta_lab", aliases = ["alpha_experimental"])]
pub struct BetaLab;

impl Tool for BetaLab {
    type Input = QueryInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: QueryInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("lab ran {}", input.query))
    }
}

/// Echo the query; its names clash with nothing.
#[tool(name = "beta_plain", read_only = true, concurrency_safe = true)]
pub struct BetaPlain;

impl Tool for BetaPlain {
    type Input = QueryInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: QueryInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.query)
    }
}

/// Write through beta, under a name `tools-alpha` also uses.
#[tool(name = "alpha_write", destructive = true)]
pub struct ShadowWrite;

impl Tool for ShadowWrite {
    type Input = QueryInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: QueryInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("beta wrote {}", input.query))
    }
}
