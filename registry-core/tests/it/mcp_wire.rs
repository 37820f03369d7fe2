//! `tools/list` on the wire is the MCP render, byte for byte: the raw
//! JSON-RPC text our server writes to its transport, read by a client
//! written here (no SDK in between to normalise anything), holds each
//! tool exactly as `render_mcp_tools_list` writes it, including unicode,
//! escapes and number formatting.

#![cfg(feature = "mcp")]

use std::sync::Arc;

use registry_core::mcp::McpServer;
use registry_core::{
    Json, PermissionContext, Tool, ToolBuilder, ToolContext, ToolOutput, ToolRegistry,
    catalog::BaseTools, render::ProviderFormat, tool,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf};

#[derive(Serialize, JsonSchema)]
struct Reading {
    /// Température in °C — «mesurée».
    celsius: f64,
    station: String,
}

/// Read the thermometer 🌡️ (typed: publishes an `outputSchema`).
#[tool(
    name = "thermometer",
    read_only = true,
    user_facing_name = "Thermomètre « salon »"
)]
struct Thermometer;

impl Tool for Thermometer {
    type Input = serde_json::Map<String, Value>;
    type Output = Json<Reading>;
    type Error = std::convert::Infallible;

    async fn call(&self, _: Self::Input, _cx: &ToolContext) -> Result<Json<Reading>, Self::Error> {
        Ok(Json(Reading {
            celsius: 21.5,
            station: "salon".into(),
        }))
    }
}

/// Tools whose text and numbers are where two JSON writers could differ.
fn hostile_tools() -> Vec<registry_core::ToolHandle> {
    let schema = json!({
        "type": "object",
        "properties": {
            "zeta": { "type": "number", "minimum": -0.0, "maximum": 1e300, "multipleOf": 0.1 },
            "alpha": { "type": "integer", "maximum": 18446744073709551615u64, "minimum": -9007199254740993i64 },
            "émoji 😀": { "type": "string", "description": "tab\there, bell\u{7}, quote \", slash \\ / and </script>", "default": "\u{2028}\u{2029}\u{7f}" },
            "Z": { "enum": [1.5, 2.5e-8, 100000000000000000000.0, -1, true, null] }
        },
        "required": ["zeta"]
    });
    let build = |builder: ToolBuilder| {
        builder
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap()
    };
    vec![
        registry_core::ToolHandle::new(Thermometer),
        build(
            ToolBuilder::new(
                "weird_text",
                "Ünïcödé — 日本語, RTL \u{202e}text, NUL-ish \u{1} and a \"quoted\" \\path\\.",
            )
            .input_schema(schema)
            .destructive(false)
            .user_facing_name("Wëird"),
        ),
        build(ToolBuilder::new("plain", "Nothing declared.")),
    ]
}

/// The next line that answers request `id`, verbatim.
async fn answer(lines: &mut Lines<BufReader<ReadHalf<DuplexStream>>>, id: u64) -> String {
    loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the server hung up");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == json!(id) {
            return line;
        }
    }
}

/// The raw text of the JSON value that starts at `text`'s beginning.
fn raw_value(text: &str) -> &str {
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<IgnoredAny>();
    values.next().expect("a value").expect("valid JSON");
    &text[..values.byte_offset()]
}

/// The raw texts of the items of the JSON array `array`.
fn raw_items(array: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut rest = array.strip_prefix('[').expect("an array");
    while !rest.starts_with(']') {
        let item = raw_value(rest);
        items.push(item);
        rest = &rest[item.len()..];
        rest = rest.strip_prefix(',').unwrap_or(rest);
    }
    items
}

#[tokio::test]
async fn tools_list_on_the_wire_is_the_render_byte_for_byte() {
    // The thermometer alone: what `BaseTools::linked` lists in a binary
    // of this suite alone (the shared test binary links every suite's).
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![registry_core::ToolHandle::new(Thermometer)]).unwrap(),
    ));
    let _guards: Vec<_> = hostile_tools()
        .into_iter()
        .map(|tool| registry.plugins().register("hostile", tool).unwrap())
        .collect();
    let server = McpServer::new(registry.executor());
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move { server.serve_io(ours).await });
    let (read, mut write) = tokio::io::split(theirs);
    let mut lines = BufReader::new(read).lines();

    // The handshake, by hand.
    let hello = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "raw", "version": "0" }
        }
    });
    write_line(&mut write, hello).await;
    answer(&mut lines, 1).await;
    write_line(
        &mut write,
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    )
    .await;
    write_line(
        &mut write,
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {} }),
    )
    .await;
    let line = answer(&mut lines, 2).await;

    // What the wire carries: the `tools` array of the result, verbatim.
    let key = r#"{"tools":"#;
    let at = line.find(&key[1..]).expect("a tools array") + key.len() - 1;
    let wire = raw_value(&line[at..]);

    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    let render = pool.render_mcp_tools_list();
    let rendered = render
        .strip_prefix(key)
        .map(raw_value)
        .unwrap_or_else(|| panic!("the render is not a tools object: {render}"));

    // Tool by tool first, for a readable failure; then the whole array.
    // Each rendered item is its tool's MCP definition, in pool order.
    let expected = raw_items(rendered);
    assert!(expected.len() >= hostile_tools().len());
    assert_eq!(expected.len(), pool.iter().count());
    for (item, tool) in expected.iter().zip(pool.iter()) {
        let item: Value = serde_json::from_str(item).unwrap();
        assert_eq!(
            item,
            ProviderFormat::Mcp.definition(tool),
            "{}",
            tool.name()
        );
    }
    assert_eq!(raw_items(wire), expected);
    assert_eq!(wire, rendered);
    // The hostile text really is on the wire as UTF-8, not re-escaped.
    assert!(wire.contains("日本語"), "{wire}");
    assert!(wire.contains("1e300") || wire.contains("1e+300"), "{wire}");
}

/// Writes one JSON-RPC message as a line to the write half.
async fn write_line(io: &mut tokio::io::WriteHalf<DuplexStream>, message: Value) {
    let mut line = serde_json::to_vec(&message).unwrap();
    line.push(b'\n');
    io.write_all(&line).await.unwrap();
}
