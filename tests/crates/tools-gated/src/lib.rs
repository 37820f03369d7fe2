//! Test fixture for `registry-tests`: tools behind `#[cfg]` gates.
//!
//! - `gated_extra` (alias `gx`) needs the `extra` feature, which no test
//!   build turns on: it is compiled out, and leaves a record.
//! - `gated_shell` is declared twice, once per platform family, under gates
//!   that never hold together: one twin is compiled in on any target.
//! - `gated_plain` has no gate.
//!
//! Tests find the lines of these structs by searching this file's text, so
//! keep each `pub struct` line unique.

#![warn(missing_docs)]

use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// The input every gated tool takes.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Input {
    /// What to act on.
    pub target: String,
}

macro_rules! echo_tool {
    ($ty:ident) => {
        impl Tool for $ty {
            type Input = Input;
            type Output = String;
            type Error = std::convert::Infallible;

            async fn call(&self, input: Input, _cx: &ToolContext) -> Result<String, Self::Error> {
                Ok(input.target)
            }
        }
    };
}

/// A tool with no gate.
#[tool(name = "gated_plain", read_only = true)]
pub struct GatedPlain;
echo_tool!(GatedPlain);

/// A tool only the `extra` feature compiles.
#[tool(name = "gated_extra", aliases = ["gx"], cfg(feature = "extra"))]
pub struct GatedExtra;
#[cfg(feature = "extra")]
echo_tool!(GatedExtra);

/// Run a command (the Unix twin).
#[tool(name = "gated_shell", aliases = ["gsh"], cfg(unix))]
pub struct GatedShellUnix;
#[cfg(unix)]
echo_tool!(GatedShellUnix);

/// Run a command (the twin for every other platform).
#[tool(name = "gated_shell", aliases = ["gsh"], cfg(not(unix)))]
pub struct GatedShellOther;
#[cfg(not(unix))]
echo_tool!(GatedShellOther);
