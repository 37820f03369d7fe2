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
    type Output = Vec<u8>;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EchoInput, _cx: &ToolContext) -> Result<Vec<u8>, Self::Error> {
        Ok(input.text.into_bytes())
    }
}

fn main() {}
