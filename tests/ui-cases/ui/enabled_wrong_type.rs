use registry_core::{tool, Tool, ToolContext};

fn has_network(retries: u8) -> bool {
    retries > 0
}

/// Echo.
#[tool(name = "echo", enabled = has_network)]
struct Echo;

impl Tool for Echo {
    type Input = String;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: String, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input)
    }
}

fn main() {}
