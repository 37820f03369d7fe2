//! Permissions: the rules a runtime holds ([`PermissionRule`]), the
//! context that groups them by source with the active pool-filtering
//! [`PoolMode`], and the [`PermissionPolicy`] that decides each call at
//! execution. What a tool itself says about a call
//! ([`PermissionDecision`](crate::declare::PermissionDecision),
//! [`PermissionContent`](crate::declare::PermissionContent)) is part of its
//! declaration, in [`declare`](crate::declare).
//!
//! One file per job: `rule` parses rule strings, `context` holds them,
//! `pattern` parses `Tool(content)` patterns, `reach` says how far a
//! pattern reaches into a call's content (covers, misses, or cannot tell),
//! `mode` is the general policy for delegated calls (the modes
//! themselves, and [`Refusal`], are defined in `input`, whose
//! [`ToolError`](crate::input::ToolError) carries a refusal), `approval` the
//! runtime-supplied judges, `grants` a conversation's allow-always
//! answers, `pipeline` the order in which all of it is consulted (the
//! [`PermissionPolicy`]), `error` a refused change to the context.
//!
//! Never does: run a tool, assemble a pool (the [`pool`](crate::pool)
//! stage reads a context to narrow one), or decide on raw text what the
//! shell or the OS will read differently (commands are read by
//! [`shell_reading`], paths resolved by [`path`](crate::path)).
//!
//! # Deciding each call: the permission pipeline
//!
//! Assembly removed whole tools; at execution a [`PermissionPolicy`]
//! decides each parsed call against the *current* [`PermissionContext`]:
//! deny rules, then ask rules, then allow rules (`Tool`, `Tool(content)`,
//! `mcp__server`), the tool's own [`check_permissions`](crate::Tool::check_permissions)
//! (its `Deny` always holds), and for what the tool delegates, the session's
//! [`PermissionMode`] (`default`, `accept_edits`, `plan`, `bypass`,
//! `dont_ask`, `auto`). An ask goes to the runtime's [`Approver`]; with none,
//! it is refused with a reason that says approval was needed. Every
//! refusal is one [`Refusal`]: who refused ([`RefusedBy`]) and the reason
//! the model reads; the executor hands it on with the call's result
//! ([`ToolCallResult::refusal`](crate::execute::ToolCallResult::refusal)). Content rules match
//! what the tool names with [`Tool::permission_content`](crate::Tool::permission_content) (a path, a
//! command); a tool that names nothing fails closed. The full order is in
//! the [`PermissionPolicy`] module docs.
//!
//! ```
//! use std::sync::Arc;
//! use registry_core::{
//!     PermissionContext, PermissionMode, ToolBuilder, ToolContext, ToolOutput,
//!     permission::{
//!         AllowedBy, Approval, ApprovalRequest, Approver, Authorization, JudgeFuture, PermissionPolicy,
//!         Refusal, RefusedBy,
//!     },
//!     session::Session,
//!     declare::Exposure,
//! };
//!
//! /// Says "always" to everything (a real one asks a person).
//! struct Yes;
//! impl Approver for Yes {
//!     fn approve<'a>(&'a self, _: &'a ApprovalRequest) -> JudgeFuture<'a, Approval> {
//!         Box::pin(async { Approval::AllowAlways })
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // Brings one Rule of Two property: never all three alone.
//! let deploy = ToolBuilder::new("deploy", "Deploy the site.")
//!     .rule_of_two([Exposure::ExternalEffect])
//!     .build(|_, _| async { Ok(ToolOutput::text("deployed")) })
//!     .unwrap();
//! let call = deploy.prepare(serde_json::json!({})).unwrap();
//! let (cx, tool_cx) = (PermissionContext::new(), ToolContext::new());
//! let session = Session::new(); // the conversation: it owns the grants
//!
//! // Not read-only: the default mode asks, and nobody can answer.
//! let alone = PermissionPolicy::new(PermissionMode::Default);
//! let answer = alone.authorize(&cx, session.grants(), &call, "call_1", &tool_cx).await;
//! assert!(matches!(answer, Authorization::Refused(Refusal { by: RefusedBy::NoApprover, .. })));
//!
//! // With an approver, "always" grants the tool for the rest of the session.
//! let asked = PermissionPolicy::new(PermissionMode::Default).with_approver(Arc::new(Yes));
//! let first = asked.authorize(&cx, session.grants(), &call, "call_2", &tool_cx).await;
//! assert_eq!(first, Authorization::Allowed { by: AllowedBy::Approver });
//! let again = asked.authorize(&cx, session.grants(), &call, "call_3", &tool_cx).await;
//! assert_eq!(again, Authorization::Allowed { by: AllowedBy::SessionRule("deploy".into()) });
//!
//! // Plan mode refuses it outright, telling the model why.
//! let plan = PermissionPolicy::new(PermissionMode::Plan);
//! let answer = plan.authorize(&cx, session.grants(), &call, "call_4", &tool_cx).await;
//! let refusal = answer.refusal().unwrap();
//! assert_eq!(refusal.by, RefusedBy::Mode(PermissionMode::Plan));
//! assert!(refusal.reason.starts_with("plan mode only runs read-only calls"));
//! # }
//! ```
//!
//! # One reading of every command and path
//!
//! A command is read once, by [`shell_reading`] as both dash and bash
//! read it, into every program the line will start; a deny or ask rule
//! covers the line when it covers any of them, an allow rule only when it
//! names every one as written (`./npm test` is not `npm test`). What the
//! reader cannot read (a variable as a program, `eval`, text the two
//! shells read differently, more than 64 KiB, ...) is uncheckable: an ask
//! in the modes that ask, a denial in `bypass` and `dont_ask`, never
//! allowed. A path is compared as written (lexically normalised) and as
//! the file the operating system will open ([`path::resolve`](crate::path::resolve)),
//! from the call's working directory. The cost of a decision grows with the
//! command only up to what the reader reads.
//!
//! # A prediction, and where it is enforced
//!
//! A reading of a command predicts what it will run; it cannot be
//! complete (bash evaluates code in array subscripts, variables and
//! start-up files; `make`, `python3 x.py` or a git hook run code no reading
//! sees). So the pipeline's decision is the answer *before* the call runs,
//! and the executor hands the same rules to the call
//! ([`CallRules`], read back with [`CallRules::of`])
//! so that a tool that starts processes enforces them where the kernel
//! decides: every program any of its processes starts is judged with its
//! real program file and arguments (`ProgramRules::judge`), and a path
//! rule on a file tool reaches every process through the filesystem
//! ([`CallRules::path_guards`]). The `registry-sandbox` crate does that on
//! Linux; `examples/tests/it/enforcement_oracle.rs` runs its attack corpus.
//!
//! What the reading alone still decides, with a test each
//! (`examples/tests/it/deny_oracle.rs`, `shell_oracle.rs`,
//! `git_hardening.rs`, `path_reading.rs`):
//!
//! - A command it cannot read is uncheckable: inline code fed to an
//!   evaluator (`python3 -c`, `perl -e`, an awk program with `system`), a
//!   file the command runs by a path, a line that writes git's hooks or
//!   configuration, programs that run a command given in their own
//!   options (`shell_reading::classify::runs_commands_from_args`).
//! - A hard link is a second name no path can reveal: a deny or ask path
//!   rule treats a file with more than one name as uncheckable, and the
//!   path guards refuse to run a command when a guarded file has one.
//! - A link swapped in between the check and the use (a race with another
//!   process) is not seen by the reading; the guards hold regardless.
//! - A path through `/proc` is refused, not resolved.

mod approval;
#[cfg(test)]
mod content_tests;
mod context;
pub(crate) mod enforce;
mod error;
pub(crate) mod exposure;
mod grants;
mod mode;
pub(crate) mod pattern;
pub(crate) mod pipeline;
mod reach;
mod rule;
pub(crate) mod rule_of_two;
#[cfg(test)]
mod rule_tests;
mod self_test;

pub use approval::{
    Approval, ApprovalRequest, Approver, ClassifierRequest, JudgeFuture, SafetyClassifier,
    SafetyVerdict, approve_with,
};
pub use context::{PermissionContext, PoolMode, PoolModeFilter, RuleBehavior, RuleSource};
// The enforcement interface registry-sandbox implements: reachable through
// `__private::enforce`, not part of the documented API.
pub use enforce::CallRules;
pub use error::ContextError;
pub use exposure::ExposedBy;
pub use grants::{GrantRecord, Grants};

// Defined in `input`, the earliest stage that needs them (a `ToolError`
// carries a `Refusal`).
pub use crate::input::refusal::{PermissionMode, Refusal, RefusedBy, UnknownPermissionMode};
pub use pipeline::{AllowedBy, Authorization, PermissionPolicy};
pub use rule::{PermissionRule, RuleError};
pub use rule_of_two::RuleOfTwo;
