//! Durable turns in one process: what suspends, what a resume runs, and
//! every record or answer that is refused (the cross-process proof, with
//! Redis and a killed process, is `registry-redis/tests/durable_turn.rs`).

use crate::execute_support;

use std::sync::{Arc, Mutex};

use execute_support::registry_of;
use registry_core::declare::Exposure;
use registry_core::execute::{DurableError, Executor, TurnOutcome};
use registry_core::permission::{Approval, RefusedBy};
use registry_core::{ToolBuilder, ToolCall, ToolHandle, ToolOutput};
use serde_json::{Value, json};

const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

/// `read` runs alone in default mode; `write` asks. Both log their runs.
fn tools(log: &Arc<Mutex<Vec<String>>>) -> Vec<ToolHandle> {
    let tool = |name: &str, read_only: bool| {
        let log = Arc::clone(log);
        let name_owned = name.to_owned();
        ToolBuilder::new(name, "A logged tool.")
            .read_only(read_only)
            .rule_of_two(if read_only {
                vec![]
            } else {
                vec![Exposure::ExternalEffect]
            })
            .build(move |args: Value, _| {
                let log = Arc::clone(&log);
                let name = name_owned.clone();
                async move {
                    let line = format!("{name} {}", args["n"]);
                    log.lock().unwrap().push(line.clone());
                    Ok(ToolOutput::text(line))
                }
            })
            .unwrap()
    };
    vec![tool("read", true), tool("write", false)]
}

fn setup() -> (Executor, Arc<Mutex<Vec<String>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    (registry_of(tools(&log)).executor().build(), log)
}

fn call(id: &str, tool: &str, n: u32) -> ToolCall {
    ToolCall::new(id, tool, json!({ "n": n }))
}

fn suspended(outcome: TurnOutcome) -> registry_core::execute::SuspendedTurn {
    match outcome {
        TurnOutcome::Suspended(turn) => turn,
        TurnOutcome::Finished(results) => panic!("finished: {results:?}"),
    }
}

fn finished(outcome: TurnOutcome) -> Vec<String> {
    match outcome {
        TurnOutcome::Finished(results) => results
            .iter()
            .map(|r| format!("{}: {}", r.id(), r.content()))
            .collect(),
        TurnOutcome::Suspended(turn) => panic!("suspended: {:?}", turn.pending()),
    }
}

#[tokio::test]
async fn nothing_starts_after_a_waiting_call_and_each_call_runs_once() {
    let (executor, log) = setup();
    let turn = suspended(
        executor
            .run_turn_durable(vec![
                call("a", "read", 1),
                call("b", "write", 2),
                call("c", "write", 3),
                call("d", "read", 4),
            ])
            .await,
    );
    assert_eq!(*log.lock().unwrap(), ["read 1"]);
    let pending = turn.pending();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(
        executor.session().pending_turn().as_deref(),
        Some(turn.id())
    );

    // Sealed and opened (as another process would), then answered: the
    // next write asks in its turn, so the turn waits again.
    let turn = registry_core::execute::SuspendedTurn::open(&turn.seal(KEY).unwrap(), KEY).unwrap();
    let answer = pending[0].answer(Approval::AllowOnce);
    let again = suspended(executor.resume(turn, vec![answer]).await.unwrap());
    assert_eq!(*log.lock().unwrap(), ["read 1", "write 2"]);
    assert_eq!(again.pending()[0].call_id, "c");
    let answer = again.pending()[0].answer(Approval::AllowOnce);
    let results = finished(executor.resume(again, vec![answer]).await.unwrap());
    assert_eq!(
        results,
        ["a: read 1", "b: write 2", "c: write 3", "d: read 4"]
    );
    assert_eq!(
        *log.lock().unwrap(),
        ["read 1", "write 2", "write 3", "read 4"]
    );
    assert_eq!(executor.session().pending_turn(), None);
}

#[tokio::test]
async fn a_turn_without_an_ask_finishes_and_an_approver_still_answers_live() {
    let (executor, _) = setup();
    let results = finished(executor.run_turn_durable(vec![call("a", "read", 1)]).await);
    assert_eq!(results, ["a: read 1"]);

    let log = Arc::new(Mutex::new(Vec::new()));
    let executor = registry_of(tools(&log))
        .executor()
        .approve_with(|_| async { Approval::AllowOnce })
        .build();
    let results = finished(executor.run_turn_durable(vec![call("a", "write", 1)]).await);
    assert_eq!(results, ["a: write 1"]);
}

#[tokio::test]
async fn an_approver_that_answers_later_refuses_in_an_ordinary_turn() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let executor = registry_of(tools(&log))
        .executor()
        .approve_with(|_| async { Approval::Later })
        .build();
    let result = executor
        .run_turn(vec![call("a", "write", 1)])
        .await
        .pop()
        .unwrap();
    assert_eq!(result.refusal().map(|r| &r.by), Some(&RefusedBy::Pending));
    assert!(result.content().contains("a person will answer later"));
    assert!(log.lock().unwrap().is_empty());
    // In a durable turn the same answer suspends it.
    suspended(executor.run_turn_durable(vec![call("a", "write", 1)]).await);
}

#[tokio::test]
async fn changed_records_and_other_keys_are_refused() {
    let (executor, _) = setup();
    let turn = suspended(executor.run_turn_durable(vec![call("a", "write", 1)]).await);
    let sealed = turn.seal(KEY).unwrap();
    let open = |bytes: &[u8], key: &[u8]| registry_core::execute::SuspendedTurn::open(bytes, key);
    assert_eq!(open(&sealed, KEY).unwrap(), turn);
    // One byte of the record changed: the argument 1 becomes 7.
    let text = String::from_utf8(sealed.clone()).unwrap();
    let changed = text.replacen(r#""n":1"#, r#""n":7"#, 1);
    assert_ne!(changed, text);
    assert_eq!(open(changed.as_bytes(), KEY), Err(DurableError::Tampered));
    assert_eq!(
        open(&sealed, b"another key of 32 bytes........."),
        Err(DurableError::Tampered)
    );
    assert_eq!(open(b"garbage", KEY), Err(DurableError::Tampered));
    assert_eq!(
        open(&sealed, b"short"),
        Err(DurableError::WeakKey { len: 5 })
    );
    assert_eq!(turn.seal(b""), Err(DurableError::WeakKey { len: 0 }));
}

#[tokio::test]
async fn answers_must_fit_their_call_and_a_turn_resumes_once() {
    let (executor, log) = setup();
    let turn = suspended(executor.run_turn_durable(vec![call("a", "write", 1)]).await);
    let pending = turn.pending();
    let input = &pending[0].input;
    for (answer, why) in [
        (
            registry_core::execute::Answer::new("zz", "write", input, Approval::AllowOnce),
            "no call of the turn waits for it",
        ),
        (
            registry_core::execute::Answer::new("a", "read", input, Approval::AllowOnce),
            "it answers a call of `read`, but the call waiting is of `write`",
        ),
        (
            registry_core::execute::Answer::new(
                "a",
                "write",
                &json!({ "n": 2 }),
                Approval::AllowOnce,
            ),
            "it was given for other arguments than the call's",
        ),
    ] {
        let err = executor
            .resume(turn.clone(), vec![answer])
            .await
            .unwrap_err();
        assert_eq!(
            err,
            DurableError::Mismatch {
                call_id: err_id(&err),
                why: why.to_owned()
            }
        );
    }
    let twice = vec![
        pending[0].answer(Approval::AllowOnce),
        pending[0].answer(Approval::AllowOnce),
    ];
    assert!(matches!(
        executor.resume(turn.clone(), twice).await,
        Err(DurableError::Mismatch { .. })
    ));
    assert!(
        log.lock().unwrap().is_empty(),
        "a refused resume runs nothing"
    );

    // A newer suspension replaces it: the older record is stale.
    let newer = suspended(executor.run_turn_durable(vec![call("b", "write", 2)]).await);
    let err = executor
        .resume(turn, vec![pending[0].answer(Approval::AllowOnce)])
        .await
        .unwrap_err();
    assert!(
        matches!(&err, DurableError::Stale { waiting: Some(w), .. } if w == newer.id()),
        "{err}"
    );
    // Resumed with no answer and no approver: it waits again, under a new id.
    let again = suspended(executor.resume(newer.clone(), Vec::new()).await.unwrap());
    assert_ne!(again.id(), newer.id());
    assert!(log.lock().unwrap().is_empty());
}

fn err_id(err: &DurableError) -> String {
    match err {
        DurableError::Mismatch { call_id, .. } => call_id.clone(),
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn an_ordinary_turn_makes_a_waiting_turn_stale_and_abandon_answers_every_call() {
    let (executor, log) = setup();
    let turn = suspended(
        executor
            .run_turn_durable(vec![call("a", "read", 1), call("b", "write", 2)])
            .await,
    );
    // The conversation moved on without the answer.
    let _ = executor.run_turn(vec![call("c", "read", 3)]).await;
    assert_eq!(executor.session().pending_turn(), None);
    let answer = turn.pending()[0].answer(Approval::AllowOnce);
    assert!(matches!(
        executor.resume(turn.clone(), vec![answer]).await,
        Err(DurableError::Stale { waiting: None, .. })
    ));
    // Given up: every call has a result for the model, nothing ran.
    let results = turn.abandon();
    assert_eq!(results[0].content(), "read 1");
    assert!(results[1].is_error());
    assert!(
        results[1].content().contains("was not run"),
        "{}",
        results[1].content()
    );
    assert_eq!(*log.lock().unwrap(), ["read 1", "read 3"]);
}

#[tokio::test]
async fn a_restored_record_does_not_bring_back_a_resumed_turn() {
    let (executor, _) = setup();
    let turn = suspended(executor.run_turn_durable(vec![call("a", "write", 1)]).await);
    let before = executor.session().record(std::time::SystemTime::now());
    let answer = turn.pending()[0].answer(Approval::AllowOnce);
    finished(
        executor
            .resume(turn.clone(), vec![answer.clone()])
            .await
            .unwrap(),
    );
    // A replica saves the record it held before the resume.
    executor
        .session()
        .restore(before, std::time::SystemTime::now());
    assert_eq!(executor.session().pending_turn(), None);
    assert!(matches!(
        executor.resume(turn, vec![answer]).await,
        Err(DurableError::Stale { .. })
    ));
}

#[tokio::test]
async fn an_answer_applies_only_to_the_question_it_answered() {
    // Two calls with one id: the answer for the first does not run the
    // second, which waits for its own.
    let (executor, log) = setup();
    let turn = suspended(
        executor
            .run_turn_durable(vec![call("x", "write", 1), call("x", "write", 2)])
            .await,
    );
    let answer = turn.pending()[0].answer(Approval::AllowOnce);
    let again = suspended(executor.resume(turn, vec![answer]).await.unwrap());
    assert_eq!(*log.lock().unwrap(), ["write 1"]);
    assert_eq!(again.pending()[0].input, json!({ "n": 2 }));
}
