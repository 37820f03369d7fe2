//! Test fixture for `registry-tests`: a tool crate that depends on
//! `registry-core` under the name `core_renamed`, so `::registry_core` does
//! not resolve here. Its tool uses `#[tool(crate = "::core_renamed")]`; if
//! any generated path ignored the override, this crate would not compile.

#![warn(missing_docs)]

use core_renamed::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// The input of [`RenamedEcho`].
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoInput {
    /// The text echoed back.
    pub text: String,
}

/// Echo the text back, from a crate that renamed registry-core.
#[tool(
    name = "renamed_echo",
    aliases = ["recho"],
    read_only = true,
    concurrency_safe = |input: &EchoInput| !input.text.is_empty(),
    max_result_chars = 64,
    crate = "::core_renamed"
)]
pub struct RenamedEcho;

impl Tool for RenamedEcho {
    type Input = EchoInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EchoInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.text)
    }
}
