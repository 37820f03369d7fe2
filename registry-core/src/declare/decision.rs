//! What a tool may say about whether a call may run.
//!
//! A tool that says nothing delegates: the runtime's general permission
//! policy decides. There is no default that silently allows or denies.

/// A tool's answer to "may this call run?".
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PermissionDecision {
    /// The tool has no opinion; the general permission policy decides.
    /// This is what a tool that does not override `check_permissions` says.
    #[default]
    Delegate,
    /// The tool vouches for this call (e.g. a path inside the workspace).
    Allow,
    /// The call must not run; the reason is shown to the model.
    Deny {
        /// Why not.
        reason: String,
    },
    /// A person must confirm; the reason is shown to them.
    Ask {
        /// What to confirm.
        reason: String,
    },
}
