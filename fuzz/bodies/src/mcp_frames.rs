//! `mcp_frames`: JSON-RPC lines into the MCP server's handler
//! (`McpServer::serve_io`) over an in-memory duplex, after a real
//! handshake.
//!
//! One connection serves every input, as one long-lived server serves a
//! client for days: each input's lines are written to it, then a `ping`,
//! and the server must answer that ping. Property: no panic (in rmcp or
//! in the handler), and whatever came before, the server still answers.
//!
//! The server lists only the fuzz tools (`draw`, `tree`, which compute a
//! string) under a mode that keeps only them, and a policy that denies
//! the example tools that touch the machine, so a fuzzed `tools/call`
//! can never run a command or write a file.

use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::Duration;

use registry_core::{
    PermissionContext, ToolRegistry, catalog::BaseTools, mcp::McpServer, permission::PoolMode,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::runtime::Runtime;

/// How long the server has to answer the ping after an input.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// The client's side of the one connection.
struct Client {
    reader: BufReader<ReadHalf<DuplexStream>>,
    writer: WriteHalf<DuplexStream>,
    pings: u64,
}

struct Connection {
    runtime: Runtime,
    client: Mutex<Client>,
}

static CONNECTION: LazyLock<Connection> = LazyLock::new(|| {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let client = runtime.block_on(connect());
    Connection {
        runtime,
        client: Mutex::new(client),
    }
});

/// Starts the server on one end of a duplex and shakes hands on the other.
async fn connect() -> Client {
    let registry = std::sync::Arc::new(ToolRegistry::new(
        BaseTools::linked(&registry_core::Flags::new()).expect("the fuzz catalog builds"),
    ));
    let permissions = PermissionContext::with_policy_rules([
        "run_command",
        "write_file",
        "edit_file",
        "web_fetch",
        "todo_write",
    ])
    .expect("the fuzz policy parses")
    .with_mode(PoolMode::keep_only("fuzz", ["draw", "tree"]));
    let server = McpServer::new(registry.executor().permissions(permissions));
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        // The connection ends only when the fuzzer's process does.
        let _ = server.serve_io(theirs).await;
    });
    let (reader, writer) = tokio::io::split(ours);
    let mut client = Client {
        reader: BufReader::new(reader),
        writer,
        pings: 0,
    };
    let initialize = json!({
        "jsonrpc": "2.0", "id": "fuzz-init", "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "fuzz", "version": "0" },
        },
    });
    client.send(&initialize.to_string()).await;
    client.answer_to(&json!("fuzz-init")).await;
    client
        .send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string())
        .await;
    client
}

impl Client {
    async fn send(&mut self, line: &str) {
        let mut frame = line.as_bytes().to_vec();
        frame.push(b'\n');
        self.writer
            .write_all(&frame)
            .await
            .expect("the server's side of the duplex is open");
    }

    /// The answer to `id` (see [`answer_to`]).
    async fn answer_to(&mut self, id: &Value) -> Value {
        answer_to(&mut self.reader, id).await
    }
}

/// Reads lines until the answer to `id`; other lines (answers to the
/// fuzzer's requests, notifications) are skipped.
async fn answer_to(reader: &mut BufReader<ReadHalf<DuplexStream>>, id: &Value) -> Value {
    {
        let mut line = String::new();
        loop {
            line.clear();
            let read = tokio::time::timeout(ANSWER_WITHIN, reader.read_line(&mut line))
                .await
                .unwrap_or_else(|_| panic!("the server stopped answering (waiting for {id})"))
                .expect("the duplex reads");
            assert!(
                read > 0,
                "the server closed the connection (waiting for {id})"
            );
            if let Ok(message) = serde_json::from_str::<Value>(&line)
                && message.get("id") == Some(id)
                && message.get("method").is_none()
            {
                return message;
            }
        }
    }
}

/// The input, as lines, into the server; then a ping it must answer.
pub fn run(data: &[u8]) {
    let connection = &*CONNECTION;
    let mut client = connection
        .client
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    client.pings += 1;
    let id = json!(format!("fuzz-ping-{}", client.pings));
    // Ended by a newline, so the ping is a line of its own.
    let mut frame = data.to_vec();
    if !frame.is_empty() && !frame.ends_with(b"\n") {
        frame.push(b'\n');
    }
    frame.extend_from_slice(
        json!({ "jsonrpc": "2.0", "id": id, "method": "ping" })
            .to_string()
            .as_bytes(),
    );
    frame.push(b'\n');
    let Client { reader, writer, .. } = &mut *client;
    connection.runtime.block_on(async {
        // Written while the answers are read: a server whose answers
        // fill the duplex waits for them to be read before it reads on.
        let write = async {
            writer
                .write_all(&frame)
                .await
                .expect("the server's side of the duplex is open");
        };
        let (answer, ()) = tokio::join!(answer_to(reader, &id), write);
        assert!(
            answer.get("result").is_some(),
            "a ping answered with {answer}"
        );
    });
}
