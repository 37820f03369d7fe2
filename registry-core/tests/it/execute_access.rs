//! Declared accesses through the whole executor, with instrumented tools:
//! each call records when it entered and left its body (a sequence
//! number, never a clock), so overlap and order are proven from events.

use crate::execute_support;

use std::num::NonZeroUsize;
use std::sync::Arc;

use execute_support::{Recorder, overlaps, paused_runtime, registry_of};
use proptest::prelude::*;
use registry_core::{
    ToolBuilder, ToolCall, ToolHandle, ToolOutput,
    access::{Access, AccessKey},
    execute::ExecutorConfig,
};
use serde_json::{Value, json};

/// Where the test's paths live: absolute and absent, so resolving them
/// keeps them as written.
const ROOT: &str = "/registry-core-access-test";

/// `{key, reads: [path], writes: [path], everything, panic_access,
/// yields}`: declares what it reads and writes (or everything, or panics
/// while saying), records its visit and yields `yields` times inside it.
fn access_probe(recorder: &Arc<Recorder>) -> ToolHandle {
    let recorder = Arc::clone(recorder);
    ToolBuilder::new("access_probe", "An instrumented tool that declares access.")
        .read_only(true)
        .access(declared_access)
        .build(move |args: Value, _cx| {
            let recorder = Arc::clone(&recorder);
            async move {
                let key = args["key"].as_u64().unwrap_or(0);
                let _visit = recorder.enter(key);
                for _ in 0..args["yields"].as_u64().unwrap_or(0) {
                    tokio::task::yield_now().await;
                }
                Ok(ToolOutput::text(format!("ok {key}")))
            }
        })
        .unwrap()
}

fn declared_access(args: &Value) -> Access {
    if args["panic_access"].as_bool().unwrap_or(false) {
        panic!("the access expression panics on purpose");
    }
    if args["everything"].as_bool().unwrap_or(false) {
        return Access::everything();
    }
    let paths = |field: &str| -> Vec<AccessKey> {
        args[field]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|p| AccessKey::path(format!("{ROOT}/{p}")))
            .collect()
    };
    Access::read_all(paths("reads")) | Access::write_all(paths("writes"))
}

#[derive(Debug, Clone)]
struct Gen {
    reads: Vec<&'static str>,
    writes: Vec<&'static str>,
    everything: bool,
    panic_access: bool,
}

impl Gen {
    fn input(&self, key: usize) -> Value {
        json!({
            "key": key,
            "reads": self.reads,
            "writes": self.writes,
            "everything": self.everything,
            "panic_access": self.panic_access,
            "yields": 3,
        })
    }

    /// What the executor must treat the call as touching.
    fn access(&self) -> Access {
        if self.panic_access {
            return Access::everything();
        }
        declared_access(&self.input(0))
    }
}

const PATHS: &[&str] = &["a", "a/x", "a/y", "b", "b/x", "c"];

fn gen_call() -> impl Strategy<Value = Gen> {
    let paths = || prop::collection::vec(prop::sample::select(PATHS), 0..3);
    (
        paths(),
        paths(),
        prop::bool::weighted(0.08),
        prop::bool::weighted(0.08),
    )
        .prop_map(|(reads, writes, everything, panic_access)| Gen {
            reads,
            writes,
            everything,
            panic_access,
        })
}

/// The batches the rule must form, worked out naively: walking in order, a
/// call joins the open batch when it conflicts with no member, pairwise.
fn expected_batches(accesses: &[Access]) -> Vec<Vec<usize>> {
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut open_joinable = false;
    for (k, access) in accesses.iter().enumerate() {
        let alone = access.writes_everything();
        let joins = open_joinable
            && !alone
            && batches
                .last()
                .is_some_and(|b| b.iter().all(|&m| !access.conflicts(&accesses[m])));
        if joins {
            batches.last_mut().unwrap().push(k);
        } else {
            batches.push(vec![k]);
        }
        open_joinable = !alone;
    }
    batches
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Random turns of declared accesses: results in call order; calls
    /// whose accesses conflict never overlap, the earlier finishing first;
    /// a panicking access overlaps nothing; calls of one conflict-free
    /// stretch do overlap (the first `limit` of it); the cap holds.
    #[test]
    fn declared_accesses_decide_what_overlaps(
        gens in prop::collection::vec(gen_call(), 0..14),
        limit in 1usize..5,
    ) {
        let recorder = Arc::new(Recorder::default());
        let exec = registry_of(vec![access_probe(&recorder)]).executor().config(
            ExecutorConfig::new().max_concurrency(NonZeroUsize::new(limit).unwrap()),
        ).build();
        let calls: Vec<ToolCall> = gens
            .iter()
            .enumerate()
            .map(|(k, g)| ToolCall::new(format!("call-{k}"), "access_probe", g.input(k)))
            .collect();
        let results = paused_runtime().block_on(exec.run_turn(calls));
        prop_assert_eq!(results.len(), gens.len());
        for (k, result) in results.iter().enumerate() {
            prop_assert_eq!(result.id(), format!("call-{k}"));
            prop_assert_eq!(result.content(), format!("ok {k}"));
        }
        prop_assert!(recorder.max_active() <= limit);

        let accesses: Vec<Access> = gens.iter().map(Gen::access).collect();
        let spans = recorder.intervals();
        prop_assert_eq!(spans.len(), gens.len());
        for (i, a) in spans.iter().enumerate() {
            for b in &spans[i + 1..] {
                let (ka, kb) = (a.key as usize, b.key as usize);
                let conflict = accesses[ka].conflicts(&accesses[kb])
                    || accesses[ka].writes_everything()
                    || accesses[kb].writes_everything();
                if conflict {
                    // In the model's order, one after the other.
                    prop_assert!(a.exit < b.enter, "conflicting #{} and #{} overlap: {:?} {:?}", ka, kb, a, b);
                }
            }
        }
        for batch in expected_batches(&accesses) {
            let running_together = &batch[..batch.len().min(limit)];
            for (i, &x) in running_together.iter().enumerate() {
                for &y in &running_together[i + 1..] {
                    prop_assert!(
                        overlaps(&spans[x], &spans[y]),
                        "disjoint #{} and #{} of one stretch did not overlap: {:?} {:?}",
                        x, y, spans[x], spans[y]
                    );
                }
            }
        }
    }
}

fn edit(key: usize, path: &str) -> ToolCall {
    ToolCall::new(
        format!("call-{key}"),
        "access_probe",
        json!({ "key": key, "writes": [path], "yields": 3 }),
    )
}

#[test]
fn ten_edits_of_ten_files_run_together_and_a_panicking_access_runs_alone() {
    let recorder = Arc::new(Recorder::default());
    let exec = registry_of(vec![access_probe(&recorder)])
        .executor()
        .build();
    let mut calls: Vec<ToolCall> = (0..10).map(|k| edit(k, &format!("f{k}"))).collect();
    let plan = exec.plan_turn(&calls);
    assert_eq!(plan.batch_count(), 1, "{}", plan.explain());
    paused_runtime().block_on(exec.run_turn(calls.clone()));
    assert_eq!(recorder.max_active(), 10);

    // The same turn with a panicking access in the middle: it splits the
    // stretch and runs alone.
    calls[5].input["panic_access"] = json!(true);
    let plan = exec.plan_turn(&calls);
    assert_eq!(plan.batch_sizes(), [5, 1, 4], "{}", plan.explain());
    let reason = |batch| plan.batch_reason(batch).map(|r| r.to_string());
    assert_eq!(reason(1).as_deref(), Some("runs alone"));
    assert_eq!(reason(2).as_deref(), Some("after #5, which ran alone"));
    let recorder2 = Arc::new(Recorder::default());
    let exec2 = registry_of(vec![access_probe(&recorder2)])
        .executor()
        .build();
    let results = paused_runtime().block_on(exec2.run_turn(calls));
    assert!(results.iter().all(|r| !r.is_error()));
    // The panic is counted as a strict fallback of the tool.
    let metrics = exec2.session().metrics();
    assert_eq!(metrics["access_probe"].strict_fallbacks, 1, "{metrics:?}");
    let spans = recorder2.intervals();
    for other in spans.iter().filter(|s| s.key != 5) {
        assert!(!overlaps(&spans[5], other), "{:?} {:?}", spans[5], other);
    }
}

#[test]
fn the_dry_run_names_the_conflicting_keys_and_the_earlier_call() {
    let recorder = Arc::new(Recorder::default());
    let exec = registry_of(vec![access_probe(&recorder)])
        .executor()
        .build();
    let calls = vec![
        edit(0, "a/b.txt"),
        edit(1, "c.txt"),
        ToolCall::new(
            "call-2",
            "access_probe",
            json!({ "key": 2, "reads": ["a"] }),
        ),
        ToolCall::new("call-3", "no_such_tool", json!({})),
        ToolCall::new(
            "call-4",
            "access_probe",
            json!({ "key": 4, "reads": ["./c.txt"] }),
        ),
    ];
    let plan = exec.plan_turn(&calls);
    assert_eq!(
        plan.explain().to_string(),
        format!(
            "batch 0: concurrent, at most 10 at once (first batch)\n\
             \x20 #0 access_probe: writes path {ROOT}/a/b.txt\n\
             \x20 #1 access_probe: writes path {ROOT}/c.txt\n\
             batch 1: concurrent, at most 10 at once (reads path {ROOT}/a, which #0 writes path {ROOT}/a/b.txt)\n\
             \x20 #2 access_probe: reads path {ROOT}/a\n\
             \x20 #4 access_probe: reads path {ROOT}/c.txt\n"
        )
    );
}

#[test]
fn relative_paths_are_anchored_at_the_access_root_and_symlinks_followed() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("real.txt"), "x").unwrap();
    let tool = ToolBuilder::new("touch", "Write `path`.")
        .access(|args| Access::write(AccessKey::path(args["path"].as_str().unwrap_or("/"))))
        .build(|_, _| async { Ok(ToolOutput::text("ok")) })
        .unwrap();
    let exec = registry_of(vec![tool])
        .executor()
        .access_root(&root)
        .build();
    let call =
        |k: usize, path: &str| ToolCall::new(format!("{k}"), "touch", json!({ "path": path }));
    let mut calls = vec![
        call(0, "real.txt"),
        call(1, &root.join("real.txt").display().to_string()),
    ];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root.join("real.txt"), root.join("link.txt")).unwrap();
        calls.push(call(2, "link.txt"));
    }
    let plan = exec.plan_turn(&calls);
    // The same file three ways: three batches, each conflicting on the
    // one canonical key.
    assert_eq!(plan.batch_count(), calls.len(), "{}", plan.explain());
    let key = format!("writes path {}", root.join("real.txt").display());
    for batch in 1..plan.batch_count() {
        let reason = plan.batch_reason(batch).expect("a batch").to_string();
        assert!(
            reason == format!("{key}, which #{} {key}", batch - 1),
            "{reason}\n{}",
            plan.explain()
        );
    }
}

#[test]
fn without_an_access_root_a_relative_path_conflicts_with_every_path() {
    let tool = ToolBuilder::new("touch", "Write `path`.")
        .access(|args| Access::write(AccessKey::path(args["path"].as_str().unwrap_or("/"))))
        .build(|_, _| async { Ok(ToolOutput::text("ok")) })
        .unwrap();
    // `executor` sets no access root: what `a.txt` names is unknown.
    let exec = registry_of(vec![tool]).executor().build();
    let calls = [
        ToolCall::new("0", "touch", json!({ "path": "a.txt" })),
        ToolCall::new("1", "touch", json!({ "path": "b.txt" })),
        ToolCall::new("2", "touch", json!({ "path": format!("{ROOT}/c.txt") })),
        ToolCall::new("3", "touch", json!({ "path": format!("{ROOT}/d.txt") })),
    ];
    let plan = exec.plan_turn(&calls);
    assert_eq!(plan.batch_sizes(), [1, 1, 2], "{}", plan.explain());
    assert_eq!(
        plan.access_of(0).map(ToString::to_string).as_deref(),
        Some("writes path /")
    );
}
