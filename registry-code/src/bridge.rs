//! Between the engine's thread and the executor's turn.
//!
//! The engine runs the program on a thread of its own (an interpreter
//! busy in a loop must not hold a worker of the runtime, and a QuickJS
//! runtime never leaves the thread that made it). Each batch of calls it
//! sends comes here, runs as one turn of the executor of the `code` call
//! ([`Executor::run_nested`]), and goes back as replies. The wall time is
//! kept on both sides: by the engine's interrupt handler while the program
//! computes, and here while it waits for its calls. When this side ends
//! (the program finished, its time ran out, or the outer call was dropped)
//! the stop flag is set and the reply channel closed, so the thread ends
//! at the engine's next interrupt check or at once if it is waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as blocking;

use registry_core::declare::ContentBlock;
use registry_core::{Executor, ToolCall, ToolCallResult, ToolContext};
use tokio::sync::mpsc;

use crate::engine::{Engine, Finished, Host, Program, ProgramError, Reply, Request, Stopped};
use crate::journal::Journal;
use crate::limits::Limits;

/// What the engine's thread tells this side.
enum FromEngine {
    Calls(Vec<Request>, blocking::SyncSender<Vec<Reply>>),
    Done(Result<Finished, ProgramError>),
}

/// The engine's [`Host`]: a channel to this side, blocking for replies.
struct ChannelHost {
    to_turn: mpsc::UnboundedSender<FromEngine>,
}

impl Host for ChannelHost {
    fn run_calls(&mut self, calls: Vec<Request>) -> Result<Vec<Reply>, Stopped> {
        let (reply, replies) = blocking::sync_channel(1);
        self.to_turn
            .send(FromEngine::Calls(calls, reply))
            .map_err(|_| Stopped)?;
        replies.recv().map_err(|_| Stopped)
    }
}

/// Sets the stop flag when the program's side ends, however it ends.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What one run of a program needs besides its source.
pub(crate) struct Run<'a> {
    pub(crate) engine: Arc<dyn Engine>,
    pub(crate) limits: Limits,
    pub(crate) cx: &'a ToolContext,
    /// The outer call's id: inner calls are `<id>/<n>`.
    pub(crate) call_id: String,
    pub(crate) journal: &'a Journal,
}

/// Runs `source` to its end, its calls through the executor of `cx`.
pub(crate) async fn run(run: Run<'_>, source: String) -> Result<Finished, ProgramError> {
    let Run {
        engine,
        limits,
        cx,
        call_id,
        journal,
    } = run;
    // A journal another conversation holds is not used: the program runs
    // live with a throwaway one.
    let own;
    let journal = if journal.serves(cx) {
        journal
    } else {
        own = Journal::new();
        &own
    };
    let (key, recorded) = journal.start(&call_id, &source);
    let stop = Arc::new(AtomicBool::new(false));
    let _stop = StopOnDrop(Arc::clone(&stop));
    let (to_turn, mut from_engine) = mpsc::unbounded_channel();
    let wall_time = limits.wall_time;
    let thread = {
        let stop = Arc::clone(&stop);
        let to_turn = to_turn.clone();
        let (clock_ms, seed) = (recorded.clock_ms, recorded.seed);
        std::thread::Builder::new()
            .name(format!("code-{}", engine.name()))
            // Room for the interpreter's own stack limit and the C code
            // under it (the regular expression engine, the parser).
            .stack_size(limits.stack_bytes.saturating_add(8 * 1024 * 1024))
            .spawn(move || {
                let program = Program {
                    source: &source,
                    limits: &limits,
                    clock_ms,
                    seed,
                    stop,
                };
                let mut host = ChannelHost {
                    to_turn: to_turn.clone(),
                };
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    engine.run(&program, &mut host)
                }))
                .unwrap_or_else(|payload| {
                    Err(ProgramError::Engine(format!(
                        "the interpreter panicked: {}",
                        panic_text(payload.as_ref())
                    )))
                });
                let _ = to_turn.send(FromEngine::Done(result));
            })
    };
    drop(to_turn);
    if let Err(err) = thread {
        return Err(ProgramError::Engine(format!(
            "no thread for the interpreter: {err}"
        )));
    }
    let mut next_call = 0usize;
    let mut batch = 0usize;
    let mut replaying = true;
    let serve = async {
        while let Some(message) = from_engine.recv().await {
            let (requests, reply) = match message {
                FromEngine::Done(result) => return result,
                FromEngine::Calls(requests, reply) => (requests, reply),
            };
            let first = next_call;
            next_call += requests.len();
            // A restarted turn: the batches that finished before the
            // restart are answered from the journal, not run again.
            let replay = replaying
                .then(|| recorded.batches.get(batch))
                .flatten()
                .filter(|recorded| recorded.requests == requests);
            let replies = match replay {
                Some(recorded) => recorded.replies.clone(),
                None => {
                    replaying = false;
                    let calls = requests
                        .iter()
                        .enumerate()
                        .map(|(n, request)| {
                            ToolCall::new(
                                format!("{call_id}/{}", first + n),
                                request.name.clone(),
                                request.input.clone(),
                            )
                        })
                        .collect();
                    let results = Executor::run_nested(cx, calls).await;
                    let replies: Vec<Reply> = results.iter().map(reply_of).collect();
                    journal.record(&key, batch, requests, replies.clone());
                    replies
                }
            };
            batch += 1;
            if reply.send(replies).is_err() {
                break;
            }
        }
        Err(ProgramError::Engine(
            "the interpreter's thread ended without a result".to_owned(),
        ))
    };
    let result = match tokio::time::timeout(wall_time, serve).await {
        Ok(result) => result,
        Err(_) => Err(ProgramError::TimeLimit(wall_time)),
    };
    // The thread is not joined (that would block this worker): it ends at
    // its next interrupt check, which the stop flag (set as this returns)
    // answers, or at once if it waits for replies.
    result
}

/// A call's result as the program sees it: a structured result as its
/// value, any other as its text, a failure as its message.
fn reply_of(result: &ToolCallResult) -> Reply {
    if result.is_error() {
        return Reply::Error(result.content().to_owned());
    }
    match result.blocks() {
        [ContentBlock::Json(value)] => Reply::Value(value.clone()),
        _ => Reply::Text(result.content().to_owned()),
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
