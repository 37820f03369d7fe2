//! `run_command`: per-input classification through `prepare()`, the
//! permission answers, and real runs in a sandbox.

use registry_core::{
    Flags, PermissionDecision, ToolContext, ToolError, ToolHandle, catalog::BaseTools,
    permission::RefusedBy,
};
use registry_examples::Sandbox;
use registry_examples::tools::run_command::RunCommandError;
use serde_json::json;
use tempfile::TempDir;

fn run_command() -> ToolHandle {
    BaseTools::linked(&Flags::new())
        .expect("catalog")
        .get("run_command")
        .expect("run_command")
        .clone()
}

fn sandbox() -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").expect("write");
    let cx = Sandbox::new(dir.path()).expect("sandbox").context();
    (dir, cx)
}

#[test]
fn each_call_is_classified_on_its_command() {
    let tool = run_command();
    // (command, concurrency_safe, read_only, destructive)
    let cases = [
        ("ls", true, true, false),
        ("cat notes.txt | wc -l", true, true, false),
        ("git status && git diff", true, true, false),
        ("ls; rm -rf x", false, false, true),
        ("cat a > b", false, false, true),
        ("echo a >> b", false, false, false),
        ("echo $(rm x)", false, false, true),
        ("find . \\\nls -delete", false, false, true),
        ("ls () (rm -f victim); ls", false, false, true),
        ("2>/dev/null rm -f f", false, false, true),
        ("git -C . clean -fdx", false, false, true),
        ("git branch -qD old", false, false, true),
        ("env -S'rm -f f'", false, false, true),
        ("sort --out</dev/null out in", false, false, true),
        ("rm notes.txt", false, false, true),
        ("cargo build", false, false, false),
        ("", false, false, false),
    ];
    for (command, concurrency_safe, read_only, destructive) in cases {
        let call = tool.prepare(json!({ "command": command })).expect("parses");
        assert_eq!(
            (
                call.is_concurrency_safe(),
                call.is_read_only(),
                call.is_destructive()
            ),
            (concurrency_safe, read_only, destructive),
            "{command:?}"
        );
        assert_eq!(call.classifier_input().as_deref(), Some(command));
    }
}

#[test]
fn permission_asks_before_destructive_commands() {
    let tool = run_command();
    let (_dir, cx) = sandbox();
    let decide = |command: &str, cx: &ToolContext| {
        tool.prepare(json!({ "command": command }))
            .expect("parses")
            .check_permissions(cx)
    };
    assert_eq!(decide("ls", &cx), PermissionDecision::Delegate);
    assert_eq!(decide("cargo build", &cx), PermissionDecision::Delegate);
    assert!(matches!(
        decide("rm -rf src", &cx),
        PermissionDecision::Ask { reason } if reason.contains("rm -rf src")
    ));
    // What the reader cannot vouch for asks, saying why.
    assert!(matches!(
        decide("c=rm; $c -rf src", &cx),
        PermissionDecision::Ask { reason } if reason.contains("cannot be fully read")
            && reason.contains("`$c` is only known when the shell expands it")
    ));
    // A substitution is read: `date` destroys nothing.
    assert_eq!(decide("echo $(date)", &cx), PermissionDecision::Delegate);
    let long = format!("rm {}", "x".repeat(100_000));
    assert!(matches!(
        decide(&long, &cx),
        PermissionDecision::Ask { reason } if reason.len() < 400 && reason.contains("more bytes")
    ));
    assert!(matches!(
        decide("ls", &ToolContext::new()),
        PermissionDecision::Deny { reason } if reason.contains("no sandbox")
    ));
}

#[tokio::test]
async fn runs_in_the_sandbox_root_and_captures_everything() {
    let tool = run_command();
    let (dir, cx) = sandbox();

    let out = tool
        .call_json(json!({"command": "ls"}), &cx)
        .await
        .expect("runs");
    assert_eq!(
        out.as_str(),
        "exit code: 0\n--- stdout ---\nnotes.txt\n--- stderr ---\n(empty)\n"
    );

    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let out = tool
        .call_json(json!({"command": "pwd -P"}), &cx)
        .await
        .expect("runs");
    assert_eq!(
        out.as_str(),
        format!(
            "exit code: 0\n--- stdout ---\n{}\n--- stderr ---\n(empty)\n",
            root.display()
        )
    );

    let out = tool
        .call_json(json!({"command": "echo out; echo err >&2; exit 3"}), &cx)
        .await
        .expect("a non-zero exit is a result, not an error");
    assert_eq!(
        out.as_str(),
        "exit code: 3\n--- stdout ---\nout\n--- stderr ---\nerr\n"
    );
}

#[tokio::test]
async fn a_destructive_command_runs_only_once_approved() {
    let tool = run_command();
    let (dir, cx) = sandbox();
    let prepare = || {
        tool.prepare(json!({"command": "rm notes.txt"}))
            .expect("parses")
    };
    assert!(prepare().is_destructive());
    let err = prepare().run(&cx).await.unwrap_err();
    assert!(
        matches!(
            &err,
            ToolError::Refused { refusal, .. } if refusal.by == RefusedBy::Unapproved
        ),
        "{err}"
    );
    assert!(dir.path().join("notes.txt").exists(), "nothing ran");
    prepare().run_approved(&cx).await.expect("runs");
    assert!(!dir.path().join("notes.txt").exists());
}

/// Runs `args` as if a person approved it (these commands write files).
async fn approved(
    tool: &ToolHandle,
    args: serde_json::Value,
    cx: &ToolContext,
) -> Result<String, ToolError> {
    let out = tool.prepare(args).expect("parses").run_approved(cx).await?;
    Ok(out.as_str().to_owned())
}

/// Whether process `pid` has ended (a zombie waiting for its parent to
/// reap it counts as ended: it runs nothing).
#[cfg(target_os = "linux")]
fn has_ended(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// Polls until `pid` has ended; bounded, so a survivor fails the test
/// instead of hanging it.
#[cfg(target_os = "linux")]
async fn ends(pid: u32) -> bool {
    for _ in 0..500 {
        if has_ended(pid) {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    false
}

/// Polls until `path` holds a pid.
#[cfg(target_os = "linux")]
async fn pid_in(path: &std::path::Path) -> u32 {
    for _ in 0..500 {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            return pid;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("{} never held a pid", path.display());
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn background_jobs_die_when_the_shell_exits() {
    let tool = run_command();
    let (dir, cx) = sandbox();
    let out = approved(
        &tool,
        json!({"command": "sleep 1000 & echo $! > pid; echo started"}),
        &cx,
    )
    .await
    .expect("the shell exits at once; its job does not hold the call");
    assert!(out.contains("started"), "{out}");
    let pid = pid_in(&dir.path().join("pid")).await;
    assert!(ends(pid).await, "background job {pid} survived the shell");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn dropping_the_call_kills_its_whole_process_group() {
    let tool = run_command();
    let (dir, cx) = sandbox();
    let call = approved(
        &tool,
        json!({"command": "sleep 1000 & echo $! > pid; wait"}),
        &cx,
    );
    let pid_file = dir.path().join("pid");
    let pid = tokio::select! {
        result = call => panic!("the call ended on its own: {result:?}"),
        pid = pid_in(&pid_file) => pid,
    };
    // `select!` dropped the call's future when the pid arrived.
    assert!(
        ends(pid).await,
        "background job {pid} survived the dropped call"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_process_that_left_the_group_is_found_by_its_marker() {
    let tool = run_command();
    let (dir, cx) = sandbox();
    // `setsid` starts a new session (and process group): a group kill
    // misses it, the marker sweep does not. The shell waits until the
    // job has left the group (it writes its pid only after `setsid`).
    approved(
        &tool,
        json!({"command": "setsid sh -c 'echo $$ > pid; exec sleep 1000' & while [ ! -s pid ]; do sleep 0.01; done"}),
        &cx,
    )
    .await
    .expect("runs");
    let pid = pid_in(&dir.path().join("pid")).await;
    assert!(ends(pid).await, "setsid job {pid} escaped");
}

#[tokio::test]
async fn a_background_child_holding_the_pipe_is_killed_with_the_shell() {
    let tool = run_command();
    let (dir, cx) = sandbox();
    // The shell exits at once; its background child would keep stdout
    // open and touch a file later. Both end with the shell.
    let out = approved(
        &tool,
        json!({"command": "(sleep 2; touch late.txt) & echo started", "timeout_secs": 10}),
        &cx,
    )
    .await
    .expect("returns when the shell exits");
    assert!(out.contains("started"), "{out}");
    // Run a second command that outlasts the child's sleep: had the child
    // survived, the file would exist by the time it ends.
    tool.call_json(json!({"command": "sleep 3"}), &cx)
        .await
        .expect("runs");
    assert!(
        !dir.path().join("late.txt").exists(),
        "the background child survived the shell"
    );
}

#[tokio::test]
async fn a_command_past_its_timeout_is_killed() {
    let tool = run_command();
    let (_dir, cx) = sandbox();
    let err = tool
        .call_json(
            json!({"command": "sleep 30 & sleep 30; echo never", "timeout_secs": 1}),
            &cx,
        )
        .await
        .unwrap_err();
    match &err {
        ToolError::Failed { source, .. } => assert!(
            matches!(
                source.downcast_ref::<RunCommandError>(),
                Some(RunCommandError::TimedOut { seconds: 1 })
            ),
            "{err}"
        ),
        other => panic!("expected a timeout, got {other}"),
    }
    assert!(
        err.to_string().contains("did not finish within 1 s"),
        "{err}"
    );
}

#[tokio::test]
async fn bad_inputs_are_rejected_before_running() {
    let tool = run_command();
    let (_dir, cx) = sandbox();
    for (args, message) in [
        (json!({"command": "  "}), "`command` is empty"),
        (
            json!({"command": "ls", "timeout_secs": 0}),
            "`timeout_secs` is 0; it must be between 1 and 600",
        ),
        (
            json!({"command": "ls", "timeout_secs": 601}),
            "`timeout_secs` is 601",
        ),
    ] {
        let err = tool.call_json(args.clone(), &cx).await.unwrap_err();
        assert!(
            matches!(&err, ToolError::Rejected { source, .. } if source.to_string().contains(message)),
            "{args}: {err}"
        );
    }
    let err = tool
        .call_json(json!({"command": "ls", "cwd": "/"}), &cx)
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::InvalidInput { .. }), "{err}");
}

#[test]
fn the_timeout_defaults_to_thirty_seconds_in_the_schema() {
    let schema = run_command().input_schema().clone();
    assert_eq!(schema["properties"]["timeout_secs"]["default"], 30);
    assert_eq!(schema["required"], json!(["command"]));
}

/// Whether `git` can be run here; the git tests say so and pass when not.
fn git_available() -> bool {
    std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A repository whose configuration names a program that leaves
/// `pwned-<name>` behind when git runs it.
fn hostile_repository(dir: &std::path::Path) {
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("git");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q", "."]);
    git(&["add", "notes.txt"]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "commit",
        "-qm",
        "init",
    ]);
    std::fs::write(dir.join("notes.txt"), "alpha\nbeta\ngamma\n").expect("edit");
    let script = dir.join("hook.sh");
    std::fs::write(&script, "#!/bin/sh\ntouch \"$(dirname \"$0\")/pwned-$1\"\n").expect("script");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let program = |name: &str| format!("{} {name}", script.display());
    git(&["config", "core.fsmonitor", &program("fsmonitor")]);
    git(&["config", "diff.external", &program("external")]);
    git(&["config", "diff.evil.textconv", &program("textconv")]);
    std::fs::write(dir.join(".gitattributes"), "*.txt diff=evil\n").expect("attributes");
}

fn pwned(dir: &std::path::Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("pwned-"))
        .collect();
    found.sort();
    found
}

#[tokio::test]
async fn read_only_git_commands_ignore_programs_named_in_the_repository_config() {
    if !git_available() {
        eprintln!("git is not installed; skipping");
        return;
    }
    let tool = run_command();
    let (dir, cx) = sandbox();
    hostile_repository(dir.path());

    // The control: plain git does run them, so the check below can fail.
    for args in [&["status"][..], &["diff"][..]] {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git");
    }
    assert!(
        !pwned(dir.path()).is_empty(),
        "the hostile config is inert even unhardened"
    );
    for name in pwned(dir.path()) {
        std::fs::remove_file(dir.path().join(name)).expect("clean");
    }

    for command in [
        "git status",
        "git diff",
        "git log -p",
        "git show HEAD",
        "git diff HEAD --stat",
    ] {
        let call = tool.prepare(json!({ "command": command })).expect("parses");
        assert!(call.is_read_only(), "{command}");
        // The output may be an error from git refusing to run an emptied
        // program; what matters is that nothing ran.
        let _ = tool.call_json(json!({ "command": command }), &cx).await;
        assert_eq!(
            pwned(dir.path()),
            Vec::<String>::new(),
            "{command} ran a configured program"
        );
    }
}
