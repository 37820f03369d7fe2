//! The permission mode: a session's general policy for calls the tool
//! itself left to it (`PermissionDecision::Delegate`).
//!
//! Not to be confused with [`PoolMode`](super::PoolMode), which removes tools from
//! the pool before the model sees them. A permission mode never changes
//! the pool; it only settles, call by call, what nothing more specific
//! settled.
//!
//! The enum itself, its names and their parsing are defined in
//! `input/refusal.rs`, next to the [`Refusal`](super::Refusal) a mode can
//! answer with (a [`ToolError`](crate::input::ToolError) carries one, and
//! `input` is the earlier stage); this file holds what each mode decides.

use super::PermissionMode;

impl PermissionMode {
    /// The general policy for a delegated call (the `auto` classifier is
    /// consulted by the pipeline before this; here `auto` is its fallback,
    /// the `default` rule).
    pub(crate) fn settle_delegated(self, call: &CallFacts<'_>) -> Settled {
        let tool = call.tool;
        if call.reads_only() {
            return Settled::Allow;
        }
        let mut what = if call.destructive {
            format!("`{tool}` can destroy or overwrite data")
        } else {
            format!("`{tool}` can change files or state")
        };
        if let Some(server) = call.untrusted_server {
            what.push_str(&format!(
                " (as far as anyone can tell: it comes from MCP server `{server}`, which is not trusted, so what the server says of it is not believed; to let such calls run, trust the server with `McpServerConfig::trusted(true)`, or allow the tool with a rule `{tool}`)"
            ));
        }
        match self {
            PermissionMode::Bypass => Settled::Allow,
            PermissionMode::Plan => Settled::Deny(plan_mode_reason(tool)),
            PermissionMode::AcceptEdits if !call.destructive => {
                match call.edit_inside_workspace() {
                    Ok(()) => Settled::Allow,
                    Err(why) => Settled::Ask(format!("{what}, and accept_edits mode {why}")),
                }
            }
            _ => Settled::Ask(what),
        }
    }
}

/// What the model reads when plan mode refuses a call.
pub(crate) fn plan_mode_reason(tool: &str) -> String {
    format!(
        "plan mode only runs read-only calls, and this call of `{tool}` can change things; describe the change in the plan instead"
    )
}

/// The general policy's answer for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Settled {
    Allow,
    Ask(String),
    Deny(String),
}

/// What the general policy knows about one call.
pub(crate) struct CallFacts<'a> {
    pub(crate) tool: &'a str,
    pub(crate) read_only: bool,
    pub(crate) destructive: bool,
    /// The MCP server the tool comes from, when that server is not trusted
    /// (its annotations were not believed).
    pub(crate) untrusted_server: Option<&'a str>,
    /// `Ok` when the call's path, as the OS will open it, is inside the
    /// workspace, else why not (phrased to follow "accept_edits mode").
    /// Asked only in `accept_edits`: it resolves the path.
    pub(crate) edit_inside: &'a dyn Fn() -> Result<(), String>,
}

impl CallFacts<'_> {
    /// Read-only and not destructive: what every mode lets run.
    pub(crate) fn reads_only(&self) -> bool {
        self.read_only && !self.destructive
    }

    fn edit_inside_workspace(&self) -> Result<(), String> {
        (self.edit_inside)()
    }
}
