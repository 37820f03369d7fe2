//! The events of a streamed turn show every call of a program under the
//! `code` call that ran it.

use registry_core::ToolCall;
use registry_core::execute::ExecEvent;
use serde_json::json;

use crate::support::{Disk, code, executor};

#[tokio::test]
async fn inner_calls_stream_as_inner_events_of_the_code_call() {
    let disk = Disk::with_files([("a", "A"), ("b", "B")]);
    let exec = executor(&disk);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let program = r#"
        const [a, b] = await Promise.all([tools.read_file({ path: "a" }), tools.read_file({ path: "b" })]);
        return a + b;
    "#;
    let results = exec
        .run_turn_streaming(
            vec![
                ToolCall::new("first", "read_file", json!({ "path": "a" })),
                code("prog", program),
            ],
            tx,
        )
        .await;
    assert_eq!(results[1].content(), "AB");
    let mut events = Vec::new();
    while let Ok(event) = rx.try_recv() {
        events.push(event);
    }
    let inner: Vec<&ExecEvent> = events
        .iter()
        .filter_map(|event| match event {
            ExecEvent::Inner {
                index: 1,
                id,
                event,
            } => {
                assert_eq!(id, "prog");
                Some(&**event)
            }
            _ => None,
        })
        .collect();
    let finished: Vec<(usize, &str)> = inner
        .iter()
        .filter_map(|event| match event {
            ExecEvent::Finished { index, result } => Some((*index, result.id())),
            _ => None,
        })
        .collect();
    let mut finished = finished;
    finished.sort();
    assert_eq!(finished, [(0, "prog/0"), (1, "prog/1")]);
    // Both inner reads were queued in one batch, and the inner events come
    // between the code call's start and finish.
    assert!(inner.iter().any(|event| matches!(
        event,
        ExecEvent::Queued {
            index: 1,
            batch: Some(0),
            ..
        }
    )));
    let position = |wanted: &dyn Fn(&ExecEvent) -> bool| events.iter().position(wanted).unwrap();
    let started = position(&|e| matches!(e, ExecEvent::Started { index: 1, .. }));
    let first_inner = position(&|e| matches!(e, ExecEvent::Inner { .. }));
    let done = position(&|e| matches!(e, ExecEvent::Finished { index: 1, .. }));
    assert!(started < first_inner && first_inner < done);
}
