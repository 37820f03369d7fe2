use registry_core::{tool, Tool, ToolContext};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoInput {
    text: String,
}

/// Echo.
#[tool(name = "echo", flag = "")]
struct Echo;

impl Tool for Echo {
    type Input = EchoInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EchoInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.text)
    }
}

fn main() {}
