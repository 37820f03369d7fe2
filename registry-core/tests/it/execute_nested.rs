//! Calls a program makes (`Executor::run_nested`): they run through the
//! executor of the call that runs the program, under its rules, and only
//! while that call runs.

use crate::execute_support;

use std::sync::{Arc, Mutex};

use execute_support::*;
use registry_core::permission::{RuleBehavior, RuleSource};
use registry_core::{Executor, PermissionContext, PermissionMode, ToolCall, ToolContext};
use serde_json::json;

fn program(calls: serde_json::Value) -> ToolCall {
    ToolCall::new("outer", "runner", json!({ "calls": calls }))
}

#[test]
fn a_programs_calls_run_through_the_executor_under_its_rules() {
    let recorder = Arc::new(Recorder::default());
    let kept = Arc::new(Mutex::new(None));
    let mut rules = PermissionContext::new();
    rules
        .add_rule(RuleSource::User, RuleBehavior::Deny, "probe")
        .unwrap();
    let exec = registry_of(vec![probe(&recorder), runner(&kept)])
        .executor()
        .mode(PermissionMode::Bypass)
        .build();
    let rt = paused_runtime();
    // Allowed: the probe runs.
    let results = rt.block_on(exec.run_turn(vec![program(json!([
        ["probe", { "key": 1 }],
        ["missing", {}],
        ["probe", { "key": "not a number", "sleep_ms": "x" }]
    ]))]));
    assert_eq!(
        results[0].content(),
        "ok: ok 1\nerr: no such tool: `missing`\nok: ok 0"
    );
    // A deny rule removes the probe from the pool of the next executor,
    // and holds inside a program as it holds for the model.
    let exec = registry_of(vec![probe(&recorder), runner(&kept)])
        .executor()
        .mode(PermissionMode::Bypass)
        .permissions(rules)
        .build();
    let direct = rt.block_on(exec.run_turn(vec![probe_call(2, json!({}))]));
    let nested = rt.block_on(exec.run_turn(vec![program(json!([["probe", { "key": 2 }]]))]));
    assert_eq!(nested[0].content(), format!("err: {}", direct[0].content()));
    assert_eq!(recorder.intervals().len(), 2, "only the allowed calls ran");
}

#[test]
fn calls_from_outside_a_running_call_are_refused() {
    let recorder = Arc::new(Recorder::default());
    let kept = Arc::new(Mutex::new(None));
    let exec = registry_of(vec![probe(&recorder), runner(&kept)])
        .executor()
        .mode(PermissionMode::Bypass)
        .build();
    let rt = paused_runtime();
    // No executor at all.
    let results = rt.block_on(Executor::run_nested(
        &ToolContext::new(),
        vec![probe_call(1, json!({}))],
    ));
    assert_eq!(
        results[0].content(),
        "call of `probe` from a program was not run: it was not made from a call the executor is running"
    );
    // A context kept past its call.
    let results = rt.block_on(exec.run_turn(vec![ToolCall::new(
        "outer",
        "runner",
        json!({ "calls": [], "keep": true }),
    )]));
    assert!(!results[0].is_error());
    let cx = kept.lock().unwrap().take().expect("kept");
    let results = rt.block_on(Executor::run_nested(&cx, vec![probe_call(1, json!({}))]));
    assert_eq!(
        results[0].content(),
        "call of `probe` from a program was not run: the call that runs the program has ended"
    );
    // A program's call cannot run programs of its own.
    let results = rt.block_on(exec.run_turn(vec![program(json!([[
        "runner",
        { "calls": [["probe", { "key": 3 }]] }
    ]]))]));
    assert_eq!(
        results[0].content(),
        "ok: err: call of `probe` from a program was not run: it was made by a call that a program made, and programs do not start programs"
    );
    assert!(recorder.intervals().is_empty(), "nothing ran");
}

#[test]
fn a_programs_calls_in_flight_together_are_planned_as_one_turn() {
    let recorder = Arc::new(Recorder::default());
    let kept = Arc::new(Mutex::new(None));
    let exec = registry_of(vec![probe(&recorder), runner(&kept)])
        .executor()
        .mode(PermissionMode::Bypass)
        .build();
    let rt = paused_runtime();
    let results = rt.block_on(exec.run_turn(vec![program(json!([
        ["probe", { "key": 1, "safe": true, "sleep_ms": 10 }],
        ["probe", { "key": 2, "safe": true, "sleep_ms": 10 }],
        ["probe", { "key": 3, "safe": false, "sleep_ms": 10 }]
    ]))]));
    assert_eq!(results[0].content(), "ok: ok 1\nok: ok 2\nok: ok 3");
    let intervals = recorder.intervals();
    let by_key = |key| intervals.iter().find(|i| i.key == key).unwrap();
    assert!(overlaps(by_key(1), by_key(2)), "safe calls share a batch");
    assert!(!overlaps(by_key(2), by_key(3)), "an unsafe call runs alone");
}

#[test]
fn a_program_in_a_concurrent_batch_or_from_a_providers_program_is_refused() {
    let recorder = Arc::new(Recorder::default());
    let kept = Arc::new(Mutex::new(None));
    let exec = registry_of(vec![
        probe(&recorder),
        runner_named("safe_runner", true, &kept),
        runner(&kept),
    ])
    .executor()
    .mode(PermissionMode::Bypass)
    .build();
    let rt = paused_runtime();
    let calls = json!({ "calls": [["probe", { "key": 1 }]] });
    // Two concurrency-safe runners share a batch: their programs' calls
    // could not be planned against each other.
    let results = rt.block_on(exec.run_turn(vec![
        ToolCall::new("a", "safe_runner", calls.clone()),
        ToolCall::new("b", "safe_runner", calls.clone()),
    ]));
    for result in &results {
        assert!(
            result.content().contains("shares a concurrent batch"),
            "{}",
            result.content()
        );
    }
    // A provider's program called the runner: a program starting a
    // program.
    let results = rt.block_on(exec.run_turn(vec![
        ToolCall::new("c", "runner", calls).from_program("srvtoolu_1"),
    ]));
    assert!(
        results[0]
            .content()
            .contains("programs do not start programs"),
        "{}",
        results[0].content()
    );
    assert!(recorder.intervals().is_empty(), "nothing ran");
}
