//! Permissions: what a tool may say about one call ([`PermissionDecision`]),
//! the rules a runtime holds ([`PermissionRule`]), the context that groups
//! them by source with the active pool-filtering [`Mode`], and the
//! [`PermissionPipeline`] that decides each call at execution.
//!
//! One file per job: `rule` parses rule strings, `context` holds them,
//! `content` holds a call's content (a command read once, a path),
//! `pattern` parses `Tool(content)` patterns, `reach` says how far a
//! pattern reaches into a call's content (covers, misses, or cannot tell),
//! `mode` is the general policy for delegated calls, `approval` the
//! runtime-supplied judges, `pipeline` the order in which all of it is
//! consulted. Nothing here runs a tool.

mod approval;
mod content;
mod context;
mod decision;
mod mode;
mod pattern;
pub(crate) mod pipeline;
mod reach;
mod rule;

pub use approval::{
    Approval, ApprovalRequest, Approver, ClassifierError, ClassifierRequest, JudgeFuture,
    SafetyClassifier, SafetyVerdict,
};
pub use content::{ContentKind, PermissionContent, normalize_path};
pub use context::{Mode, ModeFilter, PermissionContext, RuleBehavior, RuleSet, RuleSource};
pub use decision::PermissionDecision;
pub use mode::{PermissionMode, UnknownPermissionMode};
pub use pattern::ContentPattern;
pub use pipeline::{AllowedBy, Authorization, DeniedBy, PermissionPipeline};
pub use rule::{PermissionRule, RuleError, RuleTarget};
