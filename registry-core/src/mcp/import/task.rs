//! Following a call the server runs as a task, to its end: the Tasks
//! extension in both of its revisions.
//!
//! - **2026-07-28** (`io.modelcontextprotocol/tasks`, SEP-2663): this
//!   client declares the extension, so a server may answer any
//!   `tools/call` with a task (`resultType: "task"`). `tasks/get` is polled
//!   until the task is terminal; a completed task carries its result.
//! - **2025-11-25** (SEP-1686): a tool lists `execution.taskSupport:
//!   "required"`, and the call itself asks for a task (`params.task`). The
//!   server answers `{ "task": {...} }`; `tasks/get` is polled for the
//!   status, and `tasks/result` fetches the result once it is terminal.
//!
//! Either way, each status message the server sets reaches the call's
//! context as progress (`ExecEvent::Progress`). Every poll must be
//! answered within the call timeout (a task polled and answered is alive,
//! however long it works), and the whole call, task and all, within the
//! hard limit ([`McpServerConfig::max_call_duration`](super::McpServerConfig::max_call_duration)). A call that stops waiting (dropped by
//! its turn, timed out, its connection lost) cancels its task
//! (`tasks/cancel`), so the server stops the work nobody will read.

use std::time::Duration;

use rmcp::model::{CallToolResult, ClientRequest, CustomRequest, ServerResult};
use rmcp::{Peer, RoleClient};
use serde_json::{Value, json};

use super::call::Clock;
use super::{Link, Shared};
use crate::declare::builder::BoxError;

/// How long a task is asked to be kept after it ends (its TTL): long
/// enough to fetch the result after the last poll.
const TASK_TTL: Duration = Duration::from_secs(300);

/// Polling is never faster than this, whatever the server suggests...
const MIN_POLL: Duration = Duration::from_millis(50);
/// ...nor slower than this: a status message is never older than this.
const MAX_POLL: Duration = Duration::from_secs(5);
/// When the server suggests nothing.
const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// The two revisions of the extension, which differ in how a task is
/// polled and how its result is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Revision {
    /// SEP-1686: `tasks/get` gives the status, `tasks/result` the result.
    V2025,
    /// SEP-2663: `tasks/get` gives the status and, once completed, the
    /// result.
    V2026,
}

/// A task the server created for a call.
#[derive(Debug)]
pub(super) struct RemoteTask {
    pub(super) id: String,
    pub(super) revision: Revision,
    poll: Duration,
}

/// What one poll learnt.
enum Polled {
    Running {
        status: String,
        message: Option<String>,
    },
    /// Terminal; the result when it came with the status.
    Done {
        result: Option<Value>,
    },
    Failed(String),
    Cancelled(Option<String>),
}

/// The `params` of a 2025-11-25 `tools/call` that asks for a task.
pub(super) fn task_call_params(remote: &str, arguments: &serde_json::Map<String, Value>) -> Value {
    json!({
        "name": remote,
        "arguments": arguments,
        "task": { "ttl": TASK_TTL.as_millis() as u64 },
    })
}

/// The task in an answer to `tools/call`, if the answer is one: rmcp's
/// 2026 `CreateTaskResult`, or a 2025 `{ "task": {...} }` that rmcp
/// reads as a custom result.
pub(super) fn task_in(answer: &ServerResult) -> Option<RemoteTask> {
    match answer {
        ServerResult::CreateTaskResult(created) => Some(RemoteTask {
            id: created.task.task_id.clone(),
            revision: Revision::V2026,
            poll: poll_interval(created.task.poll_interval_ms),
        }),
        ServerResult::CustomResult(custom) => {
            let task = custom.0.get("task")?;
            let id = task.get("taskId")?.as_str()?.to_owned();
            Some(RemoteTask {
                id,
                revision: Revision::V2025,
                poll: poll_interval(task.get("pollInterval").and_then(Value::as_u64)),
            })
        }
        _ => None,
    }
}

fn poll_interval(suggested: Option<u64>) -> Duration {
    suggested
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}

impl Shared {
    /// Polls `task` until it ends and returns its result; the status
    /// messages on the way are the call's progress. The task is cancelled
    /// on the server if this future is dropped or fails first.
    pub(super) async fn follow_task(
        &self,
        link: &Link,
        task: RemoteTask,
        cx: &crate::declare::ToolContext,
        clock: &Clock,
    ) -> Result<CallToolResult, BoxError> {
        let cancel = CancelOnDrop {
            peer: Some(link.peer.clone()),
            server: self.server.clone(),
            id: task.id.clone(),
            revision: task.revision,
        };
        let mut last_said: Option<(String, Option<String>)> = None;
        let result = loop {
            let polled = self
                .ask(link, clock, get_request(&task), "tasks/get")
                .await?;
            let status = read_status(task.revision, polled)
                .map_err(|why| format!("MCP server `{}`: {why}", self.server))?;
            match status {
                Polled::Running { status, message } => {
                    let said = (status, message);
                    if last_said.as_ref() != Some(&said) {
                        let text = match &said.1 {
                            Some(message) => format!("{message} ({})", said.0),
                            None => said.0.clone(),
                        };
                        cx.progress(text);
                        last_said = Some(said);
                    }
                }
                Polled::Done {
                    result: Some(result),
                } => break result,
                Polled::Done { result: None } => {
                    let answer = self
                        .ask(link, clock, result_request(&task), "tasks/result")
                        .await?;
                    break serde_json::to_value(answer).unwrap_or(Value::Null);
                }
                // A 2025-11-25 task fails when its tool's result is an
                // error; that result, the tool's own words, is what
                // `tasks/result` gives.
                Polled::Failed(_) if task.revision == Revision::V2025 => {
                    cancel.disarm();
                    let answer = self
                        .ask(link, clock, result_request(&task), "tasks/result")
                        .await;
                    if let Ok(ServerResult::CallToolResult(result)) = answer {
                        return Ok(result);
                    }
                    let why = answer
                        .err()
                        .map_or_else(|| "no reason given".to_owned(), |e| e.to_string());
                    return Err(format!(
                        "MCP server `{}`: the task running this call failed: {why}",
                        self.server
                    )
                    .into());
                }
                Polled::Failed(why) => {
                    cancel.disarm();
                    return Err(format!(
                        "MCP server `{}`: the task running this call failed: {why}",
                        self.server
                    )
                    .into());
                }
                Polled::Cancelled(why) => {
                    cancel.disarm();
                    return Err(format!(
                        "MCP server `{}` cancelled the task running this call{}",
                        self.server,
                        why.map(|why| format!(": {why}")).unwrap_or_default()
                    )
                    .into());
                }
            }
            clock
                .sleep(task.poll)
                .await
                .map_err(|err| err.of(&self.server))?;
        };
        cancel.disarm();
        serde_json::from_value::<CallToolResult>(result).map_err(|err| {
            format!(
                "MCP server `{}` ended the task with something that is not a tool result: {err}",
                self.server
            )
            .into()
        })
    }

    /// One request of the task's life, answered within the call's clock.
    async fn ask(
        &self,
        link: &Link,
        clock: &Clock,
        request: ClientRequest,
        what: &str,
    ) -> Result<ServerResult, BoxError> {
        let disconnected = || format!("MCP server `{}` disconnected during the call", self.server);
        let handle = link
            .peer
            .send_request_with_option(request, rmcp::service::PeerRequestOptions::no_options())
            .await
            .map_err(|_| disconnected())?;
        let deadline = clock.answer_deadline();
        tokio::select! {
            answer = handle.rx => match answer {
                Ok(Ok(result)) => Ok(result),
                Ok(Err(rmcp::ServiceError::McpError(error))) => Err(format!(
                    "MCP server `{}` refused `{what}` for the call's task: {} (code {})",
                    self.server, error.message, error.code.0
                )
                .into()),
                Ok(Err(rmcp::ServiceError::TransportClosed)) | Err(_) => Err(disconnected().into()),
                Ok(Err(err)) => Err(format!("MCP server `{}`: `{what}` failed: {err}", self.server).into()),
            },
            () = link.closed.cancelled() => Err(disconnected().into()),
            () = tokio::time::sleep_until(deadline) => Err(clock.expired(deadline).of(&self.server).into()),
        }
    }
}

fn get_request(task: &RemoteTask) -> ClientRequest {
    match task.revision {
        Revision::V2026 => ClientRequest::GetTaskRequest(rmcp::model::GetTaskRequest::new(
            rmcp::model::GetTaskParams::new(task.id.clone()),
        )),
        Revision::V2025 => custom("tasks/get", &task.id),
    }
}

fn result_request(task: &RemoteTask) -> ClientRequest {
    custom("tasks/result", &task.id)
}

fn custom(method: &str, id: &str) -> ClientRequest {
    ClientRequest::CustomRequest(CustomRequest::new(method, Some(json!({ "taskId": id }))))
}

/// Why a task that asks for input ends its call.
const INPUT_REQUIRED: &str =
    "the task asked for input (`input_required`), which an imported tool cannot give";

/// The status in an answer to `tasks/get`, whichever way rmcp read it
/// (a 2025 answer may fit rmcp's 2026 type, or be a custom result).
fn read_status(revision: Revision, answer: ServerResult) -> Result<Polled, BoxError> {
    if let ServerResult::GetTaskResult(got) = &answer {
        use rmcp::model::TaskPayload;
        let message = got.task.task.status_message.clone();
        return Ok(match &got.task.payload {
            TaskPayload::Completed { result } if revision == Revision::V2026 => Polled::Done {
                result: Some(Value::Object(result.clone())),
            },
            TaskPayload::Completed { .. } => Polled::Done { result: None },
            TaskPayload::Failed { error } => Polled::Failed(
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| Value::Object(error.clone()).to_string(), str::to_owned),
            ),
            TaskPayload::Cancelled => Polled::Cancelled(message),
            // Answering in-task questions (`tasks/update`) needs a person
            // behind this client; nobody is. Saying so ends the call now
            // instead of at its timeout.
            TaskPayload::InputRequired { .. } => return Err(INPUT_REQUIRED.into()),
            _ => Polled::Running {
                status: "working".to_owned(),
                message,
            },
        });
    }
    let value = serde_json::to_value(&answer).unwrap_or(Value::Null);
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    let message = text("statusMessage");
    Ok(match text("status").as_deref() {
        Some("completed") => Polled::Done {
            result: value.get("result").cloned(),
        },
        Some("failed") => Polled::Failed(message.unwrap_or_else(|| "no reason given".to_owned())),
        Some("cancelled") => Polled::Cancelled(message),
        Some("input_required") => return Err(INPUT_REQUIRED.into()),
        Some(status) => Polled::Running {
            status: status.to_owned(),
            message,
        },
        None => return Err(format!("`tasks/get` answered without a status: {value}").into()),
    })
}

/// Cancels the task on the server unless disarmed (the task ended by
/// itself).
struct CancelOnDrop {
    peer: Option<Peer<RoleClient>>,
    server: String,
    id: String,
    revision: Revision,
}

impl CancelOnDrop {
    fn disarm(mut self) {
        self.peer = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        let task = RemoteTask {
            id: std::mem::take(&mut self.id),
            revision: self.revision,
            poll: DEFAULT_POLL,
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(cancel(peer, std::mem::take(&mut self.server), task));
        }
    }
}

/// Asks the server to cancel `task` (`tasks/cancel`), and logs what it
/// answered.
pub(super) async fn cancel(peer: Peer<RoleClient>, server: String, task: RemoteTask) {
    let id = task.id;
    let request = match task.revision {
        Revision::V2026 => ClientRequest::CancelTaskRequest(rmcp::model::CancelTaskRequest::new(
            rmcp::model::CancelTaskParams::new(id.clone()),
        )),
        Revision::V2025 => custom("tasks/cancel", &id),
    };
    match tokio::time::timeout(MAX_POLL, peer.send_request(request)).await {
        Ok(Ok(answer)) => {
            let status = serde_json::to_value(&answer)
                .ok()
                .and_then(|v| v.get("status").and_then(Value::as_str).map(str::to_owned));
            tracing::info!(%server, task = %id, status = status.as_deref().unwrap_or("acknowledged"), "MCP task cancelled: the call stopped waiting");
        }
        Ok(Err(err)) => {
            tracing::warn!(%server, task = %id, %err, "MCP task could not be cancelled");
        }
        Err(_) => {
            tracing::warn!(%server, task = %id, "MCP task cancel was not answered");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_2025_task_answer_is_read_from_the_custom_result() {
        let answer = ServerResult::CustomResult(rmcp::model::CustomResult(json!({
            "task": { "taskId": "t-1", "status": "working", "pollInterval": 1, "createdAt": "x", "lastUpdatedAt": "x", "ttl": 5 }
        })));
        let task = task_in(&answer).unwrap();
        assert_eq!(task.id, "t-1");
        assert_eq!(task.revision, Revision::V2025);
        assert_eq!(task.poll, MIN_POLL, "a 1 ms suggestion is clamped");
        let plain = ServerResult::CustomResult(rmcp::model::CustomResult(json!({ "other": 1 })));
        assert!(task_in(&plain).is_none());
    }

    #[test]
    fn statuses_read_the_same_from_either_shape() {
        let custom = |v: Value| ServerResult::CustomResult(rmcp::model::CustomResult(v));
        let read = |v| read_status(Revision::V2025, custom(v));
        assert!(matches!(
            read(json!({"status": "working", "statusMessage": "Gathering"})).unwrap(),
            Polled::Running { message: Some(m), .. } if m == "Gathering"
        ));
        assert!(matches!(
            read(json!({"status": "completed"})).unwrap(),
            Polled::Done { result: None }
        ));
        assert!(matches!(
            read(json!({"status": "failed", "statusMessage": "boom"})).unwrap(),
            Polled::Failed(m) if m == "boom"
        ));
        assert!(matches!(
            read(json!({"status": "cancelled"})).unwrap(),
            Polled::Cancelled(None)
        ));
        let err = read(json!({"status": "input_required"}))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("input"), "{err}");
        let err = read(json!({"nothing": true})).err().unwrap().to_string();
        assert!(err.contains("without a status"), "{err}");
    }
}
