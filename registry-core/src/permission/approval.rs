//! The two judges a runtime plugs into the pipeline: the [`Approver`] (a
//! person, or a UI standing in for one) and the [`SafetyClassifier`] of
//! the `auto` permission mode. Both are async trait objects, may be slow
//! and may be called concurrently; the pipeline catches their panics.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::declare::PermissionContent;

/// A boxed future as the judges return it: `Send`, so the pipeline's
/// `authorize` stays `Send` and runs on any executor.
pub type JudgeFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a person (or a UI) answered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Approval {
    /// Run this call.
    AllowOnce,
    /// Run this call, and later calls of this tool with the same content
    /// (the whole tool when the call has no content) for the rest of the
    /// session, without asking.
    AllowAlways,
    /// Do not run it; the reason, if any, is shown to the model.
    Deny {
        /// Why not.
        reason: Option<String>,
    },
    /// No answer now: a person will answer later. A durable turn
    /// ([`Executor::run_turn_durable`](crate::execute::Executor::run_turn_durable))
    /// is suspended with this call pending; any other turn refuses the
    /// call ([`RefusedBy::Pending`](crate::permission::RefusedBy::Pending)).
    Later,
}

/// The question an approver gets.
///
/// The arguments and the content are the call's own, shared rather than
/// copied (a model's arguments can run to megabytes), so a request is
/// cheap to make and to clone.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// The model's id for the call.
    pub call_id: String,
    /// The tool's primary name (also when the model used an alias).
    pub tool: String,
    /// The arguments as sent (after null handling).
    pub input: Arc<serde_json::Value>,
    /// The tool's permission content (command, path) with its kind, if
    /// any; its text is [`PermissionContent::as_str`].
    pub content: Option<PermissionContent>,
    /// Why approval is needed, e.g. "`write_file` can change files or state".
    pub reason: String,
}

/// Supplied by the runtime. Must not be assumed to be fast; may be called
/// concurrently.
///
/// A panic while asking counts as a denial: no approval was given.
///
/// ```
/// use registry_core::permission::{Approval, ApprovalRequest, Approver, JudgeFuture};
///
/// /// Approves listings, refuses the rest.
/// struct ListingsOnly;
///
/// impl Approver for ListingsOnly {
///     fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> JudgeFuture<'a, Approval> {
///         Box::pin(async move {
///             if request.content.as_ref().is_some_and(|c| c.as_str().starts_with("ls ")) {
///                 Approval::AllowOnce
///             } else {
///                 Approval::Deny { reason: Some("only listings today".into()) }
///             }
///         })
///     }
/// }
/// ```
pub trait Approver: Send + Sync + 'static {
    /// Asks whether this call may run.
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> JudgeFuture<'a, Approval>;
}

/// An [`Approver`] made from an async closure, which gets its own copy of
/// each request (asks are rare; a copy keeps the closure free of borrows):
///
/// ```
/// use registry_core::permission::{Approval, approve_with};
///
/// let approver = approve_with(|request| async move {
///     if request.tool == "run_command" {
///         Approval::Deny { reason: Some("no commands today".into()) }
///     } else {
///         Approval::AllowOnce
///     }
/// });
/// # let _: std::sync::Arc<dyn registry_core::permission::Approver> = approver;
/// ```
///
/// [`ExecutorBuilder::approve_with`](crate::execute::ExecutorBuilder::approve_with)
/// takes the closure directly.
pub fn approve_with<F, Fut>(judge: F) -> Arc<dyn Approver>
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Approval> + Send + 'static,
{
    Arc::new(ApproveWith(judge))
}

/// See [`approve_with`].
struct ApproveWith<F>(F);

impl<F, Fut> Approver for ApproveWith<F>
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Approval> + Send + 'static,
{
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> JudgeFuture<'a, Approval> {
        Box::pin((self.0)(request.clone()))
    }
}

/// What the safety classifier of the `auto` mode reviews: the call's
/// `classifier_input` text, never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassifierRequest {
    /// The model's id for the call.
    pub call_id: String,
    /// The tool's primary name.
    pub tool: String,
    /// The text the tool declared for review (`classifier_input`).
    pub text: String,
}

/// The safety classifier's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SafetyVerdict {
    /// Safe to run.
    Allow,
    /// Unsure: a person should decide (goes to the approver).
    Ask {
        /// What the person should look at.
        reason: String,
    },
    /// Unsafe: the call is denied and the model reads the reason.
    Block {
        /// Why.
        reason: String,
    },
}

/// Supplied by the runtime for the `auto` permission mode: reviews each
/// delegated call's `classifier_input` text. An error or a panic means
/// ask a person (fail closed).
pub trait SafetyClassifier: Send + Sync + 'static {
    /// Reviews one call.
    fn classify<'a>(
        &'a self,
        request: &'a ClassifierRequest,
    ) -> JudgeFuture<'a, Result<SafetyVerdict, crate::declare::BoxError>>;
}
