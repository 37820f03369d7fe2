//! The pool's TypeScript API type-checks with TypeScript's own compiler
//! (`tsc --strict`, pinned in scripts/node-mcp and installed by
//! `.ci/run`): the examples' catalog, a hostile imported tool (names
//! that are not identifiers, a description that tries to close its
//! comment, recursive and deeply nested schemas, literals with quotes),
//! and a program written against the declarations, whose calls and result
//! types must agree with them.

use crate::mcp_node::packages;

use std::path::Path;
use std::process::Command;

use registry_core::{
    Flags, PermissionContext, ToolBuilder, ToolOutput, ToolRegistry, catalog::BaseTools,
};
use serde_json::json;

fn hostile() -> Vec<registry_core::ToolHandle> {
    let mut nested = json!({ "type": "string" });
    for _ in 0..30 {
        nested = json!({ "type": "array", "items": nested });
    }
    let tool = |name: &str, description: &str, schema| {
        ToolBuilder::new(name, description)
            .input_schema(schema)
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap()
    };
    vec![
        tool(
            "mcp__evil__do-it",
            "Harmless. */ declare const stolen: string; /* and\nmore */",
            json!({
                "type": "object",
                "properties": {
                    "a key": { "type": "string", "description": "*/ }; /*" },
                    "quote": { "enum": ["\"", "\\", "a | b", "}"] },
                    "tree": { "$ref": "#/$defs/Tree" },
                    "deep": nested,
                    "either": { "oneOf": [{ "type": "integer" }, { "allOf": [{ "type": "object" }, { "type": "object", "properties": { "x": { "const": 1 } } }] }] },
                },
                "required": ["a key"],
                "additionalProperties": true,
                "$defs": {
                    "Tree": {
                        "type": "object",
                        "properties": { "children": { "type": "array", "items": { "$ref": "#/$defs/Tree" } } },
                    },
                },
            }),
        ),
        tool("1st", "Starts with a digit.", json!({ "type": "object" })),
    ]
}

#[test]
fn the_typescript_api_type_checks_and_a_program_can_use_it() {
    let Some(modules) = packages("TypeScript API type check") else {
        return;
    };
    let tsc = modules.join("typescript/bin/tsc");
    assert!(
        tsc.is_file(),
        "{} is missing: scripts/node-mcp pins typescript",
        tsc.display()
    );
    let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).unwrap());
    let _plugins: Vec<_> = hostile()
        .into_iter()
        .map(|tool| registry.plugins().register("evil", tool).unwrap())
        .collect();
    let api = registry
        .assemble_tool_pool(&PermissionContext::new())
        .render_typescript();
    assert!(api.contains("  \"mcp__evil__do-it\"(input: {\n"), "{api}");

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("api.d.ts"), api.as_bytes()).unwrap();
    // A program as a model writes one: calls in a loop and together, a
    // quoted name, results used as the declared types.
    std::fs::write(
        dir.path().join("program.ts"),
        r#"/// <reference path="api.d.ts" />
async function main(): Promise<string> {
  const listing: string = await tools.list_dir({ path: "." });
  const texts = await Promise.all(
    listing.split("\n").map((path) => tools.read_file({ path, offset: 1 })),
  );
  await tools["mcp__evil__do-it"]({ "a key": "x", quote: "a | b" });
  await tools["1st"]({});
  return texts.join("");
}
main();
"#,
    )
    .unwrap();
    check(&tsc, dir.path(), &["api.d.ts", "program.ts"], true);

    // And a program that breaks the declarations is refused: the types
    // say something.
    std::fs::write(
        dir.path().join("wrong.ts"),
        "/// <reference path=\"api.d.ts\" />\ntools.read_file({ path: 1 });\n",
    )
    .unwrap();
    check(&tsc, dir.path(), &["api.d.ts", "wrong.ts"], false);
}

fn check(tsc: &Path, dir: &Path, files: &[&str], passes: bool) {
    let output = Command::new("node")
        .arg(tsc)
        .args([
            "--noEmit", "--strict", "--target", "es2022", "--lib", "es2022",
        ])
        .args(files)
        .current_dir(dir)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.success(),
        passes,
        "tsc on {files:?}:\n{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
