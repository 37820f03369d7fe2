//! One call's checks before its body (validation, the permission
//! pipeline with its timeout, the rules the call carries on, a plugin
//! still registered) and its body, with its timeout.

use std::path::Path;
use std::sync::Arc;

use tracing::Instrument;

use super::{Judge, Runner};
use crate::declare::context::{CallScope, ToolContext};
use crate::declare::output::ToolOutput;
use crate::execute::error::CallError;
use crate::execute::events::{EventSink, ExecEvent};
use crate::execute::resolve::still_registered;
use crate::input::handle::{CatchUnwind, PreparedCall};
use crate::permission::{Authorization, CallRules, Refusal, RefusedBy};
use crate::text::cap_error_text;

impl Runner {
    /// Validate and authorize one call: the checks before its body.
    pub(super) async fn check(
        &self,
        call: &PreparedCall,
        owner: Option<&str>,
        scope: &CallScope,
        events: Option<&EventSink>,
        judge: &Judge,
        cx: &ToolContext,
    ) -> Result<(), CallError> {
        call.validate(cx)?;
        let policy = judge.policy.as_ref().unwrap_or(&self.policy);
        let decide = CatchUnwind(std::pin::pin!(
            policy
                .authorize_hooked(
                    &judge.permissions,
                    self.session.grants(),
                    call,
                    &scope.id,
                    cx,
                    judge
                        .hooked
                        .as_ref()
                        .and_then(|hooked| hooked.verdict.as_ref()),
                )
                .instrument(tracing::info_span!("permission"))
        ));
        let decided = match self.config.permission_timeout {
            None => decide.await,
            Some(after) => match Box::pin(tokio::time::timeout(after, decide)).await {
                Ok(decided) => decided,
                Err(_) => Ok(Authorization::Refused(Refusal::new(
                    RefusedBy::Approver,
                    format!(
                        "no permission decision for this call of `{}` within {after:?}, so it was not run",
                        call.tool().name()
                    ),
                ))),
            },
        };
        let authorization = decided.unwrap_or_else(|payload| {
            // The pipeline catches the hooks it calls; this is the last
            // line: a panic anywhere in it fails closed. The approver is
            // the one piece of runtime code it awaits, so it is blamed.
            let message = crate::text::panic_message(payload.as_ref());
            tracing::error!(%message, "the permission pipeline panicked");
            Authorization::Refused(Refusal::new(
                RefusedBy::Approver,
                format!(
                    "the permission check panicked: {}",
                    cap_error_text(&message)
                ),
            ))
        });
        if let Some(events) = events {
            events.send(ExecEvent::Permission {
                index: scope.index,
                id: scope.id.to_string(),
                authorization: authorization.clone(),
            });
        }
        let allowed_by = match authorization {
            Authorization::Refused(refusal) => {
                tracing::debug!(by = ?refusal.by, "refused");
                return Err(CallError::Refused {
                    tool: call.tool().name().to_owned(),
                    refusal,
                });
            }
            Authorization::Allowed { by } => by,
        };
        // The rules travel with the call, so a tool that starts processes
        // enforces the same rules while they run.
        let spec = call.tool().spec();
        let rules = CallRules::new(
            Arc::clone(&judge.permissions),
            spec.name(),
            spec.aliases(),
            self.policy.mode(),
        )
        .with_path_tools(Arc::clone(&self.path_tools))
        .with_workspace(self.access_root().map(Path::to_path_buf))
        .with_allowed_by(allowed_by);
        let _ = scope.rules.set(Box::new(rules));
        // A plugin may have left while earlier batches ran (or while a
        // person was asked): its tool must not run now.
        if let Some(owner) = owner {
            still_registered(&self.index, &self.registry, call.tool(), owner)?;
        }
        Ok(())
    }

    /// Run a checked call's body, with its timeout.
    pub(super) async fn invoke(
        &self,
        call: PreparedCall,
        scope: &CallScope,
        cx: &ToolContext,
    ) -> Result<ToolOutput, CallError> {
        let tool = call.tool().name();
        let Some(after) = self.config.timeout_for(tool) else {
            return Ok(call
                .invoke(cx)
                .instrument(tracing::info_span!("run"))
                .await?);
        };
        let handle = call.tool().clone();
        let body = call.invoke(cx).instrument(tracing::info_span!("run"));
        // Boxed: a timer is large, and most calls have none; the turn's
        // future should not carry one per call.
        match Box::pin(tokio::time::timeout(after, body)).await {
            Ok(output) => Ok(output?),
            Err(_) => {
                // The body is dropped here; its spawned work is told now.
                scope.cancel.cancel();
                Err(CallError::TimedOut {
                    tool: handle.name().to_owned(),
                    after,
                })
            }
        }
    }
}
