//! Serving a pool as one code tool, as Cloudflare's code mode does: the
//! tool that runs programs (code mode's `code`, see `registry-code`) is
//! listed with the pool's TypeScript API in its description, so a client
//! learns every tool its programs may call from one definition; and, if
//! asked, it is the only tool listed or callable directly, every other
//! tool reached through its programs (each call of a program still meets
//! the executor's rules one by one).

use rmcp::model::Tool;

use crate::input::handle::ToolHandle;
use crate::pool::ToolPool;

/// Which tool runs programs, and whether it is the only one served.
#[derive(Debug, Clone)]
pub(crate) struct CodeTool {
    pub(crate) name: String,
    pub(crate) only: bool,
}

impl CodeTool {
    /// Whether `handle` is the code tool.
    pub(crate) fn is(&self, handle: &ToolHandle) -> bool {
        handle.name() == self.name
    }

    /// The code tool's listing: its description, then the API of `pool`
    /// (the tools a program may call).
    pub(crate) fn describe(&self, tool: &mut Tool, pool: &ToolPool) {
        let base = tool.description.as_deref().unwrap_or_default();
        let api = pool.render_typescript();
        tool.description = Some(
            format!(
                "{base}\n\nThe `tools` object your program calls, as TypeScript:\n\n```typescript\n{api}```"
            )
            .into(),
        );
    }

    /// Why a client may not call `name` directly: when only the code
    /// tool is served and `name` is another tool (or an alias).
    pub(crate) fn refuses(&self, name: &str) -> Option<String> {
        (self.only && name != self.name).then(|| {
            format!(
                "tool `{}` is not served directly here: only `{}` is, and its programs call the other tools (see its description)",
                crate::text::cap_error_text(name),
                self.name
            )
        })
    }
}
