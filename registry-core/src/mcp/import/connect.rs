//! Reaching a server: spawning the child or opening the HTTP or
//! in-process transport, putting the frame guard in front of it, and
//! completing the `initialize` handshake within the connect timeout. A
//! failure is told in words a user can act on.

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use super::config::{McpServerConfig, Transport};
use super::{Client, Running, Shared};
use crate::mcp::McpError;
use crate::mcp::child::Child;

/// How long a child that failed the handshake is given to exit before its
/// status is reported as still running.
pub(super) const EXIT_GRACE: Duration = Duration::from_millis(500);

/// A live connection, with the child process behind it when there is one.
pub(super) struct Connection {
    pub(super) running: Running,
    pub(super) child: Option<Child>,
}

/// Opens a connection and completes the handshake, within the configured
/// connect timeout. A failure says why in words a user can act on: how a
/// child ended and what it last wrote to standard error, or what an HTTP
/// server answered.
pub(super) async fn open(
    shared: &Arc<Shared>,
    config: &McpServerConfig,
) -> Result<Connection, McpError> {
    let client = Client {
        shared: Arc::downgrade(shared),
    };
    let failed = |message: String| McpError::Handshake {
        server: config.name.clone(),
        message,
    };
    let limit = config.connect_timeout;
    let late = || format!("it did not answer `initialize` within {limit:?}");
    match &config.transport {
        Transport::Command(child_config) => {
            let (mut child, stdout, stdin) = Child::spawn(&config.name, child_config)?;
            let (stdout, stdin) = guarded(shared, stdout, stdin);
            let why = match tokio::time::timeout(limit, client.serve((stdout, stdin))).await {
                Ok(Ok(running)) => {
                    return Ok(Connection {
                        running,
                        child: Some(child),
                    });
                }
                Ok(Err(err)) => plain_handshake_error(&err.to_string()),
                Err(_) => late(),
            };
            let report = child.report(EXIT_GRACE).await;
            child.kill().await;
            Err(failed(format!("{why}; {report}")))
        }
        Transport::Http { url, bearer_token } => {
            let mut http = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            if let Some(token) = bearer_token {
                http = http.auth_header(token.clone());
            }
            let transport = StreamableHttpClientTransport::from_config(http);
            match tokio::time::timeout(limit, client.serve(transport)).await {
                Ok(Ok(running)) => Ok(Connection {
                    running,
                    child: None,
                }),
                Ok(Err(err)) => {
                    let text = err.to_string();
                    let why = match text.contains("error sending request") {
                        true => unreachable_why(url).await,
                        false => None,
                    };
                    Err(failed(why.unwrap_or_else(|| {
                        plain_http_error(&text, url, bearer_token.is_some())
                    })))
                }
                Err(_) => Err(failed(late())),
            }
        }
        Transport::Io(stream) => {
            let stream = stream
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                .ok_or_else(|| {
                    failed("an in-process stream connects once; it is already used".into())
                })?;
            let (read, write) = tokio::io::split(stream);
            let (read, write) = guarded(shared, read, write);
            match tokio::time::timeout(limit, client.serve((read, write))).await {
                Ok(Ok(running)) => Ok(Connection {
                    running,
                    child: None,
                }),
                Ok(Err(err)) => Err(failed(plain_handshake_error(&err.to_string()))),
                Err(_) => Err(failed(late())),
            }
        }
    }
}

/// Both halves of a byte stream behind the guard (see `crate::mcp::guard`).
fn guarded<R, W>(
    shared: &Shared,
    read: R,
    write: W,
) -> (
    crate::mcp::guard::GuardedRead<R>,
    crate::mcp::guard::GuardedWrite<W>,
) {
    let in_flight = crate::mcp::guard::InFlight::default();
    (
        crate::mcp::guard::GuardedRead::new(read, in_flight.clone(), shared.task_tools.clone()),
        crate::mcp::guard::GuardedWrite::new(write, in_flight),
    )
}

/// rmcp's handshake error in plain words.
fn plain_handshake_error(rmcp: &str) -> String {
    // A child that exits before the request is written breaks the pipe;
    // one that exits before answering closes the connection.
    if rmcp.contains("connection closed")
        || rmcp.contains("ConnectionClosed")
        || rmcp.contains("Broken pipe")
    {
        "it closed the connection before answering `initialize`".to_owned()
    } else {
        format!("the handshake failed ({})", strip_type_names(rmcp))
    }
}

/// rmcp's HTTP client error in plain words: a 401 says the token was
/// refused (or that one is needed), a refused connection says so.
fn plain_http_error(rmcp: &str, url: &str, has_token: bool) -> String {
    let lower = rmcp.to_ascii_lowercase();
    if lower.contains("auth required") || lower.contains("401") || lower.contains("unauthorized") {
        return if has_token {
            format!("{url} refused the bearer token (401 Unauthorized); check the token")
        } else {
            format!(
                "{url} requires a bearer token (401 Unauthorized); set one with `McpServerConfig::bearer_token`"
            )
        };
    }
    if lower.contains("connection refused") {
        return format!("nothing accepts connections at {url} (connection refused)");
    }
    if lower.contains("404") {
        return format!("{url} has no MCP endpoint (404 Not Found)");
    }
    format!("connecting to {url} failed ({})", strip_type_names(rmcp))
}

/// Why an HTTP server could not be reached at all, asked of the network
/// directly (the HTTP client's own error hides it): a refused connection,
/// a name that does not resolve, a host that does not answer.
async fn unreachable_why(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let with_port = if authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        authority.to_owned()
    } else if url.starts_with("https") {
        format!("{authority}:443")
    } else {
        format!("{authority}:80")
    };
    let attempt = tokio::time::timeout(
        Duration::from_secs(3),
        tokio::net::TcpStream::connect(with_port.as_str()),
    )
    .await;
    match attempt {
        Ok(Ok(_)) => None,
        Ok(Err(err)) if err.kind() == std::io::ErrorKind::ConnectionRefused => Some(format!(
            "nothing accepts connections at {with_port} (connection refused); is the server running?"
        )),
        Ok(Err(err)) => Some(format!("cannot reach {with_port}: {err}")),
        Err(_) => Some(format!(
            "{with_port} does not answer (no connection within 3 s)"
        )),
    }
}

/// Drops the Rust type paths rmcp's errors carry (`Client(...)`,
/// `StreamableHttpClientWorker<...>`), which say nothing to a user.
fn strip_type_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split(' ') {
        let is_type = word.contains("::") || (word.contains('<') && word.contains('>'));
        if !is_type {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out
}
