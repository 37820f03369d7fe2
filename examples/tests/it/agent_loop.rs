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
    let out = Command::new(env!("CARGO_BIN_EXE_agent_loop"))
        .args(["--provider", provider])
        .arg(fixtures().join(format!("{provider}.json")))
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
    assert_eq!(
        search["tools"][0]["name"],
        "mcp__github__merge_pull_request"
    );
    let deferred = next["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "mcp__github__merge_pull_request")
        .unwrap();
    assert_eq!(deferred["defer_loading"], true);
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
