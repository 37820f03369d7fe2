use registry_core::{tool, Tool, ToolContext};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EditInput {
    path: String,
}

/// Edit one file.
#[tool(name = "edit_file", access = |i: &EditInput| i.path.clone())]
struct EditFile;

impl Tool for EditFile {
    type Input = EditInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EditInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.path)
    }
}

fn main() {}
