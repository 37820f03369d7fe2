//! SHIM of the execution-time permission pipeline, replaced at merge by the
//! real one (issue 8, item 6). Same public API; deliberately tiny logic:
//! whole-tool deny rules of the current context, then the tool's own
//! `check_permissions`, then `Delegate` allows read-only calls and asks for
//! the rest; an ask goes to the approver, and without one it is a deny.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::PermissionDecision;

/// How `Delegate` decisions are settled: the general policy of a session.
/// Not the pool-filtering `Mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum PermissionMode {
    /// Read-only calls run; the rest ask.
    #[default]
    Default,
    /// Non-destructive writes in the workspace run too.
    AcceptEdits,
    /// Read-only calls only.
    Plan,
    /// Everything but deny rules.
    Bypass,
    /// Every ask becomes a deny.
    DontAsk,
    /// A safety classifier decides.
    Auto,
}

/// What a person (or a UI) answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run this call.
    AllowOnce,
    /// Run this call and add a session allow rule.
    AllowAlways,
    /// Do not run it.
    Deny {
        /// Shown to the model.
        reason: Option<String>,
    },
}

/// The question an approver gets.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// The call's id.
    pub call_id: String,
    /// The tool's primary name.
    pub tool: String,
    /// The arguments as sent (after null handling).
    pub input: serde_json::Value,
    /// The tool's permission content (command, path), if any.
    pub content: Option<String>,
    /// Why approval is needed.
    pub reason: String,
}

/// Supplied by the runtime. Must not be assumed to be fast; may be called
/// concurrently.
pub trait Approver: Send + Sync + 'static {
    /// Answers one request.
    fn approve<'a>(
        &'a self,
        request: &'a ApprovalRequest,
    ) -> Pin<Box<dyn Future<Output = Approval> + Send + 'a>>;
}

/// The outcome for one call. `Denied.reason` is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Authorization {
    /// The call may run.
    Allowed {
        /// What allowed it.
        by: AllowedBy,
    },
    /// The call must not run.
    Denied {
        /// What denied it.
        by: DeniedBy,
        /// Shown to the model.
        reason: String,
    },
}

/// What allowed a call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AllowedBy {
    /// An allow rule.
    AllowRule(String),
    /// The tool's own check.
    Tool,
    /// The permission mode.
    Mode(PermissionMode),
    /// The approver.
    Approver,
    /// A session allow rule.
    SessionRule(String),
    /// The safety classifier.
    Classifier,
}

/// What denied a call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeniedBy {
    /// A deny rule.
    DenyRule(String),
    /// The tool's own check.
    Tool,
    /// The permission mode.
    Mode(PermissionMode),
    /// The approver.
    Approver,
    /// An ask with no approver.
    NoApprover,
    /// The safety classifier.
    Classifier,
}

/// One session's permission policy. Cheap to share.
#[derive(Clone)]
pub struct PermissionPipeline {
    mode: PermissionMode,
    approver: Option<Arc<dyn Approver>>,
}

impl PermissionPipeline {
    /// A pipeline with no approver.
    pub fn new(mode: PermissionMode) -> Self {
        PermissionPipeline {
            mode,
            approver: None,
        }
    }

    /// Sets the approver asks go to.
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// The permission mode.
    pub fn mode(&self) -> PermissionMode {
        self.mode
    }

    /// Decides one call.
    pub async fn authorize(
        &self,
        cx: &crate::PermissionContext,
        call: &crate::PreparedCall,
        call_id: &str,
        tool_cx: &crate::ToolContext,
    ) -> Authorization {
        let spec = call.tool().spec();
        if let Some((_, rule)) = cx.whole_tool_deny(spec.name(), spec.aliases()) {
            return Authorization::Denied {
                by: DeniedBy::DenyRule(rule.to_string()),
                reason: format!("`{}` is denied by the rule `{rule}`", spec.name()),
            };
        }
        let reason = match call.check_permissions(tool_cx) {
            PermissionDecision::Allow => {
                return Authorization::Allowed {
                    by: AllowedBy::Tool,
                };
            }
            PermissionDecision::Deny { reason } => {
                return Authorization::Denied {
                    by: DeniedBy::Tool,
                    reason,
                };
            }
            PermissionDecision::Ask { reason } => reason,
            _ if call.is_read_only() => {
                return Authorization::Allowed {
                    by: AllowedBy::Mode(self.mode),
                };
            }
            _ => format!("`{}` may change things", spec.name()),
        };
        let Some(approver) = &self.approver else {
            return Authorization::Denied {
                by: DeniedBy::NoApprover,
                reason: format!("{reason}; approval is needed and nobody can give it"),
            };
        };
        let request = ApprovalRequest {
            call_id: call_id.to_owned(),
            tool: spec.name().to_owned(),
            input: call.args().clone(),
            content: None,
            reason,
        };
        match approver.approve(&request).await {
            Approval::AllowOnce | Approval::AllowAlways => Authorization::Allowed {
                by: AllowedBy::Approver,
            },
            Approval::Deny { reason } => Authorization::Denied {
                by: DeniedBy::Approver,
                reason: reason.unwrap_or_else(|| "the user said no".to_owned()),
            },
        }
    }
}
