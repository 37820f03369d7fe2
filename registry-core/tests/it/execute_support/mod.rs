//! Instrumented tools for the executor tests: each call records when it
//! entered and left (a global sequence number, not a clock), so overlap is
//! proven from the order of events, never from timing.

#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use registry_core::{
    ToolBuilder, ToolCall, ToolHandle, ToolOutput, ToolRegistry, catalog::BaseTools,
};
use serde_json::{Value, json};

/// One call's stay inside a tool body.
#[derive(Debug, Clone, Copy)]
pub struct Interval {
    pub key: u64,
    pub enter: u64,
    pub exit: u64,
}

/// Records entries and exits.
#[derive(Debug, Default)]
pub struct Recorder {
    seq: AtomicU64,
    active: AtomicUsize,
    max_active: AtomicUsize,
    open: Mutex<Vec<(u64, u64)>>,
    closed: Mutex<Vec<Interval>>,
}

impl Recorder {
    pub fn enter(self: &Arc<Self>, key: u64) -> Visit {
        let enter = self.seq.fetch_add(1, Ordering::SeqCst);
        let now = self.active.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_active.fetch_max(now, Ordering::SeqCst);
        self.open.lock().unwrap().push((key, enter));
        Visit {
            recorder: Arc::clone(self),
            key,
            enter,
        }
    }

    pub fn intervals(&self) -> Vec<Interval> {
        let mut all = self.closed.lock().unwrap().clone();
        all.sort_by_key(|i| i.key);
        all
    }

    pub fn max_active(&self) -> usize {
        self.max_active.load(Ordering::SeqCst)
    }

    /// Calls inside a body right now.
    pub fn active(&self) -> usize {
        self.active.load(Ordering::SeqCst)
    }
}

/// Leaving the body: recorded on drop, so a panic or a cancelled future
/// still closes the interval.
pub struct Visit {
    recorder: Arc<Recorder>,
    key: u64,
    enter: u64,
}

impl Drop for Visit {
    fn drop(&mut self) {
        let exit = self.recorder.seq.fetch_add(1, Ordering::SeqCst);
        self.recorder.active.fetch_sub(1, Ordering::SeqCst);
        self.recorder
            .open
            .lock()
            .unwrap()
            .retain(|(k, _)| *k != self.key);
        self.recorder.closed.lock().unwrap().push(Interval {
            key: self.key,
            enter: self.enter,
            exit,
        });
    }
}

pub fn overlaps(a: &Interval, b: &Interval) -> bool {
    a.enter < b.exit && b.enter < a.exit
}

/// `probe`: `{key, safe, sleep_ms, yields, panic, text}`. Concurrency-safe
/// exactly when `safe` is true; records its visit; sleeps, yields, panics
/// or answers `text` (default: `ok <key>`).
pub fn probe(recorder: &Arc<Recorder>) -> ToolHandle {
    let recorder = Arc::clone(recorder);
    ToolBuilder::new("probe", "An instrumented tool.")
        .concurrency_safe_when(|v| v["safe"].as_bool().unwrap_or(false))
        .read_only(true)
        .build(move |args: Value, _cx| {
            let recorder = Arc::clone(&recorder);
            async move {
                let key = args["key"].as_u64().unwrap_or(0);
                let _visit = recorder.enter(key);
                for _ in 0..args["yields"].as_u64().unwrap_or(0) {
                    tokio::task::yield_now().await;
                }
                if let Some(ms) = args["sleep_ms"].as_u64() {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                }
                if args["panic"].as_bool().unwrap_or(false) {
                    panic!("probe {key} panics on purpose");
                }
                Ok(ToolOutput::text(
                    args["text"]
                        .as_str()
                        .map_or_else(|| format!("ok {key}"), str::to_owned),
                ))
            }
        })
        .unwrap()
}

pub fn probe_call(key: u64, extra: Value) -> ToolCall {
    let mut input = json!({ "key": key });
    if let (Some(input), Some(extra)) = (input.as_object_mut(), extra.as_object()) {
        input.extend(extra.clone());
    }
    ToolCall::new(format!("call-{key}"), "probe", input)
}

/// A registry whose built-ins are `tools`: run turns over it with
/// `registry_of(tools).executor()...build()`.
pub fn registry_of(tools: Vec<ToolHandle>) -> ToolRegistry {
    ToolRegistry::new(BaseTools::__from_handles(tools).expect("test tools are valid"))
}

/// A current-thread runtime whose clock is paused: sleeps advance it
/// instantly, so timeouts are deterministic and tests take no real time.
pub fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap()
}

/// A multi-threaded runtime with real time, for tests that prove
/// concurrency with barriers.
pub fn threaded_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap()
}

/// A failure guard: far beyond anything the code under test needs, only
/// there so a deadlock fails the test instead of hanging it.
pub const GUARD: Duration = Duration::from_secs(30);

/// `runner`: runs the calls in its input (`{"calls": [[name, input], ...]}`)
/// as a program would, through [`Executor::run_nested`]; answers their
/// contents, one per line, each `ok:` or `err:`. With `"keep": true` it
/// also keeps its context in `kept`, for a test to use after the call.
pub fn runner(kept: &Arc<std::sync::Mutex<Option<registry_core::ToolContext>>>) -> ToolHandle {
    runner_named("runner", false, kept)
}

/// [`runner`] under another name, concurrency-safe when `safe`.
pub fn runner_named(
    name: &str,
    safe: bool,
    kept: &Arc<std::sync::Mutex<Option<registry_core::ToolContext>>>,
) -> ToolHandle {
    let kept = Arc::clone(kept);
    ToolBuilder::new(name, "Runs calls as a program would.")
        .read_only(true)
        .concurrency_safe(safe)
        .build(move |args: Value, cx| {
            let kept = Arc::clone(&kept);
            async move {
                if args["keep"].as_bool().unwrap_or(false) {
                    *kept.lock().unwrap() = Some(cx.clone());
                }
                let calls = args["calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .enumerate()
                    .map(|(n, call)| {
                        ToolCall::new(
                            format!("inner-{n}"),
                            call[0].as_str().unwrap_or_default(),
                            call[1].clone(),
                        )
                    })
                    .collect();
                let results = registry_core::Executor::run_nested(&cx, calls).await;
                let lines: Vec<String> = results
                    .iter()
                    .map(|r| {
                        let kind = if r.is_error() { "err" } else { "ok" };
                        format!("{kind}: {}", r.content())
                    })
                    .collect();
                Ok(ToolOutput::text(lines.join("\n")))
            }
        })
        .unwrap()
}
