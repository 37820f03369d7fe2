//! Calling an imported tool over the live connection: the call timeout
//! that progress notifications extend up to a hard limit, telling the
//! server when a call is abandoned, routing progress to the call's
//! context, and turning the result into this crate's blocks.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::{Peer, RoleClient};
use serde_json::Value;

use super::Shared;
use super::sync::TASKS_REQUIRED;
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
        let disconnected = || format!("MCP server `{}` disconnected during the call", self.server);
        let params = CallToolRequestParams::new(remote.to_owned()).with_arguments(arguments);
        let request =
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params));
        let mut handle = link
            .peer
            .send_request_with_option(request, rmcp::service::PeerRequestOptions::no_options())
            .await
            .map_err(|_| disconnected())?;
        // Its progress reaches the call from here on; a dropped call (a
        // timeout, a cancelled turn) tells the server it is abandoned.
        let progress = self
            .progress
            .watch(handle.progress_token.clone(), cx.clone());
        let abandon = Abandon {
            peer: Some(handle.peer.clone()),
            id: handle.id.clone(),
        };
        let start = tokio::time::Instant::now();
        let hard_end = start + self.max_call_duration;
        let mut deadline = (start + self.call_timeout).min(hard_end);
        let answer = loop {
            tokio::select! {
                answer = &mut handle.rx => break answer,
                () = link.closed.cancelled() => return Err(disconnected().into()),
                () = progress.heard() => {
                    deadline = (tokio::time::Instant::now() + self.call_timeout).min(hard_end);
                }
                () = tokio::time::sleep_until(deadline) => {
                    return Err(if deadline >= hard_end {
                        format!(
                            "MCP server `{}` was still working after {:?}, the longest a call may take, progress and all",
                            self.server, self.max_call_duration
                        )
                    } else {
                        format!(
                            "MCP server `{}` did not answer within {:?}",
                            self.server, self.call_timeout
                        )
                    }
                    .into());
                }
            }
        };
        abandon.disarm();
        let result = match answer {
            Err(_) => return Err(disconnected().into()),
            Ok(Err(rmcp::ServiceError::TransportClosed)) => return Err(disconnected().into()),
            Ok(Err(err)) if err.to_string().contains("task augmentation") => {
                return Err(
                    format!("MCP server `{}`: this tool {TASKS_REQUIRED}", self.server).into(),
                );
            }
            Ok(Err(err)) => return Err(format!("MCP server `{}`: {err}", self.server).into()),
            Ok(Ok(rmcp::model::ServerResult::CallToolResult(result))) => result,
            Ok(Ok(rmcp::model::ServerResult::EmptyResult(_))) => {
                CallToolResult::success(Vec::new())
            }
            Ok(Ok(other)) => {
                let kind = serde_json::to_value(&other)
                    .ok()
                    .and_then(|v| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()))
                    .unwrap_or_default();
                return Err(format!(
                    "MCP server `{}` answered the call with something that is not a tool result (fields {kind:?}); tools that need the Tasks extension are not supported",
                    self.server
                )
                .into());
            }
        };
        let output = result_output(&result);
        if result.is_error == Some(true) {
            return Err(output.into_string().into());
        }

        Ok(output)
    }
}

/// Tells the server a call was abandoned, unless disarmed (the answer
/// came).
struct Abandon {
    peer: Option<Peer<RoleClient>>,
    id: rmcp::model::RequestId,
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
        let id = self.id.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let notification = rmcp::model::CancelledNotification::new(
                    rmcp::model::CancelledNotificationParam::new(
                        Some(id),
                        Some("the caller stopped waiting".to_owned()),
                    ),
                );
                let _ = peer.send_notification(notification.into()).await;
            });
        }
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
