//! What both HTTP load benches share: the `add` tool they serve, the load
//! client (plain keep-alive HTTP/1.1 sockets, one per MCP session, as the
//! Python and TypeScript SDKs' clients are), and the percentile of a
//! sorted sample.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The input of `add` (rmcp's peer server takes the same).
#[derive(Deserialize, JsonSchema)]
pub struct AddInput {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

/// Add two numbers.
#[tool(name = "add", concurrency_safe = true, read_only = true)]
pub struct Add;

impl Tool for Add {
    type Input = AddInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: AddInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok((input.a + input.b).to_string())
    }
}

/// One request on a keep-alive socket and its whole response.
pub async fn exchange(
    socket: &mut tokio::net::TcpStream,
    addr: SocketAddr,
    method: &str,
    session: Option<&str>,
    body: &str,
) -> String {
    let session = session.map_or_else(String::new, |s| format!("mcp-session-id: {s}\r\n"));
    let request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n\
         {session}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let n = socket.read(&mut buf).await.unwrap();
        assert!(n > 0, "closed: {}", String::from_utf8_lossy(&response));
        response.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&response);
        let Some(head_end) = text.find("\r\n\r\n") else {
            continue;
        };
        let head = text[..head_end].to_ascii_lowercase();
        if head.contains("transfer-encoding: chunked") {
            if text.ends_with("\r\n0\r\n\r\n") {
                return text.into_owned();
            }
        } else if let Some(len) = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .and_then(|l| l.trim().parse::<usize>().ok())
        {
            if response.len() >= head_end + 4 + len {
                return text.into_owned();
            }
        } else {
            return text.into_owned();
        }
    }
}

/// One session: initialize, `calls` sequential calls (their latencies),
/// then end the session; failures counted.
pub async fn session(addr: SocketAddr, calls: usize) -> (Vec<Duration>, usize) {
    let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    socket.set_nodelay(true).unwrap();
    let init = exchange(
        &mut socket,
        addr,
        "POST",
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"load","version":"0"}}}"#,
    )
    .await;
    let id = init
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("mcp-session-id:")
                .then(|| l["mcp-session-id:".len()..].trim().to_owned())
        })
        .expect("a session id");
    exchange(
        &mut socket,
        addr,
        "POST",
        Some(&id),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    let mut times = Vec::with_capacity(calls);
    let mut errors = 0;
    for i in 1..=calls {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{i},"b":1}}}}}}"#
        );
        let start = Instant::now();
        let response = exchange(&mut socket, addr, "POST", Some(&id), &body).await;
        times.push(start.elapsed());
        if !response.contains(&format!("\"text\":\"{}\"", i + 1))
            || response.contains("isError\":true")
        {
            errors += 1;
        }
    }
    exchange(&mut socket, addr, "DELETE", Some(&id), "").await;
    (times, errors)
}

/// The `p` quantile of `sorted`.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}
