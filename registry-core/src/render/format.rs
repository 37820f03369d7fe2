//! The formats a pool renders to, named: for measuring what a tool costs
//! in one of them and for the shape of one full definition.

use crate::input::ToolHandle;
use crate::render::{
    anthropic_tool, mcp_tool, openai_chat_tool, openai_responses_tool, prompt_catalog_entry,
};
use crate::text::to_canonical_string;

/// A provider format, for measuring what tools cost and for the shape of
/// full definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProviderFormat {
    /// Anthropic Messages API `tools` (has deferred loading).
    Anthropic,
    /// OpenAI Chat Completions `tools` (no deferred loading).
    OpenAiChat,
    /// OpenAI Responses API `tools` (has deferred loading).
    OpenAiResponses,
    /// MCP `tools/list` (no deferred loading).
    Mcp,
    /// The plain-text prompt catalog.
    Prompt,
}

impl ProviderFormat {
    /// Whether the format can send a tool without its schema and load it
    /// later (`defer_loading` in Anthropic's and OpenAI Responses'
    /// tools). Formats that cannot leave a deferred tool out until it is
    /// discovered.
    pub fn supports_deferral(self) -> bool {
        matches!(
            self,
            ProviderFormat::Anthropic | ProviderFormat::OpenAiResponses
        )
    }

    /// One tool's full definition in this format, as the pool's render
    /// of this format holds it (see the [module docs](crate::render) for
    /// each shape); the prompt catalog's is its entry, as a JSON string.
    /// Anthropic's leaves out `defer_loading`: a full definition is what
    /// a model is given once the tool is loaded.
    pub fn definition(self, tool: &ToolHandle) -> serde_json::Value {
        match self {
            ProviderFormat::Anthropic => {
                let mut value = anthropic_tool(tool);
                if let serde_json::Value::Object(map) = &mut value {
                    map.remove("defer_loading");
                }
                value
            }
            ProviderFormat::OpenAiChat => openai_chat_tool(tool),
            ProviderFormat::OpenAiResponses => openai_responses_tool(tool),
            ProviderFormat::Mcp => mcp_tool(tool),
            ProviderFormat::Prompt => serde_json::Value::String(prompt_catalog_entry(tool)),
        }
    }

    /// The bytes one tool's full definition takes in this format.
    pub fn rendered_bytes(self, tool: &ToolHandle) -> usize {
        match self.definition(tool) {
            serde_json::Value::String(entry) => entry.len(),
            value => to_canonical_string(&value).len(),
        }
    }
}
