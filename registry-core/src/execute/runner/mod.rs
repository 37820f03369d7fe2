//! The executor: one model turn from calls to results.
//!
//! Every call is resolved, parsed and classified first (a call refused
//! there gets its error result at once and never runs); the runnable calls
//! are planned into batches; batches run in order, a concurrent batch's
//! calls inside the turn's own task (so dropping the turn drops them all),
//! each validated, authorized and run with its timeout; results are capped
//! as they finish and the turn budget is applied at the end.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::call::{ToolCall, ToolCallResult};
use super::cap::{CapConfig, apply_budget, cap_output};
use super::classify::{CallClass, Classified, classify};
use super::config::ExecutorConfig;
use super::error::CallError;
use super::events::{EventSink, ExecEvent};
use super::plan::{Batch, BatchMode, ConflictRule, Plan, PlanItem, plan};
use super::resolve::{PoolIndex, Resolved, allowed_caller, resolve};
use crate::access::Access;
use crate::declare::context::{CallCancel, CallScope, ToolContext};
use crate::declare::output::ToolOutput;
use crate::input::handle::{PreparedCall, ToolHandle};
use crate::permission::enforce::PathAccess;
use crate::permission::{PermissionContext, PermissionPolicy, RefusedBy};
use crate::pool::{ToolPool, ToolRegistry};
use crate::session::metrics::ToolMetrics;
use crate::session::{ContextModifier, Session, SessionState};

mod build;
mod checked;
mod hooked;

use hooked::{Hooked, Judge};

/// Everything a turn runs with, shared (behind an `Arc`) by the
/// [`Executor`] and the calls its tools make from programs
/// ([`Executor::run_nested`]).
pub(super) struct Runner {
    registry: ToolRegistry,
    /// The pool offered to the model, and indexed (`index`) to resolve
    /// its calls: one pool, so nothing offered is then refused as unknown.
    pool: Arc<ToolPool>,
    index: PoolIndex,
    /// Shared with the rules each call carries into its context; replaced
    /// by [`Executor::set_permissions`] between turns.
    permissions: RwLock<Arc<PermissionContext>>,
    /// Each pooled tool's name and whether it only reads: what a path rule
    /// naming it means for a command (see [`CallRules`]).
    path_tools: Arc<[(String, PathAccess)]>,
    policy: PermissionPolicy,
    session: Arc<Session>,
    config: ExecutorConfig,
    cap: CapConfig,
    context: ToolContext,
    rule: Arc<dyn ConflictRule>,
    /// What relative paths in declared accesses are anchored at; unset,
    /// a relative path covers every path.
    access_root: Option<PathBuf>,
    /// Around every call (see [`CallHook`](crate::execute::CallHook)).
    hooks: super::hooks::Hooks,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Per call, what the turn knows besides its result.
struct Slot {
    /// The call's id; while the call runs it lives in the call's scope
    /// (`scope`), and comes back when the call ends.
    id: String,
    scope: Option<Arc<CallScope>>,
    tool: Option<ToolHandle>,
    /// The plugin that contributed the tool (`None` for a built-in), as
    /// resolved: checked again before the body runs.
    owner: Option<Arc<str>>,
    metrics: ToolMetrics,
    span: tracing::Span,
    /// Until its batch starts it.
    prepared: Option<PreparedCall>,
    /// Its classification, once prepared.
    class: CallClass,
    /// Its access, once prepared; moved into the plan.
    access: Access,
    /// Once it finished.
    result: Option<ToolCallResult>,
    /// The result's length in characters.
    chars: usize,
    /// What the before hooks said, and the input the after hooks see;
    /// only when the executor has hooks.
    hooked: Option<Box<Hooked>>,
    /// Whether a program made the call (ours, or a provider's).
    by_program: bool,
}

/// The turn's bookkeeping, by call index.
struct Turn {
    slots: Vec<Slot>,
    events: Option<EventSink>,
    /// The permission context of the whole turn.
    permissions: Arc<PermissionContext>,
    /// 0 for the model's turn, 1 for the calls of a program.
    depth: u8,
    /// Set when an after hook ended the turn: later batches do not run.
    ended: Option<String>,
    /// A durable turn's policy (the executor's, with the person's answers
    /// first): an ask with no live answer suspends the turn.
    durable: Option<PermissionPolicy>,
    /// Set once a call of a durable turn waits for a person: no call
    /// starts after it.
    suspended: bool,
    /// The calls that never started because the turn was suspended.
    not_started: Vec<usize>,
}

/// What a turn produced: a result per call (in call order), why a hook
/// ended it, and which calls a suspension kept from starting.
pub(super) struct TurnDone {
    pub(super) results: Vec<ToolCallResult>,
    pub(super) ended: Option<String>,
    pub(super) not_started: Vec<usize>,
}

/// What running one call produced.
struct Outcome {
    index: usize,
    result: Result<ToolOutput, CallError>,
    /// Whether the call got past validation and permission into its body:
    /// only such a failure may cancel siblings, or a model could cancel a
    /// batch with a call it knows will be refused.
    ran: bool,
    modifiers: Vec<ContextModifier>,
    /// Why the turn ends after this call's batch, when a hook said so.
    end_turn: Option<String>,
}

impl Runner {
    /// The access root, or else the context's working directory: the one
    /// base relative paths are resolved against.
    fn access_root(&self) -> Option<&Path> {
        self.access_root
            .as_deref()
            .or_else(|| self.context.working_dir())
    }

    /// The permission context now: read once per turn, so every call of a
    /// turn is judged by the same rules.
    pub(super) fn permissions(&self) -> Arc<PermissionContext> {
        Arc::clone(
            &self
                .permissions
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    pub(super) fn set_permissions(&self, permissions: PermissionContext) {
        *self
            .permissions
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(permissions);
    }

    pub(super) fn policy(&self) -> &PermissionPolicy {
        &self.policy
    }

    pub(super) fn session(&self) -> &Arc<Session> {
        &self.session
    }

    pub(super) fn pool(&self) -> &ToolPool {
        &self.pool
    }

    pub(super) fn plan_turn(&self, calls: &[ToolCall]) -> Plan {
        let permissions = self.permissions();
        let items = calls.iter().enumerate().filter_map(|(index, call)| {
            let tool = self.resolve(&permissions, &call.name).ok()?.tool;
            let prepared = tool.prepare(call.input.clone()).ok()?;
            let Classified { class, access, .. } = classify(&prepared, self.access_root());
            Some(PlanItem {
                index,
                tool: tool.clone(),
                class,
                access,
            })
        });
        plan(items, &*self.rule, self.config.max_concurrency)
    }

    fn resolve(
        &self,
        permissions: &PermissionContext,
        name: &str,
    ) -> Result<Resolved<'_>, CallError> {
        resolve(
            &self.index,
            &self.registry,
            permissions,
            &self.session,
            name,
        )
    }

    /// Runs a turn of the model's: one at a time per session (see
    /// `Session::turn`); a second turn waits for the first, it does not
    /// interleave with it.
    pub(super) async fn run(
        &self,
        calls: Vec<ToolCall>,
        events: Option<EventSink>,
    ) -> Vec<ToolCallResult> {
        let _turn = self.session.turn.lock().await;
        // Any turn of the conversation makes a durable turn that waited
        // for a person stale.
        self.session.set_pending_turn(None);
        self.run_locked(calls, events, 0).await.0
    }

    /// Runs a turn while holding the session's turn: the model's own
    /// (`depth` 0), or the calls of a program one of its calls runs
    /// (`depth` 1, inside that call, whose turn holds the lock). With the
    /// results, why a hook ended the turn, when one did.
    pub(super) async fn run_locked(
        &self,
        calls: Vec<ToolCall>,
        events: Option<EventSink>,
        depth: u8,
    ) -> (Vec<ToolCallResult>, Option<String>) {
        let done = self.run_turn(calls, events, depth, None).await;
        (done.results, done.ended)
    }

    /// [`run_locked`](Self::run_locked), for a durable turn too (`durable`:
    /// its policy), with the calls a suspension kept from starting.
    pub(super) async fn run_turn(
        &self,
        calls: Vec<ToolCall>,
        events: Option<EventSink>,
        depth: u8,
        durable: Option<PermissionPolicy>,
    ) -> TurnDone {
        let permissions = self.permissions();
        let n = calls.len();
        let mut slots: Vec<Slot> = Vec::with_capacity(n);
        for (index, call) in calls.into_iter().enumerate() {
            let span = tracing::info_span!(
                "tool_call",
                index,
                call_id = %call.id,
                name = %call.name,
                batch = tracing::field::Empty,
            );
            let mut slot = Slot {
                id: call.id,
                scope: None,
                tool: None,
                owner: None,
                metrics: ToolMetrics::default(),
                span,
                prepared: None,
                class: CallClass::STRICT,
                access: Access::everything(),
                result: None,
                chars: 0,
                hooked: None,
                by_program: depth > 0 || call.program.is_some(),
            };
            let by_program = slot.by_program;
            let input = if self.hooks.is_empty() {
                call.input
            } else {
                match self
                    .before_hooks(&permissions, &mut slot, &call.name, call.input, by_program)
                    .await
                {
                    Ok(input) => input,
                    Err(err) => {
                        let result = error_result(&mut slot, err);
                        slot.chars = result.content().chars().count();
                        slot.result = Some(result);
                        slots.push(slot);
                        continue;
                    }
                }
            };
            match self.prepare(&permissions, &mut slot, &call.name, input, by_program) {
                Ok((call, Classified { class, access, .. })) => {
                    slot.class = class;
                    slot.access = access;
                    slot.prepared = Some(call);
                }
                Err(err) => {
                    let result = error_result(&mut slot, err);
                    slot.chars = result.content().chars().count();
                    slot.result = Some(result);
                }
            }
            slots.push(slot);
        }

        // Dropping the turn (this future) drops every in-flight call, and
        // each call's guard cancels the token its tool may have handed to
        // spawned work: the turn needs no token of its own.
        if events.is_none()
            && let Some(index) = only_runnable(&slots)
        {
            // One call to run (most turns): its batch is itself, so the
            // planner's lists are not built. A streamed turn is planned
            // as usual, since its events report the plan.
            let mut state = Turn {
                slots,
                events,
                permissions,
                depth,
                ended: None,
                durable,
                suspended: false,
                not_started: Vec::new(),
            };
            let seen = match self.hooks.is_empty() {
                true => None,
                false => self.before_batch(&[index], &mut state).await,
            };
            if seen.is_some() || self.hooks.is_empty() {
                let mode = self.mode_alone(&mut state.slots[index]);
                state.slots[index].span.record("batch", 0);
                let span = tracing::info_span!("batch", batch = 0, mode = ?mode, calls = 1);
                let modifiers = self.run_alone(index, &mut state).instrument(span).await;
                self.apply(modifiers);
            }
            if let Some(seen) = seen {
                self.after_batch(seen, &mut state).await;
            }
            return TurnDone {
                not_started: state.not_started,
                ended: state.ended,
                results: self.results(state.slots),
            };
        }

        // Planned straight from the slots: no second per-turn list.
        let items = slots.iter_mut().enumerate().filter_map(|(index, slot)| {
            Some(PlanItem {
                index,
                tool: slot.prepared.as_ref()?.tool().clone(),
                class: slot.class,
                access: std::mem::take(&mut slot.access),
            })
        });
        let plan = plan(items, &*self.rule, self.config.max_concurrency);
        if let Some(events) = &events {
            events.queued(
                &plan,
                slots
                    .iter()
                    .map(|slot| (slot.id.as_str(), slot.result.as_ref())),
            );
        }

        let mut state = Turn {
            slots,
            events,
            permissions,
            depth,
            ended: None,
            durable,
            suspended: false,
            not_started: Vec::new(),
        };
        for (b, batch) in plan.batches.iter().enumerate() {
            if let Some(why) = state.ended.clone() {
                self.skip_batch(batch, &mut state, &why);
                continue;
            }
            if state.suspended {
                for item in &batch.calls {
                    self.defer(&mut state, item.index);
                }
                continue;
            }
            let seen = if self.hooks.is_empty() {
                None
            } else {
                let indices: Vec<usize> = batch.calls.iter().map(|item| item.index).collect();
                match self.before_batch(&indices, &mut state).await {
                    Some(seen) => Some(seen),
                    None => continue,
                }
            };
            for item in &batch.calls {
                state.slots[item.index].span.record("batch", b);
            }
            let span = tracing::info_span!(
                "batch",
                batch = b,
                mode = ?batch.mode,
                calls = batch.calls.len(),
            );
            let modifiers = self.run_batch(batch, &mut state).instrument(span).await;
            self.apply(modifiers);
            if let Some(seen) = seen {
                self.after_batch(seen, &mut state).await;
            }
        }
        TurnDone {
            not_started: state.not_started,
            ended: state.ended,
            results: self.results(state.slots),
        }
    }

    /// How the batch of a call running alone is labelled in traces: as
    /// the planner would label it.
    fn mode_alone(&self, slot: &mut Slot) -> BatchMode {
        let Some(call) = &slot.prepared else {
            return BatchMode::Serial;
        };
        let item = PlanItem {
            index: 0,
            tool: call.tool().clone(),
            class: slot.class,
            access: std::mem::take(&mut slot.access),
        };
        let mode = if self.rule.runs_alone(&item) {
            BatchMode::Serial
        } else {
            BatchMode::Concurrent
        };
        slot.access = item.access;
        mode
    }

    /// A batch's session-state modifiers, applied in call order after the
    /// whole batch.
    fn apply(&self, mut modifiers: Vec<(usize, Vec<ContextModifier>)>) {
        modifiers.sort_unstable_by_key(|(index, _)| *index);
        self.session
            .apply(modifiers.into_iter().flat_map(|(_, m)| m));
    }

    /// The turn's results, in call order, its metrics recorded and its
    /// output budget applied.
    fn results(&self, slots: Vec<Slot>) -> Vec<ToolCallResult> {
        self.session.record_metrics(
            slots
                .iter()
                .filter_map(|slot| Some((slot.tool.as_ref()?.name(), &slot.metrics))),
        );
        let total: usize = slots.iter().map(|slot| slot.chars).sum();
        let mut chars = Vec::new();
        let over_budget = self.config.turn_budget.filter(|&budget| total > budget);
        if over_budget.is_some() {
            chars = slots.iter().map(|slot| slot.chars).collect();
        }
        let mut results: Vec<ToolCallResult> = slots
            .into_iter()
            .map(|slot| slot.result.expect("every call has a result"))
            .collect();
        if let Some(budget) = over_budget {
            apply_budget(&mut results, &mut chars, budget, &self.cap);
        }
        results
    }

    /// Resolve, parse and classify one call.
    fn prepare(
        &self,
        permissions: &PermissionContext,
        slot: &mut Slot,
        name: &str,
        input: serde_json::Value,
        by_program: bool,
    ) -> Result<(PreparedCall, Classified), CallError> {
        let Resolved { tool, owner } = {
            let _phase = tracing::info_span!(parent: &slot.span, "resolve").entered();
            let resolved = self.resolve(permissions, name)?;
            allowed_caller(resolved.tool, by_program)?;
            resolved
        };
        slot.tool = Some(tool.clone());
        slot.owner = owner.cloned();
        slot.metrics.calls = 1;
        let call = {
            let _phase = tracing::info_span!(parent: &slot.span, "parse").entered();
            tool.prepare(input)?
        };
        let _phase = tracing::info_span!(parent: &slot.span, "classify").entered();
        let classified = classify(&call, self.access_root());
        slot.metrics.strict_fallbacks = u64::from(classified.fallbacks);
        Ok((call, classified))
    }

    /// Runs one batch, finishing each call as it completes; returns the
    /// modifiers of the calls that succeeded, by call index.
    async fn run_batch(
        &self,
        batch: &Batch,
        state: &mut Turn,
    ) -> Vec<(usize, Vec<ContextModifier>)> {
        if let [item] = batch.calls.as_slice() {
            return self.run_alone(item.index, state).await;
        }
        let snapshot = self.session.state();
        let limit = match batch.mode {
            BatchMode::Serial => 1,
            BatchMode::Concurrent => self.config.max_concurrency.get(),
        };
        // The batch's token, which a failing sibling cancels; each call's
        // own token (if it asks for one) is its child.
        let token = Arc::new(CancellationToken::new());
        let mut waiting = batch.calls.iter();
        let mut running = FuturesUnordered::new();
        for item in waiting.by_ref().take(limit) {
            running.push(self.start(item.index, state, Some(&token), &snapshot));
        }
        let mut modifiers = Vec::new();
        let mut finished: Vec<usize> = Vec::with_capacity(batch.calls.len());
        while let Some(outcome) = running.next().await {
            let index = outcome.index;
            finished.push(index);
            let cancels = outcome.result.is_err()
                && outcome.ran
                && batch.mode == BatchMode::Concurrent
                && state.slots[index]
                    .tool
                    .as_ref()
                    .is_some_and(|t| self.config.cancel_siblings.contains(t.name()));
            if !outcome.modifiers.is_empty() {
                modifiers.push((index, outcome.modifiers));
            }
            if state.ended.is_none() {
                state.ended = outcome.end_turn;
            }
            self.finish(state, index, outcome.result);
            if cancels {
                token.cancel();
                drop(running);
                let sibling = state.slots[index].tool.clone().expect("it ran");
                let sibling_id = state.slots[index].id.clone();
                for item in &batch.calls {
                    if finished.contains(&item.index) {
                        continue;
                    }
                    // A call a suspension kept from starting is cancelled
                    // with the rest: it must not run on resume.
                    state.not_started.retain(|&i| i != item.index);
                    state.slots[item.index].prepared = None;
                    let err = CallError::Cancelled {
                        tool: item.tool.name().to_owned(),
                        sibling: sibling.name().to_owned(),
                        sibling_id: sibling_id.clone(),
                    };
                    self.finish(state, item.index, Err(err));
                }
                break;
            }
            if let Some(item) = waiting.next() {
                if state.suspended {
                    // Nothing starts after a call that waits for a person.
                    self.defer(state, item.index);
                    for item in waiting.by_ref() {
                        self.defer(state, item.index);
                    }
                } else {
                    running.push(self.start(item.index, state, Some(&token), &snapshot));
                }
            }
        }
        modifiers
    }

    /// Runs a batch of one call (every serial batch): no sibling to
    /// cancel, nothing to interleave; it runs in place.
    async fn run_alone(
        &self,
        index: usize,
        state: &mut Turn,
    ) -> Vec<(usize, Vec<ContextModifier>)> {
        let snapshot = self.session.state();
        let outcome = self.start(index, state, None, &snapshot).await;
        let modifiers = outcome.modifiers;
        if outcome.end_turn.is_some() {
            state.ended = outcome.end_turn;
        }
        self.finish(state, index, outcome.result);
        if modifiers.is_empty() {
            Vec::new()
        } else {
            vec![(index, modifiers)]
        }
    }

    /// The future of one planned call.
    fn start(
        &self,
        index: usize,
        state: &mut Turn,
        token: Option<&Arc<CancellationToken>>,
        snapshot: &Arc<SessionState>,
    ) -> impl std::future::Future<Output = Outcome> + Send + '_ {
        let slot = &mut state.slots[index];
        let call = slot.prepared.take().expect("each planned call runs once");
        // The call's own token (made when the tool first asks for it): in a
        // batch of several, a child of the batch's, so a cancelling sibling
        // reaches it; always cancelled by the guard the moment the call's
        // future ends or is dropped (a timeout or a dropped turn included),
        // so work the tool spawned with it cannot outlive the call and
        // overlap the next one.
        let id = std::mem::take(&mut slot.id);
        let events = state.events.clone();
        let progress = events
            .clone()
            .map(|events| events.progress(index, id.clone()));
        let erased_events = events
            .clone()
            .map(|events| Box::new(events) as Box<dyn std::any::Any + Send + Sync>);
        let scope = Arc::new(CallScope {
            index,
            id,
            cancel: CallCancel::new(token.cloned()),
            progress,
            state: Arc::clone(snapshot),
            modifiers: Mutex::new(Vec::new()),
            rules: OnceLock::new(),
            depth: state.depth,
            by_program: slot.by_program,
            events: erased_events,
            program: tokio::sync::Mutex::new(()),
            ended: OnceLock::new(),
        });
        slot.scope = Some(Arc::clone(&scope));
        let stop = CancelOnDrop(scope);
        let owner = slot.owner.clone();
        let judge = Judge {
            permissions: Arc::clone(&state.permissions),
            hooked: slot.hooked.take(),
            policy: state.durable.clone(),
        };
        self.run_call(call, owner, events, judge, stop)
            .instrument(slot.span.clone())
    }

    /// Caps a call's result, reports it and stores it.
    fn finish(&self, state: &mut Turn, index: usize, result: Result<ToolOutput, CallError>) {
        let slot = &mut state.slots[index];
        if let Some(scope) = slot.scope.take() {
            slot.id = CallScope::into_id(scope);
        }
        let result = match result {
            Ok(output) => {
                let _cap = tracing::info_span!(parent: &slot.span, "cap").entered();
                let tool = slot.tool.as_ref().expect("a planned call has a tool");
                let capped = cap_output(
                    output,
                    tool.name(),
                    *tool.spec().max_result_chars().value(),
                    index,
                    &slot.id,
                    &self.cap,
                );
                slot.chars = capped.chars;
                slot.metrics.spilled +=
                    u64::from(capped.spilled_to.is_some() || !capped.binary_spills.is_empty());
                ToolCallResult {
                    id: std::mem::take(&mut slot.id),
                    output: capped.output,
                    is_error: false,
                    spilled_to: capped.spilled_to,
                    binary_spills: capped.binary_spills,
                    tool: Some(Arc::clone(tool.spec().shared_name())),
                    refusal: None,
                }
            }
            Err(err) => {
                let result = error_result(slot, err);
                slot.chars = result.content().chars().count();
                result
            }
        };
        if state.durable.is_some() && result.refusal().is_some_and(|r| r.by == RefusedBy::Pending) {
            state.suspended = true;
        }
        if let Some(events) = &state.events {
            events.send(ExecEvent::Finished {
                index,
                result: result.clone(),
            });
        }
        slot.result = Some(result);
    }

    /// Validate, authorize and run one call.
    ///
    /// `stop` holds the call's scope, and cancels the call's token when
    /// this future ends or is dropped.
    async fn run_call(
        &self,
        call: PreparedCall,
        owner: Option<Arc<str>>,
        events: Option<EventSink>,
        judge: Judge,
        stop: CancelOnDrop,
    ) -> Outcome {
        let scope = &stop.0;
        let index = scope.index;
        if let Some(events) = &events {
            events.send(ExecEvent::Started {
                index,
                id: scope.id.to_string(),
            });
        }
        let cx = self.context.for_call(Arc::clone(scope));
        let (result, ran) = match self
            .check(&call, owner.as_deref(), scope, events.as_ref(), &judge, &cx)
            .await
        {
            Ok(()) => (self.invoke(call, scope, &cx).await, true),
            Err(err) => (Err(err), false),
        };
        // After hooks see what the body produced (an output, or an error
        // it raised), never the executor's own refusals or timeouts.
        let produced = matches!(&result, Ok(_) | Err(CallError::Tool(_)));
        let (result, end_turn) = match judge.hooked {
            Some(hooked) if ran && produced => self.after_hooks(scope, &hooked, result).await,
            _ => (result, None),
        };
        // A turn of this call's program a hook ended ends this turn too.
        let end_turn = end_turn.or_else(|| scope.ended.get().cloned());
        // A nested turn started from work the tool spawned may still run:
        // it is told the call ended, and the call ends only once it has.
        if scope.program.try_lock().is_err() {
            scope.cancel.cancel();
            drop(scope.program.lock().await);
        }
        // Only a call that succeeded changes session state.
        let modifiers = if result.is_ok() {
            scope.take_modifiers()
        } else {
            Vec::new()
        };
        Outcome {
            index,
            result,
            ran,
            modifiers,
            end_turn,
        }
    }
}

/// Cancels a call's token when the call's future ends or is dropped, so
/// work the tool spawned with it cannot outlive the call. Holds the scope
/// rather than a clone of the token: an `Arc` count, where a token clone
/// takes the token tree's lock.
struct CancelOnDrop(Arc<CallScope>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel.cancel();
    }
}

/// The one call of the turn still to run, when there is exactly one.
fn only_runnable(slots: &[Slot]) -> Option<usize> {
    let mut runnable = slots
        .iter()
        .enumerate()
        .filter(|(_, slot)| slot.prepared.is_some());
    let (index, _) = runnable.next()?;
    runnable.next().is_none().then_some(index)
}

/// The error result for a call, counting it in the slot's metrics.
fn error_result(slot: &mut Slot, err: CallError) -> ToolCallResult {
    slot.metrics.errors += 1;
    match &err {
        CallError::TimedOut { .. } => slot.metrics.timeouts += 1,
        CallError::Refused { .. } => slot.metrics.denied += 1,
        _ => {}
    }
    let refusal = err.refusal().cloned();
    tracing::debug!(parent: &slot.span, error = %err, "call failed");
    let mut result = ToolCallResult::new(slot.id.clone(), err.to_string(), true);
    result.refusal = refusal.map(Box::new);
    result.tool = slot
        .tool
        .as_ref()
        .map(|tool| Arc::clone(tool.spec().shared_name()));
    result
}
