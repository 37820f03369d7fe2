//! Every key `#[tool]` accepts.

use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
pub struct RunInput {
    pub command: String,
}

fn is_read_only_command(input: &RunInput) -> bool {
    input.command.starts_with("ls")
}

fn sandbox_available() -> bool {
    true
}

/// Run a shell command in the sandbox.
#[tool(
    name = "run_command",
    aliases = ["Bash", "sh"],
    description = "Run a shell command in the sandbox and return its output.",
    concurrency_safe = is_read_only_command,
    read_only = is_read_only_command,
    destructive = |input: &RunInput| input.command.contains("rm "),
    search_hint = "shell exec terminal",
    max_result_chars = 30_000,
    defer,
    flag = "shell",
    enabled = sandbox_available,
    classifier_input = |input: &RunInput| input.command.clone(),
    user_facing_name = "Shell",
    idempotent = false,
    open_world = true,
    allowed_callers = ["direct"],
    internal,
)]
pub struct RunCommand {
    pub timeout_secs: u64,
}

impl Default for RunCommand {
    fn default() -> Self {
        RunCommand { timeout_secs: 30 }
    }
}

impl Tool for RunCommand {
    type Input = RunInput;
    type Output = String;
    type Error = std::io::Error;

    async fn call(&self, input: RunInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.command)
    }
}

fn main() {}
