use registry_core::{tool, Tool, ToolContext};

/// Echo. Three mistakes, all reported: a word that is no property, a
/// property listed twice, and a value that is not a string.
#[tool(name = "echo", rule_of_two = ["secrets", "private_data", "private_data", true])]
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
