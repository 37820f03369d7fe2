use registry_core::{tool, Tool, ToolContext};

fn is_safe(command: &u32) -> bool {
    *command > 0
}

/// Echo.
#[tool(name = "echo", read_only = is_safe)]
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
