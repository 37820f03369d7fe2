//! A refused change to a permission context.

use crate::text::capped;

/// A change to a [`PermissionContext`](crate::permission::PermissionContext) that was
/// refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContextError {
    /// The rule string is malformed.
    #[error(transparent)]
    Rule(#[from] crate::permission::RuleError),
    /// Policy rules are set by an administrator, not through the context.
    #[error("policy rules are read-only; `{}` was not added", capped(.rule))]
    PolicyIsReadOnly {
        /// The rule that was refused.
        rule: String,
    },
}
