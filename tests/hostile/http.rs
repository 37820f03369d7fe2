//! The hostile server's streamable-HTTP mode (`hostile-mcp-server --http
//! <case> <json|sse>`), for `tests/tests/hostile_mcp_http.rs`: a
//! hand-written HTTP/1.1 endpoint on 127.0.0.1 (its port printed as
//! `LISTENING <port>`) that answers `initialize` properly, then misbehaves
//! in the one way `<case>` names, answering each POST with a JSON body or
//! with an SSE stream as `<json|sse>` says.
//!
//! Every case serves one well-behaved tool, `echo`. The cases that
//! misbehave on `tools/call` do so only for the text `bad`, so a test can
//! tell "the import failed that call" from "the import gave up on the
//! server". Bodies are sent without a length and end when the connection
//! closes, so a reader cannot know their size before reading them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use serde_json::{Value, json};

use crate::{answer, deep_schema, echo_tool};

/// The ways this endpoint misbehaves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Case {
    /// Behaves.
    Polite,
    /// `tools/call` answered with 20 MiB.
    Oversized,
    /// `tools/list` answered with bytes that are not UTF-8.
    InvalidUtf8,
    /// `tools/call` answered with text that is not JSON.
    NotJson,
    /// `tools/list` answered with JSON nested 10,000 levels deep.
    Deep,
    /// `tools/call` answered with JSON that is no MCP message.
    NotMcp,
    /// 100,000 tools in one `tools/list` page.
    ManyTools,
    /// A tool whose description is 10 MiB.
    HugeDescription,
    /// `tools/call` answered for an id the client never sent (then, on
    /// an SSE stream, for the right one).
    StrayId,
    /// `tools/call` answered with one malformed SSE event, then nothing,
    /// the stream held open (a JSON body: half a body, then nothing).
    MalformedThenHang,
    /// `tools/call` never answered, the connection held open.
    NeverAnswers,
}

impl Case {
    fn parse(name: &str) -> Option<Case> {
        Some(match name {
            "polite" => Case::Polite,
            "oversized" => Case::Oversized,
            "invalid-utf8" => Case::InvalidUtf8,
            "not-json" => Case::NotJson,
            "deep" => Case::Deep,
            "not-mcp" => Case::NotMcp,
            "many-tools" => Case::ManyTools,
            "huge-description" => Case::HugeDescription,
            "stray-id" => Case::StrayId,
            "malformed-then-hang" => Case::MalformedThenHang,
            "never-answers" => Case::NeverAnswers,
            _ => return None,
        })
    }
}

/// How POSTs are answered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Json,
    Sse,
}

/// Serves `args` (`<case> <json|sse>`) until killed.
pub(crate) fn main(args: &[String]) {
    let parsed = match args {
        [case, style] => Case::parse(case).zip(match style.as_str() {
            "json" => Some(Style::Json),
            "sse" => Some(Style::Sse),
            _ => None,
        }),
        _ => None,
    };
    let Some((case, style)) = parsed else {
        eprintln!("usage: hostile-mcp-server --http <case> <json|sse>");
        std::process::exit(2);
    };
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
    let port = listener.local_addr().expect("a bound address").port();
    println!("LISTENING {port}");
    std::io::stdout().flush().expect("stdout");
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        std::thread::spawn(move || {
            let _ = serve(case, style, stream);
        });
    }
}

/// One request, read whole.
struct Request {
    method: String,
    body: Vec<u8>,
}

fn read_request(reader: &mut BufReader<TcpStream>) -> std::io::Result<Option<Request>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let method = line.split(' ').next().unwrap_or("").to_owned();
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Some(Request { method, body }))
}

/// Answers one connection's requests (one, as every answer closes it).
fn serve(case: Case, style: Style, stream: TcpStream) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    let Some(request) = read_request(&mut reader)? else {
        return Ok(());
    };
    match request.method.as_str() {
        "POST" => {}
        "DELETE" => return head(&mut out, "200 OK", None, ""),
        // No standalone stream: rmcp then skips it.
        _ => return head(&mut out, "405 Method Not Allowed", None, ""),
    }
    let Ok(message) = serde_json::from_slice::<Value>(&request.body) else {
        return head(&mut out, "400 Bad Request", None, "");
    };
    let method = message.get("method").and_then(Value::as_str).unwrap_or("");
    let Some(id) = message.get("id").cloned() else {
        return head(&mut out, "202 Accepted", None, "");
    };
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let reply = Reply { out, style };
    match method {
        "initialize" => {
            let version = params
                .get("protocolVersion")
                .cloned()
                .unwrap_or_else(|| json!("2025-11-25"));
            let result = json!({
                "protocolVersion": version,
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "hostile-http", "version": "1.0.0" }
            });
            reply.value(&answer(&id, result))
        }
        "tools/list" => list(case, &id, reply),
        "tools/call" => {
            let text = params
                .pointer("/arguments/text")
                .and_then(Value::as_str)
                .unwrap_or("");
            if text == "bad" {
                return call_badly(case, &id, reply);
            }
            let result =
                json!({ "content": [{ "type": "text", "text": format!("echo: {text}") }] });
            reply.value(&answer(&id, result))
        }
        "ping" => reply.value(&answer(&id, json!({}))),
        _ => reply.value(&json!({
            "jsonrpc": "2.0", "id": id,
            "error": { "code": -32601, "message": format!("no method `{method}`") }
        })),
    }
}

/// Writes a response head (and a short body, if any).
fn head(
    out: &mut TcpStream,
    status: &str,
    content_type: Option<&str>,
    body: &str,
) -> std::io::Result<()> {
    let mut text = format!("HTTP/1.1 {status}\r\nConnection: close\r\nMcp-Session-Id: hostile\r\n");
    if let Some(content_type) = content_type {
        text.push_str(&format!("Content-Type: {content_type}\r\n"));
    }
    if content_type.is_none() {
        text.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    text.push_str("\r\n");
    text.push_str(body);
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// One POST's answer, in its style.
struct Reply {
    out: TcpStream,
    style: Style,
}

impl Reply {
    /// Starts the body: the head, and for SSE the event's `data: `.
    fn start(&mut self) -> std::io::Result<()> {
        match self.style {
            Style::Json => head(&mut self.out, "200 OK", Some("application/json"), ""),
            Style::Sse => {
                head(&mut self.out, "200 OK", Some("text/event-stream"), "")?;
                self.out.write_all(b"data: ")
            }
        }
    }

    /// Ends the message (for SSE, the event).
    fn end_message(&mut self) -> std::io::Result<()> {
        if self.style == Style::Sse {
            self.out.write_all(b"\n\n")?;
        }
        self.out.flush()
    }

    /// One more SSE event on a stream already started.
    fn event(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(b"data: ")?;
        self.out.write_all(bytes)?;
        self.end_message()
    }

    /// The whole answer: `bytes` as the body or as one event.
    fn bytes(mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.start()?;
        self.out.write_all(bytes)?;
        self.end_message()
    }

    fn value(self, value: &Value) -> std::io::Result<()> {
        self.bytes(&serde_json::to_vec(value).expect("a JSON value serialises"))
    }

    /// Holds the connection open, sending nothing more, until the client
    /// goes away.
    fn hang(mut self) -> std::io::Result<()> {
        self.out.flush()?;
        let mut byte = [0];
        loop {
            match self.out.read(&mut byte) {
                Ok(0) | Err(_) => return Ok(()),
                Ok(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }
}

fn list(case: Case, id: &Value, reply: Reply) -> std::io::Result<()> {
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
            reply.value(&answer(id, json!({ "tools": tools })))
        }
        Case::HugeDescription => {
            let huge = json!({
                "name": "huge",
                "description": "x".repeat(10 << 20),
                "inputSchema": { "type": "object" }
            });
            reply.value(&answer(id, json!({ "tools": [echo_tool(), huge] })))
        }
        Case::InvalidUtf8 => {
            let mut frame = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"broken","description":"caf"#
            )
            .into_bytes();
            frame.extend_from_slice(b"\xC3\x28 \xFF\xFE");
            frame.extend_from_slice(br#"","inputSchema":{"type":"object"}}]}}"#);
            reply.bytes(&frame)
        }
        Case::Deep => {
            let frame = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{},{{"name":"deep","inputSchema":{}}}]}}}}"#,
                serde_json::to_string(&echo_tool()).expect("serialises"),
                deep_schema(10_000),
            );
            reply.bytes(frame.as_bytes())
        }
        _ => reply.value(&answer(id, json!({ "tools": [echo_tool()] }))),
    }
}

fn call_badly(case: Case, id: &Value, mut reply: Reply) -> std::io::Result<()> {
    match case {
        Case::Oversized => {
            // 20 MiB of text, the id last, as some SDKs write it.
            reply.start()?;
            reply
                .out
                .write_all(br#"{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":""#)?;
            let chunk = vec![b'a'; 1 << 20];
            for _ in 0..20 {
                reply.out.write_all(&chunk)?;
            }
            reply
                .out
                .write_all(format!(r#""}}]}},"id":{id}}}"#).as_bytes())?;
            reply.end_message()
        }
        Case::NotJson => reply.bytes(
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"#).as_bytes(),
        ),
        Case::NotMcp => reply.bytes(
            format!(r#"{{"jsonrpc":"2.0","id":{id},"error":"no","weather":"sunny"}}"#).as_bytes(),
        ),
        Case::StrayId => {
            let stray = answer(
                &json!(987_654_321),
                json!({ "content": [{ "type": "text", "text": "stray" }] }),
            );
            let right = answer(
                id,
                json!({ "content": [{ "type": "text", "text": "echo: bad" }] }),
            );
            match reply.style {
                Style::Json => reply.value(&stray),
                Style::Sse => {
                    reply.start()?;
                    reply
                        .out
                        .write_all(&serde_json::to_vec(&stray).expect("serialises"))?;
                    reply.end_message()?;
                    reply.event(&serde_json::to_vec(&right).expect("serialises"))
                }
            }
        }
        Case::MalformedThenHang => {
            reply.start()?;
            match reply.style {
                Style::Json => reply.out.write_all(br#"{"jsonrpc":"2.0","res"#)?,
                Style::Sse => {
                    reply.out.write_all(b"this is not JSON")?;
                    reply.end_message()?;
                }
            }
            reply.hang()
        }
        Case::NeverAnswers => reply.hang(),
        _ => reply.value(&answer(
            id,
            json!({ "content": [{ "type": "text", "text": "echo: bad" }] }),
        )),
    }
}
