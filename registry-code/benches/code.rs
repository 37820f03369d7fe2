//! Code mode against direct calls: what a program costs to start, and
//! what each tool call it makes costs over the same call made directly.
//!
//! `cargo bench -p registry-code --bench code`
//!
//! - `startup`: a `code` call running `return 1` through the executor (a
//!   turn of that one call), against a turn of one direct call of a
//!   trivial `echo` tool, and against the engine alone (`QuickJs`
//!   running `return 1` on the calling thread, with a host that never
//!   gets a call). Code minus engine is the bridge: the program's thread,
//!   its channels and the `code` call's own way through the executor.
//! - `sequential`: a program awaiting 100 `echo` calls one after the
//!   other (100 batches, each a round trip to the interpreter's thread
//!   and a nested turn), against 100 direct turns of one `echo` call.
//! - `parallel`: a program making 100 `echo` calls in one `Promise.all`
//!   (one batch, one nested turn), against one direct turn of 100 `echo`
//!   calls.
//!
//! `sequential` and `parallel` count 100 items per iteration, so divan's
//! throughput column is calls per second; the time per call is the
//! median divided by 100.
//!
//! Everything runs inside one current-thread `block_on` per iteration,
//! so its cost is shared. The executor runs in bypass mode (no approver
//! to ask) and with no `CodeMode` in its context, so each program gets
//! the default limits and a journal of its own, as it would by default
//! (a journal shared across iterations would answer a repeated call id's
//! calls from its record instead of running them).
//!
//! Under `cargo test --benches` divan runs every benchmark once.
//!
//! Each timed body is one `#[inline(never)]` function (`turn_once`,
//! `turns_once`, `engine_once`), so instruction counts can be read per
//! call from callgrind's inclusive cost of that function, as for
//! registry-core's `execute` bench:
//!
//! ```text
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!     target/release/deps/code-* startup --sample-count 10 --sample-size 100
//! callgrind_annotate --inclusive=yes /tmp/cg.out | grep _once
//! ```
//!
//! The program's own thread runs outside the timed function, so
//! callgrind charges its work to that thread, not to `turn_once`; wall
//! time (divan's numbers) is the measure to read.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use divan::Bencher;
use divan::counter::ItemsCount;
use registry_code::{
    CODE_MODE_FLAG, Engine, Finished, Host, Limits, Program, QuickJs, Reply, Request, Stopped,
};
use registry_core::catalog::Flags;
use registry_core::{
    Executor, PermissionMode, Tool, ToolCall, ToolCallResult, ToolContext, ToolRegistry, tool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

fn main() {
    divan::main();
}

/// How many calls `sequential` and `parallel` make.
const CALLS: usize = 100;

#[derive(Deserialize, JsonSchema)]
struct EchoInput {
    /// Path relative to the workspace.
    path: String,
    /// First line, 1-based.
    offset: Option<u32>,
}

/// Echo the path.
#[tool(name = "echo", concurrency_safe = true, read_only = true)]
struct Echo;

impl Tool for Echo {
    type Input = EchoInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EchoInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(match input.offset {
            Some(offset) => format!("{}:{offset}", input.path),
            None => input.path,
        })
    }
}

/// An executor over the linked tools (`code` and `echo`), in bypass mode.
fn executor() -> Executor {
    registry_code::link();
    let registry =
        ToolRegistry::linked(&Flags::new().with(CODE_MODE_FLAG)).expect("the list builds");
    registry.executor().mode(PermissionMode::Bypass).build()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime")
}

fn echo(id: &str, offset: usize) -> ToolCall {
    ToolCall::new(
        id,
        "echo",
        json!({ "path": "src/lib.rs", "offset": offset }),
    )
}

fn code(program: &str) -> Vec<ToolCall> {
    vec![ToolCall::new(
        "code_1",
        "code",
        json!({ "program": program }),
    )]
}

/// A program awaiting `CALLS` calls one after the other; it returns the
/// total length of their results.
const SEQUENTIAL: &str = r#"
    let total = 0;
    for (let i = 0; i < 100; i++) {
        const text = await tools.echo({ path: "src/lib.rs", offset: i });
        total += text.length;
    }
    return total;
"#;

/// A program making `CALLS` calls in one `Promise.all`; it returns the
/// total length of their results.
const PARALLEL: &str = r#"
    const texts = await Promise.all(
        Array.from({ length: 100 }, (_, i) => tools.echo({ path: "src/lib.rs", offset: i })),
    );
    return texts.reduce((total, text) => total + text.length, 0);
"#;

/// What `SEQUENTIAL` and `PARALLEL` return: the lengths of
/// `src/lib.rs:0` to `src/lib.rs:99`.
fn total_length() -> String {
    (0..CALLS)
        .map(|i| format!("src/lib.rs:{i}").len())
        .sum::<usize>()
        .to_string()
}

/// One turn through the executor: the `code` call, or direct calls.
#[inline(never)]
fn turn_once(
    rt: &tokio::runtime::Runtime,
    exec: &Executor,
    calls: Vec<ToolCall>,
) -> Vec<ToolCallResult> {
    rt.block_on(exec.run_turn(calls))
}

/// Turns of one call each, one after the other, in one `block_on`.
#[inline(never)]
fn turns_once(
    rt: &tokio::runtime::Runtime,
    exec: &Executor,
    turns: Vec<ToolCall>,
) -> Vec<ToolCallResult> {
    rt.block_on(async {
        let mut results = Vec::with_capacity(turns.len());
        for call in turns {
            results.extend(exec.run_turn(vec![call]).await);
        }
        results
    })
}

/// A host for a program that makes no calls.
struct NoCalls;

impl Host for NoCalls {
    fn run_calls(&mut self, calls: Vec<Request>) -> Result<Vec<Reply>, Stopped> {
        unreachable!("`return 1` makes no calls, and this one made {calls:?}")
    }
}

/// The engine alone: a runtime and context made, the program run, both
/// dropped, on the calling thread.
#[inline(never)]
fn engine_once(program: &Program<'_>) -> Finished {
    QuickJs.run(program, &mut NoCalls).expect("`return 1` runs")
}

/// Checks, before a bench times anything, that its turn does what it
/// says: a bench of error results would time the refusal.
fn check(results: &[ToolCallResult], expected: &str) {
    for result in results {
        assert!(!result.is_error(), "{}", result.content());
        if !expected.is_empty() {
            assert_eq!(result.content(), expected);
        }
    }
}

mod startup {
    use super::*;

    /// `return 1` as a `code` call, through the executor.
    #[divan::bench]
    fn code(bencher: Bencher) {
        let rt = runtime();
        let exec = executor();
        check(&turn_once(&rt, &exec, super::code("return 1")), "1");
        bencher
            .with_inputs(|| super::code("return 1"))
            .bench_local_values(|calls| turn_once(&rt, &exec, calls));
    }

    /// One direct call of `echo`, a turn of its own.
    #[divan::bench]
    fn direct(bencher: Bencher) {
        let rt = runtime();
        let exec = executor();
        check(&turn_once(&rt, &exec, vec![echo("e", 3)]), "src/lib.rs:3");
        bencher
            .with_inputs(|| vec![echo("e", 3)])
            .bench_local_values(|calls| turn_once(&rt, &exec, calls));
    }

    /// `QuickJs` running `return 1`, no executor, no thread.
    #[divan::bench]
    fn engine(bencher: Bencher) {
        let limits = Limits::default();
        let program = Program {
            source: "return 1",
            limits: &limits,
            clock_ms: 0.0,
            seed: 0,
            stop: Arc::new(AtomicBool::new(false)),
        };
        assert_eq!(engine_once(&program).value.as_deref(), Some("1"));
        bencher.bench_local(|| engine_once(&program));
    }
}

mod sequential {
    use super::*;

    /// 100 awaited calls, one after the other, in one program.
    #[divan::bench(sample_count = 50)]
    fn code(bencher: Bencher) {
        let rt = runtime();
        let exec = executor();
        check(
            &turn_once(&rt, &exec, super::code(SEQUENTIAL)),
            &total_length(),
        );
        bencher
            .counter(ItemsCount::new(CALLS))
            .with_inputs(|| super::code(SEQUENTIAL))
            .bench_local_values(|calls| turn_once(&rt, &exec, calls));
    }

    /// 100 turns of one direct call each.
    #[divan::bench(sample_count = 50)]
    fn direct(bencher: Bencher) {
        let rt = runtime();
        let exec = executor();
        let turns = || -> Vec<ToolCall> { (0..CALLS).map(|i| echo(&format!("e{i}"), i)).collect() };
        check(&turns_once(&rt, &exec, turns()), "");
        bencher
            .counter(ItemsCount::new(CALLS))
            .with_inputs(turns)
            .bench_local_values(|turns| turns_once(&rt, &exec, turns));
    }
}

mod parallel {
    use super::*;

    /// 100 calls in one `Promise.all`, in one program.
    #[divan::bench(sample_count = 50)]
    fn code(bencher: Bencher) {
        let rt = runtime();
        let exec = executor();
        check(
            &turn_once(&rt, &exec, super::code(PARALLEL)),
            &total_length(),
        );
        bencher
            .counter(ItemsCount::new(CALLS))
            .with_inputs(|| super::code(PARALLEL))
            .bench_local_values(|calls| turn_once(&rt, &exec, calls));
    }

    /// One direct turn of 100 calls.
    #[divan::bench(sample_count = 50)]
    fn direct(bencher: Bencher) {
        let rt = runtime();
        let exec = executor();
        let turn = || -> Vec<ToolCall> { (0..CALLS).map(|i| echo(&format!("e{i}"), i)).collect() };
        check(&turn_once(&rt, &exec, turn()), "");
        bencher
            .counter(ItemsCount::new(CALLS))
            .with_inputs(turn)
            .bench_local_values(|calls| turn_once(&rt, &exec, calls));
    }
}
