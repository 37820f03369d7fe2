//! The smallest tool: a name and a doc comment. Everything else is the
//! fail-closed default, so nothing else appears in the expansion.

use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// A tool's input is a struct with named fields: a JSON object.
#[derive(Deserialize, JsonSchema)]
pub struct EchoInput {
    pub text: String,
}

/// Echo the input back.
#[tool(name = "echo")]
pub struct Echo;

impl Tool for Echo {
    type Input = EchoInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EchoInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.text)
    }
}

fn main() {}
