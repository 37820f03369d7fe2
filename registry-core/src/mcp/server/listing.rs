//! What `tools/list` lists: the pool's tools as rmcp tools.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::Tool;

use super::View;
use crate::input::handle::ToolHandle;
use crate::pool::ToolPool;

/// The pool's tools as rmcp tools: each read from its cached MCP
/// definition (`render::mcp_tool_json`) straight into rmcp's
/// `Tool` (no `Value` in between), once per tool instance: a tool the
/// previous view listed is shared with it, so a plugin coming or going
/// costs only the new tools.
///
/// The definition is written in MCP wire order, the order rmcp's `Tool`
/// serialises its fields, with the schemas in sorted order, which is what
/// `serde_json`'s map writes (and, were its `preserve_order` feature on,
/// what parsing sorted text preserves). So what rmcp sends is the
/// render, byte for byte; `tests/it/mcp_wire.rs` checks
/// it on every kind of definition. A definition rmcp refuses is left out
/// and logged.
///
/// What `tools/list` pages through, and the handle of each: every tool of
/// `pool` that rmcp can take (reusing `previous` definitions), the code
/// tool with the pool's API, and only it when it is served alone.
pub(super) fn listed_tools(
    pool: &ToolPool,
    previous: Option<&View>,
    code: Option<&crate::mcp::code_listing::CodeTool>,
) -> (Arc<[Tool]>, Box<[ToolHandle]>) {
    let known: HashMap<usize, &Tool> = previous
        .map(|view| {
            view.sources
                .iter()
                .map(ToolHandle::instance_key)
                .zip(view.tools.iter())
                .collect()
        })
        .unwrap_or_default();
    let mut tools = Vec::with_capacity(pool.len());
    let mut sources = Vec::with_capacity(pool.len());
    for handle in pool.iter() {
        let is_code = code.is_some_and(|code| code.is(handle));
        if code.is_some_and(|code| code.only) && !is_code {
            continue;
        }
        // The code tool's listing depends on the whole pool: never reused.
        let reused = (!is_code)
            .then(|| known.get(&handle.instance_key()))
            .flatten();
        let mut tool = match reused {
            Some(tool) => (*tool).clone(),
            None => match serde_json::from_str::<Tool>(crate::render::mcp_fragment(handle)) {
                Ok(tool) => tool,
                Err(err) => {
                    tracing::error!(tool = handle.name(), %err, "tool left out of tools/list");
                    continue;
                }
            },
        };
        if let Some(code) = code.filter(|_| is_code) {
            code.describe(&mut tool, pool);
        }
        tools.push(tool);
        sources.push(handle.clone());
    }
    (tools.into(), sources.into())
}
