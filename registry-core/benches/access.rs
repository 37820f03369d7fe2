//! Declared access against the boolean rule, and the planner's own cost.
//!
//! `cargo bench -p registry-core --bench access`
//!
//! - `ten_edits`: a turn of ten edits of ten different files, each with
//!   20 ms of simulated I/O (a tokio sleep), through the whole executor.
//!   `access_rule`: the tool declares `access = write(path)`, so the ten
//!   share one batch (about 20 ms of wall time). `boolean_rule`: the same
//!   turn under [`ConcurrencySafeRule`], where an edit is not
//!   concurrency-safe and runs alone (about 200 ms).
//! - `planner`: planning a turn of 100 calls with 10 path keys each
//!   (accesses already evaluated and resolved, as the runner hands them
//!   over), for keys that never conflict (one batch of 100) and keys drawn
//!   from a small set (many conflicts, many batches). The boolean rule on
//!   the same items is the floor.
//! - `resolve`: anchoring and canonicalising one call's 10 relative path
//!   keys against an existing directory (what classification adds per call
//!   with declared paths; mostly `realpath` system calls).
//!
//! Under `cargo test --benches` divan runs every benchmark once.

use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use divan::Bencher;
use registry_core::{
    ExecutorBuilder, PermissionMode, Tool, ToolBuilder, ToolCall, ToolContext, ToolHandle,
    ToolOutput, ToolRegistry,
    access::{Access, Resource},
    catalog::BaseTools,
    execute::{AccessRule, CallClass, ConcurrencySafeRule, PlanItem, plan},
    tool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

fn main() {
    divan::main();
}

#[derive(Deserialize, JsonSchema)]
struct EditInput {
    /// The file.
    path: String,
    /// Simulated I/O, in milliseconds.
    ms: u64,
}

/// Edit one file (simulated).
#[tool(
    name = "edit",
    access = |i: &EditInput| Access::write(Resource::path(&i.path)),
)]
struct Edit;

impl Tool for Edit {
    type Input = EditInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EditInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        tokio::time::sleep(Duration::from_millis(input.ms)).await;
        Ok(input.path)
    }
}

fn executor() -> ExecutorBuilder {
    let base = BaseTools::__from_handles(vec![ToolHandle::new(Edit)]).expect("bench tools");
    // Bypass: an edit is not read-only, and the bench measures batching,
    // not an approver.
    ToolRegistry::new(base)
        .executor()
        .mode(PermissionMode::Bypass)
        .access_root("/registry-core-bench-workspace")
}

fn ten_edits() -> Vec<ToolCall> {
    (0..10)
        .map(|k| {
            ToolCall::new(
                format!("toolu_{k}"),
                "edit",
                json!({ "path": format!("src/file_{k}.rs"), "ms": 20 }),
            )
        })
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime")
}

mod ten_edits {
    use super::*;

    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn access_rule(bencher: Bencher) {
        let rt = runtime();
        let exec = executor().build();
        assert_eq!(exec.plan_turn(&ten_edits()).batches.len(), 1);
        bencher
            .with_inputs(ten_edits)
            .bench_local_values(|calls| rt.block_on(exec.run_turn(calls)));
    }

    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn boolean_rule(bencher: Bencher) {
        let rt = runtime();
        let exec = executor()
            .conflict_rule(Arc::new(ConcurrencySafeRule))
            .build();
        assert_eq!(exec.plan_turn(&ten_edits()).batches.len(), 10);
        bencher
            .with_inputs(ten_edits)
            .bench_local_values(|calls| rt.block_on(exec.run_turn(calls)));
    }
}

mod planner {
    use super::*;

    const TEN: NonZeroUsize = NonZeroUsize::new(10).unwrap();

    fn handle() -> ToolHandle {
        ToolBuilder::new("edit", "Edit.")
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .expect("bench tool")
    }

    /// 100 calls, each writing one key and reading nine, `key(call, n)`
    /// naming the keys.
    fn turn(key: impl Fn(usize, usize) -> String) -> Vec<PlanItem> {
        let tool = handle();
        (0..100)
            .map(|index| {
                let write = Access::write(Resource::path(key(index, 0)));
                let reads = Access::read_all((1..10).map(|n| Resource::path(key(index, n))));
                PlanItem {
                    index,
                    tool: tool.clone(),
                    class: CallClass::STRICT,
                    access: write | reads,
                }
            })
            .collect()
    }

    /// Every key different: one batch of 100.
    fn disjoint() -> Vec<PlanItem> {
        turn(|call, n| format!("/w/src/module_{call}/file_{n}.rs"))
    }

    /// Keys from a set of 30 files in 3 directories: conflicts all along.
    fn overlapping() -> Vec<PlanItem> {
        turn(|call, n| {
            let k = (call * 7 + n * 13) % 30;
            format!("/w/src/dir_{}/file_{k}.rs", k % 3)
        })
    }

    #[divan::bench]
    fn disjoint_100x10(bencher: Bencher) {
        assert_eq!(plan(disjoint(), &AccessRule, TEN).batches.len(), 1);
        bencher
            .with_inputs(disjoint)
            .bench_local_values(|items| plan(items, &AccessRule, TEN));
    }

    #[divan::bench]
    fn overlapping_100x10(bencher: Bencher) {
        assert!(plan(overlapping(), &AccessRule, TEN).batches.len() > 10);
        bencher
            .with_inputs(overlapping)
            .bench_local_values(|items| plan(items, &AccessRule, TEN));
    }

    #[divan::bench]
    fn boolean_floor_100(bencher: Bencher) {
        bencher
            .with_inputs(disjoint)
            .bench_local_values(|items| plan(items, &ConcurrencySafeRule, TEN));
    }
}

#[divan::bench]
fn resolve(bencher: Bencher) {
    let dir = std::env::temp_dir();
    let access = Access::read_all((0..10).map(|n| Resource::path(format!("./src/f{n}.rs"))));
    bencher.bench_local(|| access.resolve(Some(Path::new(&dir))));
}
