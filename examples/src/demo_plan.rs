//! The demo's batch plan: a sample turn of edits, reads and commands,
//! planned (not run) by the executor's dry run, with why each batch
//! starts and what each call touches.
//!
//! Every file tool declares the path it reads or writes, and `run_command`
//! what its words say it reads, so calls that touch different files share
//! a batch even when they write, and a call that touches a file an earlier
//! call of the batch writes (or a directory above it) starts the next one.

use std::path::Path;
use std::sync::Arc;

use registry_core::{
    BaseTools, Executor, PermissionContext, PermissionMode, PermissionPipeline, Session, ToolCall,
    ToolRegistry,
};
use serde_json::json;

/// The sample turn: what a model fixing a bug across a few files might
/// send at once.
pub fn sample_turn() -> Vec<ToolCall> {
    let call = |n: usize, name: &str, input| ToolCall::new(format!("toolu_{n:02}"), name, input);
    vec![
        call(
            0,
            "edit_file",
            json!({"path": "src/a.rs", "old_string": "x", "new_string": "y"}),
        ),
        call(
            1,
            "edit_file",
            json!({"path": "src/b.rs", "old_string": "x", "new_string": "y"}),
        ),
        call(
            2,
            "write_file",
            json!({"path": "notes.txt", "content": "fixed\n"}),
        ),
        call(3, "read_file", json!({"path": "./src/../src/a.rs"})),
        call(4, "grep", json!({"pattern": "fn main", "path": "src"})),
        call(5, "run_command", json!({"command": "wc -l notes.txt"})),
        call(
            6,
            "edit_file",
            json!({"path": "src/c.rs", "old_string": "x", "new_string": "y"}),
        ),
        call(7, "read_file", json!({"path": "README.md"})),
        call(8, "run_command", json!({"command": "cargo test"})),
        call(9, "list_dir", json!({})),
    ]
}

/// Prints the plan of [`sample_turn`] over `tools`, with relative paths
/// anchored at `workspace` (shown as `<workspace>`, so the output is the
/// same on every run).
pub fn print_plan(tools: &BaseTools, workspace: &Path) {
    let registry = Arc::new(ToolRegistry::new(tools.clone()));
    let rules = PermissionContext::new();
    let pool = registry.assemble_tool_pool(&rules);
    let executor = Executor::new(
        registry,
        &pool,
        rules,
        PermissionPipeline::new(PermissionMode::Default),
        Arc::new(Session::new()),
    )
    .with_access_root(workspace);
    let calls = sample_turn();
    println!();
    println!("== Batch plan of a turn: declared accesses ==");
    println!();
    for (index, call) in calls.iter().enumerate() {
        println!("#{index} {} {}", call.name, call.input);
    }
    println!();
    let plan = executor.plan_turn(&calls).explain().to_string();
    // The workspace as the keys show it: anchored and canonicalised.
    let shown = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_owned());
    let plan = plan.replace(&shown.display().to_string(), "<workspace>");
    for line in plan.lines() {
        println!("  {line}");
    }
}
