//! Every tool's input must be an object schema (what every provider
//! requires): a `#[tool]` whose `Input` renders anything else stops the
//! list from being built, and a runtime tool with such a schema is not
//! built, each with an error naming the tool and the fix.
//!
//! A test binary of its own, not a module of the shared `it`: the first
//! test needs the binary's linked list to fail on this file's `sh` tool
//! (and names this crate and module in the error), and that tool would
//! make the list of any binary it shares fail the same way.

use registry_core::{
    Tool, ToolBuilder, ToolContext, ToolOutput,
    catalog::{BaseTools, CatalogError},
    declare::{DefinitionError, ObjectSchemaError},
    tool,
};
use serde_json::json;

/// Run a shell command given as a bare string.
#[tool(name = "sh")]
struct Shell;

impl Tool for Shell {
    type Input = String;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, command: String, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(command)
    }
}

#[test]
fn a_declared_tool_with_a_string_input_stops_the_list() {
    let err = BaseTools::linked(&registry_core::Flags::new()).unwrap_err();
    let CatalogError::InputNotObject {
        tool,
        origin,
        source,
    } = &err
    else {
        panic!("expected InputNotObject, got {err}");
    };
    assert_eq!(tool, "sh");
    assert_eq!(origin.crate_name, "input_object");
    assert_eq!(
        source,
        &ObjectSchemaError::NotAnObject {
            found: "`\"type\": \"string\"`".into()
        }
    );
    let message = err.to_string();
    assert!(
        message.starts_with("tool `sh` (crate `input_object`, module `input_object`, "),
        "{message}"
    );
    assert!(
        message.ends_with(
            "make its `type Input` a struct with named fields deriving `Deserialize` and \
             `JsonSchema` (wrap a bare value: `struct Input { text: String }`)"
        ),
        "{message}"
    );
}

#[test]
fn a_runtime_tool_must_describe_an_object() {
    let build = |schema| {
        ToolBuilder::new("mcp__srv__echo", "Echo.")
            .input_schema(schema)
            .build(|_, _| async { Ok(ToolOutput::text("")) })
    };
    for schema in [
        json!({ "type": "string" }),
        json!(true),
        json!({ "anyOf": [{ "type": "object" }, { "type": "null" }] }),
        json!({ "type": ["object", "null"] }),
    ] {
        let err = build(schema.clone()).unwrap_err();
        assert!(
            matches!(&err, DefinitionError::InputNotObject { tool, .. } if tool == "mcp__srv__echo"),
            "{schema}: {err}"
        );
    }
    assert_eq!(
        build(json!({ "type": "string" })).unwrap_err().to_string(),
        "tool `mcp__srv__echo`: the input schema is `\"type\": \"string\"`, not \
         `\"type\": \"object\"`; every provider requires an object schema; pass one to \
         `ToolBuilder::input_schema`"
    );
    assert!(build(json!({ "type": "object", "properties": {} })).is_ok());
}

#[test]
fn a_declared_tool_with_a_string_input_cannot_become_a_plugin_either() {
    let registry = registry_core::catalog::PluginRegistry::new();
    let err = registry
        .register("local", registry_core::ToolHandle::new(Shell))
        .unwrap_err();
    assert!(
        matches!(&err, registry_core::catalog::PluginError::InputNotObject { tool, .. } if tool == "sh"),
        "{err}"
    );
    assert!(registry.is_empty());
    let err =
        registry_core::catalog::BaseTools::__from_handles(vec![registry_core::ToolHandle::new(
            Shell,
        )])
        .unwrap_err();
    assert!(matches!(err, CatalogError::InputNotObject { .. }), "{err}");
}
