//! A tool that declares what each call touches: the access expression is
//! bound to `fn(&Input) -> Access` where the user wrote it, and recorded
//! with its text for the catalog lock.

use registry_core::{Tool, ToolContext, access::{Access, AccessKey}, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EditInput {
    path: String,
}

/// Edit one file.
#[tool(
    name = "edit_file",
    access = |i: &EditInput| Access::write(AccessKey::path(&i.path)),
)]
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
