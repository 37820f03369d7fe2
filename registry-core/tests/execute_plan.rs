//! The planner is a pure function of classified calls and a conflict rule:
//! the default rule, and a replacement rule, without a runner in sight.

use std::num::NonZeroUsize;

use registry_core::{
    BatchMode, CallClass, ConcurrencySafeRule, ConflictRule, PlanItem, ToolBuilder, ToolHandle,
    ToolOutput, plan,
};

fn tool(name: &str) -> ToolHandle {
    ToolBuilder::new(name, "A test tool.")
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap()
}

fn item(index: usize, tool: &ToolHandle, safe: bool) -> PlanItem {
    PlanItem {
        index,
        tool: tool.clone(),
        class: CallClass {
            concurrency_safe: safe,
            read_only: safe,
            destructive: !safe,
        },
    }
}

fn shape(plan: &registry_core::Plan) -> Vec<(BatchMode, Vec<usize>)> {
    plan.batches
        .iter()
        .map(|b| (b.mode, b.calls.iter().map(|c| c.index).collect()))
        .collect()
}

const TEN: NonZeroUsize = NonZeroUsize::new(10).unwrap();

#[test]
fn the_default_rule_groups_consecutive_safe_calls_and_isolates_the_rest() {
    let read = tool("read");
    let write = tool("write");
    let calls = vec![
        item(0, &read, true),
        item(1, &read, true),
        item(2, &write, false),
        item(3, &write, false),
        item(4, &read, true),
    ];
    let planned = plan(calls, &ConcurrencySafeRule, TEN);
    assert_eq!(
        shape(&planned),
        [
            (BatchMode::Concurrent, vec![0, 1]),
            (BatchMode::Serial, vec![2]),
            (BatchMode::Serial, vec![3]),
            (BatchMode::Concurrent, vec![4]),
        ]
    );
    assert_eq!(planned.len(), 5);
    assert!(plan(Vec::new(), &ConcurrencySafeRule, TEN).is_empty());
}

/// A stand-in for declared accesses: writes to different tools never
/// conflict, and nothing shares with a call of its own tool.
struct DistinctTools;

impl ConflictRule for DistinctTools {
    fn may_share(&self, _call: &PlanItem) -> bool {
        true
    }

    fn may_join(&self, batch: &[PlanItem], next: &PlanItem) -> bool {
        batch.iter().all(|c| c.tool.name() != next.tool.name())
    }
}

#[test]
fn a_replacement_rule_changes_the_plan_and_nothing_else() {
    let a = tool("write_a");
    let b = tool("write_b");
    let calls = || {
        vec![
            item(0, &a, false),
            item(1, &b, false),
            item(2, &a, false),
            item(3, &b, false),
        ]
    };
    assert_eq!(plan(calls(), &ConcurrencySafeRule, TEN).batches.len(), 4);
    let planned = plan(calls(), &DistinctTools, TEN);
    assert_eq!(
        shape(&planned),
        [
            (BatchMode::Concurrent, vec![0, 1]),
            (BatchMode::Concurrent, vec![2, 3]),
        ]
    );
}
