//! The agent-loop example end to end: each recorded provider response in
//! `examples/fixtures/` goes through the binary, and the next request it
//! prints is the committed golden file, byte for byte (so it is the same
//! on every run); with the providers' SDKs installed (`.ci/run` does) the
//! tools and items validate against their types.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn next_request(provider: &str) -> String {
    run_step(provider, &fixtures().join(format!("{provider}.json")))
}

/// The binary's output for the response in `file`.
fn run_step(provider: &str, file: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_agent_loop"))
        .args(["--provider", provider])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn check(provider: &str) -> Value {
    let text = next_request(provider);
    let golden = fixtures().join(format!("{provider}.next.json"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &text).unwrap();
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    let next: Value = serde_json::from_str(&text).unwrap();
    if cfg!(feature = "web") {
        assert_eq!(
            text, expected,
            "{provider}: the next request changed (UPDATE_GOLDEN=1 to accept)"
        );
    } else {
        // Without `web` the tools array lacks `web_fetch`; the rest holds.
        let mut expected: Value = serde_json::from_str(&expected).unwrap();
        let mut got = next.clone();
        expected.as_object_mut().unwrap().remove("tools");
        got.as_object_mut().unwrap().remove("tools");
        assert_eq!(got, expected, "{provider}: the next request changed");
    }
    next
}

#[test]
fn anthropic_step() {
    let next = check("anthropic");
    let results = &next["messages"][1]["content"];
    assert_eq!(
        results.as_array().unwrap().len(),
        6,
        "one tool_result per call"
    );
    assert_eq!(
        results[2]["content"][1]["type"], "image",
        "screen.png is an image"
    );
    assert_eq!(results[3]["is_error"], true, "a bad argument");
    assert_eq!(results[4]["is_error"], true, "a denied write");
    assert_eq!(results[5]["content"][0]["type"], "tool_reference");
    assert_eq!(next["provider_ran"].as_array().unwrap().len(), 2);
    validate(
        "anthropic",
        &next["tools"],
        results.as_array().unwrap().clone(),
    );
}

#[test]
fn openai_chat_step() {
    let next = check("openai-chat");
    let messages = next["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "assistant");
    assert_eq!(messages.last().unwrap()["content"][1]["type"], "image_url");
    let tools = next["tools"].to_string();
    assert!(
        tools.contains("mcp__github__merge_pull_request"),
        "discovered, appended"
    );
    validate("openai-chat", &next["tools"], messages.clone());
}

#[test]
fn openai_responses_step() {
    let next = check("openai-responses");
    let input = next["input"].as_array().unwrap();
    let search = input
        .iter()
        .find(|i| i["type"] == "tool_search_output")
        .unwrap();
    // Found tools load into their MCP server's namespace.
    assert_eq!(search["tools"][0]["type"], "namespace");
    assert_eq!(search["tools"][0]["name"], "github");
    assert_eq!(search["tools"][0]["tools"][0]["name"], "merge_pull_request");
    let github = github_namespace(&next);
    let deferred = github["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "merge_pull_request")
        .unwrap();
    assert_eq!(deferred["defer_loading"], true);
    validate("openai-responses", &next["tools"], input.clone());
}

/// The `github` namespace of a Responses request's `tools`: every GitHub
/// tool is in it, under its short name, and none is left flat.
fn github_namespace(next: &Value) -> &Value {
    let tools = next["tools"].as_array().unwrap();
    assert!(
        tools
            .iter()
            .all(|t| !t["name"].as_str().unwrap_or("").starts_with("mcp__")),
        "no MCP tool is left flat"
    );
    let github = tools
        .iter()
        .find(|t| t["type"] == "namespace" && t["name"] == "github")
        .unwrap();
    assert_eq!(github["description"], "Tools of the MCP server \"github\".");
    github
}

/// A call in a namespace, through the binary: `merge_pull_request` in
/// `github` resolves to `mcp__github__merge_pull_request` (deferred, and
/// searched for only in this same turn, so it is refused by that name: it
/// loads for the next turn). The output is the same on every run, and the
/// request validates with the SDK types, the namespaced call included.
#[test]
fn openai_responses_namespaced_call() {
    let response = json!({
        "id": "resp_Namespaced", "object": "response", "created_at": 1764633600,
        "model": "gpt-5.4", "status": "completed", "parallel_tool_calls": true,
        "tool_choice": "auto", "tools": [],
        "output": [
            { "type": "tool_search_call", "id": "ts_01", "call_id": "call_01", "execution": "client",
              "arguments": { "query": "select:mcp__github__merge_pull_request" }, "status": "completed" },
            { "type": "function_call", "id": "fc_02", "call_id": "call_02", "namespace": "github",
              "name": "merge_pull_request", "arguments": "{}", "status": "completed" },
        ],
    });
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), response.to_string()).unwrap();
    let text = run_step("openai-responses", file.path());
    assert_eq!(
        text,
        run_step("openai-responses", file.path()),
        "the same bytes on every run"
    );
    let next: Value = serde_json::from_str(&text).unwrap();
    github_namespace(&next);
    let input = next["input"].as_array().unwrap();
    let call = input
        .iter()
        .find(|i| i["call_id"] == "call_02" && i["type"] == "function_call")
        .unwrap();
    assert_eq!(
        (&call["namespace"], &call["name"]),
        (&json!("github"), &json!("merge_pull_request")),
        "echoed as sent"
    );
    let output = input
        .iter()
        .find(|i| i["call_id"] == "call_02" && i["type"] == "function_call_output")
        .unwrap()["output"]
        .as_str()
        .unwrap();
    assert!(
        output.contains("`mcp__github__merge_pull_request` is deferred"),
        "resolved to the imported tool: {output}"
    );
    validate("openai-responses", &next["tools"], input.clone());
}

/// Runs `scripts/validate_provider.py` when `REGISTRY_PROVIDER_PYTHON`
/// is set (required in CI).
fn validate(format: &str, tools: &Value, next: Vec<Value>) {
    let Some(python) = std::env::var_os("REGISTRY_PROVIDER_PYTHON") else {
        assert!(std::env::var_os("REGISTRY_PROVIDER_PYTHON_REQUIRED").is_none());
        eprintln!("SKIPPED: set REGISTRY_PROVIDER_PYTHON to validate against the provider SDKs");
        return;
    };
    let file = tempfile::NamedTempFile::new().unwrap();
    let doc = json!({ "format": format, "tools": tools, "next": next });
    std::fs::write(file.path(), doc.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/validate_provider.py");
    let out = Command::new(python)
        .arg(script)
        .arg(file.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{format}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
