//! The tool set's permission content (the path of the file tools, the
//! command of `run_command`) and what the permission pipeline makes of it
//! with real tools in a real sandbox.

use registry_core::{
    Flags, PermissionContext, PermissionMode, ToolHandle,
    catalog::BaseTools,
    permission::{
        AllowedBy, Authorization, Grants, PermissionPolicy, Refusal, RefusedBy, RuleBehavior,
        RuleSource,
    },
};
use registry_examples::Sandbox;
use serde_json::{Value, json};

fn tool(name: &str) -> ToolHandle {
    let tools = BaseTools::linked(&Flags::new()).expect("catalog");
    tools
        .resolve(name)
        .map(|(tool, _)| tool.clone())
        .unwrap_or_else(|| panic!("no tool `{name}`"))
}

fn content(name: &str, args: Value) -> Option<String> {
    tool(name)
        .prepare(args)
        .expect("arguments parse")
        .permission_content()
}

#[test]
fn file_tools_name_their_path_and_the_shell_its_command() {
    let spelt = "./src//util/../lib.rs";
    let cases = [
        ("read_file", json!({ "path": spelt })),
        ("write_file", json!({ "path": spelt, "content": "" })),
        (
            "edit_file",
            json!({ "path": spelt, "old_string": "a", "new_string": "b" }),
        ),
        ("list_dir", json!({ "path": spelt })),
        ("glob", json!({ "pattern": "*", "path": spelt })),
        ("grep", json!({ "pattern": "x", "path": spelt })),
    ];
    for (name, args) in cases {
        assert_eq!(content(name, args).as_deref(), Some("src/lib.rs"), "{name}");
    }
    // The default search root is the workspace itself.
    assert_eq!(
        content("grep", json!({ "pattern": "x" })).as_deref(),
        Some(".")
    );
    assert_eq!(
        content("run_command", json!({ "command": "git  status" })).as_deref(),
        Some("git  status")
    );
}

#[tokio::test]
async fn rules_reach_past_the_tools_own_allow_and_modes_use_the_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("secrets")).unwrap();
    std::fs::write(dir.path().join("secrets/key"), "k").unwrap();
    let sandbox = Sandbox::new(dir.path()).expect("sandbox");
    let workspace = sandbox.root().to_path_buf();
    let tool_cx = sandbox.context();
    let mut cx = PermissionContext::new();
    // Written against the alias: applies to `read_file`.
    cx.add_rule(RuleSource::Project, RuleBehavior::Deny, "cat(secrets:*)")
        .unwrap();

    let policy = PermissionPolicy::new(PermissionMode::AcceptEdits).with_workspace(&workspace);
    let grants = Grants::default();
    let decide = |name: &str, args: Value| {
        let prepared = tool(name).prepare(args).expect("arguments parse");
        let (policy, grants, cx, tool_cx) = (&policy, &grants, &cx, &tool_cx);
        async move { policy.authorize(cx, grants, &prepared, "1", tool_cx).await }
    };

    // `read_file` vouches for every path in the sandbox, but the deny rule
    // comes first, however the path is spelt.
    let answer = decide("read_file", json!({ "path": "src/../secrets/key" })).await;
    assert!(
        matches!(&answer, Authorization::Refused(Refusal { by: RefusedBy::DenyRule(rule), .. }) if rule == "cat(secrets:*)"),
        "{answer:?}"
    );
    assert_eq!(
        decide("read_file", json!({ "path": "README.md" })).await,
        Authorization::Allowed {
            by: AllowedBy::Tool
        }
    );
    // accept_edits: `edit_file` (not destructive) inside the workspace runs;
    // `write_file` (destructive: it overwrites) still asks, and with no
    // approver is denied.
    let edit = json!({ "path": "src/lib.rs", "old_string": "a", "new_string": "b" });
    assert_eq!(
        decide("edit_file", edit).await,
        Authorization::Allowed {
            by: AllowedBy::Mode(PermissionMode::AcceptEdits)
        }
    );
    let write = json!({ "path": "src/new.rs", "content": "" });
    assert!(matches!(
        decide("write_file", write).await,
        Authorization::Refused(Refusal {
            by: RefusedBy::NoApprover,
            ..
        })
    ));
    // A read-only command runs; a command is not a path, so accept_edits
    // never takes a writing one for an edit.
    assert_eq!(
        decide("run_command", json!({ "command": "ls" })).await,
        Authorization::Allowed {
            by: AllowedBy::Mode(PermissionMode::AcceptEdits)
        }
    );
    assert!(
        !decide("run_command", json!({ "command": "touch x" }))
            .await
            .is_allowed()
    );
}
