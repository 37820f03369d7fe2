use registry_core::{tool, Tool, ToolContext};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoInput {
    text: String,
}

/// Echo.
#[tool(name = "echo", flag = web, search_hint = find, user_facing_name = 5, crate = registry_core)]
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
