//! Programmatic tool calling in the providers' renders: a tool's
//! [`Callers`] as the `allowed_callers` each provider reads, and the
//! provider's own program tool, added once to a list in which some tool
//! may be called from a program (the provider runs programs only when it
//! is in the request).
//!
//! | [`Callers`]        | Anthropic                                     | OpenAI Responses               |
//! |--------------------|-----------------------------------------------|--------------------------------|
//! | `Direct`           | `["direct"]`                                  | `["direct"]`                   |
//! | `Program`          | `["code_execution_20260120"]`                 | `["programmatic"]`             |
//! | `DirectAndProgram` | `["direct", "code_execution_20260120"]`       | `["direct", "programmatic"]`   |
//! | program tool       | `{"name": "code_execution", "type": "code_execution_20260120"}` | `{"type": "programmatic_tool_calling"}` |
//!
//! A tool that does not say is rendered without the key (the providers'
//! default: direct calls only). OpenAI Chat Completions has no
//! programmatic calling, so its render never carries either.

use crate::declare::Callers;
use crate::input::handle::ToolHandle;

/// The code execution tool version whose programs call tools.
pub(crate) const ANTHROPIC_CODE_EXECUTION: &str = "code_execution_20260120";

/// Anthropic's code execution tool, canonical.
pub(crate) const ANTHROPIC_PROGRAM_TOOL: &str =
    r#"{"name":"code_execution","type":"code_execution_20260120"}"#;

/// OpenAI's programmatic tool calling tool, canonical.
pub(crate) const OPENAI_PROGRAM_TOOL: &str = r#"{"type":"programmatic_tool_calling"}"#;

/// `allowed_callers` as Anthropic writes it.
pub(crate) fn anthropic_callers(callers: Callers) -> &'static [&'static str] {
    match callers {
        Callers::Direct => &["direct"],
        Callers::Program => &[ANTHROPIC_CODE_EXECUTION],
        Callers::DirectAndProgram => &["direct", ANTHROPIC_CODE_EXECUTION],
    }
}

/// `allowed_callers` as OpenAI Responses writes it.
pub(crate) fn openai_callers(callers: Callers) -> &'static [&'static str] {
    match callers {
        Callers::Direct => &["direct"],
        Callers::Program => &["programmatic"],
        Callers::DirectAndProgram => &["direct", "programmatic"],
    }
}

/// Whether a program may call `tool` by its own declaration: what makes
/// a list carry the provider's program tool.
pub(crate) fn declares_program(tool: &ToolHandle) -> bool {
    tool.spec()
        .allowed_callers()
        .is_some_and(Callers::allows_program)
}

/// `program_tool` when any of `tools` declares that programs may call it.
pub(crate) fn program_tool<'a>(
    mut tools: impl Iterator<Item = &'a ToolHandle>,
    program_tool: &'static str,
) -> Option<&'static str> {
    tools.any(declares_program).then_some(program_tool)
}
