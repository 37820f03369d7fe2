use std::cell::Cell;

use registry_core::{tool, Tool, ToolContext};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoInput {
    text: String,
    /// `Cell` is not `Sync`: calls share their input across threads.
    seen: Cell<u32>,
}

/// Echo.
#[tool(name = "echo")]
struct Echo;

impl Tool for Echo {
    type Input = EchoInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EchoInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        input.seen.set(input.seen.get() + 1);
        Ok(input.text)
    }
}

fn main() {}
