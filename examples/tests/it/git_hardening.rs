//! Read-only git commands in hostile repositories: every spelling of git
//! the shell runs is hardened, a submodule's configuration is never read,
//! and variables or options that widen what git loads make a command a
//! writer. Each command runs through the executor, with the real
//! `run_command`, in the modes that run read-only calls without asking
//! (`default`, `plan`, `dont_ask`, no approver), under `sh` and `bash`.
//! A hostile program leaves a file named `pwned`; it must never appear.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use registry_core::{
    Flags, PermissionContext, PermissionMode, ToolCall, ToolRegistry, catalog::BaseTools,
};
use registry_examples::Sandbox;
use registry_examples::command_safety::classify;
use registry_examples::tools::run_command::Shell;
use serde_json::json;

fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_ALLOW_PROTOCOL", "file")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn commit(dir: &Path, message: &str) -> bool {
    git(
        dir,
        &[
            "-c",
            "user.name=o",
            "-c",
            "user.email=o@example.invalid",
            "commit",
            "-qm",
            message,
        ],
    )
}

fn git_available() -> bool {
    Command::new("git").arg("--version").output().is_ok()
}

/// A program that leaves `pwned` in the directory it is run from (its
/// absolute path is written into the configuration).
fn hostile_program(dir: &Path) -> String {
    let hook = dir.join("hook.sh");
    let marker = dir.join("pwned");
    std::fs::write(
        &hook,
        format!("#!/bin/sh\ntouch '{}'\ncat\n", marker.display()),
    )
    .unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    hook.display().to_string()
}

/// A repository whose configuration names the hostile program for every
/// key a read can run: an external diff, a textconv driver and a clean
/// filter for every file, the fsmonitor and the pager.
fn hostile_repo(dir: &Path) {
    assert!(git(dir, &["init", "-q", "."]));
    std::fs::write(dir.join("a.txt"), "one\n").unwrap();
    assert!(git(dir, &["add", "a.txt"]));
    assert!(commit(dir, "one"));
    std::fs::write(dir.join("a.txt"), "two\n").unwrap();
    let program = hostile_program(dir);
    for key in [
        "diff.external",
        "diff.evil.textconv",
        "filter.evil.clean",
        "filter.evil.smudge",
        "core.fsmonitor",
        "core.pager",
    ] {
        assert!(git(dir, &["config", key, &program]));
    }
    std::fs::write(dir.join(".gitattributes"), "* diff=evil filter=evil\n").unwrap();
}

async fn run(dir: &Path, mode: PermissionMode, shell: Shell, command: &str) -> String {
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::linked(&Flags::new()).expect("catalog"),
    ));
    let rules = PermissionContext::new();
    let _pool = registry.assemble_tool_pool(&rules);
    let executor = registry
        .executor()
        .permissions(rules)
        .mode(mode)
        .context(Sandbox::new(dir).expect("sandbox").context().with(shell))
        .build();
    let call = ToolCall::new(
        "call-1",
        "run_command",
        json!({ "command": command, "timeout_secs": 10 }),
    );
    executor.run_turn(vec![call]).await[0].content().to_owned()
}

const QUIET_MODES: [PermissionMode; 3] = [
    PermissionMode::Default,
    PermissionMode::Plan,
    PermissionMode::DontAsk,
];

/// Spellings of git the shell runs as git, each with a command that reads
/// the diff, the log with patches or the status.
const SPELLINGS: &[&str] = &[
    "git diff",
    "g''it diff",
    "'git' diff",
    "\"git\" log -p",
    "\\git show",
    "gi\\\nt status",
    "git --no-pager diff",
    "git log -p -1",
    "git status",
    "git diff --stat",
    "ls && g''it diff",
    "g\"\"it status && cat a.txt",
];

#[tokio::test]
async fn no_spelling_of_a_read_only_git_runs_a_configured_program() {
    if !git_available() {
        eprintln!("git is not installed: skipped");
        return;
    }
    for command in SPELLINGS {
        let read_only = classify(command).read_only;
        for mode in QUIET_MODES {
            for shell in [Shell::Sh, Shell::Bash] {
                let dir = tempfile::tempdir().unwrap();
                hostile_repo(dir.path());
                // The fixture is hostile: `git diff` run by hand runs the
                // program.
                assert!(git(dir.path(), &["diff"]));
                assert!(
                    dir.path().join("pwned").exists(),
                    "the fixture runs nothing"
                );
                std::fs::remove_file(dir.path().join("pwned")).unwrap();
                let text = run(dir.path(), mode, shell, command).await;
                assert!(
                    !dir.path().join("pwned").exists(),
                    "{command:?} in {mode} under {shell:?} ran the configured program: {text}"
                );
                if read_only {
                    assert!(text.starts_with("exit code"), "{command:?}: {text}");
                }
            }
        }
    }
}

/// A repository with a submodule whose own configuration names the
/// hostile program, and a `.gitmodules` that asks for it to be looked
/// into.
fn repo_with_submodule(dir: &Path) {
    let outer = dir.join("outer");
    let inner = dir.join("inner");
    std::fs::create_dir_all(&outer).unwrap();
    std::fs::create_dir_all(&inner).unwrap();
    for repo in [&inner, &outer] {
        assert!(git(repo, &["init", "-q", "."]));
    }
    std::fs::write(inner.join("b.txt"), "b\n").unwrap();
    assert!(git(&inner, &["add", "b.txt"]));
    assert!(commit(&inner, "b"));
    assert!(git(
        &outer,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            inner.to_str().unwrap(),
            "sub"
        ]
    ));
    assert!(commit(&outer, "sub"));
    let program = hostile_program(&outer);
    // The submodule's own configuration: nothing in the outer repository
    // names the program.
    let sub = outer.join("sub");
    for key in ["filter.evil.clean", "core.fsmonitor", "diff.external"] {
        assert!(git(&sub, &["config", key, &program]));
    }
    std::fs::write(sub.join(".gitattributes"), "* filter=evil\n").unwrap();
    std::fs::write(sub.join("b.txt"), "changed\n").unwrap();
    assert!(git(
        &outer,
        &[
            "config",
            "-f",
            ".gitmodules",
            "submodule.sub.ignore",
            "none"
        ]
    ));
}

#[tokio::test]
async fn a_repository_with_submodules_is_never_read_by_a_read_only_git() {
    if !git_available() {
        eprintln!("git is not installed: skipped");
        return;
    }
    for command in [
        "git status",
        "git diff",
        "g''it diff --stat",
        "git log -p -1",
    ] {
        assert!(classify(command).read_only, "{command}");
        for shell in [Shell::Sh, Shell::Bash] {
            let dir = tempfile::tempdir().unwrap();
            repo_with_submodule(dir.path());
            let outer = dir.path().join("outer");
            // The fixture is hostile: git run by hand runs the program.
            assert!(git(&outer, &["status"]));
            assert!(outer.join("pwned").exists(), "the fixture runs nothing");
            std::fs::remove_file(outer.join("pwned")).unwrap();
            let text = run(&outer, PermissionMode::Default, shell, command).await;
            assert!(
                !outer.join("pwned").exists(),
                "{command:?} under {shell:?} ran the submodule's program: {text}"
            );
            assert!(text.contains("submodules"), "{command:?}: {text}");
        }
    }
}

#[test]
fn what_widens_what_git_loads_is_not_read_only() {
    for command in [
        "HOME=. git diff",
        "XDG_CONFIG_HOME=. git diff",
        "GIT_CONFIG_GLOBAL=./x git log -p",
        "GIT_DIR=x/.git git status",
        "env HOME=. git diff",
        "export HOME=.; git diff",
        "git diff --ignore-submodules=none",
        "git status --ignore-submodules=dirty",
        "git diff --submodule=diff",
        "git -c diff.external=x diff",
        "git -c core.pager=x log",
        "git -C .. status",
        "git --git-dir=x status",
        "git --exec-path=. status",
        "/usr/bin/git diff",
        "./git diff",
    ] {
        let c = classify(command);
        assert!(!c.read_only, "{command}: {c:?}");
    }
    for command in [
        "HOME=. git diff",
        "XDG_CONFIG_HOME=. git diff",
        "env HOME=. git diff",
        "export HOME=.; git diff",
        "git -c diff.external=x diff",
    ] {
        assert!(classify(command).destructive, "{command}");
    }
    // The spellings that only ignore submodules stay read-only.
    for command in [
        "git status --ignore-submodules",
        "git diff --ignore-submodules=all",
    ] {
        assert!(classify(command).read_only, "{command}");
    }
}

#[tokio::test]
async fn a_home_that_names_a_program_is_never_run_quietly() {
    if !git_available() {
        eprintln!("git is not installed: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    hostile_repo(dir.path());
    let program = hostile_program(dir.path());
    std::fs::write(
        dir.path().join(".gitconfig"),
        format!("[diff]\n\texternal = {program}\n"),
    )
    .unwrap();
    for command in [
        "HOME=. git diff",
        "env HOME=. git diff",
        "export HOME=.; git diff",
    ] {
        for mode in QUIET_MODES {
            let text = run(dir.path(), mode, Shell::Sh, command).await;
            assert!(
                !dir.path().join("pwned").exists(),
                "{command:?} in {mode}: {text}"
            );
            assert!(text.contains("denied"), "{command:?} in {mode}: {text}");
        }
    }
}
