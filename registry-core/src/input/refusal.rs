//! Who refused a call and why ([`Refusal`], [`RefusedBy`]), and the
//! permission modes ([`PermissionMode`]), one of the refusers.
//!
//! Permission vocabulary, defined here because this is the earliest stage
//! that needs it: a [`ToolError::Refused`](super::ToolError::Refused)
//! carries a [`Refusal`]. The [`permission`](crate::permission) stage
//! re-exports all of it and owns what it means: which step refuses, and
//! what each mode decides (`permission/mode.rs`).

use std::fmt;
use std::str::FromStr;

/// Who refused a call, and why. `reason` is what the model reads.
///
/// The permission pipeline answers with one
/// ([`Authorization::Refused`](crate::permission::Authorization::Refused)),
/// [`PreparedCall::run`](super::PreparedCall::run) fails with one
/// ([`ToolError::Refused`](super::ToolError::Refused)), and the executor
/// hands it on with the call's result
/// ([`ToolCallResult::refusal`](crate::execute::ToolCallResult::refusal)).
/// Its `Display` is the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Who refused the call.
    pub by: RefusedBy,
    /// Why, for the model.
    pub reason: String,
}

impl Refusal {
    /// A refusal by `by`, for this reason.
    pub fn new(by: RefusedBy, reason: impl Into<String>) -> Self {
        Refusal {
            by,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

/// Who refused a call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RefusedBy {
    /// A deny rule of the context (its text).
    DenyRule(String),
    /// The tool's own `check_permissions` said `Deny`.
    Tool,
    /// The permission mode (`plan`, `dont_ask`).
    Mode(PermissionMode),
    /// The approver said no (or failed, or did not answer in time).
    Approver,
    /// The permission pipeline would have asked a person, and the policy
    /// has no approver.
    NoApprover,
    /// The tool's own `check_permissions` said `Ask`, and the call was run
    /// without a person's approval: with
    /// [`PreparedCall::run`](super::PreparedCall::run) rather than
    /// [`run_approved`](super::PreparedCall::run_approved), so no
    /// permission pipeline was consulted.
    Unapproved,
    /// The `auto` mode's safety classifier blocked it.
    Classifier,
    /// A hook of the executor (its name) denied the call, or failed
    /// before it (see [`CallHook`](crate::execute::CallHook)).
    Hook(String),
    /// The call would have completed the Rule of Two (see
    /// [`RuleOfTwo`](crate::permission::RuleOfTwo)) in `bypass` mode, where
    /// nobody can be asked.
    RuleOfTwo,
    /// A person will answer later ([`Approval::Later`](crate::permission::Approval::Later)):
    /// in a durable turn the call waits (the turn is suspended); in any
    /// other, it was not run.
    Pending,
}

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
