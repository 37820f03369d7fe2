//! `input_examples` and `strict`: examples the input refuses fail the
//! list (or the runtime build) naming the tool and the example; good ones
//! and `strict` reach the Anthropic definition.
//!
//! The list is the binary's linked list, so this suite is in the
//! `linked_catalog` binary, not the shared `it` (see `main.rs`).

use registry_core::{
    Flags, Tool, ToolBuilder, ToolContext, ToolOutput,
    catalog::{BaseTools, CatalogError},
    declare::DefinitionError,
    render::ProviderFormat,
    tool,
};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ReadInput {
    /// Path relative to the workspace.
    path: String,
    /// How many lines.
    limit: Option<u32>,
}

/// Read a file.
#[tool(
    name = "read_file",
    read_only = true,
    input_examples = [r#"{"path": "src/lib.rs"}"#, r#"{"path": "a.rs", "limit": 10}"#],
    strict = true
)]
struct ReadFile;

impl Tool for ReadFile {
    type Input = ReadInput;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(&self, input: ReadInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("{} ({:?} lines)", input.path, input.limit))
    }
}

/// Read a file, with an example its input refuses (`path` is missing),
/// behind a flag so the rest of this binary's lists build.
#[tool(
    name = "bad_example",
    flag = "bad_example",
    input_examples = [r#"{"path": "ok.rs"}"#, r#"{"limit": 3}"#]
)]
struct BadExample;

impl Tool for BadExample {
    type Input = ReadInput;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(&self, input: ReadInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.path)
    }
}

#[test]
fn good_examples_and_strict_reach_the_anthropic_definition() {
    let tools = BaseTools::linked(&Flags::new()).unwrap();
    let read = tools.get("read_file").unwrap();
    let definition = ProviderFormat::Anthropic.definition(read);
    assert_eq!(
        definition["input_examples"],
        // Under strict every property is listed: the left-out one is null.
        json!([{ "path": "src/lib.rs", "limit": null }, { "path": "a.rs", "limit": 10 }])
    );
    assert_eq!(definition["strict"], true);
    // The strict form: closed, every field listed, the optional one nullable.
    assert_eq!(definition["input_schema"]["additionalProperties"], false);
    assert_eq!(
        definition["input_schema"]["required"],
        json!(["limit", "path"])
    );
}

#[test]
fn an_example_the_input_refuses_fails_the_list_naming_tool_and_example() {
    let err = BaseTools::linked(&Flags::new().with("bad_example")).unwrap_err();
    let CatalogError::Definition(DefinitionError::InputExample { tool, index, why }) = &err else {
        panic!("{err}");
    };
    assert_eq!((tool.as_str(), *index), ("bad_example", 1));
    assert!(why.contains("path"), "{why}");
    assert!(err.to_string().contains("input example 1"), "{err}");
}

#[test]
fn runtime_tools_check_their_examples_when_built() {
    let err = ToolBuilder::new("echo", "Echo.")
        .input_example(json!({ "text": "hi" }))
        .input_example(json!(["not", "an", "object"]))
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap_err();
    assert!(
        matches!(&err, DefinitionError::InputExample { index: 1, .. }),
        "{err}"
    );
    let strict_refused = ToolBuilder::new("free", "Free-form.")
        .strict(true)
        .input_schema(json!({ "type": "object", "additionalProperties": true }))
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap();
    // A schema strict mode cannot hold is sent without `strict`.
    assert!(
        ProviderFormat::Anthropic
            .definition(&strict_refused)
            .get("strict")
            .is_none()
    );
}
