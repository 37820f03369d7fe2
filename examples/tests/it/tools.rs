//! Every tool working on a real sandbox directory, and its error cases.

use std::path::Path;

use registry_core::{
    Flags, PermissionDecision, Tool, ToolContext, ToolError, ToolHandle,
    catalog::BaseTools,
    permission::{Refusal, RefusedBy},
};
use registry_examples::tools::ReadFile;
use registry_examples::tools::edit_file::EditFileError;
use registry_examples::tools::glob::GlobError;
use registry_examples::tools::grep::GrepError;
use registry_examples::tools::list_dir::ListDirError;
use registry_examples::tools::read_file::ReadFileError;
use registry_examples::{Sandbox, SandboxError};
use serde_json::{Value, json};
use tempfile::TempDir;

/// A sandbox directory with a small project in it, the tool list, and a
/// context pointing at the sandbox.
struct Fixture {
    dir: TempDir,
    tools: BaseTools,
    cx: ToolContext,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, content) in [
            ("README.md", "# Demo\nA small project.\n"),
            ("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n"),
            (
                "src/lib.rs",
                "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n// TODO: sub\n",
            ),
            ("src/util/mod.rs", "// TODO: more\npub fn id() {}\n"),
            ("notes.txt", "one\ntwo\nthree\ntwo\n"),
            (".git/HEAD", "ref: refs/heads/main\n// TODO: hidden\n"),
        ] {
            write(dir.path(), path, content);
        }
        std::fs::write(dir.path().join("blob.bin"), [0xff, 0xfe, b'T', b'O', 0x00])
            .expect("write blob");
        let cx = Sandbox::new(dir.path()).expect("sandbox").context();
        let tools = BaseTools::linked(&Flags::new()).expect("catalog");
        Fixture { dir, tools, cx }
    }

    fn tool(&self, name: &str) -> &ToolHandle {
        self.tools
            .resolve(name)
            .map(|(tool, _)| tool)
            .unwrap_or_else(|| panic!("no tool `{name}`"))
    }

    /// Checks permissions like a runtime would, then runs the call.
    async fn call(&self, name: &str, args: Value) -> Result<String, ToolError> {
        let prepared = self.tool(name).prepare(args)?;
        if let PermissionDecision::Deny { reason } = prepared.check_permissions(&self.cx) {
            return Err(ToolError::Refused {
                tool: name.to_owned(),
                refusal: Refusal::new(RefusedBy::Tool, reason),
            });
        }
        prepared.run(&self.cx).await.map(|out| out.into_string())
    }

    async fn ok(&self, name: &str, args: Value) -> String {
        match self.call(name, args.clone()).await {
            Ok(text) => text,
            Err(err) => panic!("{name} {args}: {err}"),
        }
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(path)).expect("read back")
    }
}

fn write(root: &Path, path: &str, content: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
    std::fs::write(full, content).expect("write");
}

/// The typed error a tool returned, from the runtime's wrapper.
fn source<E: std::error::Error + 'static>(err: &ToolError) -> &E {
    match err {
        ToolError::Failed { source, .. } => source
            .downcast_ref::<E>()
            .unwrap_or_else(|| panic!("unexpected error type: {err}")),
        other => panic!("expected a tool failure, got: {other}"),
    }
}

// ---- read_file -------------------------------------------------------------

#[tokio::test]
async fn read_file_numbers_lines_and_pages() {
    let f = Fixture::new();
    assert_eq!(
        f.ok("read_file", json!({"path": "notes.txt"})).await,
        "     1\tone\n     2\ttwo\n     3\tthree\n     4\ttwo\n"
    );
    assert_eq!(
        f.ok(
            "Read",
            json!({"path": "notes.txt", "offset": 2, "limit": 2})
        )
        .await,
        "     2\ttwo\n     3\tthree\n[more lines follow: continue with offset = 4]\n"
    );
    assert_eq!(
        f.ok("cat", json!({"path": "./src/../notes.txt", "offset": 4}))
            .await,
        "     4\ttwo\n"
    );
}

#[tokio::test]
async fn read_file_errors() {
    let f = Fixture::new();
    let err = f
        .call("read_file", json!({"path": "missing.txt"}))
        .await
        .unwrap_err();
    assert!(matches!(source(&err), ReadFileError::NotFound { path } if path == "missing.txt"));
    assert_eq!(
        err.to_string(),
        "tool `read_file` failed: file `missing.txt` does not exist"
    );

    let err = f
        .call("read_file", json!({"path": "src"}))
        .await
        .unwrap_err();
    assert!(matches!(source(&err), ReadFileError::IsADirectory { .. }));

    let err = f
        .call("read_file", json!({"path": "blob.bin"}))
        .await
        .unwrap_err();
    assert!(matches!(
        source(&err),
        ReadFileError::NotUtf8 { line: 1, .. }
    ));

    let err = f
        .call("read_file", json!({"path": "notes.txt", "offset": 9}))
        .await
        .unwrap_err();
    assert!(matches!(
        source(&err),
        ReadFileError::OffsetPastEnd {
            offset: 9,
            lines: 4,
            ..
        }
    ));

    let err = f
        .call("read_file", json!({"path": "notes.txt", "offset": 0}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `read_file` rejected its input: `offset` must be at least 1"
    );

    let err = f
        .call("read_file", json!({"path": "notes.txt", "lines": 3}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::InvalidInput { message, .. } if message.contains("unknown field `lines`")),
        "{err}"
    );
}

// ---- write_file ------------------------------------------------------------

#[tokio::test]
async fn write_file_creates_and_overwrites() {
    let f = Fixture::new();
    assert_eq!(
        f.ok(
            "write_file",
            json!({"path": "new/deep/file.txt", "content": "a\nb\n"})
        )
        .await,
        "created `new/deep/file.txt` (2 line(s), 4 bytes)"
    );
    assert_eq!(f.read("new/deep/file.txt"), "a\nb\n");
    assert_eq!(
        f.ok("write_file", json!({"path": "notes.txt", "content": "x"}))
            .await,
        "overwrote `notes.txt` (1 line(s), 1 bytes; it had 18 bytes)"
    );
    assert_eq!(f.read("notes.txt"), "x");

    let err = f
        .call("write_file", json!({"path": "src", "content": "x"}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("`src` is a directory"), "{err}");
}

// ---- edit_file -------------------------------------------------------------

#[tokio::test]
async fn edit_file_replaces_exact_text() {
    let f = Fixture::new();
    assert_eq!(
        f.ok(
            "edit_file",
            json!({"path": "notes.txt", "old_string": "three", "new_string": "3"})
        )
        .await,
        "edited `notes.txt`: replaced 1 occurrence"
    );
    assert_eq!(f.read("notes.txt"), "one\ntwo\n3\ntwo\n");

    assert_eq!(
        f.ok(
            "edit_file",
            json!({"path": "notes.txt", "old_string": "two", "new_string": "2", "replace_all": true})
        )
        .await,
        "edited `notes.txt`: replaced 2 occurrences"
    );
    assert_eq!(f.read("notes.txt"), "one\n2\n3\n2\n");
}

#[tokio::test]
async fn edit_file_refuses_missing_and_ambiguous_text() {
    let f = Fixture::new();
    let err = f
        .call(
            "edit_file",
            json!({"path": "notes.txt", "old_string": "two", "new_string": "2"}),
        )
        .await
        .unwrap_err();
    assert!(matches!(
        source(&err),
        EditFileError::Ambiguous { count: 2, .. }
    ));
    assert!(err.to_string().contains("replace_all"), "{err}");

    let err = f
        .call(
            "edit_file",
            json!({"path": "notes.txt", "old_string": "four", "new_string": "4"}),
        )
        .await
        .unwrap_err();
    assert!(matches!(
        source(&err),
        EditFileError::OldStringNotFound { .. }
    ));

    let err = f
        .call(
            "edit_file",
            json!({"path": "nope.txt", "old_string": "a", "new_string": "b"}),
        )
        .await
        .unwrap_err();
    assert!(matches!(source(&err), EditFileError::NotFound { .. }));

    for (old, new, message) in [
        ("", "x", "`old_string` is empty"),
        ("one", "one", "the same"),
    ] {
        let err = f
            .call(
                "edit_file",
                json!({"path": "notes.txt", "old_string": old, "new_string": new}),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ToolError::Rejected { source, .. } if source.to_string().contains(message)),
            "{err}"
        );
    }
    assert_eq!(f.read("notes.txt"), "one\ntwo\nthree\ntwo\n", "unchanged");
}

// ---- list_dir --------------------------------------------------------------

#[tokio::test]
async fn list_dir_sorts_and_marks_directories() {
    let f = Fixture::new();
    assert_eq!(
        f.ok("list_dir", json!({})).await,
        ".git/\nREADME.md\nblob.bin\nnotes.txt\nsrc/\n"
    );
    assert_eq!(
        f.ok("list_dir", json!({"path": "src"})).await,
        "lib.rs\nmain.rs\nutil/\n"
    );
    std::fs::create_dir(f.dir.path().join("empty")).expect("mkdir");
    assert_eq!(
        f.ok("list_dir", json!({"path": "empty"})).await,
        "(directory `empty` is empty)"
    );

    let err = f
        .call("list_dir", json!({"path": "notes.txt"}))
        .await
        .unwrap_err();
    assert!(matches!(source(&err), ListDirError::NotADirectory { .. }));
    let err = f
        .call("list_dir", json!({"path": "nope"}))
        .await
        .unwrap_err();
    assert!(matches!(source(&err), ListDirError::NotFound { .. }));
}

// ---- glob ------------------------------------------------------------------

#[tokio::test]
async fn glob_matches_sorted_paths() {
    let f = Fixture::new();
    assert_eq!(
        f.ok("glob", json!({"pattern": "**/*.rs"})).await,
        "src/lib.rs\nsrc/main.rs\nsrc/util/mod.rs\n"
    );
    assert_eq!(
        f.ok("glob", json!({"pattern": "*.rs", "path": "src"}))
            .await,
        "src/lib.rs\nsrc/main.rs\n",
        "`*` stays within one directory"
    );
    assert_eq!(
        f.ok("glob", json!({"pattern": "{src,src/util}"})).await,
        "src/\nsrc/util/\n"
    );
    assert_eq!(
        f.ok("glob", json!({"pattern": "**/HEAD"})).await,
        "no paths under `.` match `**/HEAD`",
        ".git is skipped"
    );

    let err = f
        .call("glob", json!({"pattern": "src/[a-"}))
        .await
        .unwrap_err();
    assert!(matches!(
        source(&err),
        GlobError::InvalidPattern {
            field: "pattern",
            ..
        }
    ));
    assert!(
        err.to_string().contains("invalid glob in `pattern`"),
        "{err}"
    );
}

// ---- grep ------------------------------------------------------------------

#[tokio::test]
async fn grep_finds_lines_sorted_by_path() {
    let f = Fixture::new();
    assert_eq!(
        f.ok("grep", json!({"pattern": "TODO"})).await,
        "src/lib.rs:4:// TODO: sub\nsrc/util/mod.rs:1:// TODO: more\n",
        ".git and binary files are skipped"
    );
    assert_eq!(
        f.ok(
            "grep",
            json!({"pattern": "^T", "path": "notes.txt", "case_insensitive": true})
        )
        .await,
        "notes.txt:2:two\nnotes.txt:3:three\nnotes.txt:4:two\n"
    );
    assert_eq!(
        f.ok("grep", json!({"pattern": "fn", "glob": "main.rs"}))
            .await,
        "src/main.rs:1:fn main() {\n"
    );
    assert_eq!(
        f.ok("grep", json!({"pattern": "fn", "glob": "src/util/*.rs"}))
            .await,
        "src/util/mod.rs:2:pub fn id() {}\n"
    );
    assert_eq!(
        f.ok("grep", json!({"pattern": "zebra"})).await,
        "no matches for `zebra`"
    );
}

#[tokio::test]
async fn grep_bad_regex_names_the_field() {
    let f = Fixture::new();
    let err = f.call("grep", json!({"pattern": "fn("})).await.unwrap_err();
    assert!(matches!(
        source(&err),
        GrepError::InvalidRegex {
            field: "pattern",
            ..
        }
    ));
    assert!(
        err.to_string()
            .starts_with("tool `grep` failed: invalid regex in `pattern`:"),
        "{err}"
    );

    let err = f
        .call("grep", json!({"pattern": "fn", "glob": "[z-"}))
        .await
        .unwrap_err();
    assert!(matches!(
        source(&err),
        GrepError::InvalidGlob { field: "glob", .. }
    ));
}

// ---- todo_write ------------------------------------------------------------

#[tokio::test]
async fn todo_write_replaces_and_renders_the_list() {
    let f = Fixture::new();
    assert_eq!(
        f.ok(
            "todo_write",
            json!({"todos": [
                {"content": "Write the sandbox", "status": "completed"},
                {"content": "Write the tools", "status": "in_progress"},
                {"content": "Write the demo", "status": "pending"},
            ]})
        )
        .await,
        "todo list (3 items: 1 completed, 1 in progress, 1 pending)\n\
         1. [x] Write the sandbox\n\
         2. [>] Write the tools\n\
         3. [ ] Write the demo\n"
    );
    assert_eq!(
        f.ok("todo_write", json!({"todos": []})).await,
        "todo list cleared (0 items)\n(replaced a list of 3 items, 1 completed)\n"
    );
    assert_eq!(
        f.ok("todo_write", json!({"todos": []})).await,
        "todo list cleared (0 items)\n"
    );
}

/// Run by the executor, the list is the session's: each session starts
/// empty, sees only its own list, and a session given another's state
/// (as a replica restoring a stored record would) carries on from it.
#[tokio::test]
async fn todo_write_keeps_each_sessions_list_in_its_session_state() {
    use std::sync::Arc;

    use registry_core::{ToolCall, ToolRegistry, session::Session};
    use registry_examples::tools::todo_write::TODOS_KEY;

    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::linked(&Flags::new()).expect("tools"),
    ));
    let write = |session: &Arc<Session>, todos: Value| {
        let executor = Arc::clone(&registry)
            .executor()
            .session(Arc::clone(session))
            .context(Sandbox::new(dir.path()).expect("sandbox").context())
            .build();
        async move {
            let call = ToolCall::new("t", "todo_write", json!({ "todos": todos }));
            executor.run_turn(vec![call]).await[0].content().to_owned()
        }
    };
    let (one, two) = (Arc::new(Session::new()), Arc::new(Session::new()));
    let plan = json!([{"content": "Write the tests", "status": "completed"}, {"content": "Ship", "status": "pending"}]);
    assert!(!write(&one, plan.clone()).await.contains("replaced"));
    assert_eq!(one.state().get(TODOS_KEY), Some(&plan));
    // Another session has its own, empty list.
    assert!(!write(&two, json!([])).await.contains("replaced"));
    // A session restored from the first one's state finds its list.
    let restored = Arc::new(Session::new());
    restored.replace_state((*one.state()).clone());
    assert!(
        write(&restored, json!([]))
            .await
            .contains("(replaced a list of 2 items, 1 completed)")
    );
}

#[tokio::test]
async fn todo_write_allows_one_item_in_progress() {
    let f = Fixture::new();
    let err = f
        .call(
            "todo_write",
            json!({"todos": [
                {"content": "a", "status": "in_progress"},
                {"content": "b", "status": "pending"},
                {"content": "c", "status": "in_progress"},
            ]}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `todo_write` rejected its input: todo items 1 and 3 are both `in_progress`; at most one item may be in progress"
    );

    let err = f
        .call(
            "todo_write",
            json!({"todos": [{"content": "a", "status": "doing"}]}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::InvalidInput { path, .. } if path == "todos[0].status"),
        "{err}"
    );

    let err = f
        .call(
            "todo_write",
            json!({"todos": [{"content": "  ", "status": "pending"}]}),
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("item 1 has empty `content`"),
        "{err}"
    );
}

#[tokio::test]
async fn each_list_gets_its_own_todo_state() {
    let f = Fixture::new();
    f.ok(
        "todo_write",
        json!({"todos": [{"content": "a", "status": "pending"}]}),
    )
    .await;
    // A second list constructs a second TodoWrite (via Default): empty.
    let other = BaseTools::linked(&Flags::new()).expect("catalog");
    let todo = other.get("todo_write").expect("todo_write");
    assert!(!todo.ptr_eq(f.tool("todo_write")));
    let clone = f.tool("todo_write").clone();
    assert!(clone.ptr_eq(f.tool("todo_write")), "clones share state");
}

// ---- web_fetch -------------------------------------------------------------

#[cfg(feature = "web")]
#[tokio::test]
async fn web_fetch_describes_the_request() {
    use registry_examples::tools::web_fetch::WebFetchError;

    let f = Fixture::new();
    let text = f
        .ok("web_fetch", json!({"url": "https://example.com/docs?q=1"}))
        .await;
    assert!(
        text.starts_with("GET https://example.com/docs?q=1\n"),
        "{text}"
    );
    assert!(text.contains("  Host: example.com\n"), "{text}");
    assert!(text.contains("No request was sent"), "{text}");

    let err = f
        .call("web_fetch", json!({"url": "ftp://example.com/file"}))
        .await
        .unwrap_err();
    assert!(matches!(
        source(&err),
        WebFetchError::UnsupportedScheme { scheme, .. } if scheme == "ftp"
    ));
    assert!(
        err.to_string().contains("only http and https URLs"),
        "{err}"
    );

    let err = f
        .call("web_fetch", json!({"url": "example.com"}))
        .await
        .unwrap_err();
    assert!(matches!(source(&err), WebFetchError::InvalidUrl { .. }));
}

// ---- the sandbox -----------------------------------------------------------

#[tokio::test]
async fn escaping_paths_are_denied_and_refused() {
    let f = Fixture::new();
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("secret.txt"), "secret").expect("write");
    let outside_file = outside.path().join("secret.txt");
    let outside_file = outside_file.to_string_lossy();

    let attempts = [
        (
            "read_file",
            json!({"path": "../etc/passwd"}),
            "../etc/passwd",
        ),
        ("read_file", json!({"path": outside_file}), &*outside_file),
        (
            "write_file",
            json!({"path": "../escape.txt", "content": "x"}),
            "../escape.txt",
        ),
        (
            "edit_file",
            json!({"path": "src/../../x", "old_string": "a", "new_string": "b"}),
            "src/../../x",
        ),
        ("list_dir", json!({"path": ".."}), ".."),
        ("glob", json!({"pattern": "*", "path": "/"}), "/"),
        ("grep", json!({"pattern": "x", "path": "../.."}), "../.."),
    ];
    for (tool, args, path) in attempts {
        let prepared = f.tool(tool).prepare(args.clone()).expect("parses");
        // The permission check denies, naming the path...
        match prepared.check_permissions(&f.cx) {
            PermissionDecision::Deny { reason } => assert!(
                reason.contains(&format!("path `{path}` is outside the sandbox")),
                "{tool}: {reason}"
            ),
            other => panic!("{tool} {args}: expected deny, got {other:?}"),
        }
        // ...and `call` refuses too, for a runtime that skips the check.
        let err = prepared.run(&f.cx).await.unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("path `{path}` is outside the sandbox")),
            "{tool}: {err}"
        );
    }
    assert!(
        !f.dir
            .path()
            .parent()
            .expect("parent")
            .join("escape.txt")
            .exists()
    );
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_pointing_out_are_refused() {
    let f = Fixture::new();
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("secret.txt"), "secret").expect("write");
    std::os::unix::fs::symlink(outside.path(), f.dir.path().join("link")).expect("symlink");
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        f.dir.path().join("secret-link.txt"),
    )
    .expect("symlink");

    for args in [
        json!({"path": "link/secret.txt"}),
        json!({"path": "secret-link.txt"}),
    ] {
        let err = f.call("read_file", args).await.unwrap_err();
        assert!(
            matches!(&err, ToolError::Refused { refusal, .. } if refusal.reason.contains("outside the sandbox")),
            "{err}"
        );
    }
    let err = f
        .call(
            "write_file",
            json!({"path": "link/planted.txt", "content": "x"}),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Refused { .. }), "{err}");
    assert!(!outside.path().join("planted.txt").exists());

    // Walks list symlinks but never follow or read them.
    assert_eq!(
        f.ok("grep", json!({"pattern": "secret"})).await,
        "no matches for `secret`"
    );
    assert_eq!(
        f.ok("glob", json!({"pattern": "**/secret*"})).await,
        "secret-link.txt\n"
    );
    let listing = f.ok("list_dir", json!({})).await;
    assert!(
        listing.contains("link@\n") && listing.contains("secret-link.txt@\n"),
        "{listing}"
    );
}

#[tokio::test]
async fn a_missing_sandbox_is_a_typed_error() {
    let tools = BaseTools::linked(&Flags::new()).expect("catalog");
    let cx = ToolContext::new();
    let read = tools.get("read_file").expect("read_file");
    let prepared = read.prepare(json!({"path": "a.txt"})).expect("parses");
    assert!(matches!(
        prepared.check_permissions(&cx),
        PermissionDecision::Deny { reason } if reason.contains("no sandbox")
    ));
    // The tool's own Deny stops the call before it runs...
    let err = prepared.run(&cx).await.unwrap_err();
    assert!(
        matches!(&err, ToolError::Refused { refusal, .. } if refusal.reason.contains("no sandbox")),
        "{err}"
    );
    // ...and the call refuses on its own too (defence in depth), typed.
    let tool = read
        .downcast_ref::<ReadFile>()
        .expect("read_file is ReadFile");
    let input = serde_json::from_value(json!({"path": "a.txt"})).expect("input");
    assert!(matches!(
        tool.call(input, &cx).await,
        Err(ReadFileError::Sandbox(SandboxError::Missing))
    ));

    let run = tools.get("run_command").expect("run_command");
    let err = run
        .call_json(json!({"command": "ls"}), &cx)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no sandbox"), "{err}");
}

#[tokio::test]
async fn permission_answers_fit_each_tool() {
    let f = Fixture::new();
    let decision = |tool: &str, args: Value| {
        f.tool(tool)
            .prepare(args)
            .expect("parses")
            .check_permissions(&f.cx)
    };
    use PermissionDecision::{Allow, Delegate};
    assert_eq!(decision("read_file", json!({"path": "notes.txt"})), Allow);
    assert_eq!(decision("list_dir", json!({})), Allow);
    assert_eq!(decision("glob", json!({"pattern": "*"})), Allow);
    assert_eq!(decision("grep", json!({"pattern": "x"})), Allow);
    assert_eq!(
        decision("write_file", json!({"path": "a", "content": ""})),
        Delegate
    );
    assert_eq!(
        decision(
            "edit_file",
            json!({"path": "a", "old_string": "x", "new_string": "y"})
        ),
        Delegate
    );
    assert_eq!(decision("todo_write", json!({"todos": []})), Allow);
}
