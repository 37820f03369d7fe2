//! One reading of a path: the permission pipeline (path rules, the
//! `accept_edits` workspace check) and the file tools resolve a path
//! against the same base, follow its links and apply `..` after them, as
//! the OS does. Each case runs through the executor with the real tools
//! and is judged by its effect on the disk.

use std::path::Path;
use std::sync::Arc;

use registry_core::permission::RuleOfTwo;
use registry_core::{
    Flags, PermissionContext, PermissionMode, ToolCall, ToolRegistry,
    catalog::BaseTools,
    permission::{RuleBehavior, RuleSource},
};
use registry_examples::Sandbox;
use serde_json::{Value, json};

struct Setup<'a> {
    sandbox: &'a Path,
    workspace: &'a Path,
    mode: PermissionMode,
    deny: &'a [&'a str],
}

async fn run(setup: &Setup<'_>, tool: &str, args: Value) -> String {
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::linked(&Flags::new()).expect("catalog"),
    ));
    let mut rules = PermissionContext::new();
    for rule in setup.deny {
        rules
            .add_rule(RuleSource::Project, RuleBehavior::Deny, rule)
            .expect("rule");
    }
    let _pool = registry.assemble_tool_pool(&rules);
    let executor = registry
        .executor()
        .permissions(rules)
        .mode(setup.mode)
        // A runtime that runs a shell in bypass mode names it unattended.
        .rule_of_two(RuleOfTwo::new().allow_unattended("run_command"))
        .workspace(setup.workspace)
        .context(Sandbox::new(setup.sandbox).expect("sandbox").context())
        .build();
    executor
        .run_turn(vec![ToolCall::new("call-1", tool, args)])
        .await[0]
        .content()
        .to_owned()
}

fn edit(path: &str) -> Value {
    json!({ "path": path, "old_string": "original", "new_string": "changed" })
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("project/sub")).unwrap();
    for file in [
        "notes.txt",
        "project/notes.txt",
        "project/.env",
        "project/a.txt",
    ] {
        std::fs::write(root.join(file), "original").unwrap();
    }
    dir
}

/// The workspace is `sandbox/project`, the tools' root is `sandbox`: a
/// relative path is judged where the tool writes it.
#[tokio::test]
async fn accept_edits_judges_a_path_where_the_tool_writes_it() {
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    let setup = Setup {
        sandbox: &root,
        workspace: &root.join("project"),
        mode: PermissionMode::AcceptEdits,
        deny: &[],
    };
    // `notes.txt` is `sandbox/notes.txt` for the tool: outside the
    // workspace, so it asks (and with no approver is denied).
    for outside in [
        "notes.txt",
        "./notes.txt",
        "project/../notes.txt",
        "project/sub/../../notes.txt",
    ] {
        let text = run(&setup, "edit_file", edit(outside)).await;
        assert!(
            text.contains("outside the workspace") || text.contains("approval"),
            "{outside}: {text}"
        );
        assert_eq!(read(&root.join("notes.txt")), "original", "{outside}");
    }
    // Inside the workspace, as the tool resolves it: accepted.
    let text = run(&setup, "edit_file", edit("project/a.txt")).await;
    assert_eq!(read(&root.join("project/a.txt")), "changed", "{text}");
}

#[cfg(unix)]
#[tokio::test]
async fn a_second_name_of_a_denied_file_is_denied_in_every_mode() {
    use std::os::unix::fs::symlink;
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    let project = root.join("project");
    symlink(project.join(".env"), project.join("innocent.txt")).unwrap();
    symlink("sub", project.join("down")).unwrap();
    symlink(project.join("sub"), project.join("elsewhere")).unwrap();
    std::fs::hard_link(project.join(".env"), project.join("hard.txt")).unwrap();
    let absolute = project.join(".env").display().to_string();
    let spellings = [
        ".env",
        "./.env",
        "sub/../.env",
        ".//.env",
        absolute.as_str(),
        // A symlink to the file.
        "innocent.txt",
        // `..` after a link leaves the link's target.
        "down/../.env",
        "elsewhere/../.env",
        // A hard link: another name of the same file.
        "hard.txt",
    ];
    for mode in PermissionMode::ALL {
        let setup = Setup {
            sandbox: &project,
            workspace: &project,
            mode,
            deny: &["edit_file(.env)", "read_file(.env)"],
        };
        for spelling in spellings {
            let text = run(&setup, "edit_file", edit(spelling)).await;
            assert_eq!(
                read(&project.join(".env")),
                "original",
                "{mode} {spelling}: {text}"
            );
            if mode == PermissionMode::Bypass {
                assert!(text.contains("deny rule"), "{spelling}: {text}");
            }
            let text = run(&setup, "read_file", json!({ "path": spelling })).await;
            assert!(text.contains("denied"), "{mode} read {spelling}: {text}");
        }
    }
}

/// What cannot be resolved safely: a path through `/proc` names open
/// files and other processes' views, so it is refused as leaving the
/// sandbox, and a rule cannot be checked against it.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_path_through_proc_is_refused() {
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    std::os::unix::fs::symlink("/proc/self/cwd", root.join("here")).unwrap();
    let bypass = Setup {
        sandbox: &root,
        workspace: &root,
        mode: PermissionMode::Bypass,
        deny: &["read_file(/etc/:*)"],
    };
    // Denied: by the sandbox, which refuses the path before the
    // uncheckable deny rule would.
    for path in ["/proc/self/root/etc/hostname", "here/notes.txt"] {
        let text = run(&bypass, "read_file", json!({ "path": path })).await;
        assert!(text.contains("denied"), "{path}: {text}");
    }
    let open = Setup {
        deny: &[],
        ..bypass
    };
    for path in ["/proc/self/root/etc/hostname", "here/notes.txt"] {
        let text = run(&open, "read_file", json!({ "path": path })).await;
        assert!(text.contains("outside the sandbox"), "{path}: {text}");
    }
}

/// A hard link cannot be told from any other file by its path: what the
/// file tools do about it is never to write through it. An edit replaces
/// the file by a rename, which gives the name a new file and leaves the
/// other name's contents as they were.
#[cfg(unix)]
#[tokio::test]
async fn an_edit_through_a_hard_link_never_changes_the_other_name() {
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    let project = root.join("project");
    std::fs::hard_link(project.join(".env"), project.join("hard.txt")).unwrap();
    let setup = Setup {
        sandbox: &project,
        workspace: &project,
        mode: PermissionMode::Bypass,
        deny: &[],
    };
    let text = run(&setup, "edit_file", edit("hard.txt")).await;
    assert_eq!(read(&project.join("hard.txt")), "changed", "{text}");
    assert_eq!(read(&project.join(".env")), "original");
}
