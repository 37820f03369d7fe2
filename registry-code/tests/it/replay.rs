//! Durable by replay: a program run again with its journal gets the calls
//! that finished answered from it, and none of them runs twice.

use std::sync::Arc;

use registry_code::{CodeMode, Journal};
use registry_core::PermissionMode;

use crate::support::{Disk, code, executor_with};

const PROGRAM: &str = r#"
    const before = await tools.read_file({ path: "counter" });
    await tools.write_file({ path: "counter", text: String(Number(before) + 1) });
    const stamp = `${Date.now()} ${Math.random()}`;
    await Promise.all([
        tools.write_file({ path: "log/1", text: stamp }),
        tools.write_file({ path: "log/2", text: stamp }),
    ]);
    return `${before} -> ${await tools.read_file({ path: "counter" })} at ${stamp}`;
"#;

fn executor_for(disk: &Arc<Disk>, journal: &Arc<Journal>) -> registry_core::Executor {
    executor_with(disk, CodeMode::new().journal(Arc::clone(journal)), |b| {
        b.mode(PermissionMode::Bypass)
    })
}

#[tokio::test]
async fn a_replayed_program_runs_no_finished_call_twice() {
    let disk = Disk::with_files([("counter", "41")]);
    let journal = Arc::new(Journal::new());
    let first = executor_for(&disk, &journal)
        .run_turn(vec![code("turn-7", PROGRAM)])
        .await;
    assert!(!first[0].is_error(), "{}", first[0].content());
    assert!(
        first[0].content().starts_with("41 -> 42 at "),
        "{}",
        first[0].content()
    );
    assert_eq!(disk.runs("write_file"), 3);
    assert_eq!(journal.finished_calls("turn-7"), 5);

    // The process restarts: the journal was saved with the turn and is
    // restored into a new executor; the turn's `code` call runs again.
    let saved = serde_json::to_string(&*journal).unwrap();
    let restored: Arc<Journal> = Arc::new(serde_json::from_str(&saved).unwrap());
    let again = executor_for(&disk, &restored)
        .run_turn(vec![code("turn-7", PROGRAM)])
        .await;
    assert_eq!(
        again[0].content(),
        first[0].content(),
        "the same clock, seed and replies"
    );
    assert_eq!(disk.runs("write_file"), 3, "no write ran twice");
    assert_eq!(disk.runs("read_file"), 2, "no read ran twice");
    assert_eq!(disk.file("counter").as_deref(), Some("42"));
}

#[tokio::test]
async fn a_restart_mid_program_replays_what_finished_and_runs_the_rest() {
    let disk = Disk::with_files([("counter", "7")]);
    let journal = Arc::new(Journal::new());
    let first = executor_for(&disk, &journal)
        .run_turn(vec![code("t", PROGRAM)])
        .await;
    assert!(
        first[0].content().starts_with("7 -> 8 at "),
        "{}",
        first[0].content()
    );
    // The process died after the first two batches: the journal it saved
    // then holds only those (the read, then the write).
    let mut saved: serde_json::Value = serde_json::to_value(&*journal).unwrap();
    for (_, program) in saved["programs"].as_object_mut().unwrap() {
        program["batches"].as_array_mut().unwrap().truncate(2);
    }
    let restored: Arc<Journal> = Arc::new(serde_json::from_value(saved).unwrap());
    disk.files.lock().unwrap().remove("log/1");
    let again = executor_for(&disk, &restored)
        .run_turn(vec![code("t", PROGRAM)])
        .await;
    // The read and the counter's write were not run again; the logs and
    // the last read were.
    assert_eq!(again[0].content(), first[0].content());
    assert_eq!(disk.runs("write_file"), 3 + 2);
    assert_eq!(disk.runs("read_file"), 2 + 1);
    assert_eq!(disk.file("counter").as_deref(), Some("8"));
    assert!(disk.file("log/1").is_some());
}

#[tokio::test]
async fn another_program_or_another_conversation_never_gets_a_journals_answers() {
    let disk = Disk::with_files([("counter", "1")]);
    let journal = Arc::new(Journal::new());
    executor_for(&disk, &journal)
        .run_turn(vec![code("t", PROGRAM)])
        .await;
    assert_eq!(disk.runs("read_file"), 2);
    // The same call id, another program (an MCP client reusing a request
    // id): it runs live.
    let changed = r#"return await tools.read_file({ path: "counter" });"#;
    let exec = executor_for(&disk, &journal);
    let result = exec.run_turn(vec![code("t", changed)]).await;
    assert_eq!(result[0].content(), "2");
    assert_eq!(disk.runs("read_file"), 3);
    // The same program and id from a second live conversation: the
    // journal serves the first, so the second runs live.
    let other = executor_for(&disk, &journal);
    let result = other.run_turn(vec![code("t", PROGRAM)]).await;
    assert!(
        result[0].content().starts_with("2 -> 3 at "),
        "{}",
        result[0].content()
    );
    drop(exec);
}
