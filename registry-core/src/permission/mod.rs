//! Permissions: what a tool may say about one call ([`PermissionDecision`]),
//! the rules a runtime holds ([`PermissionRule`]), and the context that
//! groups them by source with the active [`Mode`].

mod context;
mod decision;
mod pipeline;
mod rule;

pub use context::{Mode, ModeFilter, PermissionContext, RuleBehavior, RuleSet, RuleSource};
pub use decision::PermissionDecision;
pub use pipeline::{
    AllowedBy, Approval, ApprovalRequest, Approver, Authorization, DeniedBy, PermissionMode,
    PermissionPipeline,
};
pub use rule::{PermissionRule, RuleError, RuleTarget};
