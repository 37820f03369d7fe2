//! The executor: one model turn from calls to results.
//!
//! Every call is resolved, parsed and classified first (a call refused
//! there gets its error result at once and never runs); the runnable calls
//! are planned into batches; batches run in order, a concurrent batch's
//! calls inside the turn's own task (so dropping the turn drops them all),
//! each validated, authorized and run with its timeout; results are capped
//! as they finish and the turn budget is applied at the end.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::{CancellationToken, DropGuard};
use tracing::Instrument;

use super::call::{ToolCall, ToolCallResult};
use super::cap::{CapConfig, apply_budget, cap_output};
use super::classify::classify;
use super::config::ExecutorConfig;
use super::error::CallError;
use super::events::ExecEvent;
use super::metrics::ToolMetrics;
use super::modifier::{ContextModifier, SessionState};
use super::plan::{Batch, BatchMode, ConcurrencySafeRule, ConflictRule, Plan, PlanItem, plan};
use super::resolve::{PoolIndex, resolve};
use super::session::Session;
use crate::context::{CallScope, ToolContext};
use crate::handle::{PreparedCall, ToolHandle};
use crate::output::ToolOutput;
use crate::permission::{Authorization, PermissionContext, PermissionPipeline};
use crate::pool::{ToolPool, ToolRegistry};

/// Runs a model's turn of tool calls against one pool.
///
/// Built per pool (the index of names it builds is the only per-pool
/// work); reusable for any number of turns. See the [module docs](self) and
/// the crate docs' "Executing a turn" for the order of things.
pub struct Executor {
    registry: Arc<ToolRegistry>,
    index: PoolIndex,
    permissions: PermissionContext,
    pipeline: PermissionPipeline,
    session: Arc<Session>,
    config: ExecutorConfig,
    cap: CapConfig,
    context: ToolContext,
    rule: Arc<dyn ConflictRule>,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Per call, what the turn knows besides its result.
struct Slot {
    id: String,
    tool: Option<ToolHandle>,
    metrics: ToolMetrics,
    span: tracing::Span,
}

/// What running one call produced.
struct Outcome {
    index: usize,
    result: Result<ToolOutput, CallError>,
    modifiers: Vec<ContextModifier>,
}

impl Executor {
    /// An executor for `pool` (this turn's tools), with `registry` for
    /// alias lookup and explanations, `permissions` (the current rules,
    /// re-checked per call) and `pipeline` deciding each call, in
    /// `session`.
    pub fn new(
        registry: Arc<ToolRegistry>,
        pool: &ToolPool,
        permissions: PermissionContext,
        pipeline: PermissionPipeline,
        session: Arc<Session>,
    ) -> Self {
        let config = ExecutorConfig::default();
        Executor {
            registry,
            index: PoolIndex::new(pool),
            permissions,
            pipeline,
            session,
            cap: cap_config(&config),
            config,
            context: ToolContext::new(),
            rule: Arc::new(ConcurrencySafeRule),
        }
    }

    /// Replaces the configuration.
    pub fn with_config(mut self, config: ExecutorConfig) -> Self {
        self.cap = cap_config(&config);
        self.config = config;
        self
    }

    /// The context every call's `ToolContext` starts from (the runtime's
    /// typed extensions).
    pub fn with_context(mut self, context: ToolContext) -> Self {
        self.context = context;
        self
    }

    /// Replaces the rule that decides which calls share a batch.
    pub fn with_conflict_rule(mut self, rule: Arc<dyn ConflictRule>) -> Self {
        self.rule = rule;
        self
    }

    /// Replaces the permission context: rules changed since the pool was
    /// assembled apply from the next call on.
    pub fn set_permissions(&mut self, permissions: PermissionContext) {
        self.permissions = permissions;
    }

    /// The current permission context.
    pub fn permissions(&self) -> &PermissionContext {
        &self.permissions
    }

    /// The session this executor runs in.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Runs one turn: exactly one result per call, in call order.
    pub async fn run_turn(&self, calls: Vec<ToolCall>) -> Vec<ToolCallResult> {
        self.run(calls, None).await
    }

    /// [`run_turn`](Self::run_turn), reporting each step to `events` (see
    /// [`ExecEvent`]). A closed receiver does not stop the turn.
    pub async fn run_turn_streaming(
        &self,
        calls: Vec<ToolCall>,
        events: UnboundedSender<ExecEvent>,
    ) -> Vec<ToolCallResult> {
        self.run(calls, Some(events)).await
    }

    /// The plan a turn of `calls` would run, without running anything:
    /// calls refused before planning (unknown tool, bad input) are left
    /// out.
    pub fn plan_turn(&self, calls: &[ToolCall]) -> Plan {
        let items = calls.iter().enumerate().filter_map(|(index, call)| {
            let tool = self.resolve(&call.name).ok()?;
            let prepared = tool.prepare(call.input.clone()).ok()?;
            Some(PlanItem {
                index,
                tool: tool.clone(),
                class: classify(&prepared).0,
            })
        });
        plan(items, &*self.rule, self.config.max_concurrency)
    }

    fn resolve(&self, name: &str) -> Result<&ToolHandle, CallError> {
        resolve(
            &self.index,
            &self.registry,
            &self.permissions,
            &self.session,
            name,
        )
    }

    async fn run(
        &self,
        calls: Vec<ToolCall>,
        events: Option<UnboundedSender<ExecEvent>>,
    ) -> Vec<ToolCallResult> {
        let n = calls.len();
        let mut slots: Vec<Slot> = Vec::with_capacity(n);
        let mut results: Vec<Option<ToolCallResult>> = Vec::with_capacity(n);
        let mut chars: Vec<usize> = vec![0; n];
        let mut prepared: Vec<Option<PreparedCall>> = Vec::with_capacity(n);
        let mut items: Vec<PlanItem> = Vec::with_capacity(n);

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
                tool: None,
                metrics: ToolMetrics::default(),
                span,
            };
            match self.prepare(&mut slot, &call.name, call.input) {
                Ok((call, class)) => {
                    items.push(PlanItem {
                        index,
                        tool: call.tool().clone(),
                        class,
                    });
                    prepared.push(Some(call));
                    results.push(None);
                }
                Err(err) => {
                    prepared.push(None);
                    results.push(Some(error_result(&mut slot, err)));
                }
            }
            slots.push(slot);
        }

        let plan = plan(items, &*self.rule, self.config.max_concurrency);
        if let Some(events) = &events {
            let mut batch_of: Vec<Option<usize>> = vec![None; n];
            for (b, batch) in plan.batches.iter().enumerate() {
                for item in &batch.calls {
                    batch_of[item.index] = Some(b);
                }
            }
            for (index, slot) in slots.iter().enumerate() {
                let _ = events.send(ExecEvent::Queued {
                    index,
                    id: slot.id.clone(),
                    batch: batch_of[index],
                });
            }
            for (index, result) in results.iter().enumerate() {
                if let Some(result) = result {
                    let _ = events.send(ExecEvent::Finished {
                        index,
                        result: result.clone(),
                    });
                }
            }
        }

        // Dropping the turn (this future) drops every in-flight call; the
        // guard also cancels the token, for work a tool spawned with it.
        let turn = CancellationToken::new();
        let _guard: DropGuard = turn.clone().drop_guard();
        for (b, batch) in plan.batches.iter().enumerate() {
            for item in &batch.calls {
                slots[item.index].span.record("batch", b);
            }
            let outcomes = self
                .run_batch(batch, &turn, &mut prepared, &slots, events.as_ref())
                .await;
            let mut modifiers = Vec::new();
            for outcome in outcomes {
                let slot = &mut slots[outcome.index];
                let result = match outcome.result {
                    Ok(output) => {
                        let _cap = tracing::info_span!(parent: &slot.span, "cap").entered();
                        let tool = slot.tool.as_ref().expect("a planned call has a tool");
                        let capped = cap_output(
                            output,
                            tool.name(),
                            *tool.spec().max_result_chars().value(),
                            outcome.index,
                            &slot.id,
                            &self.cap,
                        );
                        chars[outcome.index] = capped.chars;
                        slot.metrics.spilled += u64::from(capped.spilled_to.is_some());
                        modifiers.push(outcome.modifiers);
                        ToolCallResult {
                            id: std::mem::take(&mut slot.id),
                            content: capped.content,
                            is_error: false,
                            spilled_to: capped.spilled_to,
                        }
                    }
                    Err(err) => error_result(slot, err),
                };
                if let Some(events) = &events {
                    let _ = events.send(ExecEvent::Finished {
                        index: outcome.index,
                        result: result.clone(),
                    });
                }
                results[outcome.index] = Some(result);
            }
            // In call order (outcomes are sorted), after the whole batch.
            self.session.apply(modifiers.into_iter().flatten());
        }

        let mut results: Vec<ToolCallResult> = results
            .into_iter()
            .map(|r| r.expect("every call has a result"))
            .collect();
        for (result, chars) in results.iter().zip(chars.iter_mut()) {
            if result.is_error {
                *chars = result.content.chars().count();
            }
        }
        if let Some(budget) = self.config.turn_budget {
            apply_budget(&mut results, &mut chars, budget, &self.cap);
        }
        self.record_metrics(&slots);
        results
    }

    /// Resolve, parse and classify one call.
    fn prepare(
        &self,
        slot: &mut Slot,
        name: &str,
        input: serde_json::Value,
    ) -> Result<(PreparedCall, super::classify::CallClass), CallError> {
        let tool = {
            let _phase = tracing::info_span!(parent: &slot.span, "resolve").entered();
            self.resolve(name)?
        };
        slot.tool = Some(tool.clone());
        slot.metrics.calls = 1;
        let call = {
            let _phase = tracing::info_span!(parent: &slot.span, "parse").entered();
            tool.prepare(input)?
        };
        let _phase = tracing::info_span!(parent: &slot.span, "classify").entered();
        let (class, fallbacks) = classify(&call);
        slot.metrics.strict_fallbacks = u64::from(fallbacks);
        Ok((call, class))
    }

    /// Runs one batch; the outcomes come back in call order.
    async fn run_batch(
        &self,
        batch: &Batch,
        turn: &CancellationToken,
        prepared: &mut [Option<PreparedCall>],
        slots: &[Slot],
        events: Option<&UnboundedSender<ExecEvent>>,
    ) -> Vec<Outcome> {
        let state = self.session.state();
        let (limit, token) = match batch.mode {
            BatchMode::Serial => (1, turn.clone()),
            BatchMode::Concurrent => (self.config.max_concurrency.get(), turn.child_token()),
        };
        let mut start = |item: &PlanItem| {
            let call = prepared[item.index]
                .take()
                .expect("each planned call runs once");
            let slot = &slots[item.index];
            self.run_call(item.index, call, slot, &token, &state, events)
        };
        let mut waiting = batch.calls.iter();
        let mut running = FuturesUnordered::new();
        for item in waiting.by_ref().take(limit) {
            running.push(start(item));
        }
        let mut outcomes: Vec<Outcome> = Vec::with_capacity(batch.calls.len());
        while let Some(outcome) = running.next().await {
            let failed = outcome.result.is_err()
                && batch.mode == BatchMode::Concurrent
                && slots[outcome.index]
                    .tool
                    .as_ref()
                    .is_some_and(|t| self.config.cancel_siblings.contains(t.name()));
            if failed {
                token.cancel();
                drop(running);
                let sibling = slots[outcome.index].tool.as_ref().expect("ran").name();
                let sibling_id = slots[outcome.index].id.clone();
                let done: Vec<usize> = outcomes.iter().map(|o| o.index).collect();
                for item in &batch.calls {
                    if item.index == outcome.index || done.contains(&item.index) {
                        continue;
                    }
                    prepared[item.index] = None;
                    outcomes.push(Outcome {
                        index: item.index,
                        result: Err(CallError::Cancelled {
                            tool: item.tool.name().to_owned(),
                            sibling: sibling.to_owned(),
                            sibling_id: sibling_id.clone(),
                        }),
                        modifiers: Vec::new(),
                    });
                }
                outcomes.push(outcome);
                break;
            }
            outcomes.push(outcome);
            if let Some(item) = waiting.next() {
                running.push(start(item));
            }
        }
        outcomes.sort_unstable_by_key(|o| o.index);
        outcomes
    }

    /// Validate, authorize and run one call, under its span.
    fn run_call<'a>(
        &'a self,
        index: usize,
        call: PreparedCall,
        slot: &'a Slot,
        token: &CancellationToken,
        state: &Arc<SessionState>,
        events: Option<&UnboundedSender<ExecEvent>>,
    ) -> impl std::future::Future<Output = Outcome> + Send + 'a {
        let scope = Arc::new(CallScope {
            index,
            id: Arc::from(slot.id.as_str()),
            cancel: token.clone(),
            events: events.cloned(),
            state: Arc::clone(state),
            modifiers: Mutex::new(Vec::new()),
        });
        let span = slot.span.clone();
        async move {
            if let Some(events) = &scope.events {
                let _ = events.send(ExecEvent::Started {
                    index,
                    id: slot.id.clone(),
                });
            }
            let cx = self.context.for_call(Arc::clone(&scope));
            let result = self.authorize_and_run(call, &slot.id, &cx).await;
            // Only a call that succeeded changes session state.
            let modifiers = if result.is_ok() {
                scope.take_modifiers()
            } else {
                Vec::new()
            };
            Outcome {
                index,
                result,
                modifiers,
            }
        }
        .instrument(span)
    }

    async fn authorize_and_run(
        &self,
        call: PreparedCall,
        id: &str,
        cx: &ToolContext,
    ) -> Result<ToolOutput, CallError> {
        call.validate(cx)?;
        let authorization = self
            .pipeline
            .authorize(&self.permissions, &call, id, cx)
            .instrument(tracing::info_span!("permission"))
            .await;
        let tool = call.tool().name();
        if let Authorization::Denied { by, reason } = authorization {
            tracing::debug!(?by, "denied");
            return Err(CallError::Denied {
                tool: tool.to_owned(),
                reason,
            });
        }
        let timeout = self.config.timeout_for(tool);
        let tool = tool.to_owned();
        let body = call.invoke(cx).instrument(tracing::info_span!("run"));
        let output = match timeout {
            None => body.await?,
            Some(after) => match tokio::time::timeout(after, body).await {
                Ok(output) => output?,
                Err(_) => return Err(CallError::TimedOut { tool, after }),
            },
        };
        Ok(output)
    }

    fn record_metrics(&self, slots: &[Slot]) {
        let mut turn: BTreeMap<&str, ToolMetrics> = BTreeMap::new();
        for slot in slots {
            if let Some(tool) = &slot.tool {
                let total = turn.entry(tool.name()).or_default();
                let m = &slot.metrics;
                total.calls += m.calls;
                total.errors += m.errors;
                total.strict_fallbacks += m.strict_fallbacks;
                total.timeouts += m.timeouts;
                total.denied += m.denied;
                total.spilled += m.spilled;
            }
        }
        let turn: Vec<(&str, ToolMetrics)> = turn.into_iter().collect();
        self.session.record(&turn);
    }
}

fn cap_config(config: &ExecutorConfig) -> CapConfig {
    CapConfig {
        spill_dir: config.spill_dir.clone(),
        preview_chars: config.preview_chars,
    }
}

/// The error result for a call, counting it in the slot's metrics.
fn error_result(slot: &mut Slot, err: CallError) -> ToolCallResult {
    slot.metrics.errors += 1;
    match &err {
        CallError::TimedOut { .. } => slot.metrics.timeouts += 1,
        CallError::Denied { .. } => slot.metrics.denied += 1,
        _ => {}
    }
    tracing::debug!(parent: &slot.span, error = %err, "call failed");
    ToolCallResult::new(slot.id.clone(), err.to_string(), true)
}
