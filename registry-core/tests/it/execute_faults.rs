//! Faults stay with their call: a panic, a timeout and a failing sibling
//! each become that call's error result while the rest proceed, and a
//! dropped turn leaves nothing running.

use crate::execute_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use execute_support::*;
use registry_core::{
    PermissionContext, ToolBuilder, ToolCall, ToolOutput,
    execute::ExecutorConfig,
    permission::{RuleBehavior, RuleSource},
};
use serde_json::{Value, json};

#[test]
fn a_panic_is_that_calls_error_and_its_siblings_and_later_calls_proceed() {
    let recorder = Arc::new(Recorder::default());
    let exec = registry_of(vec![probe(&recorder)]).executor().build();
    let calls = vec![
        probe_call(0, json!({ "safe": true, "sleep_ms": 5 })),
        probe_call(1, json!({ "safe": true, "panic": true })),
        probe_call(2, json!({ "safe": true, "sleep_ms": 5 })),
        probe_call(3, json!({ "safe": false })),
    ];
    let results = paused_runtime().block_on(exec.run_turn(calls));
    let errors: Vec<bool> = results.iter().map(|r| r.is_error()).collect();
    assert_eq!(errors, [false, true, false, false]);
    assert_eq!(
        results[1].content(),
        "tool `probe` failed: call panicked: probe 1 panics on purpose"
    );
    assert_eq!(recorder.active(), 0);
    assert_eq!(exec.session().metrics()["probe"].errors, 1);
}

#[test]
fn a_timeout_is_that_calls_error_and_stops_its_body() {
    let recorder = Arc::new(Recorder::default());
    let exec = registry_of(vec![probe(&recorder)])
        .executor()
        .config(
            ExecutorConfig::new()
                .timeout(Duration::from_secs(3600))
                .tool_timeout("probe", Duration::from_millis(50)),
        )
        .build();
    let calls = vec![
        probe_call(0, json!({ "safe": true, "sleep_ms": 10 })),
        probe_call(1, json!({ "safe": true, "sleep_ms": 60_000 })),
        probe_call(2, json!({ "safe": false, "sleep_ms": 10 })),
    ];
    let results = paused_runtime().block_on(exec.run_turn(calls));
    assert!(
        !results[0].is_error() && !results[2].is_error(),
        "{results:?}"
    );
    assert!(results[1].is_error());
    assert_eq!(
        results[1].content(),
        "tool `probe` timed out after 50 ms and was stopped"
    );
    // The timed-out body was dropped, not left running.
    assert_eq!(recorder.active(), 0);
    assert_eq!(recorder.intervals().len(), 3);
    let metrics = &exec.session().metrics()["probe"];
    assert_eq!((metrics.calls, metrics.timeouts, metrics.errors), (3, 1, 1));
}

/// Whether a token the test cannot name (it is the executor's) is
/// cancelled, asked later.
type IsCancelled = Arc<std::sync::Mutex<Option<Box<dyn Fn() -> bool + Send>>>>;

#[test]
fn a_timeout_cancels_the_calls_token_before_the_next_serial_call_starts() {
    let check: IsCancelled = Arc::default();
    let spawned = Arc::new(std::sync::Mutex::new(None));
    let spawner = {
        let check = Arc::clone(&check);
        let spawned = Arc::clone(&spawned);
        ToolBuilder::new("spawner", "Hands its token to spawned work, then hangs.")
            .concurrency_safe(false)
            // Read-only so no approval is needed; not concurrency-safe, so
            // the two calls are serial.
            .read_only(true)
            .build(move |_args: Value, cx| {
                let token = cx.cancellation_token().expect("under the executor").clone();
                let seen = token.clone();
                *check.lock().unwrap() = Some(Box::new(move || seen.is_cancelled()));
                *spawned.lock().unwrap() = Some(tokio::spawn(async move {
                    token.cancelled().await;
                }));
                async {
                    std::future::pending::<()>().await;
                    Ok(ToolOutput::text("unreachable"))
                }
            })
            .unwrap()
    };
    let cancelled_when_next_started = Arc::new(AtomicBool::new(false));
    let next = {
        let check = Arc::clone(&check);
        let flag = Arc::clone(&cancelled_when_next_started);
        let spawned = Arc::clone(&spawned);
        ToolBuilder::new("next", "The next serial call.")
            .concurrency_safe(false)
            .read_only(true)
            .build(move |_args: Value, _cx| {
                let is_cancelled = check.lock().unwrap().as_ref().is_some_and(|f| f());
                flag.store(is_cancelled, Ordering::SeqCst);
                let handle = spawned.lock().unwrap().take();
                async move {
                    // The spawned work ends on its own: nothing else wakes it.
                    let handle = handle.expect("the spawner ran first");
                    match tokio::time::timeout(GUARD, handle).await {
                        Ok(joined) => joined.map_err(|e| e.to_string())?,
                        Err(_) => return Err("the spawned work is still running".into()),
                    }
                    Ok(ToolOutput::text("next ran"))
                }
            })
            .unwrap()
    };
    let exec = registry_of(vec![spawner, next])
        .executor()
        .config(ExecutorConfig::new().tool_timeout("spawner", Duration::from_millis(50)))
        .build();
    let calls = vec![
        ToolCall::new("s", "spawner", json!({})),
        ToolCall::new("n", "next", json!({})),
    ];
    let results = paused_runtime().block_on(exec.run_turn(calls));
    assert_eq!(
        results[0].content(),
        "tool `spawner` timed out after 50 ms and was stopped"
    );
    assert!(
        cancelled_when_next_started.load(Ordering::SeqCst),
        "the timed-out call's token was still live when the next call started"
    );
    assert_eq!(results[1].content(), "next ran");
}

#[test]
fn a_finished_calls_token_is_cancelled_before_the_next_call_starts() {
    let previous: IsCancelled = Arc::default();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let quick = {
        let previous = Arc::clone(&previous);
        let seen = Arc::clone(&seen);
        ToolBuilder::new("quick", "Succeeds at once.")
            .concurrency_safe(false)
            .read_only(true)
            .build(move |_args: Value, cx| {
                let mut previous = previous.lock().unwrap();
                // Whether the previous call's token was cancelled by now.
                seen.lock().unwrap().push(previous.as_ref().map(|f| f()));
                let token = cx.cancellation_token().expect("under the executor").clone();
                *previous = Some(Box::new(move || token.is_cancelled()));
                assert!(!cx.is_cancelled());
                async { Ok(ToolOutput::text("done")) }
            })
            .unwrap()
    };
    let exec = registry_of(vec![quick]).executor().build();
    let calls = vec![
        ToolCall::new("a", "quick", json!({})),
        ToolCall::new("b", "quick", json!({})),
    ];
    let results = paused_runtime().block_on(exec.run_turn(calls));
    assert!(results.iter().all(|r| r.content() == "done"), "{results:?}");
    assert_eq!(*seen.lock().unwrap(), [None, Some(true)]);
}

#[test]
fn dropping_the_turn_cancels_in_flight_calls_and_leaves_no_task_running() {
    let recorder = Arc::new(Recorder::default());
    let spawned_saw_cancel = Arc::new(AtomicBool::new(false));
    let (started_tx, started_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let (joined_tx, mut joined_rx) = tokio::sync::mpsc::unbounded_channel();
    let spawner = {
        let flag = Arc::clone(&spawned_saw_cancel);
        ToolBuilder::new(
            "spawner",
            "Hands its token to spawned work, then waits forever.",
        )
        .concurrency_safe(true)
        .read_only(true)
        .build(move |_args: Value, cx| {
            let flag = Arc::clone(&flag);
            let joined_tx = joined_tx.clone();
            let started_tx = started_tx.clone();
            async move {
                let token = cx.cancellation_token().expect("under the executor").clone();
                let handle = tokio::spawn(async move {
                    token.cancelled().await;
                    flag.store(true, Ordering::SeqCst);
                });
                joined_tx.send(handle).unwrap();
                started_tx.send(()).unwrap();
                std::future::pending::<()>().await;
                Ok(ToolOutput::text("unreachable"))
            }
        })
        .unwrap()
    };
    let exec = registry_of(vec![spawner, probe(&recorder)])
        .executor()
        .build();
    let calls = vec![
        ToolCall::new("s", "spawner", json!({})),
        probe_call(1, json!({ "safe": true, "sleep_ms": 3_600_000 })),
        probe_call(2, json!({ "safe": true, "sleep_ms": 3_600_000 })),
    ];
    threaded_runtime().block_on(async {
        let mut started_rx = started_rx;
        let turn = exec.run_turn(calls);
        tokio::select! {
            _ = turn => panic!("the turn cannot finish"),
            _ = async {
                started_rx.recv().await;
                // Both probes are inside their bodies too.
                while recorder.active() < 2 {
                    tokio::task::yield_now().await;
                }
            } => {}
        }
        // `select!` dropped the turn: every body is gone at once.
        assert_eq!(recorder.active(), 0);
        assert_eq!(recorder.intervals().len(), 2);
        // Work the tool spawned saw the token cancelled and ended.
        let handle = joined_rx.recv().await.unwrap();
        tokio::time::timeout(GUARD, handle)
            .await
            .expect("spawned work ended")
            .unwrap();
    });
    assert!(spawned_saw_cancel.load(Ordering::SeqCst));
}

#[test]
fn a_failing_tool_that_opts_in_cancels_its_batch_siblings_and_only_them() {
    let recorder = Arc::new(Recorder::default());
    let failing = ToolBuilder::new("build", "Fails.")
        .concurrency_safe(true)
        .read_only(true)
        .build(|_args, _cx| async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            Err("compile error".into())
        })
        .unwrap();
    let exec = registry_of(vec![failing, probe(&recorder)])
        .executor()
        .config(ExecutorConfig::new().cancel_siblings_on_failure("build"))
        .build();
    let calls = vec![
        probe_call(0, json!({ "safe": true, "sleep_ms": 1 })),
        ToolCall::new("b", "build", json!({})),
        probe_call(2, json!({ "safe": true, "sleep_ms": 60_000 })),
        probe_call(3, json!({ "safe": false })),
    ];
    let results = paused_runtime().block_on(exec.run_turn(calls));
    assert_eq!(results[0].content(), "ok 0");
    assert_eq!(results[1].content(), "tool `build` failed: compile error");
    assert_eq!(
        results[2].content(),
        "tool `probe` was cancelled because `build` (call b) failed"
    );
    // The next batch is not a sibling.
    assert_eq!(results[3].content(), "ok 3");
    assert_eq!(recorder.active(), 0);
}

#[test]
fn a_call_refused_before_its_body_cancels_no_sibling_even_with_the_opt_in() {
    let recorder = Arc::new(Recorder::default());
    let build = ToolBuilder::new("build", "Fails when it runs.")
        .concurrency_safe(true)
        .read_only(true)
        .build(|_args, _cx| async { Err("compile error".into()) })
        .unwrap();
    let mut current = PermissionContext::new();
    current
        .add_rule(RuleSource::Session, RuleBehavior::Deny, "build")
        .unwrap();
    let exec = {
        let mut exec = registry_of(vec![build, probe(&recorder)])
            .executor()
            .config(ExecutorConfig::new().cancel_siblings_on_failure("build"))
            .build();
        exec.set_permissions(current);
        exec
    };
    let calls = vec![
        ToolCall::new("b", "build", json!({})),
        probe_call(1, json!({ "safe": true, "sleep_ms": 100 })),
    ];
    let results = paused_runtime().block_on(exec.run_turn(calls));
    assert!(
        results[0]
            .content()
            .starts_with("permission to run `build` was denied"),
        "{results:?}"
    );
    // The denied call never ran, so its sibling is left alone.
    assert_eq!(results[1].content(), "ok 1");
    assert_eq!(recorder.intervals().len(), 1);
}

#[test]
fn without_the_opt_in_a_failure_cancels_nothing() {
    let recorder = Arc::new(Recorder::default());
    let failing = ToolBuilder::new("build", "Fails.")
        .concurrency_safe(true)
        .read_only(true)
        .build(|_args, _cx| async { Err("compile error".into()) })
        .unwrap();
    let exec = registry_of(vec![failing, probe(&recorder)])
        .executor()
        .build();
    let calls = vec![
        ToolCall::new("b", "build", json!({})),
        probe_call(1, json!({ "safe": true, "sleep_ms": 100 })),
    ];
    let results = paused_runtime().block_on(exec.run_turn(calls));
    assert!(results[0].is_error());
    assert_eq!(results[1].content(), "ok 1");
}

#[test]
fn a_panicking_posture_expression_runs_the_call_alone_and_is_counted() {
    let recorder = Arc::new(Recorder::default());
    let shaky = ToolBuilder::new("shaky", "Its posture panics.")
        .concurrency_safe_when(|_| panic!("posture bug"))
        .read_only(true)
        .build(|_args, _cx| async { Ok(ToolOutput::text("ran")) })
        .unwrap();
    let exec = registry_of(vec![shaky, probe(&recorder)])
        .executor()
        .build();
    let calls = vec![
        probe_call(0, json!({ "safe": true })),
        ToolCall::new("s", "shaky", json!({})),
        probe_call(2, json!({ "safe": true })),
    ];
    let plan = exec.plan_turn(&calls);
    assert_eq!(plan.batch_count(), 3, "{plan}");
    let results = paused_runtime().block_on(exec.run_turn(calls));
    assert_eq!(results[1].content(), "ran");
    assert_eq!(exec.session().metrics()["shaky"].strict_fallbacks, 1);
    assert_eq!(exec.session().metrics()["probe"].strict_fallbacks, 0);
}

struct PanickingApprover;

impl registry_core::permission::Approver for PanickingApprover {
    fn approve<'a>(
        &'a self,
        _request: &'a registry_core::permission::ApprovalRequest,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = registry_core::permission::Approval> + Send + 'a>,
    > {
        Box::pin(async { panic!("approver bug") })
    }
}

#[test]
fn a_panicking_approver_denies_that_call_and_nothing_else() {
    use registry_core::{PermissionContext, ToolRegistry, catalog::BaseTools};
    let writer = ToolBuilder::new("write", "Writes.")
        .build(|_args, _cx| async { Ok(ToolOutput::text("written")) })
        .unwrap();
    let reader = ToolBuilder::new("read", "Reads.")
        .read_only(true)
        .build(|_args, _cx| async { Ok(ToolOutput::text("read")) })
        .unwrap();
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![writer, reader]).unwrap(),
    ));
    let cx = PermissionContext::new();
    let _pool = registry.assemble_tool_pool(&cx);
    let exec = registry
        .executor()
        .permissions(cx)
        .approver(Arc::new(PanickingApprover))
        .session(Arc::new(registry_core::session::Session::new()))
        .build();
    let results = paused_runtime().block_on(exec.run_turn(vec![
        ToolCall::new("1", "write", json!({})),
        ToolCall::new("2", "read", json!({})),
    ]));
    assert!(results[0].is_error());
    assert_eq!(
        results[0].content(),
        "permission to run `write` was denied: asking for approval of this call of `write` failed, so it was not run"
    );
    assert_eq!(results[1].content(), "read");
}

#[test]
fn a_panicking_modifier_is_skipped_and_the_others_apply() {
    use registry_core::session::ContextModifier;
    let tool = ToolBuilder::new("mods", "Queues modifiers.")
        .read_only(true)
        .build(|_args, cx| async move {
            cx.modify_session(ContextModifier::set("before", json!(1)));
            cx.modify_session(ContextModifier::new("bad", |_| panic!("modifier bug")));
            cx.modify_session(ContextModifier::set("after", json!(2)));
            Ok(ToolOutput::text("ok"))
        })
        .unwrap();
    let exec = registry_of(vec![tool]).executor().build();
    let results =
        paused_runtime().block_on(exec.run_turn(vec![ToolCall::new("1", "mods", json!({}))]));
    assert_eq!(results[0].content(), "ok");
    let state = exec.session().state();
    assert_eq!(state.get("before"), Some(&json!(1)));
    assert_eq!(state.get("after"), Some(&json!(2)));
}

#[test]
fn the_turn_future_and_the_executor_can_move_across_threads() {
    fn send<T: Send>(_: &T) {}
    fn sync<T: Send + Sync>(_: &T) {}
    let recorder = Arc::new(Recorder::default());
    let exec = registry_of(vec![probe(&recorder)]).executor().build();
    sync(&exec);
    let turn = exec.run_turn(Vec::new());
    send(&turn);
    assert!(paused_runtime().block_on(turn).is_empty());
}
