//! Hostile programs: each limit ends the program as the `code` call's
//! error result within its bound, the interpreter never reaches the host,
//! and the process and its other turns go on.

use std::sync::Arc;
use std::time::{Duration, Instant};

use registry_code::{CodeMode, Limits};
use registry_core::{Executor, PermissionMode, ToolCallResult};

use crate::support::{Disk, executor, executor_with, run_program};

fn limited(limits: Limits) -> (Arc<Disk>, Executor) {
    let disk = Disk::with_files([("a", "text")]);
    let exec = executor_with(&disk, CodeMode::new().limits(limits), |b| {
        b.mode(PermissionMode::Bypass)
    });
    (disk, exec)
}

/// Runs `program`, which must fail with a message containing `expected`
/// within `bound`.
async fn ends_with(
    exec: &Executor,
    program: &str,
    expected: &str,
    bound: Duration,
) -> ToolCallResult {
    let started = Instant::now();
    let result = run_program(exec, program).await;
    let took = started.elapsed();
    assert!(result.is_error(), "{program}: {}", result.content());
    assert!(
        result.content().contains(expected),
        "{program}: expected {expected:?} in {:?}",
        result.content()
    );
    assert!(took < bound, "{program}: took {took:?}");
    result
}

#[tokio::test]
async fn an_endless_loop_ends_at_the_step_budget() {
    let mut limits = Limits::default();
    limits.steps = 200;
    let (_, exec) = limited(limits);
    for program in [
        "while (true) {}",
        "for (;;) { try { while (true) {} } catch (e) {} }",
        "const f = () => f2(); const f2 = () => { for(;;){} }; f();",
        "await new Promise(async () => { while (true) {} });",
        "[1, 2, 3].sort(() => { while (true) {} });",
    ] {
        ends_with(
            &exec,
            program,
            "budget of 200 steps",
            Duration::from_secs(30),
        )
        .await;
    }
}

#[tokio::test]
async fn an_endless_loop_ends_at_the_wall_time() {
    let mut limits = Limits::default();
    limits.wall_time = Duration::from_millis(300);
    limits.steps = u64::MAX;
    let (_, exec) = limited(limits);
    ends_with(
        &exec,
        "while (true) {}",
        "time limit of 300 ms",
        Duration::from_secs(20),
    )
    .await;
}

#[tokio::test]
async fn waiting_on_slow_calls_ends_at_the_wall_time() {
    let mut limits = Limits::default();
    limits.wall_time = Duration::from_millis(200);
    let (disk, exec) = limited(limits);
    ends_with(
        &exec,
        "await tools.sleep({ ms: 60000 }); return 'woke';",
        "time limit of 200 ms",
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(disk.runs("sleep"), 1);
}

#[tokio::test]
async fn memory_bombs_end_at_the_memory_limit() {
    let mut limits = Limits::default();
    limits.memory_bytes = 16 * 1024 * 1024;
    let (_, exec) = limited(limits);
    for program in [
        "const a = []; for (;;) a.push('x'.repeat(1 << 20) + a.length);",
        "let s = 'x'; for (;;) s = s + s;",
        "return 'x'.repeat(2 ** 28).length;",
        "const a = []; for (;;) a.push({ a: [1, 2, 3], b: {} });",
        "return new ArrayBuffer(1 << 30).byteLength;",
    ] {
        let result = run_program(&exec, program).await;
        assert!(result.is_error(), "{program}: {}", result.content());
        let text = result.content();
        assert!(
            text.contains("out of memory")
                || text.contains("RangeError")
                || text.contains("InternalError"),
            "{program}: {text}"
        );
    }
    // The executor, and the engine, go on.
    let result = run_program(&exec, "return 1 + 1;").await;
    assert_eq!(result.content(), "2");
}

#[tokio::test]
async fn deep_recursion_ends_at_the_stack_limit() {
    let (_, exec) = limited(Limits::default());
    for program in [
        "function f() { return f() + 1; } return f();",
        "const f = (n) => [f(n + 1)]; f(0);",
        "let o = {}; for (let i = 0; i < 1e5; i++) o = { o }; return JSON.stringify(o).length;",
        "class A { get x() { return this.x; } } return new A().x;",
    ] {
        ends_with(
            &exec,
            program,
            "recursed too deeply",
            Duration::from_secs(30),
        )
        .await;
    }
}

#[tokio::test]
async fn calls_past_the_limit_are_rejected_without_running() {
    let mut limits = Limits::default();
    limits.max_calls = 3;
    let (disk, exec) = limited(limits);
    let program = r#"
        let made = 0, refused = "";
        for (let i = 0; i < 10; i++) {
            try { await tools.read_file({ path: "a" }); made++; } catch (e) { refused = e.message; }
        }
        return `${made} ${refused}`;
    "#;
    let result = run_program(&exec, program).await;
    assert!(
        result
            .content()
            .starts_with("3 call of `read_file` not made: this program already made 3 tool calls"),
        "{}",
        result.content()
    );
    assert_eq!(disk.runs("read_file"), 3);
    // Promise.all past the limit: the rest rejected at once.
    let result = run_program(
        &exec,
        "return (await Promise.allSettled([1,2,3,4,5].map(() => tools.read_file({ path: 'a' })))).map((r) => r.status);",
    )
    .await;
    assert_eq!(
        result.content(),
        r#"["fulfilled","fulfilled","fulfilled","rejected","rejected"]"#
    );
}

#[tokio::test]
async fn output_is_cut_at_its_limit() {
    let mut limits = Limits::default();
    limits.max_output_bytes = 1000;
    let (_, exec) = limited(limits);
    let result = run_program(
        &exec,
        "for (let i = 0; i < 1e4; i++) console.log('line ' + i); return 'x'.repeat(5000);",
    )
    .await;
    assert!(!result.is_error());
    assert!(result.content().len() < 1200, "{}", result.content().len());
    assert!(
        result
            .content()
            .ends_with("[output cut at 1000 bytes, the program's limit]")
    );
}

#[tokio::test]
async fn a_program_that_waits_for_nothing_is_stopped() {
    let (_, exec) = limited(Limits::default());
    ends_with(
        &exec,
        "await new Promise(() => {}); return 'never';",
        "nothing will settle",
        Duration::from_secs(10),
    )
    .await;
}

#[tokio::test]
async fn tampering_with_builtins_and_the_tool_object_stays_in_the_program() {
    let disk = Disk::with_files([("a", "text")]);
    let exec = executor(&disk);
    let program = r#"
        Object.prototype.toJSON = () => "tampered";
        Array.prototype.push = () => { throw new Error("no push"); };
        Promise.prototype.then = function () { throw new Error("no then"); };
        JSON.stringify = () => { throw new Error("no stringify"); };
        JSON.parse = () => { throw new Error("no parse"); };
        Function.prototype.call = null;
        try { tools.read_file = 1; } catch (e) {}
        try { delete globalThis.tools; } catch (e) {}
        try { Object.defineProperty(tools, "x", { value: 1 }); } catch (e) {}
        return "done";
    "#;
    let result = run_program(&exec, program).await;
    assert!(!result.is_error(), "{}", result.content());
    assert_eq!(result.content(), "done");
    // The next program has a fresh interpreter.
    let result = run_program(&exec, "return await tools.read_file({ path: 'a' });").await;
    assert_eq!(result.content(), "text");
    // Tampering that breaks the program's own calls breaks only them.
    let program = r#"
        Object.prototype.toJSON = function () { return { path: "a" }; };
        return await tools.read_file({ path: "elsewhere" });
    "#;
    let result = run_program(&exec, program).await;
    assert_eq!(
        result.content(),
        "text",
        "the input is what the program's JSON says"
    );
    let result = run_program(
        &exec,
        "globalThis.Promise = null; return typeof tools.read_file;",
    )
    .await;
    assert_eq!(result.content(), "function");
}

#[tokio::test]
async fn the_program_has_no_host() {
    let disk = Disk::with_files([("a", "text")]);
    let exec = executor(&disk);
    let program = r#"
        const names = ["require", "process", "std", "os", "fetch", "XMLHttpRequest", "setTimeout",
            "setInterval", "performance", "Deno", "Bun", "WebAssembly", "__call", "print", "scriptArgs",
            "module", "exports", "global", "Worker"];
        const present = names.filter((name) => typeof globalThis[name] !== "undefined");
        let imported;
        try { await import("os"); imported = "imported"; } catch (e) { imported = e.name; }
        const g = new Function("return this")();
        return { present, imported, same: g === globalThis };
    "#;
    let result = run_program(&exec, program).await;
    assert!(!result.is_error(), "{}", result.content());
    let answer: serde_json::Value = serde_json::from_str(result.content()).unwrap();
    assert_eq!(answer["present"], serde_json::json!([]), "{answer}");
    assert_ne!(answer["imported"], "imported", "{answer}");
    assert_eq!(answer["same"], true);
}

#[tokio::test]
async fn the_clock_and_randomness_are_the_runtimes() {
    let disk = Disk::with_files([]);
    let exec = executor(&disk);
    let program = r#"
        const t0 = Date.now();
        for (let i = 0; i < 1e5; i++) {}
        return [t0 === Date.now(), new Date().getTime() === t0, typeof Math.random(), new Date(0).toISOString()];
    "#;
    let result = run_program(&exec, program).await;
    assert_eq!(
        result.content(),
        r#"[true,true,"number","1970-01-01T00:00:00.000Z"]"#
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_busy_program_never_holds_the_async_runtime() {
    let mut limits = Limits::default();
    limits.wall_time = Duration::from_millis(1500);
    limits.steps = u64::MAX;
    let (_, busy) = limited(limits);
    let (_, other) = limited(Limits::default());
    let started = Instant::now();
    let (spinning, quick) = tokio::join!(run_program(&busy, "while (true) {}"), async {
        // Give the busy program a head start on the one worker.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let result = run_program(&other, "return 'other turn';").await;
        (result, started.elapsed())
    });
    assert!(spinning.is_error());
    assert_eq!(quick.0.content(), "other turn");
    assert!(
        quick.1 < Duration::from_millis(1400),
        "the other turn waited {:?}",
        quick.1
    );
}

#[tokio::test]
async fn a_dropped_turn_stops_its_program() {
    let mut limits = Limits::default();
    limits.steps = u64::MAX;
    let (_, exec) = limited(limits);
    let turn = run_program(&exec, "while (true) {}");
    assert!(
        tokio::time::timeout(Duration::from_millis(200), turn)
            .await
            .is_err()
    );
    // The session's turn is free again: the next program runs.
    let result =
        tokio::time::timeout(Duration::from_secs(10), run_program(&exec, "return 3;")).await;
    assert_eq!(result.expect("the next turn ran").content(), "3");
}

#[tokio::test]
async fn syntax_errors_say_where() {
    let (_, exec) = limited(Limits::default());
    let result = run_program(&exec, "const x = ;").await;
    assert!(result.is_error());
    assert!(
        result
            .content()
            .contains("the program does not parse: SyntaxError"),
        "{}",
        result.content()
    );
    let result = run_program(&exec, "throw new TypeError('mine')").await;
    assert!(
        result.content().contains("TypeError: mine"),
        "{}",
        result.content()
    );
}
