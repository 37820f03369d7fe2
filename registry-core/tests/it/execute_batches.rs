//! Batching: unsafe calls never overlap anything, consecutive safe calls
//! do, the concurrency cap holds, results keep call order, and modifiers
//! apply after a concurrent batch and right after a serial call.

use crate::execute_support;

use std::num::NonZeroUsize;
use std::sync::Arc;

use execute_support::*;
use proptest::prelude::*;
use registry_core::{
    ToolBuilder, ToolCall, ToolOutput,
    execute::{ExecEvent, ExecutorConfig},
    session::ContextModifier,
};
use serde_json::{Value, json};
use tokio::sync::Barrier;

#[test]
fn consecutive_safe_calls_overlap_and_unsafe_calls_run_alone() {
    let recorder = Arc::new(Recorder::default());
    let barrier = Arc::new(Barrier::new(3));
    let gate = {
        let barrier = Arc::clone(&barrier);
        let recorder = Arc::clone(&recorder);
        ToolBuilder::new("gate", "Waits for two siblings.")
            .concurrency_safe(true)
            .read_only(true)
            .build(move |args: Value, _cx| {
                let barrier = Arc::clone(&barrier);
                let recorder = Arc::clone(&recorder);
                async move {
                    let _visit = recorder.enter(args["key"].as_u64().unwrap());
                    // Deadlocks (and the guard fails the test) unless all
                    // three calls are inside their bodies at once.
                    barrier.wait().await;
                    Ok(ToolOutput::text("through"))
                }
            })
            .unwrap()
    };
    let exec = registry_of(vec![gate, probe(&recorder)]).executor().build();
    let calls = vec![
        probe_call(0, json!({ "safe": false, "yields": 3 })),
        ToolCall::new("g1", "gate", json!({ "key": 1 })),
        ToolCall::new("g2", "gate", json!({ "key": 2 })),
        ToolCall::new("g3", "gate", json!({ "key": 3 })),
        probe_call(4, json!({ "safe": false, "yields": 3 })),
    ];
    let results = threaded_runtime().block_on(async {
        tokio::time::timeout(GUARD, exec.run_turn(calls))
            .await
            .expect("the safe batch ran serially")
    });
    let ids: Vec<&str> = results.iter().map(|r| r.id()).collect();
    assert_eq!(ids, ["call-0", "g1", "g2", "g3", "call-4"]);
    assert!(results.iter().all(|r| !r.is_error()), "{results:?}");
    let spans = recorder.intervals();
    for unsafe_call in [&spans[0], &spans[4]] {
        for other in &spans {
            assert!(
                other.key == unsafe_call.key || !overlaps(unsafe_call, other),
                "{unsafe_call:?} overlaps {other:?}"
            );
        }
    }
}

#[test]
fn the_concurrency_cap_is_reached_and_never_exceeded() {
    let recorder = Arc::new(Recorder::default());
    let barrier = Arc::new(Barrier::new(4));
    let gate = {
        let barrier = Arc::clone(&barrier);
        let recorder = Arc::clone(&recorder);
        ToolBuilder::new("gate", "Waits for three siblings.")
            .concurrency_safe(true)
            .read_only(true)
            .build(move |args: Value, _cx| {
                let barrier = Arc::clone(&barrier);
                let recorder = Arc::clone(&recorder);
                async move {
                    let _visit = recorder.enter(args["key"].as_u64().unwrap());
                    // Groups of four: fewer at once deadlocks.
                    barrier.wait().await;
                    Ok(ToolOutput::text(args["key"].to_string()))
                }
            })
            .unwrap()
    };
    let exec = registry_of(vec![gate])
        .executor()
        .config(ExecutorConfig::new().max_concurrency(NonZeroUsize::new(4).unwrap()))
        .build();
    let calls: Vec<ToolCall> = (0..24)
        .map(|k| ToolCall::new(format!("c{k}"), "gate", json!({ "key": k })))
        .collect();
    let plan = exec.plan_turn(&calls);
    assert_eq!(plan.batch_count(), 1, "{plan}");
    let results = threaded_runtime().block_on(async {
        tokio::time::timeout(GUARD, exec.run_turn(calls))
            .await
            .expect("fewer than four calls ran at once")
    });
    assert_eq!(recorder.max_active(), 4);
    let texts: Vec<String> = results.into_iter().map(|r| r.into_content()).collect();
    let expected: Vec<String> = (0..24).map(|k: i32| k.to_string()).collect();
    assert_eq!(texts, expected);
}

#[test]
fn the_plan_prints_batches() {
    let recorder = Arc::new(Recorder::default());
    let exec = registry_of(vec![probe(&recorder)]).executor().build();
    let calls = vec![
        probe_call(0, json!({ "safe": true })),
        probe_call(1, json!({ "safe": true })),
        probe_call(2, json!({ "safe": false })),
        ToolCall::new("x", "nope", json!({})),
        probe_call(4, json!({ "safe": true })),
    ];
    assert_eq!(
        exec.plan_turn(&calls).to_string(),
        "batch 0: concurrent, at most 10 at once: #0 probe (read-only), #1 probe (read-only)\n\
         batch 1: serial: #2 probe (read-only)\n\
         batch 2: concurrent, at most 10 at once: #4 probe (read-only)\n"
    );
}

/// `mark`: queues `set(key, who)` and reports what it saw of `key` and of
/// `seen` when its body started and after `wait_for` finished.
fn marker(safe: bool) -> registry_core::ToolHandle {
    ToolBuilder::new(
        if safe { "mark_safe" } else { "mark" },
        "Marks the session.",
    )
    .concurrency_safe(safe)
    .read_only(true)
    .build(|args: Value, cx| async move {
        let who = args["who"].as_str().unwrap().to_owned();
        if let Some(ms) = args["sleep_ms"].as_u64() {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        }
        let state = cx.session_state().expect("runs under the executor");
        let seen: Vec<String> = state.values().keys().cloned().collect();
        let last = state.get("last").cloned().unwrap_or(Value::Null);
        assert!(cx.modify_session(ContextModifier::set(who.clone(), json!(true))));
        assert!(cx.modify_session(ContextModifier::set("last", json!(who))));
        Ok(ToolOutput::text(format!("saw {seen:?} last={last}")))
    })
    .unwrap()
}

#[test]
fn modifiers_apply_after_a_concurrent_batch_in_call_order_and_right_after_a_serial_call() {
    let exec = registry_of(vec![marker(true), marker(false)])
        .executor()
        .build();
    let calls = vec![
        // Batch 0: `a` finishes last, `b` first; siblings see nothing of
        // each other, and `last` ends as `b` (call order), not `a`.
        ToolCall::new("1", "mark_safe", json!({ "who": "a", "sleep_ms": 30 })),
        ToolCall::new("2", "mark_safe", json!({ "who": "b", "sleep_ms": 1 })),
        // Serial: sees the whole batch.
        ToolCall::new("3", "mark", json!({ "who": "c" })),
        // Serial: sees `c` right away.
        ToolCall::new("4", "mark", json!({ "who": "d" })),
    ];
    let results = paused_runtime().block_on(exec.run_turn(calls));
    let texts: Vec<&str> = results.iter().map(|r| r.content()).collect();
    assert_eq!(
        texts,
        [
            "saw [] last=null",
            "saw [] last=null",
            r#"saw ["a", "b", "last"] last="b""#,
            r#"saw ["a", "b", "c", "last"] last="c""#,
        ]
    );
    let state = exec.session().state();
    assert_eq!(state.get("last"), Some(&json!("d")));
}

#[test]
fn batch_siblings_never_see_each_others_modifiers_even_after_one_finished() {
    let (done_tx, done_rx) = tokio::sync::watch::channel(false);
    let done_rx = Arc::new(done_rx);
    let first = ToolBuilder::new("first", "Marks and finishes.")
        .concurrency_safe(true)
        .read_only(true)
        .build(|_args, cx| async move {
            cx.modify_session(ContextModifier::file_read("notes.txt"));
            Ok(ToolOutput::text("marked"))
        })
        .unwrap();
    let second = {
        let done_rx = Arc::clone(&done_rx);
        ToolBuilder::new("second", "Waits for its sibling, then looks.")
            .concurrency_safe(true)
            .read_only(true)
            .build(move |_args, cx| {
                let mut done_rx = (*done_rx).clone();
                async move {
                    done_rx.wait_for(|done| *done).await.unwrap();
                    let seen = cx.session_state().unwrap().files_read().len();
                    Ok(ToolOutput::text(format!("saw {seen}")))
                }
            })
            .unwrap()
    };
    let exec = registry_of(vec![first, second]).executor().build();
    let (events_tx, mut events_rx) = tokio::sync::mpsc::unbounded_channel();
    let calls = vec![
        ToolCall::new("s", "second", json!({})),
        ToolCall::new("f", "first", json!({})),
    ];
    let results = threaded_runtime().block_on(async {
        let turn = exec.run_turn_streaming(calls, events_tx);
        let watcher = async {
            // `first` finished (its result is out) before `second` looks.
            while let Some(event) = events_rx.recv().await {
                if let ExecEvent::Finished { index: 1, .. } = event {
                    done_tx.send(true).unwrap();
                }
            }
        };
        let (results, ()) = tokio::time::timeout(GUARD, async { tokio::join!(turn, watcher) })
            .await
            .expect("no deadlock");
        results
    });
    assert_eq!(results[0].content(), "saw 0");
    assert_eq!(results[1].content(), "marked");
    assert_eq!(exec.session().state().files_read().len(), 1);
}

#[test]
fn streaming_reports_each_step_in_order() {
    let tool = ToolBuilder::new("talk", "Reports progress.")
        .read_only(true)
        .build(|_args, cx| async move {
            cx.progress("halfway");
            Ok(ToolOutput::text("done"))
        })
        .unwrap();
    let exec = registry_of(vec![tool]).executor().build();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let calls = vec![
        ToolCall::new("a", "talk", json!({})),
        ToolCall::new("b", "missing", json!({})),
    ];
    paused_runtime().block_on(exec.run_turn_streaming(calls, tx));
    let mut events = Vec::new();
    while let Ok(event) = rx.try_recv() {
        events.push(match event {
            ExecEvent::Queued { index, batch, .. } => format!("queued {index} {batch:?}"),
            ExecEvent::Started { index, .. } => format!("started {index}"),
            ExecEvent::Permission {
                index,
                authorization,
                ..
            } => format!("permission {index} {authorization:?}"),
            ExecEvent::Progress { index, message, .. } => format!("progress {index} {message}"),
            ExecEvent::Finished { index, result } => {
                format!("finished {index} {}", result.is_error())
            }
            _ => unreachable!(),
        });
    }
    assert_eq!(
        events,
        [
            "queued 0 Some(0)",
            "queued 1 None",
            "finished 1 true",
            "started 0",
            "permission 0 Allowed { by: Mode(Default) }",
            "progress 0 halfway",
            "finished 0 false",
        ]
    );
}

/// One generated call.
#[derive(Debug, Clone)]
struct Gen {
    safe: bool,
    panic: bool,
    sleep_ms: u64,
    yields: u64,
}

fn gen_call() -> impl Strategy<Value = Gen> {
    (any::<bool>(), prop::bool::weighted(0.15), 0u64..4, 0u64..3).prop_map(
        |(safe, panic, sleep_ms, yields)| Gen {
            safe,
            panic,
            sleep_ms,
            yields,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random turns: one result per call in call order, panics confined
    /// to their call, unsafe calls overlap nothing, safe calls overlap only
    /// calls of their own run of consecutive safe calls, and the cap holds.
    #[test]
    fn random_turns_keep_order_and_the_overlap_rule(
        gens in prop::collection::vec(gen_call(), 0..24),
        limit in 1usize..5,
    ) {
        let recorder = Arc::new(Recorder::default());
        let exec = registry_of(vec![probe(&recorder)]).executor().config(
            ExecutorConfig::new().max_concurrency(NonZeroUsize::new(limit).unwrap()),
        ).build();
        let calls: Vec<ToolCall> = gens
            .iter()
            .enumerate()
            .map(|(k, g)| {
                probe_call(
                    k as u64,
                    json!({ "safe": g.safe, "panic": g.panic, "sleep_ms": g.sleep_ms, "yields": g.yields }),
                )
            })
            .collect();
        let results = paused_runtime().block_on(exec.run_turn(calls));
        prop_assert_eq!(results.len(), gens.len());
        for (k, (result, g)) in results.iter().zip(&gens).enumerate() {
            prop_assert_eq!(result.id(), format!("call-{k}"));
            prop_assert_eq!(result.is_error(), g.panic, "{:?}", result);
            if g.panic {
                prop_assert!(result.content().contains("panicked"), "{}", result.content());
            } else {
                prop_assert_eq!(result.content(), format!("ok {k}"));
            }
        }
        prop_assert!(recorder.max_active() <= limit);
        // The run of consecutive safe calls each call belongs to.
        let mut run = Vec::with_capacity(gens.len());
        let mut current = 0usize;
        for (k, g) in gens.iter().enumerate() {
            if !g.safe || k == 0 || !gens[k - 1].safe {
                current += 1;
            }
            run.push(current);
        }
        let spans = recorder.intervals();
        prop_assert_eq!(spans.len(), gens.len());
        for a in &spans {
            for b in &spans {
                if a.key >= b.key || !overlaps(a, b) {
                    continue;
                }
                let (ka, kb) = (a.key as usize, b.key as usize);
                prop_assert!(gens[ka].safe && gens[kb].safe, "unsafe overlap {:?} {:?}", a, b);
                prop_assert_eq!(run[ka], run[kb], "overlap across batches {:?} {:?}", a, b);
            }
        }
        prop_assert_eq!(recorder.active(), 0);
    }
}

/// A call's id lives in its context while it runs and comes back to its
/// result when it ends: moved when nothing else holds the context, copied
/// when the tool kept a clone of it (which must still read the id).
#[test]
fn every_result_keeps_its_call_id_whether_or_not_the_tool_kept_its_context() {
    let kept: Arc<std::sync::Mutex<Vec<registry_core::ToolContext>>> = Arc::default();
    let keeper = {
        let kept = Arc::clone(&kept);
        ToolBuilder::new("keeper", "Keeps its context when asked to.")
            .concurrency_safe(true)
            .read_only(true)
            .build(move |args: Value, cx: registry_core::ToolContext| {
                if args["keep"] == json!(true) {
                    kept.lock().unwrap().push(cx);
                }
                async move { Ok(ToolOutput::text("kept")) }
            })
            .unwrap()
    };
    let exec = registry_of(vec![keeper]).executor().build();
    let rt = threaded_runtime();
    for keep in [false, true] {
        // One call (the turn that skips the planner), then a concurrent
        // batch of three.
        let one = vec![ToolCall::new("solo-1", "keeper", json!({ "keep": keep }))];
        let three: Vec<ToolCall> = (0..3)
            .map(|i| ToolCall::new(format!("batch-{i}"), "keeper", json!({ "keep": keep })))
            .collect();
        for calls in [one, three] {
            let want: Vec<String> = calls.iter().map(|c| c.id.clone()).collect();
            let results = rt.block_on(exec.run_turn(calls));
            let ids: Vec<&str> = results.iter().map(|r| r.id()).collect();
            assert_eq!(ids, want, "keep: {keep}");
            assert!(
                results
                    .iter()
                    .all(|r| !r.is_error() && r.tool() == Some("keeper"))
            );
        }
    }
    let kept = kept.lock().unwrap();
    let ids: Vec<Option<&str>> = kept.iter().map(|cx| cx.call_id()).collect();
    assert_eq!(
        ids,
        [
            Some("solo-1"),
            Some("batch-0"),
            Some("batch-1"),
            Some("batch-2")
        ]
    );
}
