//! Who may call a tool: the model itself, a program, or both.
//!
//! A program is code the model wrote that calls tools: the provider's own
//! (Anthropic's code execution, OpenAI's programmatic tool calling, whose
//! calls come back marked with their `caller`) or this project's `code`
//! tool (`registry-code`). Declared once (`#[tool(allowed_callers =
//! ["direct", "program"])]`, [`ToolBuilder::allowed_callers`](crate::ToolBuilder::allowed_callers)),
//! it is rendered as the providers' `allowed_callers` and enforced by the
//! executor for every call, whoever made it.
//!
//! Unsaid, a tool is rendered without `allowed_callers` (the providers'
//! default: direct calls only) and the executor lets programs call it:
//! every call a program makes meets the same permission pipeline as a
//! direct one, so what a program may do is already bounded by the rules;
//! say `["direct"]` for a tool whose result the model must see itself.

/// Who may call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Callers {
    /// Only the model, directly.
    Direct,
    /// Only programs.
    Program,
    /// The model and programs.
    DirectAndProgram,
}

impl Callers {
    /// Whether the model may call the tool directly.
    pub fn allows_direct(self) -> bool {
        matches!(self, Callers::Direct | Callers::DirectAndProgram)
    }

    /// Whether a program may call the tool.
    pub fn allows_program(self) -> bool {
        matches!(self, Callers::Program | Callers::DirectAndProgram)
    }

    /// The callers as the attribute writes them (`"direct"`,
    /// `"program"`), in that order.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Callers::Direct => &["direct"],
            Callers::Program => &["program"],
            Callers::DirectAndProgram => &["direct", "program"],
        }
    }
}
