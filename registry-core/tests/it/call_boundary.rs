//! The call boundary fails closed against hostile arguments: only the shape
//! the schema advertises is accepted, every error says where the problem
//! is, and no error or result grows with what the model sent.

use registry_core::{
    Tool, ToolBuilder, ToolContext, ToolError, ToolHandle, ToolOutput,
    text::MAX_ERROR_MESSAGE_CHARS, tool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Edit {
    old: String,
    #[serde(default)]
    all: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EditsInput {
    path: String,
    edits: Vec<Edit>,
    #[serde(default)]
    inner: Option<Edit>,
}

/// Echo the edits.
#[tool(name = "edits", max_result_chars = 200)]
struct Edits;

impl Tool for Edits {
    type Input = EditsInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EditsInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        let edits: Vec<String> = input
            .edits
            .iter()
            .map(|e| format!("{}/{}", e.old, e.all))
            .collect();
        let inner = input.inner.map(|e| e.old);
        Ok(format!("{} {edits:?} {inner:?}", input.path).repeat(10))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Action {
    Start { id: u32 },
    Stop { id: u32 },
}

/// Do an action.
#[tool(name = "action")]
struct ActionTool;

impl Tool for ActionTool {
    type Input = Action;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Action, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(match input {
            Action::Start { id } => format!("start {id}"),
            Action::Stop { id } => format!("stop {id}"),
        })
    }
}

/// Fails quoting its whole input.
#[tool(name = "quoter")]
struct Quoter;

#[derive(Debug, Deserialize, JsonSchema)]
struct PathInput {
    path: String,
}

impl Tool for Quoter {
    type Input = PathInput;
    type Output = String;
    type Error = std::io::Error;

    async fn call(&self, input: PathInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        if let Some(rest) = input.path.strip_prefix("panic:") {
            panic!("cannot open {rest}");
        }
        Err(std::io::Error::other(format!(
            "file `{}` does not exist",
            input.path
        )))
    }
}

fn invalid(err: ToolError) -> (String, String, String) {
    let text = err.to_string();
    match err {
        ToolError::InvalidInput { path, message, .. } => (path, message, text),
        other => panic!("expected invalid input, got {other}"),
    }
}

#[test]
fn object_tools_refuse_every_other_json_kind() {
    let tool = ToolHandle::new(Edits);
    for (args, kind) in [
        (json!(["a.txt", []]), "an array"),
        (json!("a.txt"), "a string"),
        (json!(1), "a number"),
        (json!(true), "a boolean"),
        (json!(null), "null"),
    ] {
        let (path, message, text) = invalid(tool.prepare(args.clone()).unwrap_err());
        assert_eq!(path, "", "{args}");
        assert_eq!(
            message,
            format!("expected a JSON object holding the tool's arguments, got {kind}")
        );
        assert!(
            text.starts_with("invalid input for tool `edits` at the input root"),
            "{text}"
        );
    }
    // The same array that serde would have read as the struct's fields.
    assert!(
        serde_json::from_value::<PathInput>(json!(["a.txt"])).is_ok(),
        "serde's sequence form exists, so the boundary has to refuse it"
    );
    assert!(ToolHandle::new(Quoter).prepare(json!(["a.txt"])).is_err());
}

#[test]
fn nested_structs_refuse_the_sequence_form_too() {
    let tool = ToolHandle::new(Edits);
    // serde alone would read both as structs.
    assert!(
        serde_json::from_value::<EditsInput>(json!({"path": "a", "edits": [["x", true]]})).is_ok()
    );
    for (args, at, kind) in [
        (
            json!({"path": "a", "edits": [{"old": "x"}, ["x", true]]}),
            "edits[1]",
            "an array",
        ),
        (
            json!({"path": "a", "edits": [], "inner": ["x"]}),
            "inner",
            "an array",
        ),
        (
            json!({"path": "a", "edits": [], "inner": "x"}),
            "inner",
            "a string",
        ),
    ] {
        let (path, message, text) = invalid(tool.prepare(args.clone()).unwrap_err());
        assert_eq!(path, at, "{args}");
        assert_eq!(message, format!("expected a JSON object, got {kind}"));
        assert!(text.contains(&format!("at `{at}`")), "{text}");
    }
    assert!(
        tool.prepare(json!({"path": "a", "edits": [], "inner": null}))
            .is_ok()
    );
}

#[test]
fn unions_of_objects_and_runtime_tools_count_as_objects() {
    let action = ToolHandle::new(ActionTool);
    assert!(action.prepare(json!({"kind": "start", "id": 1})).is_ok());
    assert!(action.prepare(json!(["start", 1])).is_err());

    let runtime = ToolBuilder::new("runtime", "Made at run time.")
        .build(|_, _| async { Ok(ToolOutput::text("ok")) })
        .unwrap();
    assert!(runtime.prepare(json!({})).is_ok());
    let (path, message, _) = invalid(runtime.prepare(json!(["ls"])).unwrap_err());
    assert_eq!(
        (path.as_str(), message.contains("got an array")),
        ("", true)
    );
}

#[test]
fn missing_fields_are_named_at_the_root_and_below() {
    let tool = ToolHandle::new(Edits);
    let (path, message, text) = invalid(tool.prepare(json!({"edits": []})).unwrap_err());
    assert_eq!(path, "");
    assert_eq!(message, "missing field `path`");
    assert_eq!(
        text,
        "invalid input for tool `edits` at the input root: missing field `path`"
    );

    let (path, message, text) = invalid(
        tool.prepare(json!({"path": "a", "edits": [{"old": "x"}, {"all": true}]}))
            .unwrap_err(),
    );
    assert_eq!(
        (path.as_str(), message.as_str()),
        ("edits[1]", "missing field `old`")
    );
    assert_eq!(
        text,
        "invalid input for tool `edits` at `edits[1]`: missing field `old`"
    );

    let (path, message, _) = invalid(
        tool.prepare(json!({"path": "a", "edits": [], "inner": {}}))
            .unwrap_err(),
    );
    assert_eq!(
        (path.as_str(), message.as_str()),
        ("inner", "missing field `old`")
    );

    let (path, _, _) = invalid(
        tool.prepare(json!({"path": "a", "edits": [{"old": 1}]}))
            .unwrap_err(),
    );
    assert_eq!(path, "edits[0].old");
}

#[tokio::test]
async fn huge_arguments_make_small_errors() {
    let huge = "a/".repeat(5_000_000);
    let cx = ToolContext::new();

    // Quoted by serde: an unknown field, a value of the wrong type.
    let tool = ToolHandle::new(Edits);
    let mut args = serde_json::Map::new();
    args.insert(huge.clone(), json!(1));
    let err = tool.prepare(Value::Object(args)).unwrap_err();
    assert!(
        err.to_string().len() < 2 * MAX_ERROR_MESSAGE_CHARS,
        "{}",
        err.to_string().len()
    );
    let err = tool.prepare(json!({"path": 1, "edits": huge})).unwrap_err();
    assert!(err.to_string().len() < 2 * MAX_ERROR_MESSAGE_CHARS);

    // Quoted by the tool's own error.
    let err = ToolHandle::new(Quoter)
        .call_json(json!({ "path": huge }), &cx)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.chars().count() <= MAX_ERROR_MESSAGE_CHARS + 64,
        "{}",
        text.len()
    );
    assert!(
        text.ends_with("does not exist"),
        "the end survives: {}",
        &text[text.len() - 40..]
    );
}

#[tokio::test]
async fn results_with_their_notice_fit_the_cap() {
    let tool = ToolHandle::new(Edits);
    let out = tool
        .call_json(
            json!({"path": "é".repeat(100), "edits": []}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(out.as_str().chars().count(), 200, "{}", out.as_str());
    assert!(out.as_str().contains("[output truncated: showing"));
    assert!(out.truncation().is_some());
}
