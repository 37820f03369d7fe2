//! Declared access against the boolean rule, and the planner's own cost.
//!
//! `cargo bench -p registry-core --bench access`
//!
//! - `ten_edits`: a turn of ten edits of ten different files, each with
//!   20 ms of simulated I/O (a tokio sleep), through the whole executor.
//!   `access_rule`: the tool declares `access = write(path)`, so the ten
//!   share one batch (about 20 ms of wall time). `boolean_rule`: the same
//!   turn through `edit_plain`, which declares no access and is not
//!   concurrency-safe, so each edit runs alone (about 200 ms).
//! - `planner`: `Executor::plan_turn` on a turn of 100 calls with 10 path
//!   keys each (classification, access evaluation and resolution
//!   included), for keys that never conflict (one batch of 100) and keys
//!   drawn from a small set (many conflicts, many batches). 100
//!   concurrency-safe calls without declared access are the floor.
//! - `resolve`: anchoring and canonicalising one call's 10 relative path
//!   keys against an existing directory (what classification adds per call
//!   with declared paths; mostly `realpath` system calls).
//!
//! Under `cargo test --benches` divan runs every benchmark once.

use std::path::Path;
use std::time::Duration;

use divan::Bencher;
use registry_core::{
    ExecutorBuilder, PermissionMode, Tool, ToolBuilder, ToolCall, ToolContext, ToolHandle,
    ToolOutput, ToolRegistry,
    access::{Access, AccessKey},
    catalog::BaseTools,
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
    access = |i: &EditInput| Access::write(AccessKey::path(&i.path)),
)]
struct Edit;

/// The same edit without a declared access: not concurrency-safe, so under
/// the boolean rule each call runs alone.
#[tool(name = "edit_plain")]
struct EditPlain;

impl Tool for EditPlain {
    type Input = EditInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EditInput, cx: &ToolContext) -> Result<String, Self::Error> {
        Edit.call(input, cx).await
    }
}

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
    let base = BaseTools::__from_handles(vec![ToolHandle::new(Edit), ToolHandle::new(EditPlain)])
        .expect("bench tools");
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
        assert_eq!(exec.plan_turn(&ten_edits()).batch_count(), 1);
        bencher
            .with_inputs(ten_edits)
            .bench_local_values(|calls| rt.block_on(exec.run_turn(calls)));
    }

    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn boolean_rule(bencher: Bencher) {
        let rt = runtime();
        let exec = executor().build();
        let plain = || -> Vec<ToolCall> {
            ten_edits()
                .into_iter()
                .map(|call| ToolCall::new(call.id, "edit_plain", call.input))
                .collect()
        };
        assert_eq!(exec.plan_turn(&plain()).batch_count(), 10);
        bencher
            .with_inputs(plain)
            .bench_local_values(|calls| rt.block_on(exec.run_turn(calls)));
    }
}

mod planner {
    use super::*;

    /// A tool that declares what each call touches: the keys its input
    /// lists, the first written and the rest read.
    fn declared() -> ToolHandle {
        ToolBuilder::new("touch_keys", "Touch keys.")
            .access(|args| {
                let keys: Vec<&str> = args["keys"]
                    .as_array()
                    .map(|keys| keys.iter().filter_map(|k| k.as_str()).collect())
                    .unwrap_or_default();
                match keys.split_first() {
                    Some((write, reads)) => {
                        Access::write(AccessKey::path(write))
                            | Access::read_all(reads.iter().map(AccessKey::path))
                    }
                    None => Access::everything(),
                }
            })
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .expect("bench tool")
    }

    /// A concurrency-safe tool with no declared access: the boolean rule.
    fn undeclared() -> ToolHandle {
        ToolBuilder::new("read_plain", "Read.")
            .concurrency_safe(true)
            .read_only(true)
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .expect("bench tool")
    }

    fn planner() -> registry_core::Executor {
        let base = BaseTools::__from_handles(vec![declared(), undeclared()]).expect("bench tools");
        ToolRegistry::new(base)
            .executor()
            .mode(PermissionMode::Bypass)
            .build()
    }

    /// 100 calls, each writing one key and reading nine, `key(call, n)`
    /// naming the keys (absolute paths that do not exist, so resolving
    /// them is lexical).
    fn turn(key: impl Fn(usize, usize) -> String) -> Vec<ToolCall> {
        (0..100)
            .map(|index| {
                let keys: Vec<String> = (0..10).map(|n| key(index, n)).collect();
                ToolCall::new(
                    format!("toolu_{index}"),
                    "touch_keys",
                    json!({ "keys": keys }),
                )
            })
            .collect()
    }

    /// Every key different: one batch of 100.
    fn disjoint() -> Vec<ToolCall> {
        turn(|call, n| format!("/w/src/module_{call}/file_{n}.rs"))
    }

    /// Keys from a set of 30 files in 3 directories: conflicts all along.
    fn overlapping() -> Vec<ToolCall> {
        turn(|call, n| {
            let k = (call * 7 + n * 13) % 30;
            format!("/w/src/dir_{}/file_{k}.rs", k % 3)
        })
    }

    #[divan::bench]
    fn disjoint_100x10(bencher: Bencher) {
        let exec = planner();
        assert_eq!(exec.plan_turn(&disjoint()).batch_count(), 1);
        bencher
            .with_inputs(disjoint)
            .bench_local_values(|calls| exec.plan_turn(&calls));
    }

    #[divan::bench]
    fn overlapping_100x10(bencher: Bencher) {
        let exec = planner();
        assert!(exec.plan_turn(&overlapping()).batch_count() > 10);
        bencher
            .with_inputs(overlapping)
            .bench_local_values(|calls| exec.plan_turn(&calls));
    }

    #[divan::bench]
    fn boolean_floor_100(bencher: Bencher) {
        let exec = planner();
        let calls = || -> Vec<ToolCall> {
            (0..100)
                .map(|k| ToolCall::new(format!("toolu_{k}"), "read_plain", json!({})))
                .collect()
        };
        assert_eq!(exec.plan_turn(&calls()).batch_count(), 1);
        bencher
            .with_inputs(calls)
            .bench_local_values(|calls| exec.plan_turn(&calls));
    }
}

#[divan::bench]
fn resolve(bencher: Bencher) {
    let dir = std::env::temp_dir();
    let access = Access::read_all((0..10).map(|n| AccessKey::path(format!("./src/f{n}.rs"))));
    bencher.bench_local(|| access.resolve(Some(Path::new(&dir))));
}
