use registry_core::{Tool, ToolContext, access::{Access, AccessKey}, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EditInput {
    path: String,
}

fn writes_command(command: &String) -> Access {
    Access::write(AccessKey::path(command))
}

/// Edit one file.
#[tool(name = "edit_file", access = writes_command)]
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
