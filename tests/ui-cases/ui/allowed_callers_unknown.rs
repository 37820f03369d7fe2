use registry_core::{tool, Tool, ToolContext};

/// Echo. Two mistakes, both reported: a provider's word for a caller and
/// a caller listed twice.
#[tool(name = "echo", allowed_callers = ["direct", "programmatic", "direct"])]
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
