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

use registry_core::{PermissionContext, ToolCall, ToolRegistry, catalog::BaseTools};
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

/// Prints the plan of [`sample_turn`] over `tools` (see [`plan_text`]).
pub fn print_plan(tools: &BaseTools, workspace: &Path) {
    println!();
    println!("== Batch plan of a turn: declared accesses ==");
    println!();
    print!("{}", plan_text(tools, workspace));
}

/// The calls of [`sample_turn`] and their plan, explained, with relative
/// paths anchored at `workspace` (shown as `<workspace>`, so the text is
/// the same on every run).
pub fn plan_text(tools: &BaseTools, workspace: &Path) -> String {
    let registry = Arc::new(ToolRegistry::new(tools.clone()));
    let rules = PermissionContext::new();
    let _pool = registry.assemble_tool_pool(&rules);
    let executor = registry
        .executor()
        .permissions(rules)
        .access_root(workspace)
        .build();
    let calls = sample_turn();
    let mut text = String::new();
    for (index, call) in calls.iter().enumerate() {
        text.push_str(&format!("#{index} {} {}\n", call.name, call.input));
    }
    text.push('\n');
    let plan = executor.plan_turn(&calls).explain().to_string();
    // The workspace as the keys show it: anchored and canonicalised.
    let shown = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_owned());
    let plan = plan.replace(&shown.display().to_string(), "<workspace>");
    for line in plan.lines() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use registry_core::{Flags, catalog::BaseTools};

    use super::plan_text;

    #[test]
    fn the_sample_turn_batches_by_what_each_call_touches() {
        let tools = BaseTools::linked(&Flags::new()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        // The files the turn names exist, as in the demo's scratch
        // workspace: `./src/../src/a.rs` is `src/a.rs` only when `src`
        // is a directory (for the OS, `..` out of a missing one fails).
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let text = plan_text(&tools, dir.path());
        let batches: Vec<&str> = text.lines().filter(|l| l.starts_with("  batch")).collect();
        assert_eq!(
            batches,
            [
                "  batch 0: concurrent, at most 10 at once (first batch)",
                "  batch 1: concurrent, at most 10 at once (reads path <workspace>/src/a.rs, which #0 writes path <workspace>/src/a.rs)",
                "  batch 2: concurrent, at most 10 at once (writes path <workspace>/src/c.rs, which #4 reads path <workspace>/src)",
                "  batch 3: serial (runs alone)",
                "  batch 4: concurrent, at most 10 at once (after #8, which ran alone)",
            ],
            "{text}"
        );
        assert!(
            text.contains("    #5 run_command: reads path <workspace>/notes.txt\n"),
            "{text}"
        );
        assert!(!text.contains(&dir.path().display().to_string()), "{text}");
    }
}
