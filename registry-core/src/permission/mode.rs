//! The permission mode: a session's general policy for calls the tool
//! itself left to it (`PermissionDecision::Delegate`).
//!
//! Not to be confused with [`PoolMode`](super::PoolMode), which removes tools from
//! the pool before the model sees them. A permission mode never changes
//! the pool; it only settles, call by call, what nothing more specific
//! settled.

use std::fmt;
use std::str::FromStr;

/// How `Delegate` decisions are settled: the general policy of a session.
/// Not the pool-filtering [`PoolMode`](crate::permission::PoolMode).
///
/// "Read-only" below means a call that is read-only and not destructive
/// (the two postures are independent; a call declared both is treated as
/// destructive).
///
/// | mode | read-only call | non-destructive write | destructive call | an ask |
/// |---|---|---|---|---|
/// | `default` | runs | asks | asks | goes to the approver |
/// | `accept_edits` | runs | runs when its path is inside the workspace, else asks | asks | goes to the approver |
/// | `plan` | runs | **denied**, even with an allow rule | **denied** | goes to the approver |
/// | `bypass` | runs | runs | runs | runs (deny rules and the tool's own `Deny` still hold) |
/// | `dont_ask` | runs | denied | denied | denied |
/// | `auto` | the safety classifier decides when the call has classifier text, else as `default` | same | same | goes to the approver |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum PermissionMode {
    /// Read-only calls run; everything else asks.
    #[default]
    Default,
    /// As `Default`, and non-destructive writes to a path inside the
    /// workspace run too.
    AcceptEdits,
    /// Only read-only calls run; everything else is denied, so the model
    /// plans rather than acts.
    Plan,
    /// Everything runs except what a deny rule or the tool itself denies.
    Bypass,
    /// As `Default`, but every ask is a deny: for unattended runs.
    DontAsk,
    /// A runtime-supplied safety classifier settles delegated calls.
    Auto,
}

impl PermissionMode {
    /// Every mode, in declaration order.
    pub const ALL: [PermissionMode; 6] = [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Plan,
        PermissionMode::Bypass,
        PermissionMode::DontAsk,
        PermissionMode::Auto,
    ];

    /// The mode's name as settings write it (`accept_edits`).
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "accept_edits",
            PermissionMode::Plan => "plan",
            PermissionMode::Bypass => "bypass",
            PermissionMode::DontAsk => "dont_ask",
            PermissionMode::Auto => "auto",
        }
    }

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

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A permission mode name that is not one of [`PermissionMode::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown permission mode `{}`; expected one of: default, accept_edits, plan, bypass, dont_ask, auto",
    crate::text::cap_error_text(.0)
)]
pub struct UnknownPermissionMode(pub String);

impl FromStr for PermissionMode {
    type Err = UnknownPermissionMode;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        PermissionMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == name)
            .ok_or_else(|| UnknownPermissionMode(name.to_owned()))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for mode in PermissionMode::ALL {
            assert_eq!(mode.to_string().parse(), Ok(mode));
        }
        let err = "yolo".parse::<PermissionMode>().unwrap_err();
        assert!(
            err.to_string()
                .starts_with("unknown permission mode `yolo`; expected one of: default")
        );
    }
}
