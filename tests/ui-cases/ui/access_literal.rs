use registry_core::{tool, Tool, ToolContext};

/// Edit one file.
#[tool(name = "edit_file", access = "a.txt")]
struct EditFile;

impl Tool for EditFile {
    type Input = String;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: String, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input)
    }
}

fn main() {}
