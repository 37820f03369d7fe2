//! The tool crate the README names `my_tools`: one tool, so the README's
//! `link!(my_tools)` and `require_crates(&["my_tools"])` compile and hold.

use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// The input of [`Stat`].
#[derive(Deserialize, JsonSchema)]
pub struct StatInput {
    /// Path relative to the workspace.
    pub path: String,
}

/// Report a file's size.
#[tool(name = "my_stat", read_only = true, concurrency_safe = true)]
pub struct Stat;

impl Tool for Stat {
    type Input = StatInput;
    type Output = String;
    type Error = std::io::Error;

    async fn call(&self, input: StatInput, _cx: &ToolContext) -> Result<String, std::io::Error> {
        Ok(format!("{} bytes", std::fs::metadata(&input.path)?.len()))
    }
}
