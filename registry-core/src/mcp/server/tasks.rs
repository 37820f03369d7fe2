//! Serving a long-running tool as a task: the 2026-07-28 Tasks extension
//! (`io.modelcontextprotocol/tasks`, SEP-2663) on the serving side.
//!
//! A call is run as a task when the tool is declared
//! [`long_running`](crate::declare::ToolSpec::long_running) and the request
//! declares the extension; the client gets a task handle at once and polls
//! `tasks/get` for its status and, at the end, its result. Any other
//! client (a 2025-11-25 session, a client without the extension) gets an
//! ordinary call, the same call.
//!
//! What runs in the task is the ordinary call, attempt for attempt: the
//! executor's whole pipeline, the session record, approvals. A call that
//! asks the client's user (an `input_required` result when served plainly)
//! asks through the task instead: the task reports `input_required` with
//! the same questions, the client answers with `tasks/update`, and the call
//! is tried again with the answers, exactly as a plain retry would carry
//! them. `tasks/cancel` drops the call, which cancels the tool. What the
//! tool reports as progress is the task's status message, which the
//! client reads with `tasks/get`.
//!
//! Tasks live in the memory of the process that started them, so a server
//! whose conversations are shared between replicas
//! ([`McpServer::with_session_store`](crate::mcp::McpServer::with_session_store))
//! serves every call plainly: a task polled through another replica would
//! be unknown there.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CreateTaskResult, InputResponses,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::Connection;
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};

/// How long a task is kept (its TTL, from its creation): the longest a
/// long-running call may take, and then as long again for its result to be
/// read. rmcp marks a task still running after it as failed.
pub(crate) const TASK_TTL: Duration = Duration::from_secs(60 * 60);

/// What a client is told to wait between polls.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// A task its client never asks about (`tasks/get`, `tasks/update`,
/// `tasks/cancel`) this long after creating it is cancelled: the client
/// never got its handle. That happens when the client gives up on the call
/// just as the server answers it (rmcp drops an answer to a request the
/// client has cancelled), and a task nobody can name would otherwise run
/// to its TTL. Clients are told to poll every [`POLL_INTERVAL`].
const ORPHAN_GRACE: Duration = Duration::from_secs(10);

/// How many rounds of questions one task's call may ask before it fails:
/// the same cap a client puts on a plain call's retries.
const MAX_ROUNDS: usize = 8;

/// Who may ask about a task: whoever started it. A task is named by an
/// id nobody can guess (a v4 UUID), and bound besides to the HTTP session
/// and the authenticated caller (bearer token) of the request that
/// started it, when there are: another session or caller is told the task
/// does not exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Owner {
    session: Option<String>,
    caller: Option<String>,
}

impl Owner {
    pub(crate) fn of(context: &RequestContext<RoleServer>) -> Owner {
        Owner {
            session: crate::mcp::shared::session_id(context),
            caller: crate::mcp::shared::caller_of(context).map(|caller| caller.0),
        }
    }
}

/// What this server keeps of a task besides rmcp's record of it.
struct Entry {
    owner: Owner,
    /// Its client asked about it at least once.
    asked: bool,
}

/// The tasks this server runs.
#[derive(Clone, Default)]
pub(crate) struct ServedTasks {
    manager: TaskManager,
    /// Every task rmcp still keeps, by id (entries of tasks rmcp has
    /// forgotten are swept when a task starts, so this holds no more than
    /// rmcp does).
    entries: Arc<Mutex<HashMap<String, Entry>>>,
}

impl ServedTasks {
    /// Starts `params` as a task of `owner` whose every attempt is
    /// `attempt`, and answers with its handle.
    pub(crate) fn start<F, Fut>(
        &self,
        owner: Owner,
        params: CallToolRequestParams,
        attempt: F,
    ) -> CreateTaskResult
    where
        F: Fn(CallToolRequestParams, TaskContext) -> Fut + Send + 'static,
        Fut: Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'static,
    {
        let options = TaskOptions::new()
            .with_ttl_ms(TASK_TTL.as_millis() as u64)
            .with_poll_interval_ms(POLL_INTERVAL.as_millis() as u64)
            .with_status_message(format!("running `{}`", params.name));
        let task = self.manager.spawn(options, move |cx| {
            Box::pin(async move { run(cx, params, attempt).await })
        });
        {
            let mut entries = self.entries();
            entries.retain(|id, _| self.manager.get_task(id).is_ok());
            entries.insert(
                task.task_id.clone(),
                Entry {
                    owner,
                    asked: false,
                },
            );
        }
        let (id, tasks) = (task.task_id.clone(), self.clone());
        tokio::spawn(async move {
            tokio::time::sleep(ORPHAN_GRACE).await;
            let asked = tasks.entries().get(&id).is_none_or(|entry| entry.asked);
            if !asked {
                tracing::warn!(task = %id, "MCP task never asked about: its client never got its handle; cancelled");
                let _ = tasks.manager.cancel_task(&id);
            }
        });
        CreateTaskResult::new(task)
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `id`, when `owner` may ask about it (noted as asked); else the
    /// error for a task that does not exist.
    fn owned(&self, id: &str, owner: &Owner) -> Result<(), ErrorData> {
        match self.entries().get_mut(id) {
            Some(entry) if entry.owner == *owner => {
                entry.asked = true;
                Ok(())
            }
            _ => Err(ErrorData::invalid_params(
                format!("no task `{id}`: it never existed, has expired, or is another client's"),
                None,
            )),
        }
    }

    /// `tasks/get`.
    pub(crate) fn get(
        &self,
        id: &str,
        owner: &Owner,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        self.owned(id, owner)?;
        self.manager
            .get_task(id)
            .map(rmcp::model::GetTaskResult::new)
    }

    /// `tasks/update`: the client's answers to the questions the task asks.
    pub(crate) fn update(
        &self,
        id: &str,
        owner: &Owner,
        answers: InputResponses,
    ) -> Result<(), ErrorData> {
        self.owned(id, owner)?;
        self.manager.update_task(id, answers)
    }

    /// `tasks/cancel`: the call is dropped, which cancels its tool.
    pub(crate) fn cancel(&self, id: &str, owner: &Owner) -> Result<(), ErrorData> {
        self.owned(id, owner)?;
        self.manager.cancel_task(id)
    }
}

impl Connection {
    /// Whether this call runs as a task (see this module): its tool is
    /// declared long-running, the request declared the Tasks extension,
    /// and no other replica could be asked for the task.
    pub(super) fn runs_as_task(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> bool {
        self.server.settings.shared.is_none()
            && context.extensions.get::<InTask>().is_none()
            && context
                .client_capabilities()
                .is_some_and(|caps| caps.supports_tasks())
            && self
                .server
                .view()
                .pool
                .get(&request.name)
                .is_some_and(|tool| tool.spec().long_running())
    }

    /// Starts the call as a task whose every attempt is what `call_tool`
    /// does for a plain call, on a twin of this connection (its session
    /// and approver, shared) that lives as long as the task. A
    /// conversation handle the first attempt hands out is carried by the
    /// next, as a client's retry would carry it.
    pub(super) fn start_task(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> rmcp::model::CreateTaskResult {
        let twin = Arc::new(Connection {
            session: Arc::clone(&self.session),
            approver: self.approver.clone(),
            ..self.server.connection_over(self.sessions.clone())
        });
        twin.initialized.store(true, Ordering::SeqCst);
        let handle = Arc::new(Mutex::new(None::<Value>));
        let owner = Owner::of(&context);
        self.server
            .shared
            .tasks
            .start(owner, request, move |params, task| {
                let (twin, handle) = (Arc::clone(&twin), Arc::clone(&handle));
                let mut context = context.clone();
                // The request that started the task has been answered; the
                // task's own cancellation is delivered by `run`.
                context.ct = CancellationToken::new();
                // An attempt is the plain call, never a task of its own,
                // and what its tool reports is the task's status.
                context.extensions.insert(InTask(task));
                // Nor does it report progress to a request already
                // answered: the client follows the task's status instead.
                context.meta.remove("progressToken");
                async move {
                    let known = handle
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .clone();
                    if let Some(known) = known {
                        context
                            .meta
                            .insert(crate::mcp::shared::CONVERSATION_META_KEY.to_owned(), known);
                    }
                    let response = twin.call_tool(params, context).await?;
                    let meta = match &response {
                        CallToolResponse::Complete(result) => result.meta.as_ref(),
                        CallToolResponse::InputRequired(asking) => asking.meta.as_ref(),
                        _ => None,
                    };
                    if let Some(given) =
                        meta.and_then(|m| m.0.get(crate::mcp::shared::CONVERSATION_META_KEY))
                    {
                        *handle.lock().unwrap_or_else(PoisonError::into_inner) =
                            Some(given.clone());
                    }
                    Ok(response)
                }
            })
    }
}

/// Marks a request that is an attempt of a task's call, with the task.
#[derive(Clone)]
struct InTask(TaskContext);

/// The task a request is an attempt of, if it is one.
pub(super) fn task_of(context: &RequestContext<RoleServer>) -> Option<TaskContext> {
    context
        .extensions
        .get::<InTask>()
        .map(|InTask(task)| task.clone())
}

/// Runs `call` as a turn of `executor`, each progress its tool reports
/// becoming `task`'s status message (what the client's `tasks/get` shows).
pub(super) async fn run_reporting(
    executor: &crate::execute::Executor,
    call: crate::execute::ToolCall,
    task: Option<TaskContext>,
) -> Option<crate::execute::ToolCallResult> {
    let (events, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let forward = async move {
        while let Some(event) = heard.recv().await {
            if let (crate::execute::ExecEvent::Progress { message, .. }, Some(task)) =
                (event, &task)
            {
                task.set_status_message(message);
            }
        }
    };
    let turn = executor.run_turn_streaming(vec![call], events);
    let (mut results, ()) = tokio::join!(turn, forward);
    results.pop()
}

/// One task: the call tried, and tried again with the answers to what it
/// asked, until it ends or is cancelled.
async fn run<F, Fut>(
    cx: TaskContext,
    mut params: CallToolRequestParams,
    attempt: F,
) -> Result<CallToolResult, TaskExit>
where
    F: Fn(CallToolRequestParams, TaskContext) -> Fut,
    Fut: Future<Output = Result<CallToolResponse, ErrorData>>,
{
    for _ in 0..MAX_ROUNDS {
        let response = tokio::select! {
            response = attempt(params.clone(), cx.clone()) => response,
            () = cx.cancelled() => return Err(TaskExit::Cancelled),
        };
        let asking = match response.map_err(TaskExit::Error)? {
            CallToolResponse::Complete(result) => return Ok(result),
            CallToolResponse::InputRequired(asking) => asking,
            // An attempt is an ordinary call: it never starts a task.
            other => {
                return Err(TaskExit::Error(ErrorData::internal_error(
                    format!("the call answered its task with {other:?}"),
                    None,
                )));
            }
        };
        cx.set_status_message("waiting for the user's answer");
        let mut answers = InputResponses::new();
        for (key, question) in asking.input_requests.unwrap_or_default() {
            let answer = tokio::select! {
                answer = cx.request_input(key.clone(), question) => answer?,
                () = cx.cancelled() => return Err(TaskExit::Cancelled),
            };
            answers.insert(key, answer);
        }
        cx.set_status_message(format!("running `{}`", params.name));
        params.input_responses = Some(answers);
        params.request_state = asking.request_state;
    }
    Err(TaskExit::Error(ErrorData::internal_error(
        format!(
            "the call of `{}` asked {MAX_ROUNDS} rounds of questions without ending",
            params.name
        ),
        None,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ContentBlock, InputRequiredResult, TaskPayload, TaskStatus};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn owner() -> Owner {
        Owner {
            session: Some("s-1".to_owned()),
            caller: Some("alice".to_owned()),
        }
    }

    #[tokio::test]
    async fn another_session_or_caller_is_told_the_task_does_not_exist() {
        let tasks = ServedTasks::default();
        let forever = |_, _| std::future::pending::<Result<CallToolResponse, ErrorData>>();
        let id = tasks
            .start(owner(), CallToolRequestParams::new("mine"), forever)
            .task
            .task_id;
        for other in [
            Owner {
                session: Some("s-2".to_owned()),
                ..owner()
            },
            Owner {
                caller: Some("mallory".to_owned()),
                ..owner()
            },
            Owner {
                session: None,
                caller: None,
            },
        ] {
            let err = tasks.get(&id, &other).unwrap_err();
            assert!(err.message.contains("no task"), "{}", err.message);
            assert!(tasks.cancel(&id, &other).is_err());
            assert!(tasks.update(&id, &other, InputResponses::new()).is_err());
        }
        assert_eq!(
            tasks.get(&id, &owner()).unwrap().task.status(),
            TaskStatus::Working
        );
        let err = tasks.get("made-up", &owner()).unwrap_err();
        assert!(err.message.contains("`made-up`"), "{}", err.message);
    }

    async fn settled(tasks: &ServedTasks, id: &str) -> rmcp::model::DetailedTask {
        for _ in 0..500 {
            let task = tasks.get(id, &owner()).unwrap().task;
            if task.status().is_terminal() {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("task {id} never settled");
    }

    #[tokio::test]
    async fn a_task_ends_with_its_calls_result() {
        let tasks = ServedTasks::default();
        let created = tasks.start(owner(), CallToolRequestParams::new("slow"), |_, _| async {
            Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text("done"),
            ])))
        });
        let task = settled(&tasks, &created.task.task_id).await;
        let TaskPayload::Completed { result } = task.payload else {
            panic!("{task:?}");
        };
        assert_eq!(result["content"][0]["text"], "done");
    }

    #[tokio::test]
    async fn cancelling_a_task_drops_its_call() {
        let tasks = ServedTasks::default();
        let dropped = Arc::new(AtomicUsize::new(0));
        struct Count(Arc<AtomicUsize>);
        impl Drop for Count {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let counter = Arc::clone(&dropped);
        let created = tasks.start(
            owner(),
            CallToolRequestParams::new("forever"),
            move |_, _| {
                let count = Count(Arc::clone(&counter));
                async move {
                    let _count = count;
                    std::future::pending::<Result<CallToolResponse, ErrorData>>().await
                }
            },
        );
        let id = created.task.task_id;
        tokio::time::sleep(Duration::from_millis(20)).await;
        tasks.cancel(&id, &owner()).unwrap();
        let task = settled(&tasks, &id).await;
        assert_eq!(task.status(), TaskStatus::Cancelled);
        assert_eq!(dropped.load(Ordering::SeqCst), 1, "the call was dropped");
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_nobody_asks_about_is_cancelled_and_one_polled_lives_on() {
        let tasks = ServedTasks::default();
        let forever = |_, _| std::future::pending::<Result<CallToolResponse, ErrorData>>();
        let orphan = tasks
            .start(owner(), CallToolRequestParams::new("lost"), forever)
            .task
            .task_id;
        let polled = tasks
            .start(owner(), CallToolRequestParams::new("kept"), forever)
            .task
            .task_id;
        tasks.get(&polled, &owner()).unwrap();
        tokio::time::sleep(ORPHAN_GRACE + Duration::from_secs(1)).await;
        let status = |id: &str| tasks.manager.get_task(id).unwrap().status();
        assert_eq!(status(&orphan), TaskStatus::Cancelled);
        assert_eq!(status(&polled), TaskStatus::Working);
    }

    #[tokio::test]
    async fn a_question_is_asked_through_the_task_and_its_answer_retries_the_call() {
        let tasks = ServedTasks::default();
        let created = tasks.start(owner(), CallToolRequestParams::new("asks"), |params, _| async move {
            Ok(match params.input_responses {
                None => {
                    let question: rmcp::model::InputRequest = serde_json::from_value(
                        serde_json::json!({
                            "method": "elicitation/create",
                            "params": {"mode": "form", "message": "Allow?", "requestedSchema": {"type": "object", "properties": {}}}
                        }),
                    )
                    .unwrap();
                    CallToolResponse::InputRequired(InputRequiredResult::new(
                        Some([("approve".to_owned(), question)].into_iter().collect()),
                        Some("state-1".to_owned()),
                    ))
                }
                Some(answers) => {
                    assert_eq!(params.request_state.as_deref(), Some("state-1"));
                    CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(
                        answers["approve"]["action"].as_str().unwrap_or("none").to_owned(),
                    )]))
                }
            })
        });
        let id = created.task.task_id;
        let mut asked = false;
        for _ in 0..500 {
            let task = tasks.get(&id, &owner()).unwrap().task;
            if let TaskPayload::InputRequired { input_requests } = &task.payload {
                assert!(input_requests.contains_key("approve"));
                asked = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(asked, "the task never asked");
        tasks
            .update(
                &id,
                &owner(),
                [(
                    "approve".to_owned(),
                    serde_json::json!({"action": "accept"}),
                )]
                .into_iter()
                .collect(),
            )
            .unwrap();
        let task = settled(&tasks, &id).await;
        let TaskPayload::Completed { result } = task.payload else {
            panic!("{task:?}");
        };
        assert_eq!(result["content"][0]["text"], "accept");
    }
}
