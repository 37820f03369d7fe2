//! The executor's public face: a handle on the runner of its turns,
//! shared with the calls it runs, so a tool that runs a program (code
//! mode) can put the program's calls through the same runner
//! ([`Executor::run_nested`]).

use std::sync::{Arc, Weak};

use tokio::sync::mpsc::UnboundedSender;

use super::call::{ToolCall, ToolCallResult};
use super::error::CallError;
use super::events::{EventSink, ExecEvent};
use super::plan::Plan;
use super::runner::Runner;
use crate::declare::context::ToolContext;
use crate::permission::PermissionContext;
use crate::pool::ToolPool;
use crate::session::Session;

/// Runs a model's turn of tool calls against one pool.
///
/// Built per pool (it indexes the pool's names and aliases once), reusable
/// for any number of turns. A turn returns exactly one [`ToolCallResult`]
/// per call, in call order:
///
/// 1. every call is resolved (one map lookup), parsed and classified; a
///    call refused here gets its error result and never runs;
/// 2. the runnable calls are planned into batches by the
///    `ConflictRule` (default: `AccessRule`: calls
///    whose declared accesses do not conflict share a batch, and a tool
///    that declares none keeps the boolean rule);
/// 3. batches run one after another; a concurrent batch's calls run at
///    most [`ExecutorConfig::max_concurrency`](super::ExecutorConfig::max_concurrency) at once, inside the turn's
///    own task, so dropping the turn's future drops every call in flight
///    (and cancels the token tools see through
///    [`ToolContext::cancellation_token`]);
/// 4. each call is validated, authorized by the [`PermissionPolicy`](crate::permission::PermissionPolicy)
///    against the permission context current *now*, and run with its
///    timeout; a panic, a timeout or a denial is that call's error result;
/// 5. results are capped (or spilled) as they finish, session-state
///    modifiers are applied after each batch in call order, and the turn's
///    output budget is applied at the end.
pub struct Executor {
    runner: Arc<Runner>,
}

/// How a call's context reaches the runner that runs it: weak, so the
/// runner (which holds the context) does not keep itself alive.
/// Why a program's calls were not run after its call ended.
const ENDED: &str = "the call that runs the program has ended";

pub(super) struct RunnerRef(pub(super) Weak<Runner>);

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.runner, f)
    }
}

impl Executor {
    pub(super) fn new(runner: Arc<Runner>) -> Self {
        Executor { runner }
    }

    /// Replaces the permission context: rules changed since the pool was
    /// assembled apply from the next turn on.
    pub fn set_permissions(&mut self, permissions: PermissionContext) {
        self.runner.set_permissions(permissions);
    }

    /// The current permission context.
    pub fn permissions(&self) -> Arc<PermissionContext> {
        self.runner.permissions()
    }

    /// The session this executor runs in.
    pub fn session(&self) -> &Arc<Session> {
        self.runner.session()
    }

    /// The tools to offer the model: the pool this executor resolves
    /// calls against, assembled when it was built (a plugin registered
    /// since is in neither; build a new executor for the next turn).
    /// Render it for the request (`pool().render_anthropic(..)`, or
    /// `pool().for_session(..)` when tools are deferred); renders are
    /// cached with the pool.
    pub fn pool(&self) -> &ToolPool {
        self.runner.pool()
    }

    /// Runs one turn: exactly one result per call, in call order.
    pub async fn run_turn(&self, calls: Vec<ToolCall>) -> Vec<ToolCallResult> {
        self.runner.run(calls, None).await
    }

    /// [`run_turn`](Self::run_turn), except that a call needing a person's
    /// answer nobody gives now (no approver, or
    /// [`Approval::Later`](crate::permission::Approval::Later)) waits:
    /// nothing starts after it, and the turn comes back
    /// [`TurnOutcome::Suspended`](super::TurnOutcome::Suspended), to be
    /// resumed with [`resume`](Self::resume), here or in another process
    /// (see [`SuspendedTurn`](super::SuspendedTurn)).
    pub async fn run_turn_durable(&self, calls: Vec<ToolCall>) -> super::TurnOutcome {
        self.runner.run_durable(calls).await
    }

    /// Finishes the turn this executor's session waits for, with the
    /// person's answers (see [`run_turn_durable`](Self::run_turn_durable)).
    /// A pending call without an answer goes to the approver, or waits
    /// again.
    pub async fn resume(
        &self,
        turn: super::SuspendedTurn,
        answers: Vec<super::Answer>,
    ) -> Result<super::TurnOutcome, super::DurableError> {
        self.runner.resume(turn, answers).await
    }

    /// [`run_turn`](Self::run_turn), reporting each step to `events` (see
    /// [`ExecEvent`]). A closed receiver does not stop the turn.
    pub async fn run_turn_streaming(
        &self,
        calls: Vec<ToolCall>,
        events: UnboundedSender<ExecEvent>,
    ) -> Vec<ToolCallResult> {
        self.runner.run(calls, Some(EventSink::new(events))).await
    }

    /// The plan a turn of `calls` would run, without running anything (a
    /// dry run, for UIs and tests): each batch says why it starts
    /// (`Batch::reason`: the conflicting keys and
    /// the earlier call), each call what it reads and writes; see
    /// [`Plan::explain`]. Calls refused before planning (unknown tool, bad
    /// input) are left out; the indices are still those of `calls`.
    pub fn plan_turn(&self, calls: &[ToolCall]) -> Plan {
        self.runner.plan_turn(calls)
    }

    /// Runs `calls` made by a program that the call of `cx` runs (code
    /// mode), through the executor running that call: the same pool,
    /// rules, mode, approver, session, caps and tracing as the model's own
    /// calls. The calls form one turn, planned like any other (calls in
    /// flight together share batches where their accesses allow), inside
    /// the outer call: its events arrive as [`ExecEvent::Inner`], its
    /// spans under the outer call's. Exactly one result per call, in call
    /// order; a refused or failed call is an error result with the message
    /// the model would get.
    ///
    /// Every call is refused (an error result that says why) when `cx` is
    /// not the context of a running call of an executor, when that call
    /// has ended, or when the call is itself one a program made: programs
    /// do not start programs. If the outer call ends while its program's
    /// calls run (its timeout, a cancelled turn), they are dropped with it.
    ///
    /// A program's calls are planned among themselves, not against the
    /// siblings of the call that runs it: a tool that runs programs should
    /// not be concurrency-safe (the `code` tool is not), so it runs alone.
    pub async fn run_nested(cx: &ToolContext, calls: Vec<ToolCall>) -> Vec<ToolCallResult> {
        fn refuse(
            calls: impl IntoIterator<Item = (String, String)>,
            why: &'static str,
        ) -> Vec<ToolCallResult> {
            calls
                .into_iter()
                .map(|(id, tool)| {
                    let err = CallError::Nested { tool, why };
                    ToolCallResult::new(id, err.to_string(), true)
                })
                .collect()
        }
        let heads = |calls: &[ToolCall]| -> Vec<(String, String)> {
            calls
                .iter()
                .map(|call| (call.id.clone(), call.name.clone()))
                .collect()
        };
        let (Some(scope), Some(runner)) = (
            cx.scope(),
            cx.get::<RunnerRef>().and_then(|runner| runner.0.upgrade()),
        ) else {
            return refuse(
                heads(&calls),
                "it was not made from a call the executor is running",
            );
        };
        if scope.by_program {
            return refuse(
                heads(&calls),
                "it was made by a call that a program made, and programs do not start programs",
            );
        }
        if scope.cancel.in_concurrent_batch() {
            return refuse(
                heads(&calls),
                "the call that runs the program shares a concurrent batch, so its calls could not be planned against its siblings; a tool that runs programs must not be concurrency-safe",
            );
        }
        if scope.cancel.is_cancelled() {
            return refuse(heads(&calls), ENDED);
        }
        if let Some(why) = scope.ended.get() {
            return calls
                .into_iter()
                .map(|call| {
                    let err = CallError::TurnEnded {
                        tool: call.name,
                        why: why.clone(),
                    };
                    ToolCallResult::new(call.id, err.to_string(), true)
                })
                .collect();
        }
        let events = scope
            .events
            .as_deref()
            .and_then(|events| events.downcast_ref::<EventSink>())
            .map(|events| events.inner(scope.index, &scope.id));
        // The outer call holds the session's turn; its program's calls
        // run inside it, one batch of them at a time, and end with it.
        let _one_at_a_time = scope.program.lock().await;
        let ended = scope.cancel.token();
        let named = heads(&calls);
        let calls = calls
            .into_iter()
            .map(|mut call| {
                call.program.get_or_insert_with(|| scope.id.clone());
                call
            })
            .collect();
        tokio::select! {
            biased;
            () = ended.cancelled() => refuse(named, ENDED),
            (results, ended) = runner.run_locked(calls, events, scope.depth + 1) => {
                if let Some(why) = ended {
                    let _ = scope.ended.set(why);
                }
                results
            }
        }
    }
}
