//! Interoperability with a client nobody here wrote: the official MCP
//! Python SDK (`mcp` on PyPI, pinned in `.ci/run`) drives `mcp_server`
//! over stdio: lists every page, calls a tool, gets an error result and a
//! refusal (`scripts/mcp_python_client.py` holds the checks); and, on
//! 2026-07-28 over HTTP with the Tasks extension, calls the long-running
//! `run_command` as a task, approves it through the task, and cancels one
//! (`scripts/mcp_tasks_python.py`).
//!
//! The interpreter is `$REGISTRY_MCP_PYTHON`, else the virtualenv `.ci/run`
//! creates at `target/venv-mcp`. Without either the test is skipped with a
//! loud message, so `cargo test` on a fresh machine passes; `.ci/run` sets
//! `REGISTRY_MCP_PYTHON_REQUIRED=1` whenever Python exists, and then a
//! missing interpreter fails instead.

use std::path::{Path, PathBuf};
use std::process::Command;

fn interpreter() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("REGISTRY_MCP_PYTHON") {
        return Some(PathBuf::from(path));
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/venv-mcp");
    [venv.join("bin/python"), venv.join("Scripts/python.exe")]
        .into_iter()
        .find(|p| p.exists())
}

/// The interpreter to use, or `None` after saying loudly why not.
fn python_or_skip() -> Option<PathBuf> {
    let required = std::env::var_os("REGISTRY_MCP_PYTHON_REQUIRED").is_some_and(|v| v == "1");
    let Some(python) = interpreter().filter(|p| p.exists()) else {
        assert!(
            !required,
            "REGISTRY_MCP_PYTHON_REQUIRED=1 but no interpreter: set REGISTRY_MCP_PYTHON or run .ci/run"
        );
        // Straight to the stream: libtest captures `eprintln!` of a
        // passing test, and a skip nobody sees is a silent pass.
        use std::io::Write;
        let _ = std::io::stderr().write_all(
            b"\n!!! SKIPPED: MCP Python interop test: no Python with the `mcp` package.\n\
              !!! Run .ci/run (it creates target/venv-mcp with the pinned `mcp`),\n\
              !!! or set REGISTRY_MCP_PYTHON to an interpreter that has it.\n\n",
        );
        return None;
    };
    Some(python)
}

/// Runs `scripts/<script> <server> <workspace>` with `python`: its last
/// line, a JSON summary whose `ok` is true, or a panic with its output.
fn run_script(python: &Path, script: &str, server: &str, workspace: &Path) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scripts")
        .join(script);
    let output = Command::new(python)
        .arg(&path)
        .arg(server)
        .arg(workspace)
        .output()
        .unwrap_or_else(|err| panic!("could not run {}: {err}", python.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{script} failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    let summary: serde_json::Value =
        serde_json::from_str(stdout.trim().lines().last().unwrap_or(""))
            .unwrap_or_else(|err| panic!("no summary line from {script} ({err}):\n{stdout}"));
    assert_eq!(summary["ok"], true, "{summary}");
    summary
}

#[test]
fn the_official_python_sdk_lists_and_calls_our_server() {
    let Some(python) = python_or_skip() else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let server = env!("CARGO_BIN_EXE_mcp_server");
    let summary = run_script(&python, "mcp_python_client.py", server, workspace.path());
    assert!(summary["pages"].as_u64() >= Some(2), "{summary}");
}

/// `mcp_server` over HTTP, killed when dropped.
struct HttpServer {
    child: std::process::Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_http(workspace: &Path, args: &[&str]) -> HttpServer {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = Command::new(env!("CARGO_BIN_EXE_mcp_server"))
        .args(["--http", &format!("127.0.0.1:{port}"), "--workspace"])
        .arg(workspace)
        .args(args)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("mcp_server starts");
    let start = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "mcp_server did not listen on {port}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    HttpServer {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

#[test]
fn the_official_python_sdk_runs_our_long_running_tool_as_a_task() {
    let Some(python) = python_or_skip() else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let server = serve_http(workspace.path(), &["--ask-client"]);
    let summary = run_script(
        &python,
        "mcp_tasks_python.py",
        &server.url,
        workspace.path(),
    );
    assert_eq!(summary["tasks"], 2, "{summary}");
    let statuses = summary["statuses"].to_string();
    assert!(statuses.contains("input_required"), "{summary}");
    assert!(statuses.contains("completed"), "{summary}");
    assert!(statuses.contains("cancelled"), "{summary}");
}
