//! Three executor guarantees a review asked for: a plugin that leaves
//! while a turn runs has its later calls refused; a permission decision
//! can be given a deadline; one session's turns never overlap.

use crate::execute_support;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use execute_support::*;
use registry_core::{
    ToolBuilder, ToolCall, ToolOutput, ToolRegistry,
    catalog::BaseTools,
    execute::ExecutorConfig,
    permission::{Approval, ApprovalRequest, Approver},
    session::Session,
};
use serde_json::json;

#[test]
fn a_plugin_that_leaves_during_the_turn_has_its_later_calls_refused() {
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![]).unwrap(),
    ));
    // A serial built-in-like plugin tool that removes the `docs` plugin,
    // then the docs tool, called later in the same turn.
    let remover = {
        let registry = Arc::clone(&registry);
        ToolBuilder::new("mcp__admin__drop_docs", "Drops the docs plugin.")
            .read_only(true)
            .build(move |_args, _cx| {
                let registry = Arc::clone(&registry);
                async move {
                    registry.plugins().unregister_owner("docs");
                    Ok(ToolOutput::text("dropped"))
                }
            })
            .unwrap()
    };
    let search = ToolBuilder::new("mcp__docs__search", "Searches the docs.")
        .read_only(true)
        .build(|_args, _cx| async { Ok(ToolOutput::text("found")) })
        .unwrap();
    registry
        .plugins()
        .register("admin", remover)
        .unwrap()
        .detach();
    registry
        .plugins()
        .register("docs", search)
        .unwrap()
        .detach();
    let exec = registry.executor().build();
    let results = paused_runtime().block_on(exec.run_turn(vec![
        ToolCall::new("1", "mcp__admin__drop_docs", json!({})),
        ToolCall::new("2", "mcp__docs__search", json!({})),
    ]));
    assert_eq!(results[0].content(), "dropped");
    assert!(results[1].is_error());
    assert_eq!(
        results[1].content(),
        "tool `mcp__docs__search` is no longer available: its plugin `docs` was removed"
    );
}

/// Never answers.
struct Silent;

impl Approver for Silent {
    fn approve<'a>(
        &'a self,
        _: &'a ApprovalRequest,
    ) -> Pin<Box<dyn Future<Output = Approval> + Send + 'a>> {
        Box::pin(std::future::pending())
    }
}

#[test]
fn a_permission_decision_past_its_deadline_is_a_denial() {
    let writer = ToolBuilder::new("write", "Writes.")
        .build(|_args, _cx| async { Ok(ToolOutput::text("written")) })
        .unwrap();
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![writer]).unwrap(),
    ));
    let exec = registry
        .executor()
        .approver(Arc::new(Silent))
        .config(ExecutorConfig::new().permission_timeout(Duration::from_secs(30)))
        .build();
    let results =
        paused_runtime().block_on(exec.run_turn(vec![ToolCall::new("1", "write", json!({}))]));
    assert!(results[0].is_error());
    assert!(
        results[0]
            .content()
            .contains("no permission decision for this call of `write` within 30s"),
        "{}",
        results[0].content()
    );
}

#[test]
fn two_turns_of_one_session_never_overlap() {
    let recorder = Arc::new(Recorder::default());
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![probe(&recorder)]).unwrap(),
    ));
    let session = Arc::new(Session::new());
    let make = || registry.executor().session(Arc::clone(&session)).build();
    let (a, b) = (make(), make());
    let turn = |first: u64| {
        vec![
            probe_call(first, json!({ "sleep_ms": 10 })),
            probe_call(first + 1, json!({ "sleep_ms": 10 })),
        ]
    };
    paused_runtime().block_on(async {
        let (ra, rb) = tokio::join!(a.run_turn(turn(1)), b.run_turn(turn(10)));
        assert!(ra.iter().chain(&rb).all(|r| !r.is_error()));
    });
    let intervals = recorder.intervals();
    assert_eq!(intervals.len(), 4);
    for x in &intervals {
        for y in &intervals {
            if x.key != y.key {
                assert!(!overlaps(x, y), "{x:?} overlaps {y:?}");
            }
        }
    }
}
