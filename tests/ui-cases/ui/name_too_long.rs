use registry_core::{tool, Tool, ToolContext};

/// Echo.
#[tool(name = "a_name_that_is_far_too_long_for_any_provider_to_accept_as_a_tool_name")]
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
