//! The smallest tool: a name and a doc comment. Everything else is the
//! fail-closed default, so nothing else appears in the expansion.

use registry_core::{Tool, ToolContext, tool};

/// Echo the input back.
#[tool(name = "echo")]
pub struct Echo;

impl Tool for Echo {
    type Input = String;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: String, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input)
    }
}

fn main() {}
