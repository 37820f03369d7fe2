//! The planner is a pure function of classified calls and a conflict rule:
//! the boolean rule, the access rule, and a replacement rule, without a
//! runner in sight.

use std::num::NonZeroUsize;

use crate::access::{Access, AccessKey, AccessMode, Conflict, Scope, Touch};
use crate::declare::{ToolBuilder, ToolOutput};
use crate::execute::classify::CallClass;
use crate::execute::plan::{
    AccessRule, BatchMode, BatchReason, ConcurrencySafeRule, ConflictRule, OpenBatch, Plan,
    PlanItem, plan,
};
use crate::input::ToolHandle;
use proptest::prelude::*;

fn tool(name: &str) -> ToolHandle {
    ToolBuilder::new(name, "A test tool.")
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap()
}

fn class(safe: bool) -> CallClass {
    CallClass {
        concurrency_safe: safe,
        read_only: safe,
        destructive: !safe,
    }
}

/// A call of a tool that declares no access.
fn item(index: usize, tool: &ToolHandle, safe: bool) -> PlanItem {
    PlanItem {
        index,
        tool: tool.clone(),
        class: class(safe),
        access: class(safe).undeclared_access(),
    }
}

/// A call of an unsafe tool that declares `access`.
fn declared(index: usize, tool: &ToolHandle, access: Access) -> PlanItem {
    PlanItem {
        index,
        tool: tool.clone(),
        class: class(false),
        access,
    }
}

fn shape(plan: &Plan) -> Vec<(BatchMode, Vec<usize>)> {
    plan.batches
        .iter()
        .map(|b| (b.mode, b.calls.iter().map(|c| c.index).collect()))
        .collect()
}

const TEN: NonZeroUsize = NonZeroUsize::new(10).unwrap();

#[test]
fn without_declarations_both_rules_are_the_boolean_rule() {
    let read = tool("read");
    let write = tool("write");
    let calls = || {
        vec![
            item(0, &read, true),
            item(1, &read, true),
            item(2, &write, false),
            item(3, &write, false),
            item(4, &read, true),
        ]
    };
    for rule in [&ConcurrencySafeRule as &dyn ConflictRule, &AccessRule] {
        let planned = plan(calls(), rule, TEN);
        assert_eq!(
            shape(&planned),
            [
                (BatchMode::Concurrent, vec![0, 1]),
                (BatchMode::Serial, vec![2]),
                (BatchMode::Serial, vec![3]),
                (BatchMode::Concurrent, vec![4]),
            ]
        );
        let reasons: Vec<_> = planned.batches.iter().map(|b| b.reason.clone()).collect();
        assert_eq!(
            reasons,
            [
                BatchReason::First,
                BatchReason::RunsAlone,
                BatchReason::RunsAlone,
                BatchReason::AfterAlone { earlier: 3 },
            ]
        );
        assert_eq!(planned.len(), 5);
        assert!(plan(Vec::new(), rule, TEN).is_empty());
    }
}

#[test]
fn declared_writes_to_different_files_share_a_batch_and_conflicts_keep_order() {
    let edit = tool("edit_file");
    let read = tool("read_file");
    let list = tool("list_dir");
    let calls = || {
        vec![
            declared(0, &edit, Access::write(AccessKey::path("/w/a.rs"))),
            declared(1, &edit, Access::write(AccessKey::path("/w/b.rs"))),
            declared(2, &read, Access::read(AccessKey::path("/w/c.rs"))),
            declared(3, &read, Access::read(AccessKey::path("/w/a.rs"))),
            declared(4, &list, Access::read(AccessKey::path("/w"))),
            declared(5, &edit, Access::everything()),
            declared(6, &read, Access::read(AccessKey::path("/w/b.rs"))),
        ]
    };
    let planned = plan(calls(), &AccessRule, TEN);
    assert_eq!(
        shape(&planned),
        [
            (BatchMode::Concurrent, vec![0, 1, 2]),
            (BatchMode::Concurrent, vec![3, 4]),
            (BatchMode::Serial, vec![5]),
            (BatchMode::Concurrent, vec![6]),
        ]
    );
    assert_eq!(
        planned.explain().to_string(),
        "batch 0: concurrent, at most 10 at once (first batch)\n\
         \x20 #0 edit_file: writes path /w/a.rs\n\
         \x20 #1 edit_file: writes path /w/b.rs\n\
         \x20 #2 read_file: reads path /w/c.rs\n\
         batch 1: concurrent, at most 10 at once (reads path /w/a.rs, which #0 writes path /w/a.rs)\n\
         \x20 #3 read_file: reads path /w/a.rs\n\
         \x20 #4 list_dir: reads path /w\n\
         batch 2: serial (runs alone)\n\
         \x20 #5 edit_file: writes everything\n\
         batch 3: concurrent, at most 10 at once (after #5, which ran alone)\n\
         \x20 #6 read_file: reads path /w/b.rs\n"
    );
    // The boolean rule ignores the declarations: every unsafe call alone.
    assert_eq!(plan(calls(), &ConcurrencySafeRule, TEN).batches.len(), 7);
}

/// A stand-in for a custom rule: calls of different tools never conflict,
/// and nothing shares with a call of its own tool.
struct DistinctTools;

struct SeenTools(Vec<(String, usize)>);

impl ConflictRule for DistinctTools {
    fn runs_alone(&self, _call: &PlanItem) -> bool {
        false
    }

    fn open_batch(&self) -> Box<dyn OpenBatch + '_> {
        Box::new(SeenTools(Vec::new()))
    }
}

impl OpenBatch for SeenTools {
    fn admit(&mut self, call: &PlanItem) -> Result<(), Box<Conflict>> {
        let name = call.tool.name();
        if let Some((_, earlier)) = self.0.iter().find(|(seen, _)| seen == name) {
            let touch = Touch {
                mode: AccessMode::Write,
                scope: Scope::AccessKey(AccessKey::named("tool", name)),
            };
            return Err(Box::new(Conflict {
                earlier: *earlier,
                earlier_touch: touch.clone(),
                touch,
            }));
        }
        self.0.push((name.to_owned(), call.index));
        Ok(())
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
    assert_eq!(
        planned.batches[1].reason.to_string(),
        "writes tool write_a, which #0 writes tool write_a"
    );
}

fn any_access() -> impl Strategy<Value = Access> {
    let key = prop::collection::vec(prop::sample::select(vec!["a", "b", "c"]), 0..3)
        .prop_map(|parts| AccessKey::path(format!("/{}", parts.join("/"))));
    let touch = prop_oneof![
        10 => (key, any::<bool>()).prop_map(|(k, w)| if w { Access::write(k) } else { Access::read(k) }),
        1 => Just(Access::read_everything()),
        1 => Just(Access::everything()),
        1 => Just(Access::none()),
    ];
    prop::collection::vec(touch, 1..3)
        .prop_map(|parts| parts.into_iter().fold(Access::none(), Access::union))
}

proptest! {
    /// Whatever the accesses: batches run the calls in order; no two
    /// calls of one batch conflict; a call that writes everything is
    /// alone; two conflicting calls are in different batches, the earlier
    /// first; and every batch after the first starts for a true reason.
    #[test]
    fn the_access_plan_is_sound_and_greedy(accesses in prop::collection::vec(any_access(), 0..16)) {
        let t = tool("t");
        let items: Vec<PlanItem> = accesses
            .iter()
            .enumerate()
            .map(|(i, a)| declared(i, &t, a.clone()))
            .collect();
        let planned = plan(items, &AccessRule, TEN);
        let order: Vec<usize> = planned.batches.iter().flat_map(|b| b.calls.iter().map(|c| c.index)).collect();
        prop_assert_eq!(order, (0..accesses.len()).collect::<Vec<_>>());
        let mut batch_of = vec![0; accesses.len()];
        for (n, batch) in planned.batches.iter().enumerate() {
            for call in &batch.calls {
                batch_of[call.index] = n;
            }
            if batch.calls.iter().any(|c| c.access.writes_everything()) {
                prop_assert_eq!(batch.calls.len(), 1);
                prop_assert_eq!(batch.mode, BatchMode::Serial);
            }
            for (i, x) in batch.calls.iter().enumerate() {
                for y in &batch.calls[..i] {
                    prop_assert!(x.access.conflict_with(&y.access).is_none());
                }
            }
            let first = batch.calls[0].index;
            match &batch.reason {
                BatchReason::First => prop_assert_eq!(n, 0),
                BatchReason::RunsAlone => prop_assert!(accesses[first].writes_everything()),
                BatchReason::AfterAlone { earlier } => {
                    prop_assert!(accesses[*earlier].writes_everything());
                    prop_assert_eq!(batch_of[*earlier] + 1, n);
                }
                BatchReason::Conflict(conflict) => {
                    prop_assert_eq!(batch_of[conflict.earlier] + 1, n);
                    prop_assert!(accesses[first].conflict_with(&accesses[conflict.earlier]).is_some());
                }
            }
        }
    }
}
