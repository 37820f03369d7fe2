//! The Tasks extension both ways, between our own server and our own
//! import: a tool declared long-running is served as a task to the import
//! (which declares the extension), followed to its end, cancelled when the
//! import's call is dropped, and served plainly when replicas share the
//! conversations. The same paths against clients and servers nobody here
//! wrote are `examples/tests/it/mcp_python.rs` (the Python SDK calls our
//! task) and `mcp_node.rs` (server-everything's task tool imported).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use registry_core::execute::ExecEvent;
use registry_core::session::{MemorySessionStore, StoreLimits};
use registry_core::{Executor, PermissionMode, ToolBuilder, ToolCall, ToolHandle, ToolOutput};
use serde_json::json;

use crate::mcp_support::served;

/// A long-running tool that works in three steps of 300 ms, saying so.
fn slow() -> ToolHandle {
    ToolBuilder::new("slow", "Works in three steps.")
        .long_running()
        .build(|_, cx| {
            let cx = cx.clone();
            async move {
                for step in 1..=3 {
                    cx.progress(format!("step {step}"));
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
                Ok(ToolOutput::text("worked"))
            }
        })
        .unwrap()
}

async fn call(executor: &Executor, tool: &str) -> (registry_core::ToolCallResult, Vec<String>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let result = executor
        .run_turn_streaming(vec![ToolCall::new("c", tool, json!({}))], tx)
        .await
        .pop()
        .unwrap();
    let mut progress = Vec::new();
    while let Ok(event) = rx.try_recv() {
        if let ExecEvent::Progress { message, .. } = event {
            progress.push(message);
        }
    }
    (result, progress)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_running_tool_is_a_task_followed_to_its_end() {
    // The call timeout is shorter than the tool's work, with no progress
    // notification to extend it: only a task, whose polls are answered,
    // lives to the end.
    let (_import, executor) = served(
        slow(),
        PermissionMode::Bypass,
        |s| s,
        |c| {
            c.call_timeout(Duration::from_millis(200))
                .max_call_duration(Duration::from_secs(10))
        },
    )
    .await;
    let (result, progress) = call(&executor, "mcp__back__slow").await;
    assert!(!result.is_error(), "{}", result.content());
    assert_eq!(result.content(), "worked");
    // The tool's own progress is the task's status, as the import saw it
    // polling (every 500 ms, as the server asks: a step or two of three).
    assert!(
        progress
            .iter()
            .any(|p| p.starts_with("step ") && p.ends_with("(working)")),
        "{progress:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_imported_call_cancels_the_served_task_and_its_tool() {
    static STARTED: AtomicBool = AtomicBool::new(false);
    static DROPPED: AtomicBool = AtomicBool::new(false);
    struct Flag;
    impl Drop for Flag {
        fn drop(&mut self) {
            DROPPED.store(true, Ordering::SeqCst);
        }
    }
    let forever = ToolBuilder::new("forever", "Never ends by itself.")
        .long_running()
        .build(|_, _| async move {
            let _flag = Flag;
            STARTED.store(true, Ordering::SeqCst);
            std::future::pending::<()>().await;
            Ok(ToolOutput::text("unreachable"))
        })
        .unwrap();
    let (_import, executor) = served(forever, PermissionMode::Bypass, |s| s, |c| c).await;
    let turn = executor.run_turn(vec![ToolCall::new("c", "mcp__back__forever", json!({}))]);
    tokio::select! {
        _ = turn => panic!("the call ended by itself"),
        () = async {
            while !STARTED.load(Ordering::SeqCst) {
                tokio::task::yield_now().await;
            }
        } => {}
    }
    // The turn is dropped the moment the tool starts, often before the
    // task's handle reached the import, which then reads it from the
    // abandoned call's late answer and cancels it; or, when the cancel of
    // the call reached the server before its answer left (rmcp then drops
    // the answer), the server cancels the task nobody polls after its
    // grace (10 s). Either way the task drops the call, which drops the
    // tool's future.
    let start = std::time::Instant::now();
    while !DROPPED.load(Ordering::SeqCst) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the served tool was never dropped"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_shared_conversations_a_long_running_tool_is_served_plainly() {
    // A task lives in one process's memory; another replica could not
    // answer for it, so a server sharing its conversations runs the call
    // plainly (the short call timeout, extended by the tool's own
    // progress, shows it is not polled).
    let store = Arc::new(MemorySessionStore::new());
    let (_import, executor) = served(
        slow(),
        PermissionMode::Bypass,
        |s| s.with_session_store(store, StoreLimits::default()),
        |c| {
            c.call_timeout(Duration::from_secs(5))
                .max_call_duration(Duration::from_secs(10))
        },
    )
    .await;
    let (result, progress) = call(&executor, "mcp__back__slow").await;
    assert!(!result.is_error(), "{}", result.content());
    assert_eq!(result.content(), "worked");
    assert!(
        !progress.iter().any(|p| p.contains("working")),
        "served as a task: {progress:?}"
    );
    assert!(
        progress.iter().any(|p| p.contains("step 1")),
        "{progress:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_runs_the_plain_calls_pipeline_an_ask_nobody_answers_is_refused() {
    // The served side's default mode asks before a call that may write,
    // and this server has nobody to ask: run as a task, the call is
    // refused exactly as a plain call would be, and the tool never runs.
    static RAN: AtomicBool = AtomicBool::new(false);
    let writes = ToolBuilder::new("writes", "May write.")
        .long_running()
        .build(|_, _| async move {
            RAN.store(true, Ordering::SeqCst);
            Ok(ToolOutput::text("wrote"))
        })
        .unwrap();
    let (_import, executor) = served(writes, PermissionMode::Default, |s| s, |c| c).await;
    let (result, _) = call(&executor, "mcp__back__writes").await;
    assert!(result.is_error(), "{}", result.content());
    assert!(
        result.content().contains("needs approval"),
        "{}",
        result.content()
    );
    assert!(!RAN.load(Ordering::SeqCst), "the tool ran");
}
