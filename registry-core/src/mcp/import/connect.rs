//! Reaching a server: spawning the child or opening the HTTP or
//! in-process transport, putting the frame guard in front of it (on
//! HTTP, as the client rmcp's transport sends through), and
//! completing the `initialize` handshake within the connect timeout.
//!
//! A failure becomes a [`ConnectError`], told apart by rmcp's error types
//! (`ClientInitializeError`, the transport's `std::io::Error`, the HTTP
//! client's `StreamableHttpError<reqwest::Error>`) and by HTTP statuses,
//! never by the text of an error. Where rmcp keeps a fact only in text,
//! it is asked for again: the network (does the name resolve, does
//! anything accept connections) for a request that could not be sent, and
//! the server (which HTTP status it answers) for a status rmcp reports
//! only in words.

use std::io::ErrorKind;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use ::http::StatusCode;
use rmcp::service::ClientInitializeError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::{ClientHandler, ServiceExt};

use super::config::{McpServerConfig, Transport};
use super::{Client, Running, Shared};
use crate::mcp::child::{Child, ChildReport};
use crate::mcp::error::stream_closed;
use crate::mcp::{ConnectError, McpError};

/// How long a child that failed the handshake is given to exit before its
/// status is reported as still running.
pub(super) const EXIT_GRACE: Duration = Duration::from_millis(500);

/// The longest a question asked after a failure (a lookup, a connection,
/// an HTTP request) may take.
const PROBE_LIMIT: Duration = Duration::from_secs(3);

/// The error type of the HTTP transport this module opens:
/// `StreamableHttpClientTransport<reqwest::Client>` is a worker transport
/// whose error is its worker's, `StreamableHttpError<reqwest::Error>`.
type HttpError = StreamableHttpError<reqwest::Error>;

/// A live connection, with the child process behind it when there is one.
pub(super) struct Connection {
    pub(super) running: Running,
    pub(super) child: Option<Child>,
}

/// Opens a connection and completes the handshake, within the configured
/// connect timeout. A failure says why as a [`ConnectError`]: how a child
/// ended and what it last wrote to standard error, what an HTTP server
/// answered, why the network did not reach it.
pub(super) async fn open(
    shared: &Arc<Shared>,
    config: &McpServerConfig,
) -> Result<Connection, McpError> {
    let client = Client {
        shared: Arc::downgrade(shared),
    };
    let failed = |source: ConnectError| McpError::Connect {
        server: config.name.clone(),
        source,
    };
    let limit = config.connect_timeout;
    match &config.transport {
        Transport::Command(child_config) => {
            let (mut child, stdout, stdin) = Child::spawn(&config.name, child_config)?;
            let (stdout, stdin) = guarded(shared, stdout, stdin);
            let err = match tokio::time::timeout(limit, client.serve((stdout, stdin))).await {
                Ok(Ok(running)) => {
                    return Ok(Connection {
                        running,
                        child: Some(child),
                    });
                }
                Ok(Err(err)) => Some(err),
                Err(_) => None,
            };
            let report = child.report(EXIT_GRACE).await;
            child.kill().await;
            Err(failed(match err {
                Some(err) => over_stream(err, Some(report)),
                None => ConnectError::Timeout {
                    limit,
                    child: Some(report),
                },
            }))
        }
        Transport::Http { url, bearer_token } => {
            let mut http = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            if let Some(token) = bearer_token {
                http = http.auth_header(token.clone());
            }
            super::tls::ensure_crypto_provider();
            // Every answer read through the guard, as over a stream.
            let guarded =
                crate::mcp::guard::GuardedHttp::new(shared.task_tools.clone()).map_err(|err| {
                    failed(ConnectError::Protocol {
                        source: Box::new(err),
                        child: None,
                    })
                })?;
            let transport = StreamableHttpClientTransport::with_client(guarded, http);
            let info = client.get_info();
            match tokio::time::timeout(limit, client.serve(transport)).await {
                Ok(Ok(running)) => Ok(Connection {
                    running,
                    child: None,
                }),
                Ok(Err(err)) => {
                    let target = HttpTarget {
                        url,
                        token: bearer_token.as_deref(),
                        info: &info,
                        probe_limit: limit.min(PROBE_LIMIT),
                    };
                    Err(failed(target.classify(err).await))
                }
                Err(_) => Err(failed(ConnectError::Timeout { limit, child: None })),
            }
        }
        Transport::Io(stream) => {
            let stream = stream
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                .ok_or_else(|| failed(ConnectError::StreamUsed))?;
            let (read, write) = tokio::io::split(stream);
            let (read, write) = guarded(shared, read, write);
            match tokio::time::timeout(limit, client.serve((read, write))).await {
                Ok(Ok(running)) => Ok(Connection {
                    running,
                    child: None,
                }),
                Ok(Err(err)) => Err(failed(over_stream(err, None))),
                Err(_) => Err(failed(ConnectError::Timeout { limit, child: None })),
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

/// A failed handshake over a byte stream (a child's pipes, an in-process
/// stream): the peer went away first, or the protocol failed.
fn over_stream(err: ClientInitializeError, child: Option<ChildReport>) -> ConnectError {
    if closed_early(&err) {
        ConnectError::Closed { child }
    } else {
        ConnectError::Protocol {
            source: Box::new(err),
            child,
        }
    }
}

/// Whether the peer went away before answering `initialize`: rmcp read
/// the end of the stream, or writing the request failed because the
/// other end is closed (a child that exits before the request is written
/// breaks the pipe; one that exits before answering closes it).
fn closed_early(err: &ClientInitializeError) -> bool {
    match err {
        ClientInitializeError::ConnectionClosed(_) => true,
        ClientInitializeError::TransportError { error, .. } => stream_closed(error),
        _ => false,
    }
}

/// An HTTP server being connected to, for telling why it failed.
struct HttpTarget<'a> {
    url: &'a str,
    token: Option<&'a str>,
    /// What the handshake sent in `initialize` (sent again to learn the
    /// HTTP status rmcp keeps only in words).
    info: &'a rmcp::model::ClientConfig,
    probe_limit: Duration,
}

/// What rmcp's HTTP error says, or which question settles it.
enum HttpFailure {
    /// rmcp's error says it all.
    Known(ConnectError),
    /// The request was not sent: ask the network why.
    NotSent(Option<ErrorKind>),
    /// The server answered an HTTP status that rmcp reports only as text
    /// (a 401 without a challenge, a 404, another 4xx): ask it again.
    StatusInText,
    /// Nothing more to learn: rmcp's error is the source.
    Other,
}

impl HttpTarget<'_> {
    /// The [`ConnectError`] for rmcp's error.
    async fn classify(&self, err: ClientInitializeError) -> ConnectError {
        let known = match self.failure(&err) {
            HttpFailure::Known(known) => Some(known),
            HttpFailure::NotSent(kind) => match self.network_failure().await {
                Some(known) => Some(known),
                None => kind.map(|kind| self.io_failure(kind)),
            },
            HttpFailure::StatusInText => self
                .answered_status()
                .await
                .filter(|(status, _)| status.is_client_error() || status.is_server_error())
                .map(|(status, retry_after)| self.status_failure(status, retry_after)),
            HttpFailure::Other => None,
        };
        known.unwrap_or_else(|| over_stream(err, None))
    }

    /// Reads rmcp's error by its types.
    fn failure(&self, err: &ClientInitializeError) -> HttpFailure {
        let ClientInitializeError::TransportError { error, .. } = err else {
            return HttpFailure::Other;
        };
        let Some(http) = error.error.downcast_ref::<HttpError>() else {
            return HttpFailure::Other;
        };
        match http {
            // rmcp's reqwest client says `AuthRequired` for a 401 with a
            // `WWW-Authenticate` challenge, `InsufficientScope` for such a
            // 403.
            HttpError::AuthRequired(_) => {
                HttpFailure::Known(self.token_failure(StatusCode::UNAUTHORIZED))
            }
            HttpError::InsufficientScope(_) => {
                HttpFailure::Known(self.token_failure(StatusCode::FORBIDDEN))
            }
            // Kept as a status only for 429 and 5xx.
            HttpError::HttpStatus(status) => match StatusCode::from_u16(status.status) {
                Ok(code) => {
                    HttpFailure::Known(self.status_failure(code, status.retry_after.clone()))
                }
                Err(_) => HttpFailure::Other,
            },
            HttpError::Client(client) if client.is_connect() || client.is_timeout() => {
                HttpFailure::NotSent(io_kind(client))
            }
            HttpError::Client(client) if closed_unanswered(client) => {
                HttpFailure::Known(ConnectError::Closed { child: None })
            }
            HttpError::UnexpectedEndOfStream => {
                HttpFailure::Known(ConnectError::Closed { child: None })
            }
            HttpError::UnexpectedServerResponse(_) => HttpFailure::StatusInText,
            _ => HttpFailure::Other,
        }
    }

    /// A refused (or missing) token, by whether one was sent.
    fn token_failure(&self, status: StatusCode) -> ConnectError {
        let url = self.url.to_owned();
        match self.token {
            Some(_) => ConnectError::TokenRefused { url, status },
            None => ConnectError::TokenRequired { url, status },
        }
    }

    /// An HTTP error status.
    fn status_failure(&self, status: StatusCode, retry_after: Option<String>) -> ConnectError {
        match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => self.token_failure(status),
            StatusCode::NOT_FOUND => ConnectError::NoEndpoint {
                url: self.url.to_owned(),
            },
            _ => ConnectError::HttpStatus {
                url: self.url.to_owned(),
                status,
                retry_after,
            },
        }
    }

    /// A connection failure the HTTP client saw, of this kind.
    fn io_failure(&self, kind: ErrorKind) -> ConnectError {
        let url = self.url.to_owned();
        let address = self.address().unwrap_or_else(|| url.clone());
        match kind {
            ErrorKind::ConnectionRefused => ConnectError::ConnectionRefused { url, address },
            kind => ConnectError::Unreachable { url, address, kind },
        }
    }

    /// The URL's `host:port` (the port the scheme implies when none is
    /// given), as connected to.
    fn address(&self) -> Option<String> {
        let url = reqwest::Url::parse(self.url).ok()?;
        Some(format!(
            "{}:{}",
            url.host_str()?,
            url.port_or_known_default()?
        ))
    }

    /// Why the server could not be reached at all, asked of the network
    /// directly (the HTTP client's error may not say): a name that does
    /// not resolve, a refused connection, a host that does not answer.
    /// `None` when a connection can be made now.
    async fn network_failure(&self) -> Option<ConnectError> {
        let parsed = reqwest::Url::parse(self.url).ok()?;
        let host = parsed.host_str()?;
        let port = parsed.port_or_known_default()?;
        // An IPv6 literal is bracketed in a URL, not in a lookup.
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let url = self.url.to_owned();
        let address = format!("{host}:{port}");
        let timed_out = || ConnectError::Unreachable {
            url: url.clone(),
            address: address.clone(),
            kind: ErrorKind::TimedOut,
        };
        let lookup = tokio::time::timeout(self.probe_limit, tokio::net::lookup_host((bare, port)));
        let addrs: Vec<_> = match lookup.await {
            Ok(Ok(addrs)) => addrs.collect(),
            Ok(Err(_)) => Vec::new(),
            Err(_) => return Some(timed_out()),
        };
        if addrs.is_empty() {
            return Some(ConnectError::UnknownHost {
                url: url.clone(),
                host: bare.to_owned(),
            });
        }
        let connect = tokio::net::TcpStream::connect(&addrs[..]);
        match tokio::time::timeout(self.probe_limit, connect).await {
            Ok(Ok(_)) => None,
            Ok(Err(err)) if err.kind() == ErrorKind::ConnectionRefused => {
                Some(ConnectError::ConnectionRefused { url, address })
            }
            Ok(Err(err)) => Some(ConnectError::Unreachable {
                url,
                address,
                kind: err.kind(),
            }),
            Err(_) => Some(timed_out()),
        }
    }

    /// The HTTP status (and `Retry-After`) the server answers the
    /// handshake's `initialize` with, asked again: rmcp 3.11's reqwest
    /// client keeps the status of a 401 without a challenge, a 404 and
    /// other 4xx only in its error's text. The request is the one the
    /// handshake sent, with the same token, so the server answers it as
    /// it did; a session it opens anyway is closed again.
    async fn answered_status(&self) -> Option<(StatusCode, Option<String>)> {
        use ::http::header::{ACCEPT, CONTENT_TYPE, RETRY_AFTER};
        const SESSION: &str = "mcp-session-id";
        let request = rmcp::model::ClientJsonRpcMessage::request(
            rmcp::model::ClientRequest::InitializeRequest(rmcp::model::InitializeRequest::new(
                self.info.clone(),
            )),
            rmcp::model::RequestId::Number(0),
        );
        let body = serde_json::to_vec(&request).ok()?;
        super::tls::ensure_crypto_provider();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(self.probe_limit)
            .build()
            .ok()?;
        let mut post = http
            .post(self.url)
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(token) = self.token {
            post = post.bearer_auth(token);
        }
        let response = post.send().await.ok()?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if let Some(session) = response.headers().get(SESSION).cloned() {
            let mut delete = http.delete(self.url).header(SESSION, session);
            if let Some(token) = self.token {
                delete = delete.bearer_auth(token);
            }
            let _ = delete.send().await;
        }
        Some((status, retry_after))
    }
}

/// The `std::io::ErrorKind` under a request error, if it has one
/// (hyper's connect error keeps the socket's error as its source).
fn io_kind(err: &reqwest::Error) -> Option<ErrorKind> {
    let mut source = std::error::Error::source(err);
    while let Some(current) = source {
        if let Some(io) = current.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        source = current.source();
    }
    None
}

/// Whether the server closed the connection without answering the
/// request (hyper's "incomplete message").
fn closed_unanswered(err: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(err);
    while let Some(current) = source {
        if current
            .downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_incomplete_message)
        {
            return true;
        }
        source = current.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::plugins::PluginRegistry;

    #[tokio::test]
    async fn an_in_process_stream_connects_once() {
        let (ours, theirs) = tokio::io::duplex(1024);
        drop(theirs);
        let config = McpServerConfig::io("once", ours);
        let shared = Arc::new(Shared::new(&PluginRegistry::new(), &config, "once".into()));
        let first = open(&shared, &config)
            .await
            .err()
            .expect("the peer is gone");
        assert!(
            matches!(
                first,
                McpError::Connect {
                    source: ConnectError::Closed { child: None },
                    ..
                }
            ),
            "{first:?}"
        );
        let second = open(&shared, &config).await.err().expect("used up");
        assert!(
            matches!(
                second,
                McpError::Connect {
                    source: ConnectError::StreamUsed,
                    ..
                }
            ),
            "{second:?}"
        );
    }
}
