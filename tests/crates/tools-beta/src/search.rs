//! Beta's search tool, in a submodule so the collision message names a
//! module other than the crate root.

use registry_core::{Tool, ToolContext, tool};

use crate::QueryInput;

/// Search the beta index.
#[tool(name = "beta_search", aliases = ["alpha_read", "aread"], read_only = true)]
pub struct BetaSearch;

impl Tool for BetaSearch {
    type Input = QueryInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: QueryInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("found {}", input.query))
    }
}
