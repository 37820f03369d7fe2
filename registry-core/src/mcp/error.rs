//! What can go wrong serving or importing over MCP, as types a caller
//! can branch on: [`McpError`] says which step failed and for which
//! server; [`ConnectError`], [`ListError`] and [`ServeError`] say why,
//! each variant with the facts a caller acts on (the HTTP status, the
//! address, how a child ended). They are told apart by rmcp's error
//! types and HTTP statuses, never by reading error text (see
//! `import::connect`); their `Display` is words a user can act on.

use std::net::SocketAddr;
use std::time::Duration;

use ::http::StatusCode;

use super::child::ChildReport;

/// An error of another library, kept whole as the source.
type Source = Box<dyn std::error::Error + Send + Sync>;

/// What went wrong serving or importing over MCP.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// A child-process server could not be started.
    #[error("MCP server `{server}`: could not start `{program}`: {source}")]
    Spawn {
        /// The server's configured name.
        server: String,
        /// The program.
        program: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Reaching the server or its `initialize` handshake failed.
    #[error("MCP server `{server}`: connecting failed: {source}")]
    Connect {
        /// The server's configured name.
        server: String,
        /// Why.
        #[source]
        source: ConnectError,
    },
    /// `tools/list` failed or did not end.
    #[error("MCP server `{server}`: listing its tools failed: {source}")]
    List {
        /// The server's configured name.
        server: String,
        /// Why.
        #[source]
        source: ListError,
    },
    /// Serving one client over a byte stream
    /// ([`McpServer::serve_io`](super::McpServer::serve_io)) failed.
    #[error("MCP server `{server}`: serving a client failed: {source}")]
    Serve {
        /// This server's name (as it tells its clients).
        server: String,
        /// Why.
        #[source]
        source: ServeError,
    },
    /// Another import in the same registry already owns the server's name.
    #[error(
        "MCP server `{server}`: its tools would be owned by `{owner}`, which another import in this registry already uses; give the server a different name"
    )]
    OwnerInUse {
        /// The server's configured name.
        server: String,
        /// The owner both would share.
        owner: String,
    },
    /// A lazy import's manifest does not fit its configuration
    /// ([`McpImport::lazy`](super::McpImport::lazy)).
    #[error("MCP server `{server}`: {source}")]
    Manifest {
        /// The server's configured name.
        server: String,
        /// Why.
        #[source]
        source: super::ManifestError,
    },
    /// The HTTP listener could not bind.
    #[error("cannot serve MCP over HTTP on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A `tools/list` cursor this server did not hand out (or one from a
    /// list that has since shrunk).
    #[error(
        "`tools/list` cursor `{cursor}` is not one this server handed out for the current list; list again from the start"
    )]
    BadCursor {
        /// The cursor as sent.
        cursor: String,
    },
}

/// Why reaching a server to import, or its `initialize` handshake,
/// failed ([`McpError::Connect`]).
///
/// Variants that a child-process server can cause carry its
/// [`ChildReport`] (how it ended, the end of its standard error); over
/// HTTP or an in-process stream that is `None`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The server refused the bearer token that was sent (HTTP 401 or
    /// 403).
    #[error("{url} refused the bearer token ({status}); check the token")]
    TokenRefused {
        /// The server's URL.
        url: String,
        /// `401 Unauthorized` or `403 Forbidden`.
        status: StatusCode,
    },
    /// The server requires a bearer token and none was set (HTTP 401 or
    /// 403).
    #[error(
        "{url} requires a bearer token ({status}); set one with `McpServerConfig::bearer_token`"
    )]
    TokenRequired {
        /// The server's URL.
        url: String,
        /// `401 Unauthorized` or `403 Forbidden`.
        status: StatusCode,
    },
    /// Nothing accepts connections at the server's address.
    #[error(
        "nothing accepts connections at {address} (connection refused); is the server running?"
    )]
    ConnectionRefused {
        /// The server's URL.
        url: String,
        /// The `host:port` connected to.
        address: String,
    },
    /// The host name in the server's URL does not resolve.
    #[error("the host `{host}` of {url} does not resolve; check the URL")]
    UnknownHost {
        /// The server's URL.
        url: String,
        /// The host name.
        host: String,
    },
    /// The server's address cannot be reached for another reason: no
    /// route, a reset, no answer in time
    /// ([`TimedOut`](std::io::ErrorKind::TimedOut)).
    #[error("cannot reach {address} ({kind})")]
    Unreachable {
        /// The server's URL.
        url: String,
        /// The `host:port` connected to.
        address: String,
        /// What the network said.
        kind: std::io::ErrorKind,
    },
    /// The URL has no MCP endpoint (HTTP 404).
    #[error("{url} has no MCP endpoint (404 Not Found); check the path")]
    NoEndpoint {
        /// The server's URL.
        url: String,
    },
    /// The server answered the handshake with another HTTP error status.
    #[error("{url} answered `initialize` with {status}{}", RetryAfter(.retry_after))]
    HttpStatus {
        /// The server's URL.
        url: String,
        /// The status.
        status: StatusCode,
        /// The server's `Retry-After`, as sent, when it sent one.
        retry_after: Option<String>,
    },
    /// The server did not complete the handshake within the connect
    /// timeout ([`McpServerConfig::connect_timeout`](super::McpServerConfig::connect_timeout)).
    #[error("it did not answer `initialize` within {limit:?}{}", Child(.child))]
    Timeout {
        /// The connect timeout.
        limit: Duration,
        /// A child-process server: how it stood (usually still running).
        child: Option<ChildReport>,
    },
    /// The server closed the connection (a child exited) before
    /// answering `initialize`.
    #[error("it closed the connection before answering `initialize`{}", Child(.child))]
    Closed {
        /// A child-process server: its exit status and last words.
        child: Option<ChildReport>,
    },
    /// The handshake failed otherwise: an answer that is not a valid
    /// `initialize` result, a JSON-RPC error, no common protocol version,
    /// a malformed HTTP response. The source is rmcp's error (for
    /// example `rmcp::service::ClientInitializeError`).
    #[error("the handshake failed ({}){}", Plain(.source), Child(.child))]
    Protocol {
        /// rmcp's error.
        #[source]
        source: Source,
        /// A child-process server: how it stood.
        child: Option<ChildReport>,
    },
    /// An in-process stream ([`McpServerConfig::io`](super::McpServerConfig::io))
    /// connects once, and it was already used.
    #[error("an in-process stream connects once; it is already used")]
    StreamUsed,
}

impl ConnectError {
    /// The child-process server's report, for the variants that carry
    /// one and were caused by a child.
    pub fn child(&self) -> Option<&ChildReport> {
        match self {
            ConnectError::Timeout { child, .. }
            | ConnectError::Closed { child }
            | ConnectError::Protocol { child, .. } => child.as_ref(),
            _ => None,
        }
    }
}

/// Why listing a server's tools failed ([`McpError::List`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ListError {
    /// A page did not come within the call timeout
    /// ([`McpServerConfig::call_timeout`](super::McpServerConfig::call_timeout)).
    #[error("no answer within {limit:?}")]
    NoAnswer {
        /// The call timeout.
        limit: Duration,
    },
    /// The listing holds more tools than one server may offer.
    #[error("it lists more than {max} tools, the most one server may offer")]
    TooManyTools {
        /// The most tools one server may offer: 10,000.
        max: usize,
    },
    /// A `nextCursor` came back a second time: the listing would never
    /// end.
    #[error("the cursor `{cursor}` came back twice")]
    CursorRepeated {
        /// The cursor.
        cursor: String,
    },
    /// The listing did not end within the most pages this client reads.
    #[error("more than {max} pages")]
    TooManyPages {
        /// The most pages read.
        max: usize,
    },
    /// The server answered `tools/list` with a JSON-RPC error. So does
    /// this client's own reader for an answer it refuses (too big, more
    /// tools than allowed on one page, not JSON, nested too deep), with
    /// code -32700 and the reason as the message.
    #[error("{message} (JSON-RPC error {code})")]
    Server {
        /// The JSON-RPC error code.
        code: i32,
        /// The error's message.
        message: String,
    },
    /// The connection closed before the listing ended.
    #[error("the connection closed")]
    Closed,
    /// Any other failure of the request; the source is rmcp's error
    /// (`rmcp::ServiceError`).
    #[error("{}", Plain(.source))]
    Failed {
        /// rmcp's error.
        #[source]
        source: Source,
    },
}

/// Why serving one client over a byte stream failed ([`McpError::Serve`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The client closed the stream before the `initialize` handshake
    /// completed.
    #[error("the client closed the connection before `initialize` completed")]
    ClientLeft,
    /// The client's handshake was not one this server could complete; the
    /// source is rmcp's error (`rmcp::service::ServerInitializeError`).
    #[error("the handshake failed ({})", Plain(.source))]
    Handshake {
        /// rmcp's error.
        #[source]
        source: Source,
    },
    /// The task serving the connection panicked or was cancelled.
    #[error("the connection's task ended abnormally: {source}")]
    Task {
        /// Why.
        #[source]
        source: tokio::task::JoinError,
    },
}

/// Whether a transport error is the other end of a byte stream gone:
/// writing found it closed, or reading found its end (told by the
/// stream's `std::io::Error` kind).
pub(crate) fn stream_closed(error: &rmcp::transport::DynamicTransportError) -> bool {
    use std::io::ErrorKind;
    error
        .error
        .downcast_ref::<std::io::Error>()
        .is_some_and(|io| {
            matches!(
                io.kind(),
                ErrorKind::BrokenPipe
                    | ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::UnexpectedEof
            )
        })
}

/// `; <report>` after a phrase, or nothing.
struct Child<'a>(&'a Option<ChildReport>);

impl std::fmt::Display for Child<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(report) => write!(f, "; {report}"),
            None => Ok(()),
        }
    }
}

/// ` (retry after <value>)`, or nothing.
struct RetryAfter<'a>(&'a Option<String>);

impl std::fmt::Display for RetryAfter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(after) => write!(f, " (retry after {after})"),
            None => Ok(()),
        }
    }
}

/// Another library's error for a user to read: without the Rust type
/// paths rmcp's errors carry (`Transport [rmcp::...]`,
/// `StreamableHttpClientWorker<...>`), which say nothing to a user. Only
/// how the text is shown; nothing is decided on it.
struct Plain<'a>(&'a Source);

impl std::fmt::Display for Plain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self.0.to_string();
        let mut first = true;
        for word in text.split(' ') {
            let is_type = word.contains("::") || (word.contains('<') && word.contains('>'));
            if !is_type {
                if !first {
                    f.write_str(" ")?;
                }
                f.write_str(word)?;
                first = false;
            }
        }
        Ok(())
    }
}
