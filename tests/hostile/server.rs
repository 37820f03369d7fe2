//! A hostile MCP server, for the import's hardening tests
//! (`tests/tests/hostile_mcp.rs`): it speaks just enough newline-delimited
//! JSON-RPC on stdin/stdout to complete the handshake, then misbehaves in
//! the one way its first argument names. It is written by hand, not with
//! rmcp, so that it can send what no SDK would.
//!
//! With `--http` first it serves streamable HTTP instead (`http.rs`,
//! for `tests/tests/hostile_mcp_http.rs`).
//!
//! Every case also serves one well-behaved tool, `echo`, where its
//! misbehaviour leaves room for one, so a test can tell "the import
//! refused the bad part" from "the import gave up on the server".

mod http;

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// The ways this server misbehaves (its first argument).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Case {
    /// Behaves: one `echo` tool.
    Polite,
    /// 100,000 tools in one `tools/list` page.
    ManyTools,
    /// A tool whose description is 10 MiB.
    HugeDescription,
    /// A tool whose input schema nests 10,000 levels deep.
    DeepSchema,
    /// Pages whose cursors never run out (each page one new tool).
    EndlessPages,
    /// Pages whose cursors come back round: a → b → a.
    CyclingPages,
    /// `notifications/tools/list_changed` 1,000 times a second, forever.
    ListChangedFlood,
    /// Before every answer, answers to ids the client never sent.
    StrayIds,
    /// Every frame written one byte at a time.
    Drip,
    /// `tools/list` answered with bytes that are not UTF-8.
    InvalidUtf8,
    /// After the listing, closes its stdout but keeps running.
    ClosedStdout,
    /// `tools/call` answered with a 1 GiB text result.
    GigabyteResult,
}

impl Case {
    fn parse(name: &str) -> Option<Case> {
        Some(match name {
            "polite" => Case::Polite,
            "many-tools" => Case::ManyTools,
            "huge-description" => Case::HugeDescription,
            "deep-schema" => Case::DeepSchema,
            "endless-pages" => Case::EndlessPages,
            "cycling-pages" => Case::CyclingPages,
            "list-changed-flood" => Case::ListChangedFlood,
            "stray-ids" => Case::StrayIds,
            "drip" => Case::Drip,
            "invalid-utf8" => Case::InvalidUtf8,
            "closed-stdout" => Case::ClosedStdout,
            "gigabyte-result" => Case::GigabyteResult,
            _ => return None,
        })
    }
}

/// Where frames go: stdout, shared with the flood thread, or nowhere once
/// closed.
#[derive(Clone)]
struct Out {
    stdout: Arc<Mutex<Option<std::io::Stdout>>>,
    drip: bool,
}

impl Out {
    fn send(&self, frame: &Value) {
        let mut bytes = serde_json::to_vec(frame).expect("a JSON value serialises");
        bytes.push(b'\n');
        self.send_bytes(&bytes);
    }

    fn send_bytes(&self, bytes: &[u8]) {
        let mut guard = self.stdout.lock().unwrap_or_else(|e| e.into_inner());
        let Some(out) = guard.as_mut() else { return };
        let written = if self.drip {
            bytes.iter().try_for_each(|b| {
                out.write_all(std::slice::from_ref(b))?;
                out.flush()?;
                std::thread::sleep(Duration::from_micros(50));
                Ok::<(), std::io::Error>(())
            })
        } else {
            out.write_all(bytes).and_then(|()| out.flush())
        };
        if written.is_err() {
            // The client went away: so does this server.
            std::process::exit(0);
        }
    }

    /// Closes stdout for good (the process lives on).
    fn close(&self) {
        let mut guard = self.stdout.lock().unwrap_or_else(|e| e.into_inner());
        *guard = None;
        // Dropping `Stdout` does not close fd 1; closing it does.
        // SAFETY: fd 1 is this process's own, and nothing writes to it
        // after this (`send` finds `None`).
        unsafe {
            libc::close(1);
        }
    }
}

fn answer(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

fn echo_tool() -> Value {
    json!({
        "name": "echo",
        "description": "Says back what it is given.",
        "inputSchema": { "type": "object", "properties": { "text": { "type": "string" } } }
    })
}

/// A schema `depth` levels deep: `{"type":"object","properties":{"a":{...}}}`.
fn deep_schema(depth: usize) -> String {
    let mut text = String::with_capacity(depth * 40);
    for _ in 0..depth {
        text.push_str(r#"{"type":"object","properties":{"a":"#);
    }
    text.push_str(r#"{"type":"string"}"#);
    for _ in 0..depth {
        text.push_str("}}");
    }
    text
}

fn list(case: Case, id: &Value, cursor: Option<&str>, out: &Out) {
    match case {
        Case::ManyTools => {
            let tools: Vec<Value> = (0..100_000)
                .map(|i| {
                    json!({
                        "name": format!("tool_{i:06}"),
                        "description": format!("Tool number {i}."),
                        "inputSchema": { "type": "object" }
                    })
                })
                .collect();
            out.send(&answer(id, json!({ "tools": tools })));
        }
        Case::HugeDescription => {
            let huge = json!({
                "name": "huge",
                "description": "x".repeat(10 << 20),
                "inputSchema": { "type": "object" }
            });
            out.send(&answer(id, json!({ "tools": [echo_tool(), huge] })));
        }
        Case::DeepSchema => {
            // Written as text: serde_json will not build a value this deep.
            let frame = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{},{{"name":"deep","inputSchema":{}}}]}}}}"#,
                serde_json::to_string(&echo_tool()).expect("serialises"),
                deep_schema(10_000),
            );
            out.send_bytes(format!("{frame}\n").as_bytes());
        }
        Case::EndlessPages => {
            let page: u64 = cursor.and_then(|c| c.parse().ok()).unwrap_or(0);
            let tool =
                json!({ "name": format!("page_{page}"), "inputSchema": { "type": "object" } });
            out.send(&answer(
                id,
                json!({ "tools": [tool], "nextCursor": (page + 1).to_string() }),
            ));
        }
        Case::CyclingPages => {
            let next = match cursor {
                Some("a") => "b",
                _ => "a",
            };
            let tool = json!({ "name": format!("after_{}", cursor.unwrap_or("start")), "inputSchema": { "type": "object" } });
            out.send(&answer(id, json!({ "tools": [tool], "nextCursor": next })));
        }
        Case::InvalidUtf8 => {
            let mut frame = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"broken","description":"caf"#
            )
            .into_bytes();
            frame.extend_from_slice(b"\xC3\x28 \xFF\xFE");
            frame.extend_from_slice(br#"","inputSchema":{"type":"object"}}]}}"#);
            frame.push(b'\n');
            out.send_bytes(&frame);
        }
        _ => out.send(&answer(id, json!({ "tools": [echo_tool()] }))),
    }
}

fn call(case: Case, id: &Value, params: &Value, out: &Out) {
    if case == Case::GigabyteResult {
        // Streamed, so this server never holds the gigabyte itself; the
        // id comes last, as some SDKs write it, so a reader must get
        // through the whole frame to learn which call it answers.
        out.send_bytes(br#"{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":""#);
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..1024 {
            out.send_bytes(&chunk);
        }
        out.send_bytes(format!(r#""}}]}},"id":{id}}}"#).as_bytes());
        out.send_bytes(b"\n");
        return;
    }
    let text = params
        .pointer("/arguments/text")
        .and_then(Value::as_str)
        .unwrap_or("");
    out.send(&answer(
        id,
        json!({ "content": [{ "type": "text", "text": format!("echo: {text}") }] }),
    ));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--http") {
        return http::main(&args[1..]);
    }
    let case = std::env::args()
        .nth(1)
        .as_deref()
        .and_then(Case::parse)
        .unwrap_or_else(|| {
            eprintln!("usage: hostile-mcp-server <case>");
            std::process::exit(2);
        });
    let out = Out {
        stdout: Arc::new(Mutex::new(Some(std::io::stdout()))),
        drip: case == Case::Drip,
    };
    let stdin = std::io::stdin().lock();
    let mut listed = false;
    for line in stdin.lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        let Some(id) = message.get("id") else {
            if method == "notifications/initialized" && case == Case::ListChangedFlood {
                let out = out.clone();
                std::thread::spawn(move || {
                    let note =
                        json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" });
                    loop {
                        out.send(&note);
                        std::thread::sleep(Duration::from_millis(1));
                    }
                });
            }
            continue;
        };
        if case == Case::StrayIds {
            for stray in [json!(987_654_321), json!("never-sent"), json!(-1)] {
                out.send(&answer(&stray, json!({ "tools": [] })));
                out.send(&json!({ "jsonrpc": "2.0", "id": stray, "error": { "code": -32603, "message": "stray" } }));
            }
        }
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "initialize" => {
                let version = params
                    .get("protocolVersion")
                    .cloned()
                    .unwrap_or_else(|| json!("2025-11-25"));
                out.send(&answer(
                    id,
                    json!({
                        "protocolVersion": version,
                        "capabilities": { "tools": { "listChanged": true } },
                        "serverInfo": { "name": "hostile", "version": "1.0.0" }
                    }),
                ));
            }
            "tools/list" => {
                let cursor = params.get("cursor").and_then(Value::as_str);
                list(case, id, cursor, &out);
                if case == Case::ClosedStdout && !listed {
                    listed = true;
                    out.close();
                }
            }
            "tools/call" => call(case, id, &params, &out),
            "ping" => out.send(&answer(id, json!({}))),
            _ => out.send(&json!({
                "jsonrpc": "2.0", "id": id,
                "error": { "code": -32601, "message": format!("no method `{method}`") }
            })),
        }
    }
    if case == Case::ClosedStdout {
        // Stays alive with its stdout closed, until killed.
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
}
