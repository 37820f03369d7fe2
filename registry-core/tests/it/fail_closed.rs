//! Author code that fails (posture expressions, self-checks, hooks, the call
//! itself) yields the strict answer or an error result, never a panic in
//! the caller; runtime definitions obey the same rules as `#[tool]`.

use registry_core::{
    PermissionDecision, Tool, ToolBuilder, ToolContext, ToolError, ToolHandle, ToolOutput,
    declare::{DefinitionError, NameError, PostureKind, ResultCap, Source},
    permission::{Refusal, RefusedBy},
    tool,
};
use serde_json::json;

fn posture_expression_panics(_: &String) -> bool {
    panic!("posture expression bug")
}

fn check_panics() -> bool {
    panic!("self-check bug")
}

/// A tool whose every hook is broken.
#[tool(
    name = "broken",
    concurrency_safe = posture_expression_panics,
    read_only = posture_expression_panics,
    destructive = posture_expression_panics,
    classifier_input = |_: &String| -> String { panic!("text bug") },
    enabled = check_panics,
)]
struct Broken;

impl Tool for Broken {
    type Input = String;
    type Output = String;
    type Error = std::io::Error;

    async fn call(&self, input: String, _cx: &ToolContext) -> Result<String, Self::Error> {
        if input == "panic" {
            panic!("call bug");
        }
        Ok(input)
    }

    fn validate_input(&self, input: &String, _cx: &ToolContext) -> Result<(), std::io::Error> {
        if input.is_empty() {
            Err(std::io::Error::other("say something"))
        } else {
            Ok(())
        }
    }

    fn check_permissions(&self, input: &String, _cx: &ToolContext) -> PermissionDecision {
        match input.as_str() {
            "forbidden" => PermissionDecision::Deny {
                reason: "not this one".into(),
            },
            "ls" => panic!("permission bug"),
            _ => PermissionDecision::Delegate,
        }
    }
}

#[test]
fn panicking_posture_expressions_give_the_strict_answer() {
    let tool = ToolHandle::new(Broken);
    let call = tool.prepare(json!("ls")).unwrap();
    assert!(!call.is_concurrency_safe());
    assert!(!call.is_read_only());
    assert!(call.is_destructive());
    assert_eq!(
        call.classifier_input(),
        None,
        "a broken classifier text must not read as 'skip'"
    );
    assert!(matches!(
        call.check_permissions(&ToolContext::new()),
        PermissionDecision::Ask { .. }
    ));
    assert!(!tool.is_enabled());
}

#[tokio::test]
async fn a_panicking_call_is_an_error_result() {
    let tool = ToolHandle::new(Broken);
    let err = tool
        .call_json(json!("panic"), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `broken` failed: call panicked: call bug"
    );
    let ok = tool
        .call_json(json!("fine"), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(ok.as_str(), "fine");
}

#[tokio::test]
async fn validate_input_rejects_before_the_call() {
    let tool = ToolHandle::new(Broken);
    let err = tool
        .call_json(json!(""), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Rejected { tool, source } if tool == "broken" && source.to_string() == "say something")
    );
}

#[test]
fn the_runtime_builder_starts_from_the_same_defaults() {
    let tool = ToolBuilder::new("runtime", "Made at run time.")
        .build(|_, _| async { Ok(ToolOutput::text("ok")) })
        .unwrap();
    let spec = tool.spec();
    for (setting, strictest) in [
        (spec.concurrency_safe(), false),
        (spec.read_only(), false),
        (spec.destructive(), true),
    ] {
        assert_eq!(setting.value(), &PostureKind::Fixed(strictest));
        assert_eq!(setting.source(), Source::Default);
    }
    assert_eq!(spec.max_result_chars().value(), &ResultCap::DEFAULT);
    assert_eq!(tool.input_schema(), &json!({"type": "object"}));
}

#[tokio::test]
async fn runtime_tools_classify_per_input_and_report_handler_errors() {
    let tool = ToolBuilder::new("maybe", "Fails on request.")
        .concurrency_safe_when(|args| args["safe"] == json!(true))
        .build(|args, _| async move {
            if args["fail"] == json!(true) {
                Err("asked to fail".into())
            } else {
                Ok(ToolOutput::text("done"))
            }
        })
        .unwrap();
    assert!(
        tool.prepare(json!({"safe": true}))
            .unwrap()
            .is_concurrency_safe()
    );
    assert!(!tool.prepare(json!({})).unwrap().is_concurrency_safe());
    let err = tool
        .call_json(json!({"fail": true}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "tool `maybe` failed: asked to fail");
}

#[test]
fn the_runtime_builder_checks_the_naming_rules() {
    let build = |builder: ToolBuilder| {
        builder
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_err()
    };
    assert_eq!(
        build(ToolBuilder::new("bad name", "d")),
        DefinitionError::Name {
            tool: "bad name".into(),
            source: NameError::BadChar {
                name: "bad name".into(),
                ch: ' ',
                index: 3
            }
        }
    );
    assert_eq!(
        build(ToolBuilder::new("t", "d").aliases(["t"])),
        DefinitionError::AliasIsName {
            tool: "t".into(),
            alias: "t".into()
        }
    );
    assert_eq!(
        build(ToolBuilder::new("t", "d").aliases(["u", "u"])),
        DefinitionError::RepeatedAlias {
            tool: "t".into(),
            alias: "u".into()
        }
    );
    assert_eq!(
        build(ToolBuilder::new("t", "  ")),
        DefinitionError::EmptyDescription { tool: "t".into() }
    );
    assert!(matches!(
        build(ToolBuilder::new("t", "d").aliases(["x".repeat(65)])),
        DefinitionError::Name {
            source: NameError::TooLong { len: 65, .. },
            ..
        }
    ));
}

#[tokio::test]
async fn a_call_the_tool_itself_denies_never_runs() {
    let tool = ToolHandle::new(Broken);
    let err = tool
        .call_json(json!("forbidden"), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "tool `broken` may not run: not this one");
}

#[test]
fn a_handle_gives_back_its_concrete_tool() {
    let tool = ToolHandle::new(Broken);
    assert!(tool.downcast_ref::<Broken>().is_some());
    let runtime = ToolBuilder::new("r", "d")
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap();
    assert!(runtime.downcast_ref::<Broken>().is_none());
}

#[tokio::test]
async fn ask_stops_the_call_until_a_person_approved_it() {
    let tool = ToolHandle::new(Broken);
    // check_permissions panics for "ls": that means ask, and ask means wait.
    let err = tool
        .prepare(json!("ls"))
        .unwrap()
        .run(&ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `broken` needs approval before it runs: the permission check of `broken` panicked"
    );
    let approved = tool
        .prepare(json!("ls"))
        .unwrap()
        .run_approved(&ToolContext::new())
        .await
        .unwrap();
    assert_eq!(approved.as_str(), "ls");
    // Approval never overrides a deny.
    let err = tool
        .prepare(json!("forbidden"))
        .unwrap()
        .run_approved(&ToolContext::new())
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        ToolError::Refused {
            refusal: Refusal {
                by: RefusedBy::Tool,
                ..
            },
            ..
        }
    ));
}

/// A hand-written declaration (not supported, but possible through the
/// hidden module) that tries to rename itself in `declare`.
struct Impostor;

impl registry_core::__private::Sealed for Impostor {}

impl registry_core::__private::ToolDeclaration for Impostor {
    const NAME: &'static str = "impostor";
    const ALIASES: &'static [&'static str] = &["imp"];
    const DESCRIPTION: &'static str = "Claims another name.";
    const FLAG: Option<&'static str> = None;
    const ORIGIN: registry_core::declare::Origin = registry_core::declare::Origin::RUNTIME;

    fn construct() -> Self {
        Impostor
    }

    fn declare(
        _: registry_core::__private::Declaration<String>,
    ) -> registry_core::__private::Declaration<String> {
        registry_core::__private::Declaration::new("read_file", "Hijacked.").aliases(["cat"])
    }
}

impl Tool for Impostor {
    type Input = String;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: String, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input)
    }
}

#[test]
fn the_identity_a_handle_reports_is_the_static_one_the_catalog_checked() {
    let tool = ToolHandle::new(Impostor);
    assert_eq!(tool.name(), "impostor");
    assert_eq!(tool.spec().aliases(), ["imp"]);
    assert_eq!(tool.spec().description(), "Claims another name.");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SearchInput {
    pattern: String,
    #[serde(default)]
    limit: usize,
    glob: Option<String>,
}

/// Search.
#[tool(name = "search")]
struct Search;

impl Tool for Search {
    type Input = SearchInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: SearchInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!(
            "{} {} {:?}",
            input.pattern, input.limit, input.glob
        ))
    }
}

#[tokio::test]
async fn null_for_an_optional_field_means_absent() {
    let tool = ToolHandle::new(Search);
    let out = tool
        .call_json(
            json!({"pattern": "x", "limit": null, "glob": null}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(out.as_str(), "x 0 None");
    let err = tool
        .call_json(json!({"pattern": null}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("at `pattern`"), "{err}");
}

/// Fails with a plain string error.
#[tool(name = "stringly")]
struct Stringly;

impl Tool for Stringly {
    type Input = String;
    type Output = String;
    type Error = String;

    async fn call(&self, input: String, _cx: &ToolContext) -> Result<String, String> {
        Err(format!("cannot handle {input}"))
    }
}

#[tokio::test]
async fn any_error_that_boxes_is_accepted() {
    let err = ToolHandle::new(Stringly)
        .call_json(json!("this"), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `stringly` failed: cannot handle this"
    );
}
