use registry_core::{tool, Tool, ToolContext};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoInput {
    text: String,
}

/// Echo.
#[tool(name = "echo")]
struct Echo;

impl Tool for Echo {
    type Input = EchoInput;
    type Output = String;
    type Error = u32;

    async fn call(&self, input: EchoInput, _cx: &ToolContext) -> Result<String, u32> {
        Ok(input.text)
    }
}

fn main() {}
