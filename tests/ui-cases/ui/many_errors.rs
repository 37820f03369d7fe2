use registry_core::{tool, Tool, ToolContext};

/// Every mistake here is reported in one compile.
#[tool(name = "echo back", aliases = ["echo back", "x", "x"], destructive = 1, max_result_chars = 0, colour = "red")]
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
