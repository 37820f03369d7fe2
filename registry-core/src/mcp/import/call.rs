//! Calling an imported tool over the live connection: the call timeout
//! that progress notifications extend up to a hard limit, telling the
//! server when a call is abandoned, routing progress to the call's
//! context, handing a call the server runs as a task to `task`, and
//! turning the result into this crate's blocks.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::{Peer, RoleClient};
use serde_json::Value;

use std::time::Duration;

use tokio::time::Instant;

use super::task::{task_call_params, task_in};
use super::{Link, Shared};
use crate::declare::builder::BoxError;
use crate::declare::output::ToolOutput;

impl Shared {
    /// One call over the live connection: the server's error result, a
    /// broken connection, a timeout and malformed content are all errors.
    ///
    /// The call may go [`call_timeout`](McpServerConfig::call_timeout)
    /// without an answer; each progress notification the server sends for
    /// it is passed on to the call's context ([`ToolContext::progress`],
    /// which the executor reports as `ExecEvent::Progress`) and gives it
    /// that long again, up to
    /// [`max_call_duration`](McpServerConfig::max_call_duration) in all.
    /// A call the server runs as a task is followed to its end (see
    /// `task`), within the same limits.
    pub(super) async fn call(
        &self,
        remote: &str,
        args: Value,
        cx: &crate::declare::ToolContext,
    ) -> Result<ToolOutput, BoxError> {
        let Some(link) = self.link() else {
            return Err(format!("MCP server `{}` is not connected", self.server).into());
        };
        let arguments = match args {
            Value::Object(map) => map,
            other => return Err(format!("arguments must be an object, got {other}").into()),
        };
        let mut clock = Clock::start(self.call_timeout, self.max_call_duration);
        let as_task = self.task_tools.contains(remote);
        let answer = match self
            .send(&link, remote, &arguments, as_task, cx, &mut clock)
            .await?
        {
            // A 2025-11-25 tool whose listing did not say it needs a task
            // (a server that changed it since, a listing the guard did not
            // read) says so when called plainly: called again as a task,
            // and as a task until the next listing.
            Sent::NeedsTask if !as_task => {
                self.task_tools.insert(remote);
                match self
                    .send(&link, remote, &arguments, true, cx, &mut clock)
                    .await?
                {
                    Sent::Answer(answer) => answer,
                    Sent::NeedsTask => return Err(self.refused_task(remote)),
                }
            }
            Sent::NeedsTask => return Err(self.refused_task(remote)),
            Sent::Answer(answer) => answer,
        };
        let result = match *answer {
            rmcp::model::ServerResult::CallToolResult(result) => result,
            rmcp::model::ServerResult::EmptyResult(_) => CallToolResult::success(Vec::new()),
            other => match task_in(&other) {
                Some(task) => self.follow_task(&link, task, cx, &clock).await?,
                None => {
                    let kind = serde_json::to_value(&other)
                        .ok()
                        .and_then(|v| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()))
                        .unwrap_or_default();
                    return Err(format!(
                        "MCP server `{}` answered the call with something that is neither a tool result nor a task (fields {kind:?})",
                        self.server
                    )
                    .into());
                }
            },
        };
        let output = result_output(&result);
        if result.is_error == Some(true) {
            return Err(output.into_string().into());
        }
        Ok(output)
    }

    fn refused_task(&self, remote: &str) -> BoxError {
        format!(
            "MCP server `{}` refused to run `{remote}` as a task, though it requires one",
            self.server
        )
        .into()
    }

    /// Sends `tools/call` (asking for a task when `as_task`, the 2025-11-25
    /// way) and waits for its answer, progress extending the wait.
    async fn send(
        &self,
        link: &Link,
        remote: &str,
        arguments: &serde_json::Map<String, Value>,
        as_task: bool,
        cx: &crate::declare::ToolContext,
        clock: &mut Clock,
    ) -> Result<Sent, BoxError> {
        let disconnected = || format!("MCP server `{}` disconnected during the call", self.server);
        let request = if as_task {
            rmcp::model::ClientRequest::CustomRequest(rmcp::model::CustomRequest::new(
                "tools/call",
                Some(task_call_params(remote, arguments)),
            ))
        } else {
            let params =
                CallToolRequestParams::new(remote.to_owned()).with_arguments(arguments.clone());
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params))
        };
        let handle = link
            .peer
            .send_request_with_option(request, rmcp::service::PeerRequestOptions::no_options())
            .await
            .map_err(|_| disconnected())?;
        // Its progress reaches the call from here on; a dropped call (a
        // timeout, a cancelled turn) tells the server it is abandoned.
        let progress = self
            .progress
            .watch(handle.progress_token.clone(), cx.clone());
        let mut abandon = Abandon {
            peer: Some(handle.peer.clone()),
            id: handle.id.clone(),
            server: self.server.clone(),
            rx: Some(handle.rx),
            as_task,
        };
        let answer = loop {
            let deadline = clock.deadline();
            let Some(rx) = abandon.rx.as_mut() else {
                return Err(disconnected().into());
            };
            tokio::select! {
                answer = rx => break answer,
                () = link.closed.cancelled() => return Err(disconnected().into()),
                () = progress.heard() => clock.heard(),
                () = tokio::time::sleep_until(deadline) => {
                    return Err(clock.expired(deadline).of(&self.server).into());
                }
            }
        };
        abandon.disarm();
        match answer {
            Err(_) | Ok(Err(rmcp::ServiceError::TransportClosed)) => Err(disconnected().into()),
            Ok(Err(rmcp::ServiceError::McpError(error))) if needs_task(&error) => {
                Ok(Sent::NeedsTask)
            }
            Ok(Err(err)) => Err(format!("MCP server `{}`: {err}", self.server).into()),
            Ok(Ok(answer)) => Ok(Sent::Answer(Box::new(answer))),
        }
    }
}

/// What sending `tools/call` came to.
enum Sent {
    /// Boxed: a server result is large, and `NeedsTask` is nothing.
    Answer(Box<rmcp::model::ServerResult>),
    /// The server refused a plain call: the tool needs a task (2025-11-25).
    NeedsTask,
}

/// A 2025-11-25 server's refusal of a plain call to a tool that requires a
/// task. The SDKs answer it as "method not found" with a message that
/// says task augmentation (the TypeScript SDK's words); the code alone
/// would also match a server that does not know `tools/call`, so both are
/// read.
fn needs_task(error: &rmcp::ErrorData) -> bool {
    error.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND
        && error.message.to_ascii_lowercase().contains("task")
}

/// A call's time: it may go the call timeout without an answer, each sign
/// of life gives it that long again, and never past the hard limit.
pub(super) struct Clock {
    call_timeout: Duration,
    max_call_duration: Duration,
    hard_end: Instant,
    deadline: Instant,
}

/// A call ran out of time: `hard` when it was the hard limit.
pub(super) struct Expired {
    hard: bool,
    call_timeout: Duration,
    max_call_duration: Duration,
}

impl Clock {
    fn start(call_timeout: Duration, max_call_duration: Duration) -> Clock {
        let start = Instant::now();
        let hard_end = start + max_call_duration;
        Clock {
            call_timeout,
            max_call_duration,
            hard_end,
            deadline: (start + call_timeout).min(hard_end),
        }
    }

    /// Until when the call waits now.
    fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The server showed progress: the wait starts again.
    fn heard(&mut self) {
        self.deadline = (Instant::now() + self.call_timeout).min(self.hard_end);
    }

    /// Until when a request sent now may go unanswered.
    pub(super) fn answer_deadline(&self) -> Instant {
        (Instant::now() + self.call_timeout).min(self.hard_end)
    }

    /// Waits `pause`, or fails when the hard limit comes first.
    pub(super) async fn sleep(&self, pause: Duration) -> Result<(), Expired> {
        let until = Instant::now() + pause;
        if until >= self.hard_end {
            tokio::time::sleep_until(self.hard_end).await;
            return Err(self.expired(self.hard_end));
        }
        tokio::time::sleep_until(until).await;
        Ok(())
    }

    /// Why a wait until `deadline` ended the call.
    pub(super) fn expired(&self, deadline: Instant) -> Expired {
        Expired {
            hard: deadline >= self.hard_end,
            call_timeout: self.call_timeout,
            max_call_duration: self.max_call_duration,
        }
    }
}

impl Expired {
    /// The message, naming `server`.
    pub(super) fn of(&self, server: &str) -> String {
        if self.hard {
            format!(
                "MCP server `{server}` was still working after {:?}, the longest a call may take, progress and all",
                self.max_call_duration
            )
        } else {
            format!(
                "MCP server `{server}` did not answer within {:?}",
                self.call_timeout
            )
        }
    }
}

/// How long an abandoned call's answer is still awaited: it may be a task
/// the server started, to be cancelled.
const LATE_ANSWER_WAIT: Duration = Duration::from_secs(30);

/// Tells the server a call was abandoned, unless disarmed (the answer
/// came). An answer that comes later is still read: a task the server
/// started for the call just as it was abandoned is cancelled, not left
/// to run.
struct Abandon {
    peer: Option<Peer<RoleClient>>,
    id: rmcp::model::RequestId,
    server: String,
    rx: Option<
        tokio::sync::oneshot::Receiver<Result<rmcp::model::ServerResult, rmcp::ServiceError>>,
    >,
    /// The call asked for a task (2025-11-25): its answer, the task's
    /// handle, comes at once, and `tasks/cancel` is how it is stopped.
    /// `notifications/cancelled` would make the TypeScript SDK drop that
    /// answer and leave the task running to its TTL.
    as_task: bool,
}

impl Abandon {
    fn disarm(mut self) {
        self.peer = None;
    }
}

impl Drop for Abandon {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        let (id, server, rx) = (
            self.id.clone(),
            std::mem::take(&mut self.server),
            self.rx.take(),
        );
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let as_task = self.as_task;
        runtime.spawn(async move {
            let reason = Some("the caller stopped waiting".to_owned());
            let params = rmcp::model::CancelledNotificationParam::new(Some(id.clone()), reason);
            if !as_task {
                // The same `notifications/cancelled` on the wire, sent as
                // a custom notification: rmcp drops the waiting answer of
                // a request it sees cancelled through its own type, and
                // the answer may be a task the server started for the
                // call just before it heard, to be cancelled in turn.
                let wire = rmcp::model::CustomNotification::new(
                    "notifications/cancelled",
                    serde_json::to_value(&params).ok(),
                );
                let _ = peer
                    .send_notification(rmcp::model::ClientNotification::CustomNotification(wire))
                    .await;
            }
            if let Some(rx) = rx {
                match tokio::time::timeout(LATE_ANSWER_WAIT, rx).await {
                    Ok(Ok(Ok(answer))) => {
                        if let Some(task) = task_in(&answer) {
                            super::task::cancel(peer, server, task).await;
                        }
                        return;
                    }
                    Ok(_) => return,
                    // No answer: rmcp still waits for one. Its own
                    // cancellation lets it forget the request (a second
                    // notice of the same id, which a server ignores when
                    // it has already heard).
                    Err(_) => {}
                }
            }
            let notification = rmcp::model::CancelledNotification::new(params);
            let _ = peer.send_notification(notification.into()).await;
        });
    }
}

/// The calls in flight by progress token: where a server's progress
/// notifications go.
#[derive(Default)]
pub(super) struct ProgressRoutes {
    routes: Mutex<std::collections::HashMap<rmcp::model::ProgressToken, Route>>,
}

struct Route {
    cx: crate::declare::ToolContext,
    heard: Arc<tokio::sync::Notify>,
}

/// A call's registration in [`ProgressRoutes`], removed when dropped.
struct Watched<'a> {
    routes: &'a ProgressRoutes,
    token: rmcp::model::ProgressToken,
    heard: Arc<tokio::sync::Notify>,
}

impl Watched<'_> {
    /// Resolves when a progress notification arrives for the call.
    async fn heard(&self) {
        self.heard.notified().await;
    }
}

impl Drop for Watched<'_> {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.token);
    }
}

impl ProgressRoutes {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<rmcp::model::ProgressToken, Route>>
    {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn watch(
        &self,
        token: rmcp::model::ProgressToken,
        cx: crate::declare::ToolContext,
    ) -> Watched<'_> {
        let heard = Arc::new(tokio::sync::Notify::new());
        self.lock().insert(
            token.clone(),
            Route {
                cx,
                heard: Arc::clone(&heard),
            },
        );
        Watched {
            routes: self,
            token,
            heard,
        }
    }

    /// Passes a progress notification to its call; `false` when no call
    /// in flight has that token.
    pub(super) fn deliver(&self, params: &rmcp::model::ProgressNotificationParam) -> bool {
        let routes = self.lock();
        let Some(route) = routes.get(&params.progress_token) else {
            return false;
        };
        let amount = match params.total {
            Some(total) => format!("{}/{}", params.progress, total),
            None => format!("{}", params.progress),
        };
        let text = match &params.message {
            Some(message) => format!("{message} ({amount})"),
            None => amount,
        };
        route.cx.progress(text);
        route.heard.notify_one();
        true
    }
}

/// A result as blocks, nothing left out: each content block as it is
/// (see [`crate::mcp::content::from_mcp`]), then `structuredContent` as a
/// structured block unless a text block already is that JSON.
fn result_output(result: &CallToolResult) -> ToolOutput {
    let mut blocks: Vec<_> = result
        .content
        .iter()
        .map(crate::mcp::content::from_mcp)
        .collect();
    if let Some(structured) = &result.structured_content {
        let already = result.content.iter().any(|block| {
            block
                .as_text()
                .and_then(|t| serde_json::from_str::<Value>(&t.text).ok())
                .is_some_and(|value| &value == structured)
        });
        if !already {
            blocks.push(crate::declare::ContentBlock::Json(structured.clone()));
        }
    }
    ToolOutput::new(blocks)
}
