//! Alpha's writing tool, in a submodule so `Origin::module_path` is checked
//! on something other than the crate root.

use registry_core::{Tool, ToolContext, tool};

use crate::PathInput;

/// Write a file in the alpha store.
#[tool(name = "alpha_write", destructive = true)]
pub struct AlphaWrite;

impl Tool for AlphaWrite {
    type Input = PathInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: PathInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("wrote {}", input.path))
    }
}
