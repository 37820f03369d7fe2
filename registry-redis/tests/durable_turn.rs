//! A turn that waits for a person outlives the process that ran it: a
//! child process runs a durable turn that suspends at an ask, writes the
//! sealed turn and the session's record to Redis, and is killed (SIGKILL,
//! mid-sleep); this process restores the session from Redis and resumes
//! the turn, once with "allow" and once with "deny". Every call runs
//! exactly once (the tools append to a log file both processes share),
//! and the results come back in call order.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use registry_core::catalog::BaseTools;
use registry_core::execute::{Executor, SuspendedTurn, TurnOutcome};
use registry_core::permission::{Approval, RefusedBy};
use registry_core::session::{Session, SessionRecord, SessionStore, StoreLimits};
use registry_core::{Tool, ToolCall, ToolContext, ToolHandle, ToolRegistry, tool};
use serde_json::json;

mod support;
use support::{Redis, guarded, store};

/// The sealing key both processes hold.
const KEY: &[u8] = b"a test key of 32 bytes, not kept";
const CHILD: &str = "REGISTRY_DURABLE_CHILD";

/// Where the tools log their runs (one line per run: the call's note).
#[derive(Clone)]
struct Log(PathBuf);

fn log_run(cx: &ToolContext, what: &str) {
    let Log(path) = cx.get::<Log>().expect("the log is in the context");
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("the log opens");
    writeln!(file, "{what}").expect("the log is written");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Note {
    /// The note.
    text: String,
}

/// Read a note.
#[tool(name = "read_note", read_only = true, concurrency_safe = true, rule_of_two = [])]
struct ReadNote;

impl Tool for ReadNote {
    type Input = Note;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(&self, input: Note, cx: &ToolContext) -> Result<String, Self::Error> {
        log_run(cx, &format!("read {}", input.text));
        Ok(format!("read {}", input.text))
    }
}

/// Write a note: not read-only, so the default mode asks.
#[tool(name = "write_note", rule_of_two = ["external_effect"])]
struct WriteNote;

impl Tool for WriteNote {
    type Input = Note;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(&self, input: Note, cx: &ToolContext) -> Result<String, Self::Error> {
        log_run(cx, &format!("write {}", input.text));
        Ok(format!("wrote {}", input.text))
    }
}

fn executor(log: &std::path::Path, session: Arc<Session>) -> Executor {
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![ToolHandle::new(ReadNote), ToolHandle::new(WriteNote)])
            .unwrap(),
    ));
    registry
        .executor()
        .session(session)
        .context(ToolContext::new().with(Log(log.to_path_buf())))
        .build()
}

fn the_turn() -> Vec<ToolCall> {
    vec![
        ToolCall::new("c1", "read_note", json!({ "text": "one" })),
        ToolCall::new("c2", "write_note", json!({ "text": "two" })),
        ToolCall::new("c3", "read_note", json!({ "text": "three" })),
    ]
}

/// The child's part: run the turn, keep it in Redis, say so, and wait to
/// be killed. Does nothing unless run as the child.
#[tokio::test]
async fn child_runs_the_turn_until_it_is_killed() {
    let Ok(url) = std::env::var(CHILD) else {
        return;
    };
    let (port, log) = url.split_once(' ').expect("port and log");
    let redis_store = support::store_at(port.parse().unwrap(), "durable");
    let session = Arc::new(Session::new());
    let executor = executor(std::path::Path::new(log), Arc::clone(&session));
    let TurnOutcome::Suspended(turn) = executor.run_turn_durable(the_turn()).await else {
        panic!("the write asks and nobody answers: the turn waits");
    };
    let limits = StoreLimits::default();
    let sealed = turn.seal(KEY).unwrap();
    guarded(redis_store.save("conv/turn", &sealed, None, limits.ttl))
        .await
        .unwrap();
    let record = session
        .record(SystemTime::now())
        .encode("conv", &limits)
        .unwrap();
    guarded(redis_store.save("conv", &record, None, limits.ttl))
        .await
        .unwrap();
    println!("SUSPENDED {}", turn.id());
    std::io::stdout().flush().unwrap();
    tokio::time::sleep(Duration::from_secs(600)).await;
}

/// Runs the child to its suspension and kills it.
fn suspend_in_a_child(port: u16, log: &std::path::Path) -> String {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_runs_the_turn_until_it_is_killed",
            "--nocapture",
        ])
        .env(CHILD, format!("{port} {}", log.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the child starts");
    let stdout = child.stdout.take().unwrap();
    let mut id = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("SUSPENDED ") {
            id = Some(rest.to_owned());
            break;
        }
    }
    child.kill().expect("SIGKILL");
    let status = child.wait().unwrap();
    assert!(!status.success(), "the child was killed, not finished");
    id.expect("the child suspended the turn")
}

#[tokio::test]
async fn a_turn_suspended_and_killed_is_resumed_by_another_process() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    for (answer, wrote) in [
        (Approval::AllowOnce, true),
        (
            Approval::Deny {
                reason: Some("not today".into()),
            },
            false,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("runs.log");
        let id = suspend_in_a_child(redis.port, &log);
        // The child ran what came before the ask, and nothing after it.
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "read one\n");

        // A new process (this one): the session and the turn from Redis.
        let redis_store = store(&redis, "durable");
        let stored = guarded(redis_store.load("conv")).await.unwrap().unwrap();
        let session = Arc::new(Session::new());
        session.restore(
            SessionRecord::decode("conv", &stored.bytes).unwrap(),
            SystemTime::now(),
        );
        assert_eq!(session.pending_turn().as_deref(), Some(id.as_str()));
        let sealed = guarded(redis_store.load("conv/turn"))
            .await
            .unwrap()
            .unwrap();
        // Claimed with the store's compare-and-set: a second process that
        // loaded the same revision cannot claim it too.
        let ttl = StoreLimits::default().ttl;
        let claim = |revision| redis_store.save("conv/turn", b"claimed", Some(revision), ttl);
        guarded(claim(sealed.revision)).await.unwrap();
        assert!(
            guarded(claim(sealed.revision)).await.is_err(),
            "one claim lands"
        );
        let turn = SuspendedTurn::open(&sealed.bytes, KEY).unwrap();
        let pending = turn.pending();
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].call_id, "c2");
        assert_eq!(pending[0].tool, "write_note");
        assert!(
            pending[0].reason.contains("can destroy or overwrite data"),
            "{}",
            pending[0].reason
        );
        let answer = pending[0].answer(answer.clone());

        let executor = executor(&log, Arc::clone(&session));
        let TurnOutcome::Finished(results) = executor
            .resume(turn.clone(), vec![answer.clone()])
            .await
            .unwrap()
        else {
            panic!("every call has an answer");
        };
        let ids: Vec<&str> = results.iter().map(|r| r.id()).collect();
        assert_eq!(ids, ["c1", "c2", "c3"]);
        assert_eq!(results[0].content(), "read one");
        assert_eq!(results[2].content(), "read three");
        if wrote {
            assert_eq!(results[1].content(), "wrote two");
            assert_eq!(
                std::fs::read_to_string(&log).unwrap(),
                "read one\nwrite two\nread three\n"
            );
        } else {
            assert_eq!(
                results[1].refusal().map(|r| &r.by),
                Some(&RefusedBy::Approver)
            );
            assert!(results[1].content().contains("not today"));
            assert_eq!(
                std::fs::read_to_string(&log).unwrap(),
                "read one\nread three\n"
            );
        }
        // Resumed once: the same record again is stale, and runs nothing.
        let again = executor.resume(turn, vec![answer]).await.unwrap_err();
        assert!(again.to_string().contains("resumed already"), "{again}");
        let runs = std::fs::read_to_string(&log).unwrap().lines().count();
        assert_eq!(runs, if wrote { 3 } else { 2 });
        guarded(redis_store.delete("conv")).await.unwrap();
        guarded(redis_store.delete("conv/turn")).await.unwrap();
    }
    redis.stop().await;
}
