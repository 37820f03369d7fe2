//! The runner's side of the executor's hooks (see
//! [`hooks`](crate::execute::hooks) for where they sit in a call): the
//! before hooks as a call is prepared, the after hooks as its body ends,
//! and the batches a hook's `EndTurn` leaves unrun.

use std::sync::Arc;

use serde_json::Value;

use super::{Runner, Slot, Turn};
use crate::declare::context::CallScope;
use crate::declare::output::ToolOutput;
use crate::execute::call::ToolCallResult;
use crate::execute::error::CallError;
use crate::execute::hooks::{After, BatchCall};
use crate::execute::plan::Batch;
use crate::permission::pipeline::Verdict;
use crate::permission::{PermissionContext, PermissionPolicy, Refusal, RefusedBy};

/// What the before hooks left for the rest of a call: their verdict for
/// the permission pipeline, and the input the after hooks see.
pub(super) struct Hooked {
    pub(super) verdict: Option<Verdict>,
    tool: String,
    input: Value,
    by_program: bool,
}

/// What the permission stage of one call judges with.
pub(super) struct Judge {
    /// The permission context of the turn.
    pub(super) permissions: Arc<PermissionContext>,
    /// What the hooks said, when the executor has hooks.
    pub(super) hooked: Option<Box<Hooked>>,
    /// A durable turn's policy, in place of the executor's.
    pub(super) policy: Option<PermissionPolicy>,
}

impl Runner {
    /// Runs the before hooks on a call the name resolves; the input to
    /// prepare. A call whose name does not resolve is left to `prepare`
    /// to refuse: hooks never see it.
    pub(super) async fn before_hooks(
        &self,
        permissions: &PermissionContext,
        slot: &mut Slot,
        name: &str,
        input: Value,
        by_program: bool,
    ) -> Result<Value, CallError> {
        let Ok(resolved) = self.resolve(permissions, name) else {
            return Ok(input);
        };
        // A call its tool refuses to its caller is refused before any
        // hook sees it, as an unknown tool is.
        crate::execute::resolve::allowed_caller(resolved.tool, by_program)?;
        let tool = resolved.tool.name().to_owned();
        match self.hooks.before(&tool, &slot.id, input, by_program).await {
            Ok(before) => {
                slot.hooked = Some(Box::new(Hooked {
                    verdict: before.verdict,
                    tool,
                    input: before.input.clone(),
                    by_program,
                }));
                Ok(before.input)
            }
            Err(refusal) => Err(CallError::Refused { tool, refusal }),
        }
    }

    /// Runs the after hooks on what a body produced: its output, or its
    /// error's message as text; the result to cap, and why the turn ends
    /// when a hook ended it. An error a hook changed is withheld with the
    /// hook's text; one no hook changed stays as it was.
    pub(super) async fn after_hooks(
        &self,
        scope: &CallScope,
        hooked: &Hooked,
        produced: Result<ToolOutput, CallError>,
    ) -> (Result<ToolOutput, CallError>, Option<String>) {
        let (output, failed) = match produced {
            Ok(output) => (output, None),
            Err(err) => (ToolOutput::text(err.to_string()), Some(err)),
        };
        let message = failed.as_ref().map(|_| output.as_str().to_owned());
        let (after, end) = self
            .hooks
            .after(
                &hooked.tool,
                &scope.id,
                &hooked.input,
                hooked.by_program,
                failed.is_some(),
                output,
            )
            .await;
        let result = match (after, failed) {
            (After::Output(output), None) => Ok(output),
            (After::Output(output), Some(err)) => {
                if Some(output.as_str()) == message.as_deref() {
                    Err(err)
                } else {
                    Err(CallError::Withheld {
                        message: output.into_string(),
                    })
                }
            }
            (After::Withheld(message), _) => Err(CallError::Withheld { message }),
        };
        (result, end)
    }

    /// Answers every call of `batch` with why the turn ended before it.
    /// The batch hooks before the calls at `indices` run: the calls they
    /// saw (for the hooks after the batch), or `None` when a hook stopped
    /// the turn: then each call is refused by that hook, and no later
    /// batch runs.
    pub(super) async fn before_batch(
        &self,
        indices: &[usize],
        state: &mut Turn,
    ) -> Option<Vec<(usize, BatchCall)>> {
        let calls: Vec<(usize, BatchCall)> = indices
            .iter()
            .filter_map(|&index| {
                let slot = &state.slots[index];
                let call = slot.prepared.as_ref()?;
                Some((
                    index,
                    BatchCall {
                        tool: call.tool().name().to_owned(),
                        id: slot.id.clone(),
                        input: Arc::clone(call.shared_args()),
                        by_program: slot.by_program,
                        is_error: false,
                    },
                ))
            })
            .collect();
        let seen: Vec<BatchCall> = calls.iter().map(|(_, call)| call.clone()).collect();
        let Some((hook, reason)) = self.hooks.around_batch(&seen, false).await else {
            return Some(calls);
        };
        for (index, call) in &calls {
            state.slots[*index].prepared = None;
            let err = CallError::Refused {
                tool: call.tool.clone(),
                refusal: Refusal::new(RefusedBy::Hook(hook.clone()), reason.clone()),
            };
            self.finish(state, *index, Err(err));
        }
        state
            .ended
            .get_or_insert_with(|| format!("the hook `{hook}` stopped the turn: {reason}"));
        None
    }

    /// The batch hooks once the calls they saw before the batch finished;
    /// a hook that stops the turn keeps every later batch from running.
    pub(super) async fn after_batch(&self, calls: Vec<(usize, BatchCall)>, state: &mut Turn) {
        let seen: Vec<BatchCall> = calls
            .into_iter()
            .map(|(index, mut call)| {
                call.is_error = state.slots[index]
                    .result
                    .as_ref()
                    .is_none_or(ToolCallResult::is_error);
                call
            })
            .collect();
        if let Some((hook, reason)) = self.hooks.around_batch(&seen, true).await {
            state
                .ended
                .get_or_insert_with(|| format!("the hook `{hook}` stopped the turn: {reason}"));
        }
    }

    /// Keeps a call of a suspended durable turn from starting: it runs
    /// when the turn resumes (its placeholder result is never seen).
    pub(super) fn defer(&self, state: &mut Turn, index: usize) {
        state.not_started.push(index);
        let Some(call) = state.slots[index].prepared.take() else {
            return;
        };
        let err = CallError::TurnEnded {
            tool: call.tool().name().to_owned(),
            why: "it waits for a person's answer to an earlier call".to_owned(),
        };
        self.finish(state, index, Err(err));
    }

    pub(super) fn skip_batch(&self, batch: &Batch, state: &mut Turn, why: &str) {
        for item in &batch.calls {
            state.slots[item.index].prepared = None;
            let err = CallError::TurnEnded {
                tool: item.tool.name().to_owned(),
                why: why.to_owned(),
            };
            self.finish(state, item.index, Err(err));
        }
    }
}
