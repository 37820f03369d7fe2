//! `run_command`: per-input classification through `prepare()`, the
//! permission answers, and real runs in a sandbox.

registry_core::link!(registry_examples);

use registry_core::{
    Flags, PermissionDecision, ToolContext, ToolError, ToolHandle, try_all_base_tools,
};
use registry_examples::Sandbox;
use registry_examples::tools::run_command::RunCommandError;
use serde_json::json;
use tempfile::TempDir;

fn run_command() -> ToolHandle {
    try_all_base_tools(&Flags::new())
        .expect("catalog")
        .get("run_command")
        .expect("run_command")
        .clone()
}

fn sandbox() -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").expect("write");
    let cx = ToolContext::new().with(Sandbox::new(dir.path()).expect("sandbox"));
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
        matches!(err, registry_core::ToolError::NeedsApproval { .. }),
        "{err}"
    );
    assert!(dir.path().join("notes.txt").exists(), "nothing ran");
    prepare().run_approved(&cx).await.expect("runs");
    assert!(!dir.path().join("notes.txt").exists());
}

#[tokio::test]
async fn a_background_child_outliving_the_shell_is_killed_at_the_timeout() {
    let tool = run_command();
    let (dir, cx) = sandbox();
    // The shell exits at once; its background child keeps stdout open, so
    // the call times out, and the child must die with its group.
    let err = tool
        .call_json(
            json!({"command": "(sleep 2; touch late.txt) & echo started", "timeout_secs": 1}),
            &cx,
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("did not finish within 1 s"),
        "{err}"
    );
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    assert!(
        !dir.path().join("late.txt").exists(),
        "the background child survived the timeout"
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
