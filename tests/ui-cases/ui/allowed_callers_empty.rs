use registry_core::{tool, Tool, ToolContext};

/// Echo.
#[tool(name = "echo", allowed_callers = [])]
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
