//! Interoperability with a client nobody here wrote: the official MCP
//! Python SDK (`mcp` on PyPI, pinned in `.ci/run`) drives `mcp_server`
//! over stdio: lists every page, calls a tool, gets an error result and a
//! refusal (`scripts/mcp_python_client.py` holds the checks).
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

#[test]
fn the_official_python_sdk_lists_and_calls_our_server() {
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
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/mcp_python_client.py");
    let workspace = tempfile::tempdir().unwrap();
    let output = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_mcp_server"))
        .arg(workspace.path())
        .output()
        .unwrap_or_else(|err| panic!("could not run {}: {err}", python.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python client failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    let summary: serde_json::Value =
        serde_json::from_str(stdout.trim().lines().last().unwrap_or(""))
            .unwrap_or_else(|err| panic!("no summary line ({err}):\n{stdout}"));
    assert_eq!(summary["ok"], true, "{summary}");
    assert!(summary["pages"].as_u64() >= Some(2), "{summary}");
}
