//! The plain-text tool catalog for a system prompt.

use std::sync::Arc;

use super::CACHE_KEY_PREFIX;
use super::anthropic::is_deferred;
use super::cache::{self, Fragment};
use crate::input::handle::ToolHandle;
use crate::pool::ToolPool;

const KEY: &str = "prompt_catalog";

/// One tool's entry in the prompt catalog: `- name: description\n`, with
/// the description's further lines indented by two spaces (blank lines
/// stay empty, trailing whitespace is trimmed, `\r\n` reads as `\n`). A
/// deferred tool reads `- name (deferred): ...`.
pub(crate) fn prompt_catalog_entry(tool: &ToolHandle) -> String {
    let spec = tool.spec();
    let marker = if is_deferred(tool) { " (deferred)" } else { "" };
    let mut out = format!("- {}{marker}:", spec.name());
    for (i, line) in spec.description().trim().lines().enumerate() {
        let line = line.trim_end();
        if i == 0 {
            out.push(' ');
            out.push_str(line);
        } else if !line.is_empty() {
            out.push_str("\n  ");
            out.push_str(line);
        } else {
            out.push('\n');
        }
    }
    out.push('\n');
    out
}

impl ToolPool {
    /// The plain-text catalog for a system prompt: one entry per tool in
    /// pool order, `- name: description\n` with the description's further
    /// lines indented by two spaces and `- name (deferred): ...` for a
    /// deferred tool, concatenated (empty for an empty pool). The built-ins' entries are a byte prefix that plugins never
    /// change. Cached.
    pub fn render_prompt_catalog(&self) -> Arc<str> {
        self.render_cached(&format!("{CACHE_KEY_PREFIX}{KEY}"), |pool| {
            cache::concat(
                pool.iter()
                    .map(|tool| cache::fragment(tool, Fragment::Prompt, prompt_catalog_entry)),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::builder::ToolBuilder;
    use crate::declare::output::ToolOutput;
    use crate::declare::posture::Loading;

    #[test]
    fn a_deferred_entry_is_marked_and_further_lines_indented() {
        let tool = ToolBuilder::new("deploy", "Deploy the site.\n\nAsks first.")
            .loading(Loading::Deferred)
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            prompt_catalog_entry(&tool),
            "- deploy (deferred): Deploy the site.\n\n  Asks first.\n"
        );
    }
}
