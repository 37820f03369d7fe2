//! The permission pipeline at execution: the second permission layer (the
//! first removed whole tools when the pool was assembled). It decides, for
//! one parsed call, whether it runs, and when not, gives the reason the
//! model reads.
//!
//! # The steps, in order
//!
//! Each step can end the call; the first that does wins.
//!
//! | # | step | ends the call with |
//! |---|---|---|
//! | 1 | whole-tool deny rules of the **current** [`PermissionContext`] (`Tool`, an alias, `mcp__server`, `mcp__server__*`), so a pool assembled before a rule changed still refuses | `Refused` by `DenyRule` |
//! | 2 | deny content rules `Tool(pattern)` matched against the call's [permission content](crate::declare::Tool::permission_content): a command's every program as the shell will run it, a path as written and as the OS will open it (see [`ContentKind`](super::ContentKind)) | `Refused` by `DenyRule` |
//! | 3 | the tool's own `check_permissions` when it says `Deny` (a deny always holds: no allow rule, mode or approval loosens it) | `Refused` by `Tool` |
//! | 4 | `plan` mode: a call that is not read-only | `Refused` by `Mode(Plan)` |
//! | 5 | a deny content rule for the tool that **cannot be checked** against the call (no content, a command the reader cannot vouch for, a path that cannot be resolved or has several names): ask (in `bypass` mode: deny, for a deny rule holds in every mode; in `dont_ask` the ask is a deny) | ask / `Refused` by `DenyRule` |
//! | 5b | the [Rule of Two](super::RuleOfTwo): the call brings a property and, with what the conversation's earlier calls brought, would complete all three (untrusted input, private data, an external effect) | ask, naming the calls that brought each (in `bypass` mode: `Refused` by `RuleOfTwo`, unless the runtime allowed the tool unattended) |
//! | 6 | ask rules (whole-tool, or content matched; a content ask rule that cannot be checked asks too) | ask |
//! | 7 | allow rules (whole-tool, or content rules that together cover the call: each program of a command line covered by some allow rule, a path as the OS will open it) | `Allowed { by: AllowRule }` |
//! | 8 | this session's allow-always grants | `Allowed { by: SessionRule }` |
//! | 9 | the tool's `check_permissions`: `Allow`, `Ask` | `Allowed { by: Tool }` / ask |
//! | 10 | `Delegate` in `auto` mode with a classifier: the [`SafetyClassifier`] reviews the call's `classifier_input` (empty: skipped; its hook panicked: ask; classifier error or panic: ask) | `Allowed`/`Refused` by `Classifier` / ask |
//! | 11 | `Delegate`: the [`PermissionMode`]'s general policy (see its table) | `Allowed`/`Refused` by `Mode(_)` / ask |
//!
//! An allowed call's properties are then recorded in its conversation,
//! checked again under the session's lock (a call of the same turn may
//! have brought one meanwhile: completing the three then asks as 5b does).
//!
//! An ask is settled by the mode first (`bypass`: runs; `dont_ask`:
//! denied), then by the [`Approver`]: `AllowOnce` runs the call,
//! `AllowAlways` also grants the rest of the session (step 8), `Deny`
//! refuses it. With no approver an ask is refused ([`RefusedBy::NoApprover`])
//! with a reason that says approval was needed. An approver that panics
//! refuses.
//!
//! Deny before ask before allow, as in the settings every agent CLI uses:
//! an allow rule never reaches past a deny rule or an ask rule, and a
//! person's "always" never outranks an ask rule either (an ask rule means
//! "ask every time"). Allow rules do settle what the tool itself would ask
//! about (`check_permissions` returning `Ask`): the person who wrote the
//! rule answered in advance.
//!
//! # Allow-always grants
//!
//! `AllowAlways` grants the tool **with this call's content** (a later
//! `run_command` of the same command line, a later write to the same
//! path); a call without content grants later calls without content
//! (for a tool with no content hook, every call), never one that names
//! content: approving one `rm build.log` must not approve every `rm`, and
//! approving an empty command must not approve the next one. Grants belong
//! to the conversation: the [`Session`](crate::session::Session) owns its
//! [`Grants`], and the policy only reads and adds to them; never to the
//! [`PermissionContext`] (which belongs to the runtime).
//! [`Grants::rules`] lists them as rules a runtime may persist.
//!
//! # Never panics
//!
//! Every hook a tool author or runtime supplies (posture expressions, the
//! permission content, `check_permissions`, the classifier text, the
//! approver, the classifier) is called behind `catch_unwind`; a panic
//! answers the strict way, which here means: ask (and for the approver:
//! deny).

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::approval::{ClassifierRequest, SafetyClassifier, SafetyVerdict};
use super::context::{PermissionContext, RuleBehavior, RuleSource};
use super::exposure::{Acquired, CallExposure};
use super::grants::Grants;
use super::mode::{CallFacts, Settled, plan_mode_reason};
use super::pattern::ContentPattern;
use super::reach::{CallContent, Reach};
use super::rule::PermissionRule;
use super::rule_of_two::{self, RuleOfTwo};
use crate::declare::PermissionContent;
use crate::declare::context::ToolContext;
use crate::declare::decision::PermissionDecision;
use crate::input::handle::{CatchUnwind, PreparedCall};
use crate::input::refusal::{PermissionMode, Refusal, RefusedBy};
use crate::path::normalize_path;
use crate::text::{cap_error_text, capped_message};

pub use super::approval::{Approval, ApprovalRequest, Approver};

/// The outcome for one call: allowed, or refused by someone for a reason
/// the model reads ([`Refusal`]).
///
/// An allowed call is run with
/// [`PreparedCall::run_approved`](crate::input::PreparedCall::run_approved): the
/// pipeline has settled any `Ask` of the tool's own check (through an allow
/// rule, a grant, the approver or `bypass` mode), and `run_approved` still
/// refuses a `Deny`, so nothing the pipeline decided is loosened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Authorization {
    /// The call may run.
    Allowed {
        /// What allowed it.
        by: AllowedBy,
    },
    /// The call must not run: who refused it, and why.
    Refused(Refusal),
}

impl Authorization {
    /// Whether the call may run.
    pub fn is_allowed(&self) -> bool {
        matches!(self, Authorization::Allowed { .. })
    }

    /// Who refused the call and why, when it was refused.
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            Authorization::Allowed { .. } => None,
            Authorization::Refused(refusal) => Some(refusal),
        }
    }
}

/// What the executor's before hooks settled for a call (see
/// [`CallHook`](crate::execute::CallHook)): the pipeline weighs it as a
/// rule's word, after every deny.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Allowed by this hook, as an allow rule would.
    Allow(String),
    /// A person must approve, for this reason.
    Ask(String),
}

/// What allowed a call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AllowedBy {
    /// An allow rule of the context (its text).
    AllowRule(String),
    /// The tool's own `check_permissions` said `Allow`.
    Tool,
    /// The permission mode's general policy.
    Mode(PermissionMode),
    /// The approver.
    Approver,
    /// An allow-always grant of this session (as rule text).
    SessionRule(String),
    /// The `auto` mode's safety classifier.
    Classifier,
    /// A hook of the executor (its name), as an allow rule would.
    Hook(String),
}

/// The permission policy: mode, approver, classifier, workspace and grant
/// lifetime. An immutable value, cheap to clone (`Arc` inside) and shared
/// by every conversation it serves: what lasts across a conversation's
/// turns (its allow-always [`Grants`]) is the session's, passed to
/// [`authorize`](Self::authorize).
///
/// ```standalone_crate
/// # #[derive(serde::Deserialize, schemars::JsonSchema)] struct Args { path: String }
/// use registry_core::{
///     PermissionContent, PermissionContext, PermissionMode, Tool, ToolContext, ToolHandle,
///     permission::{
///         AllowedBy, Authorization, PermissionPolicy, Refusal, RefusedBy, RuleBehavior, RuleSource,
///     },
///     session::Session,
///     tool,
/// };
///
/// /// Overwrite a file.
/// #[tool(name = "write_file", destructive = false, rule_of_two = ["external_effect"])]
/// struct WriteFile;
///
/// impl Tool for WriteFile {
///     type Input = Args;
///     type Output = String;
///     type Error = std::convert::Infallible;
///     async fn call(&self, _: Args, _: &ToolContext) -> Result<String, Self::Error> {
///         Ok("written".into())
///     }
///     fn permission_content(&self, input: &Args) -> Option<PermissionContent> {
///         Some(PermissionContent::path(&input.path))
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let write = ToolHandle::new(WriteFile);
/// let mut cx = PermissionContext::new();
/// cx.add_rule(RuleSource::Project, RuleBehavior::Deny, "write_file(.env)").unwrap();
/// let call = |path: &str| write.prepare(serde_json::json!({ "path": path })).unwrap();
/// let tool_cx = ToolContext::new();
/// let session = Session::new(); // the conversation: it owns the grants
///
/// // No approver: what would be asked is refused, saying why.
/// let default = PermissionPolicy::new(PermissionMode::Default);
/// let answer = default.authorize(&cx, session.grants(), &call("src/lib.rs"), "1", &tool_cx).await;
/// assert!(matches!(answer.refusal(), Some(Refusal { by: RefusedBy::NoApprover, .. })));
///
/// // accept_edits runs writes inside the workspace...
/// let edits = PermissionPolicy::new(PermissionMode::AcceptEdits).with_workspace("/work");
/// let answer = edits.authorize(&cx, session.grants(), &call("src/lib.rs"), "2", &tool_cx).await;
/// assert_eq!(answer, Authorization::Allowed { by: AllowedBy::Mode(PermissionMode::AcceptEdits) });
///
/// // ...but a deny rule holds in every mode, however the path is spelt.
/// let bypass = PermissionPolicy::new(PermissionMode::Bypass);
/// let answer = bypass.authorize(&cx, session.grants(), &call("src/../.env"), "3", &tool_cx).await;
/// assert_eq!(answer, Authorization::Refused(Refusal::new(
///     RefusedBy::DenyRule("write_file(.env)".into()),
///     "this call of `write_file` (`.env`) is denied by the project deny rule `write_file(.env)`",
/// )));
/// # }
/// ```
#[derive(Clone)]
pub struct PermissionPolicy {
    config: Arc<Config>,
}

#[derive(Clone)]
struct Config {
    mode: PermissionMode,
    approver: Option<Arc<dyn Approver>>,
    classifier: Option<Arc<dyn SafetyClassifier>>,
    /// Normalised lexically; resolved (links followed) when a call is
    /// judged.
    workspace: Option<PathBuf>,
    /// How long an allow-always grant lasts; `None`: the session.
    grant_lifetime: Option<Duration>,
    rule_of_two: RuleOfTwo,
}

impl fmt::Debug for PermissionPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PermissionPolicy")
            .field("mode", &self.config.mode)
            .field("approver", &self.config.approver.is_some())
            .field("classifier", &self.config.classifier.is_some())
            .field("workspace", &self.config.workspace)
            .field("grant_lifetime", &self.config.grant_lifetime)
            .field("rule_of_two", &self.config.rule_of_two)
            .finish()
    }
}

/// An allowed call on its way to being recorded.
struct Admitted {
    outcome: Authorization,
    /// Whether a person approved it knowing it completes the three.
    person_said_so: bool,
}

/// What the synchronous steps left to do.
enum Next {
    Done(Authorization),
    /// Ask, for this reason.
    Ask(String),
    /// Ask, because the call would complete the Rule of Two: an approval
    /// is a person saying so.
    AskCompleting(String),
    /// Let the classifier review this text.
    Classify(Arc<dyn SafetyClassifier>, String),
    /// Let the classifier review this text; what it would allow still
    /// asks, for this reason (the call would complete the Rule of Two).
    ClassifyCompleting(Arc<dyn SafetyClassifier>, String, String),
}

fn allowed(by: AllowedBy) -> Next {
    Next::Done(Authorization::Allowed { by })
}

fn refused(by: RefusedBy, reason: String) -> Next {
    Next::Done(Authorization::Refused(Refusal::new(by, reason)))
}

/// How the reason of a pending call ends: a durable turn's record keeps
/// what comes before it, the question the person must answer.
pub(crate) const PENDING: &str = "; a person will answer later, so this call has not run";

/// What a step decided, for a call that would complete the Rule of Two
/// (`completing`: why): a refusal stands; an ask carries both reasons;
/// an allowance asks instead; a classifier may refuse but not allow.
fn with_rule_of_two(completing: Option<String>, next: Next) -> Next {
    let Some(why) = completing else {
        return next;
    };
    match next {
        refused @ Next::Done(Authorization::Refused(_)) => refused,
        Next::Ask(reason) | Next::AskCompleting(reason) => {
            Next::AskCompleting(format!("{reason}; {why}"))
        }
        Next::Done(Authorization::Allowed { .. }) => Next::AskCompleting(why),
        Next::Classify(classifier, text) => Next::ClassifyCompleting(classifier, text, why),
        completing @ Next::ClassifyCompleting(..) => completing,
    }
}

/// A call completing the three in `bypass` mode, where nobody is asked.
fn bypass_refusal(reason: String) -> Authorization {
    Authorization::Refused(Refusal::new(
        RefusedBy::RuleOfTwo,
        format!("{reason}; bypass mode asks nobody, so it was not run"),
    ))
}

/// A rule as quoted in a reason: capped, since content may be long.
fn quoted(rule: &PermissionRule) -> String {
    cap_error_text(&rule.to_string()).into_owned()
}

impl PermissionPolicy {
    /// A policy with this mode, no approver (so an ask is a deny), no
    /// classifier, no workspace, and grants that last the session.
    pub fn new(mode: PermissionMode) -> Self {
        PermissionPolicy {
            config: Arc::new(Config {
                mode,
                approver: None,
                classifier: None,
                workspace: None,
                grant_lifetime: None,
                rule_of_two: RuleOfTwo::new(),
            }),
        }
    }

    /// Replaces the permission mode, keeping everything else (approver,
    /// classifier, workspace, grant lifetime).
    pub fn with_mode(mut self, mode: PermissionMode) -> Self {
        Arc::make_mut(&mut self.config).mode = mode;
        self
    }

    /// Makes every allow-always grant lapse `lifetime` after it was given
    /// (by default a grant lasts as long as the session). A lapsed grant
    /// answers nothing, here and once restored elsewhere.
    pub fn with_grant_lifetime(mut self, lifetime: Duration) -> Self {
        Arc::make_mut(&mut self.config).grant_lifetime = Some(lifetime);
        self
    }

    /// Sets how the Rule of Two is applied (always on; see
    /// [`RuleOfTwo`] for the tools a runtime lets through in `bypass`).
    pub fn with_rule_of_two(mut self, rule: RuleOfTwo) -> Self {
        Arc::make_mut(&mut self.config).rule_of_two = rule;
        self
    }

    /// Sets who answers asks.
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        Arc::make_mut(&mut self.config).approver = Some(approver);
        self
    }

    /// Sets the `auto` mode's safety classifier (ignored in other modes).
    pub fn with_classifier(mut self, classifier: Arc<dyn SafetyClassifier>) -> Self {
        Arc::make_mut(&mut self.config).classifier = Some(classifier);
        self
    }

    /// Sets the workspace root `accept_edits` accepts edits inside, and
    /// which relative path rules (`write_file(.env)`) are written against.
    ///
    /// A call's relative path is resolved against the call's
    /// [working directory](ToolContext::with_working_dir), the directory
    /// the tool itself resolves it against, or, when the runtime set none,
    /// against this root; then links are followed and `..` applied as the
    /// OS does ([`path::resolve`](crate::path::resolve)), and the
    /// resolved path is what is compared with the (equally resolved)
    /// workspace.
    pub fn with_workspace(mut self, root: impl AsRef<Path>) -> Self {
        let root = normalize_path(&root.as_ref().to_string_lossy());
        Arc::make_mut(&mut self.config).workspace = Some(PathBuf::from(root));
        self
    }

    /// Who answers asks, when anyone does.
    pub(crate) fn approver(&self) -> Option<&Arc<dyn Approver>> {
        self.config.approver.as_ref()
    }

    /// The permission mode.
    pub fn mode(&self) -> PermissionMode {
        self.config.mode
    }

    /// Decides one call. Never panics (every hook it calls is caught: a
    /// panicking hook means Ask). `cx` is the CURRENT permission context
    /// (rules may have changed since the pool was assembled).
    ///
    /// The future is `Send`; calls may be authorized concurrently.
    pub async fn authorize(
        &self,
        cx: &PermissionContext,
        grants: &Grants,
        call: &PreparedCall,
        call_id: &str,
        tool_cx: &ToolContext,
    ) -> Authorization {
        self.authorize_hooked(cx, grants, call, call_id, tool_cx, None)
            .await
    }

    /// [`authorize`](Self::authorize) with what the executor's before
    /// hooks said: their `Ask` asks after the deny rules, the tool's deny
    /// and plan mode; their `Allow` allows where an allow rule would.
    pub(crate) async fn authorize_hooked(
        &self,
        cx: &PermissionContext,
        grants: &Grants,
        call: &PreparedCall,
        call_id: &str,
        tool_cx: &ToolContext,
        hooked: Option<&Verdict>,
    ) -> Authorization {
        // An empty content names nothing a rule could be about.
        let content = call.content().filter(|c| !c.as_str().is_empty());
        // The asking and classifying futures are boxed: they are rare (a
        // person or a model is consulted, which dwarfs an allocation), and
        // held inline they would triple the size of every call's future.
        let mut person_said_so = false;
        let outcome = match self.decide(cx, grants, call, content.as_ref(), tool_cx, hooked) {
            Next::Done(outcome) => outcome,
            Next::Ask(reason) => {
                Box::pin(self.ask(grants, call, call_id, content.as_ref(), reason)).await
            }
            Next::AskCompleting(reason) => {
                person_said_so = true;
                Box::pin(self.ask(grants, call, call_id, content.as_ref(), reason)).await
            }
            Next::Classify(classifier, text) => {
                match Box::pin(classify(classifier.as_ref(), call, call_id, text)).await {
                    Ok(outcome) => outcome,
                    Err(reason) => {
                        Box::pin(self.ask(grants, call, call_id, content.as_ref(), reason)).await
                    }
                }
            }
            Next::ClassifyCompleting(classifier, text, why) => {
                person_said_so = true;
                let reason =
                    match Box::pin(classify(classifier.as_ref(), call, call_id, text)).await {
                        Ok(refused @ Authorization::Refused(_)) => return refused,
                        Ok(Authorization::Allowed { .. }) => why,
                        Err(reason) => format!("{reason}; {why}"),
                    };
                Box::pin(self.ask(grants, call, call_id, content.as_ref(), reason)).await
            }
        };
        let outcome = if outcome.is_allowed() {
            let admitted = Admitted {
                outcome,
                person_said_so,
            };
            self.admit(grants, call, call_id, content.as_ref(), tool_cx, admitted)
                .await
        } else {
            outcome
        };
        tracing::debug!(
            tool = call.tool().name(),
            call_id,
            mode = %self.config.mode,
            ?outcome,
            "permission decided"
        );
        outcome
    }

    /// Records what an allowed call brings to its conversation, checking
    /// again under the session's lock: a call of the same turn may have
    /// brought a property since this one was weighed. Completing the three
    /// then asks (in `bypass`: refuses) as step 5b would have.
    async fn admit(
        &self,
        grants: &Grants,
        call: &PreparedCall,
        call_id: &str,
        content: Option<&PermissionContent>,
        tool_cx: &ToolContext,
        admitted: Admitted,
    ) -> Authorization {
        let Admitted {
            outcome,
            person_said_so,
        } = admitted;
        let Some(CallExposure(acquired)) = tool_cx.get::<CallExposure>() else {
            return outcome;
        };
        let brings = call.exposures();
        let name = call.tool().name();
        let unattended = self.unattended(call);
        let unless_completing = !person_said_so && !unattended;
        match acquired.admit(brings, name, call_id, unless_completing) {
            Ok(()) => outcome,
            Err(would) => {
                let reason = rule_of_two::explain(name, brings, &would.earlier);
                if self.config.mode == PermissionMode::Bypass {
                    return bypass_refusal(reason);
                }
                let answer = Box::pin(self.ask(grants, call, call_id, content, reason)).await;
                if answer.is_allowed() {
                    // Approved by a person: recorded whatever it completes.
                    let _ = acquired.admit(brings, name, call_id, false);
                }
                answer
            }
        }
    }

    /// Whether the runtime let `call`'s tool complete the three in
    /// `bypass` mode.
    fn unattended(&self, call: &PreparedCall) -> bool {
        self.config.mode == PermissionMode::Bypass
            && self
                .config
                .rule_of_two
                .allows_unattended(call.tool().name(), call.tool().spec().aliases())
    }

    /// The synchronous steps 1 to 11 (see the module docs), in order:
    /// each either ends the call or hands on to the next.
    fn decide(
        &self,
        cx: &PermissionContext,
        grants: &Grants,
        call: &PreparedCall,
        content: Option<&PermissionContent>,
        tool_cx: &ToolContext,
        hooked: Option<&Verdict>,
    ) -> Next {
        let name = call.tool().name();
        let aliases = call.tool().spec().aliases();
        let mode = self.config.mode;
        let call_content = content.map(|content| {
            CallContent::new(
                content,
                tool_cx.working_dir(),
                self.config.workspace.as_deref(),
            )
        });
        let judged = Judged {
            cx,
            name,
            aliases,
            content: call_content.as_ref(),
            // Most contexts of a plain session hold no rule at all: then
            // steps 1, 2 and 5 to 7 have nothing to read.
            ruled: cx.has_rules(),
        };

        // 1. and 2. Deny rules, from the context as it is now.
        let unchecked_deny = match judged.deny_rules() {
            Ok(unchecked) => unchecked,
            Err(denied) => return denied,
        };

        // 3. The tool's own deny always holds.
        let decision = call.check_permissions(tool_cx);
        if let PermissionDecision::Deny { reason } = &decision {
            return refused(RefusedBy::Tool, capped_message(reason).to_string());
        }

        // 4. Plan mode runs nothing that is not read-only.
        let edit_inside = || match &call_content {
            Some(call_content) => call_content.edit_inside_workspace(),
            None if self.config.workspace.is_none() => {
                Err("has no workspace to accept edits in".to_owned())
            }
            None => Err("cannot tell which path the call writes".to_owned()),
        };
        let facts = CallFacts {
            tool: name,
            read_only: call.is_read_only(),
            destructive: call.is_destructive(),
            untrusted_server: call
                .tool()
                .spec()
                .remote_origin()
                .filter(|origin| !origin.is_trusted())
                .map(|origin| origin.server()),
            edit_inside: &edit_inside,
        };
        if mode == PermissionMode::Plan && !facts.reads_only() {
            return refused(RefusedBy::Mode(mode), plan_mode_reason(name));
        }

        // 5b. The Rule of Two, against the conversation's history, weighed
        // now so that every ask below carries its reason too (one question
        // for the person, answered knowing both); what the steps below
        // would allow asks instead (a classifier may still refuse, but
        // cannot say yes for a person). In `bypass` nobody can be asked.
        let brings = call.exposures();
        let checked = match tool_cx.get::<CallExposure>() {
            Some(CallExposure(acquired)) => acquired.check(brings),
            None => Acquired::default().check(brings),
        };
        let completing = match checked {
            Err(would) if !self.unattended(call) => {
                Some(rule_of_two::explain(name, brings, &would.earlier))
            }
            _ => None,
        };

        // 5. A deny content rule nobody can check.
        if let Some(unchecked) = unchecked_deny {
            return with_rule_of_two(completing, unchecked.settle(name, mode));
        }
        if let Some(why) = completing.clone()
            && mode == PermissionMode::Bypass
        {
            return Next::Done(bypass_refusal(why));
        }
        let rest = self.rules_and_policy(&judged, grants, call, content, hooked, decision, &facts);
        with_rule_of_two(completing, rest)
    }

    /// Steps 6 to 11: rules, hooks, grants, the tool's own view, then the
    /// general policy.
    #[allow(clippy::too_many_arguments)]
    fn rules_and_policy(
        &self,
        judged: &Judged<'_>,
        grants: &Grants,
        call: &PreparedCall,
        content: Option<&PermissionContent>,
        hooked: Option<&Verdict>,
        decision: PermissionDecision,
        facts: &CallFacts<'_>,
    ) -> Next {
        let name = judged.name;
        // 6. Ask rules (and a hook's ask); 7. allow rules (and a hook's
        // allow): a hook's word weighs as a rule's, after every deny.
        let hook_ask = || match hooked {
            Some(Verdict::Ask(reason)) => Some(Next::Ask(reason.clone())),
            _ => None,
        };
        let hook_allow = || match hooked {
            Some(Verdict::Allow(hook)) => Some(allowed(AllowedBy::Hook(hook.clone()))),
            _ => None,
        };
        if let Some(next) = judged
            .ask_rules()
            .or_else(hook_ask)
            .or_else(hook_allow)
            .or_else(|| judged.allow_rules())
        {
            return next;
        }

        // 8. This session's grants, while they last.
        if let Some(grant) = grants.covering(name, content, SystemTime::now()) {
            return allowed(AllowedBy::SessionRule(grant));
        }

        // 9. to 11. The tool's own view, then the general policy.
        match decision {
            PermissionDecision::Allow => allowed(AllowedBy::Tool),
            PermissionDecision::Ask { reason } => Next::Ask(capped_message(&reason).to_string()),
            // Already settled in step 3; repeated so no arm is unreachable.
            PermissionDecision::Deny { reason } => {
                refused(RefusedBy::Tool, capped_message(&reason).to_string())
            }
            PermissionDecision::Delegate => self.delegated(call, facts),
        }
    }

    /// Steps 10 and 11: a call the tool left to the general policy.
    fn delegated(&self, call: &PreparedCall, facts: &CallFacts<'_>) -> Next {
        let mode = self.config.mode;
        if mode == PermissionMode::Auto
            && let Some(classifier) = &self.config.classifier
        {
            match call.classifier_input() {
                None => {
                    return Next::Ask(format!(
                        "the classifier text of `{}` could not be produced (its hook panicked)",
                        facts.tool
                    ));
                }
                // Empty: the tool asked for no review; the default rule applies.
                Some(text) if text.is_empty() => {}
                Some(text) => return Next::Classify(Arc::clone(classifier), text),
            }
        }
        match mode.settle_delegated(facts) {
            Settled::Allow => allowed(AllowedBy::Mode(mode)),
            Settled::Ask(reason) => Next::Ask(reason),
            Settled::Deny(reason) => refused(RefusedBy::Mode(mode), reason),
        }
    }

    /// Settles an ask: by the mode, then by the approver.
    async fn ask(
        &self,
        grants: &Grants,
        call: &PreparedCall,
        call_id: &str,
        content: Option<&PermissionContent>,
        reason: String,
    ) -> Authorization {
        let name = call.tool().name();
        let mode = self.config.mode;
        match mode {
            PermissionMode::Bypass => {
                return Authorization::Allowed {
                    by: AllowedBy::Mode(mode),
                };
            }
            PermissionMode::DontAsk => {
                return Authorization::Refused(Refusal::new(
                    RefusedBy::Mode(mode),
                    format!("{reason}; dont_ask mode denies every call that would need approval"),
                ));
            }
            _ => {}
        }
        let Some(approver) = &self.config.approver else {
            return Authorization::Refused(Refusal::new(
                RefusedBy::NoApprover,
                format!(
                    "{reason}; this call needs approval and no approver is available, so it was not run"
                ),
            ));
        };
        let request = ApprovalRequest {
            call_id: call_id.to_owned(),
            tool: name.to_owned(),
            input: Arc::clone(call.shared_args()),
            content: content.cloned(),
            reason,
        };
        let answer = match catch_unwind(AssertUnwindSafe(|| approver.approve(&request))) {
            Ok(future) => CatchUnwind(future).await.ok(),
            Err(_) => None,
        };
        match answer {
            Some(Approval::AllowOnce) => Authorization::Allowed {
                by: AllowedBy::Approver,
            },
            Some(Approval::AllowAlways) => {
                grants.grant(name, content, self.config.grant_lifetime);
                Authorization::Allowed {
                    by: AllowedBy::Approver,
                }
            }
            Some(Approval::Later) => Authorization::Refused(Refusal::new(
                RefusedBy::Pending,
                format!("{}{PENDING}", request.reason),
            )),
            Some(Approval::Deny { reason }) => Authorization::Refused(Refusal::new(
                RefusedBy::Approver,
                match reason {
                    Some(reason) => format!(
                        "the user denied this call of `{name}`: {}",
                        capped_message(&reason)
                    ),
                    None => format!("the user denied this call of `{name}`"),
                },
            )),
            None => {
                tracing::error!(tool = name, call_id, "approver panicked; denying the call");
                Authorization::Refused(Refusal::new(
                    RefusedBy::Approver,
                    format!(
                        "asking for approval of this call of `{name}` failed, so it was not run"
                    ),
                ))
            }
        }
    }
}

/// Step 10: the classifier's verdict, or the reason to ask instead.
/// One call as the rule steps (1, 2, 5 to 7) read it.
struct Judged<'a> {
    cx: &'a PermissionContext,
    name: &'a str,
    aliases: &'a [String],
    /// The call's permission content, ready to compare; `None` when the
    /// call names none.
    content: Option<&'a CallContent<'a>>,
    /// Whether the context holds any rule at all.
    ruled: bool,
}

/// A deny content rule that covers some calls of the tool and cannot be
/// checked against this one (step 5).
struct UncheckedDeny<'a> {
    source: RuleSource,
    rule: &'a PermissionRule,
    why: String,
}

impl UncheckedDeny<'_> {
    /// In bypass a deny rule still holds, so the call is denied; elsewhere
    /// it asks.
    fn settle(self, name: &str, mode: PermissionMode) -> Next {
        let why = format!(
            "the {} deny rule `{}` covers some calls of `{name}`, and {}",
            self.source.name(),
            quoted(self.rule),
            self.why
        );
        if mode == PermissionMode::Bypass {
            return refused(
                RefusedBy::DenyRule(self.rule.to_string()),
                format!("{why}; bypass mode never runs past a deny rule"),
            );
        }
        Next::Ask(why)
    }
}

impl<'a> Judged<'a> {
    /// This context's rules of `behavior` that target the tool.
    fn targeting(
        &self,
        behavior: RuleBehavior,
    ) -> impl Iterator<Item = (RuleSource, &'a PermissionRule)> + '_ {
        let (name, aliases) = (self.name, self.aliases);
        self.cx
            .rules_with(behavior)
            .filter(move |(_, rule)| rule.targets(name, aliases))
    }

    /// Steps 1 and 2: a whole-tool deny rule, or a deny content rule that
    /// covers the call, ends it (`Err`); the first deny content rule that
    /// cannot be checked is kept for step 5.
    fn deny_rules(&self) -> Result<Option<UncheckedDeny<'a>>, Next> {
        if !self.ruled {
            return Ok(None);
        }
        let name = self.name;
        if let Some((source, rule)) = self.cx.whole_tool_deny(name, self.aliases) {
            return Err(refused(
                RefusedBy::DenyRule(rule.to_string()),
                format!(
                    "`{name}` is denied by the {} deny rule `{}`",
                    source.name(),
                    quoted(rule)
                ),
            ));
        }
        let mut unchecked = None;
        for (source, rule) in self.targeting(RuleBehavior::Deny) {
            let Some(pattern) = rule.content() else {
                continue;
            };
            let Some(content) = self.content else {
                unchecked.get_or_insert(UncheckedDeny {
                    source,
                    rule,
                    why: "this call names no content to check it against".to_owned(),
                });
                continue;
            };
            match content.deny_reach(&ContentPattern::parse(pattern)) {
                Reach::Covers => {
                    return Err(refused(
                        RefusedBy::DenyRule(rule.to_string()),
                        format!(
                            "this call of `{name}` (`{}`) is denied by the {} deny rule `{}`",
                            cap_error_text(content.content().as_str()),
                            source.name(),
                            quoted(rule)
                        ),
                    ));
                }
                Reach::Unknown(why) => {
                    unchecked.get_or_insert(UncheckedDeny {
                        source,
                        rule,
                        why: format!("this call's content {why}"),
                    });
                }
                Reach::Misses => {}
            }
        }
        Ok(unchecked)
    }

    /// Step 6: an ask rule that covers the call (whole-tool, or content
    /// matched; a content ask rule that cannot be checked asks too).
    fn ask_rules(&self) -> Option<Next> {
        if !self.ruled {
            return None;
        }
        let name = self.name;
        for (source, rule) in self.targeting(RuleBehavior::Ask) {
            let what = match (rule.content(), self.content) {
                (None, _) => format!("asks before every call of `{name}`"),
                (Some(pattern), Some(c)) => match c.deny_reach(&ContentPattern::parse(pattern)) {
                    Reach::Covers => format!("covers this call of `{name}`"),
                    Reach::Unknown(why) => {
                        format!("covers some calls of `{name}`, and this call's content {why}")
                    }
                    Reach::Misses => continue,
                },
                (Some(_), None) => format!(
                    "covers some calls of `{name}`, and this call names no content to check it against"
                ),
            };
            return Some(Next::Ask(format!(
                "the {} ask rule `{}` {what}",
                source.name(),
                quoted(rule)
            )));
        }
        None
    }

    /// Step 7: a whole-tool allow rule, or content allow rules that
    /// together cover the call (each program of a command line by some
    /// rule).
    fn allow_rules(&self) -> Option<Next> {
        if !self.ruled {
            return None;
        }
        let allow: Vec<&PermissionRule> = self
            .targeting(RuleBehavior::Allow)
            .map(|(_, rule)| rule)
            .collect();
        if let Some(rule) = allow.iter().find(|rule| rule.content().is_none()) {
            return Some(allowed(AllowedBy::AllowRule(rule.to_string())));
        }
        let content = self.content?;
        let with_content: Vec<&PermissionRule> = allow
            .iter()
            .copied()
            .filter(|r| r.content().is_some())
            .collect();
        let patterns: Vec<ContentPattern> = with_content
            .iter()
            .filter_map(|rule| rule.content().map(ContentPattern::parse))
            .collect();
        let used = content.allowed_by(&patterns)?;
        let rules: Vec<String> = used.iter().map(|&i| with_content[i].to_string()).collect();
        Some(allowed(AllowedBy::AllowRule(rules.join(", "))))
    }
}

async fn classify(
    classifier: &dyn SafetyClassifier,
    call: &PreparedCall,
    call_id: &str,
    text: String,
) -> Result<Authorization, String> {
    let name = call.tool().name();
    let request = ClassifierRequest {
        call_id: call_id.to_owned(),
        tool: name.to_owned(),
        text,
    };
    let verdict = match catch_unwind(AssertUnwindSafe(|| classifier.classify(&request))) {
        Ok(future) => CatchUnwind(future).await.ok(),
        Err(_) => None,
    };
    match verdict {
        Some(Ok(SafetyVerdict::Allow)) => Ok(Authorization::Allowed {
            by: AllowedBy::Classifier,
        }),
        Some(Ok(SafetyVerdict::Block { reason })) => Ok(Authorization::Refused(Refusal::new(
            RefusedBy::Classifier,
            format!(
                "the safety classifier blocked this call of `{name}`: {}",
                capped_message(&reason)
            ),
        ))),
        Some(Ok(SafetyVerdict::Ask { reason })) => Err(format!(
            "the safety classifier is unsure about this call of `{name}`: {}",
            capped_message(&reason)
        )),
        Some(Err(err)) => {
            tracing::warn!(tool = name, call_id, error = %err, "safety classifier failed; asking");
            Err(format!(
                "the safety classifier failed on this call of `{name}` ({})",
                capped_message(&err)
            ))
        }
        None => {
            tracing::error!(tool = name, call_id, "safety classifier panicked; asking");
            Err(format!(
                "the safety classifier panicked on this call of `{name}`"
            ))
        }
    }
}
