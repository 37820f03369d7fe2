//! Every fail-closed default on a tool that declares nothing, and every
//! declared value (literal and per input) honoured.

use registry_core::{
    PermissionDecision, Tool, ToolBuilder, ToolContext, ToolHandle, ToolOutput,
    declare::{Loading, PostureKind, ResultCap, SafetyPosture, Setting, Source},
    tool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
struct Text {
    text: String,
}

/// Repeat the text back.
#[tool(name = "bare")]
struct Bare;

impl Tool for Bare {
    type Input = Text;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Text, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.text)
    }
}

fn is_short(input: &Text) -> bool {
    input.text.len() < 5
}

fn always_on() -> bool {
    true
}

/// Everything said.
#[tool(
    name = "full",
    aliases = ["old_full", "Full"],
    concurrency_safe = |input: &Text| input.text.starts_with("ls"),
    read_only = is_short,
    destructive = true,
    search_hint = "every key",
    max_result_chars = 8,
    defer,
    flag = "full",
    enabled = always_on,
    classifier_input = |input: &Text| format!("full {}", input.text),
    user_facing_name = "Full tool",
    long_running,
)]
struct Full;

impl Tool for Full {
    type Input = Text;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Text, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.text.repeat(3))
    }
}

#[test]
fn a_tool_that_declares_nothing_gets_the_strictest_posture() {
    let bare = ToolHandle::new(Bare);
    let spec = bare.spec();
    assert_eq!(spec.name(), "bare");
    assert_eq!(spec.description(), "Repeat the text back.");
    assert!(spec.aliases().is_empty());
    for (setting, strictest) in [
        (spec.concurrency_safe(), false),
        (spec.read_only(), false),
        // Unsaid: destructive unless it only reads, and it does not.
        (spec.destructive(), true),
    ] {
        assert_eq!(setting.value(), &PostureKind::Fixed(strictest));
        assert_eq!(setting.source(), Source::Default);
    }
    assert_eq!(spec.posture(), &SafetyPosture::DEFAULT);
    assert_eq!(spec.max_result_chars().value(), &ResultCap::DEFAULT);
    assert_eq!(ResultCap::DEFAULT.limit(), Some(50_000));
    assert!(!spec.max_result_chars().is_declared());
    assert_eq!(spec.loading().value(), &Loading::Eager);
    assert!(!spec.has_classifier_input().value());
    assert_eq!(spec.flag(), None);
    assert!(!spec.has_enabled_check());
    assert!(bare.is_enabled());
    assert_eq!(spec.user_facing_name(), "bare");
    assert!(
        !spec.long_running(),
        "served as an ordinary call unless said"
    );

    let call = bare.prepare(json!({"text": "ls"})).unwrap();
    assert!(!call.is_concurrency_safe());
    assert!(!call.is_read_only());
    assert!(call.is_destructive());
    assert_eq!(call.classifier_input().as_deref(), Some(""));
    assert_eq!(
        call.check_permissions(&ToolContext::new()),
        PermissionDecision::Delegate
    );
}

/// Reads only.
#[tool(name = "reader", read_only = true)]
struct Reader;

/// Reads only when the text is short; says nothing about destroying.
#[tool(name = "sometimes_reads", read_only = is_short)]
struct SometimesReads;

fn reads_unless_it_panics(input: &Text) -> bool {
    assert!(input.text != "boom", "read_only expression bug");
    true
}

/// Its read_only expression panics on `boom`.
#[tool(name = "fragile_reader", read_only = reads_unless_it_panics)]
struct FragileReader;

macro_rules! echo_tool {
    ($($t:ty),*) => {$(
        impl Tool for $t {
            type Input = Text;
            type Output = String;
            type Error = std::convert::Infallible;

            async fn call(&self, input: Text, _cx: &ToolContext) -> Result<String, Self::Error> {
                Ok(input.text)
            }
        }
    )*};
}
echo_tool!(Reader, SometimesReads, FragileReader);

#[test]
fn an_undeclared_destructive_is_the_opposite_of_read_only() {
    let reader = ToolHandle::new(Reader);
    let destructive: &Setting<PostureKind> = reader.spec().destructive();
    assert_eq!(destructive.value(), &PostureKind::Fixed(false));
    assert_eq!(destructive.source(), Source::Default);
    assert!(
        !reader
            .prepare(json!({"text": "x"}))
            .unwrap()
            .is_destructive()
    );

    // Per-input read_only: the default destructive is decided per call too.
    let sometimes = ToolHandle::new(SometimesReads);
    let spec = sometimes.spec();
    assert_eq!(spec.destructive().value(), &PostureKind::NotReadOnly);
    assert_eq!(spec.destructive().source(), Source::Default);
    let short = sometimes.prepare(json!({"text": "ls"})).unwrap();
    assert!(short.is_read_only() && !short.is_destructive());
    let long = sometimes.prepare(json!({"text": "rm -rf build"})).unwrap();
    assert!(!long.is_read_only() && long.is_destructive());
}

#[test]
fn runtime_tools_follow_the_same_destructive_rule() {
    let listing = ToolBuilder::new("runtime_sh", "Run a command.")
        .read_only_when(|args| args["command"] == json!("ls"))
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap();
    assert_eq!(
        listing.spec().destructive().value(),
        &PostureKind::NotReadOnly
    );
    let ls = listing.prepare(json!({"command": "ls"})).unwrap();
    assert!(ls.is_read_only() && !ls.is_destructive());
    let rm = listing.prepare(json!({"command": "rm x"})).unwrap();
    assert!(!rm.is_read_only() && rm.is_destructive());
}

#[test]
fn a_panicking_read_only_expression_makes_an_undeclared_destructive_true() {
    let fragile = ToolHandle::new(FragileReader);
    let fine = fragile.prepare(json!({"text": "ok"})).unwrap();
    assert!(fine.is_read_only() && !fine.is_destructive());
    let boom = fragile.prepare(json!({"text": "boom"})).unwrap();
    assert!(!boom.is_read_only());
    assert!(boom.is_destructive());
}

#[test]
fn declared_literals_and_expressions_are_honoured() {
    let full = ToolHandle::new(Full);
    let spec = full.spec();
    assert_eq!(spec.aliases(), ["old_full", "Full"]);
    assert_eq!(spec.description(), "Everything said.");
    assert!(
        matches!(spec.concurrency_safe().value(), PostureKind::PerInput(text) if text.contains("starts_with"))
    );
    assert_eq!(
        spec.read_only().value(),
        &PostureKind::PerInput("is_short".into())
    );
    assert_eq!(spec.destructive().value(), &PostureKind::Fixed(true));
    assert!(spec.destructive().is_declared());
    assert_eq!(spec.max_result_chars().value().limit(), Some(8));
    assert_eq!(spec.loading().value(), &Loading::Deferred);
    assert_eq!(spec.search_hint(), Some("every key"));
    assert_eq!(spec.flag(), Some("full"));
    assert!(spec.has_enabled_check());
    assert_eq!(spec.user_facing_name(), "Full tool");
    assert!(spec.long_running());
    // This crate's unit tests, module `declare::posture_tests` (this file).
    assert_eq!(spec.origin().crate_name, "registry_core");
    assert_eq!(
        spec.origin().module_path,
        "registry_core::declare::posture_tests"
    );
    assert!(spec.origin().file.ends_with("posture_tests.rs"));

    let ls = full.prepare(json!({"text": "ls"})).unwrap();
    assert!(ls.is_concurrency_safe());
    assert!(ls.is_read_only());
    assert!(ls.is_destructive());
    assert_eq!(ls.classifier_input().as_deref(), Some("full ls"));

    let rm = full.prepare(json!({"text": "rm -rf"})).unwrap();
    assert!(!rm.is_concurrency_safe());
    assert!(!rm.is_read_only());
}

#[tokio::test]
async fn calls_parse_run_and_cap() {
    let full = ToolHandle::new(Full);
    let out = full
        .call_json(json!({"text": "abcd"}), &ToolContext::new())
        .await
        .unwrap();
    // The notice counts inside the cap; 8 characters leave room for no
    // words, so the cut is marked with an ellipsis.
    assert_eq!(out.as_str(), "abcdabc…");
    assert_eq!(out.truncation().map(|t| t.total), Some(12));

    let err = full
        .call_json(json!({"txt": 1}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input for tool `full` at the input root: missing field `text`"
    );
    let err = full
        .call_json(json!({"text": 1}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input for tool `full` at `text`: invalid type: integer `1`, expected a string"
    );
}

/// Unannotated closures infer the input type from the declaration.
#[tool(
    name = "inferred",
    concurrency_safe = |input| input.text.is_empty(),
    classifier_input = |input| input.text.to_uppercase(),
)]
struct Inferred;

impl Tool for Inferred {
    type Input = Text;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Text, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.text)
    }
}

#[test]
fn unannotated_closures_are_typed_by_the_input() {
    let tool = ToolHandle::new(Inferred);
    let empty = tool.prepare(json!({"text": ""})).unwrap();
    assert!(empty.is_concurrency_safe());
    let call = tool.prepare(json!({"text": "ab"})).unwrap();
    assert!(!call.is_concurrency_safe());
    assert_eq!(call.classifier_input().as_deref(), Some("AB"));
}

#[test]
fn the_input_schema_comes_from_schemars_and_is_generated_once() {
    let tool = ToolHandle::new(Bare);
    let schema = tool.input_schema();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["text"]["type"], "string");
    assert_eq!(schema["required"], json!(["text"]));
    assert!(
        std::ptr::eq(schema, tool.input_schema()),
        "cached, not regenerated"
    );
}

/// First paragraph.
///
/// Second paragraph, after a blank line.
///    Indented line.
#[tool(name = "paragraphs")]
struct Paragraphs;

impl Tool for Paragraphs {
    type Input = Text;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Text, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.text)
    }
}

#[test]
fn doc_comment_paragraphs_survive_into_the_description() {
    assert_eq!(
        ToolHandle::new(Paragraphs).spec().description(),
        "First paragraph.\n\nSecond paragraph, after a blank line.\n   Indented line."
    );
}
