//! A crate that forbids unsafe code can declare tools: the link-time
//! claim symbols `#[tool]` emits must not trip `unsafe_code`.
#![forbid(unsafe_code)]

use registry_core::{tool, Tool, ToolContext};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    pub text: String,
}

/// Echo the text.
#[tool(name = "safe_echo", aliases = ["echo_safe"], cfg(all()))]
pub struct SafeEcho;

impl Tool for SafeEcho {
    type Input = Input;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Input, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.text)
    }
}

fn main() {}
