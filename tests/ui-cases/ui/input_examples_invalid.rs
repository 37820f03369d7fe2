use registry_core::{tool, Tool, ToolContext};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoInput {
    text: String,
}

/// Echo.
#[tool(
    name = "echo",
    input_examples = [r#"{"text": "hi"}"#, r#"{"text": "#, "[1, 2]", 3],
    strict = "yes"
)]
struct Echo;

/// Echo again.
#[tool(name = "echo_again", input_examples = r#"{"text": "hi"}"#)]
struct EchoAgain;

impl Tool for Echo {
    type Input = EchoInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EchoInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.text)
    }
}

impl Tool for EchoAgain {
    type Input = EchoInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EchoInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.text)
    }
}

fn main() {}
