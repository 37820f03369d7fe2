//! Serving over streamable HTTP: rmcp's HTTP service behind an accept
//! loop and an optional bearer-token gate, with every failure of rmcp's
//! (a session that cannot be restored while the store is down, say) sent
//! as a JSON-RPC error a client's SDK can show (`failures`).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, SessionConfig};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::McpError;
use super::server::McpServer;
use super::shared::Caller;

mod failures;

/// How long a session may stay idle (no request, no open stream) before
/// the server ends it and frees its memory, unless configured otherwise.
const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// How an HTTP server is reached and who may call it.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    addr: SocketAddr,
    bearer_tokens: Vec<Arc<str>>,
    session_idle_timeout: Duration,
}

impl HttpOptions {
    /// Listen on `addr` (port 0 picks a free port; see
    /// [`HttpServerHandle::local_addr`]), with no token.
    pub fn new(addr: SocketAddr) -> Self {
        HttpOptions {
            addr,
            bearer_tokens: Vec::new(),
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
        }
    }

    /// Ends a session that has been idle this long (default five
    /// minutes): its state is dropped and its
    /// memory returned; a client that comes back must initialize again.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Refuse every request without `Authorization: Bearer <token>` with
    /// `401 Unauthorized` (before it reaches MCP). Called again, it adds
    /// a token: each token is a caller of its own, and a stateless
    /// conversation's handle is bound to the caller that started the
    /// conversation (another caller sending it is refused).
    pub fn bearer_token(mut self, token: impl Into<Arc<str>>) -> Self {
        self.bearer_tokens.push(token.into());
        self
    }
}

/// A running HTTP server: its address, and the way to stop it. Dropping
/// the handle stops it too.
#[derive(Debug)]
pub struct HttpServerHandle {
    local_addr: SocketAddr,
    stop: CancellationToken,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl HttpServerHandle {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The MCP endpoint's URL (`http://<addr>/mcp`).
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.local_addr)
    }

    /// Stops accepting, closes every connection and waits for the loop to
    /// end.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    /// Waits until the server stops (it runs until shut down).
    pub async fn wait(mut self) {
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for HttpServerHandle {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl McpServer {
    /// Serves over streamable HTTP at `options`' address until the handle
    /// is shut down or dropped. Every path answers; clients conventionally
    /// use `/mcp` ([`HttpServerHandle::url`]).
    ///
    /// rmcp's DNS-rebinding protection (a `Host` allow-list) stays on for
    /// loopback addresses; for any other address the allow-list would
    /// refuse every real client, so it is off there and a bearer token is
    /// the guard (binding a public address without one logs a warning).
    pub async fn serve_http(&self, options: HttpOptions) -> Result<HttpServerHandle, McpError> {
        let io = |err: std::io::Error| McpError::Bind {
            addr: options.addr,
            source: err,
        };
        let listener = TcpListener::bind(options.addr).await.map_err(io)?;
        let local_addr = listener.local_addr().map_err(io)?;
        let stop = CancellationToken::new();
        let mut config =
            StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
        if !local_addr.ip().is_loopback() {
            config = config.disable_allowed_hosts();
            if options.bearer_tokens.is_empty() {
                tracing::warn!(%local_addr, "MCP over HTTP on a non-loopback address without a bearer token");
            }
        }
        if let Some(shared) = self.shared_store() {
            // rmcp keeps each session's handshake there too, so another
            // replica can take the session's next request.
            config.session_store = Some(Arc::new(super::shared::Handshakes(shared.clone())));
        }
        let server = self.clone();
        let mut session_config = SessionConfig::default();
        session_config.keep_alive = Some(options.session_idle_timeout);
        let mut local = LocalSessionManager::default();
        local.session_config = session_config;
        // With a shared store, sessions relay the client's answers between
        // replicas and keep their streams' events for replay on any of
        // them (see `replicas`).
        let sessions = Arc::new(super::replicas::Sessions::new(
            local,
            self.shared_store().cloned(),
        ));
        let handlers = Arc::clone(&sessions);
        let service = StreamableHttpService::new(
            move || Ok(server.connection_over(Some(Arc::clone(&handlers)))),
            sessions,
            config,
        );
        let tokens: Arc<[Token]> = options
            .bearer_tokens
            .iter()
            .map(|t| Token::new(t))
            .collect();
        let loop_stop = stop.clone();
        let task = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            loop {
                let (stream, peer) = tokio::select! {
                    () = loop_stop.cancelled() => break,
                    accepted = listener.accept() => match accepted {
                        Ok(accepted) => accepted,
                        Err(err) => {
                            tracing::warn!(%err, "accepting an MCP HTTP connection failed");
                            continue;
                        }
                    },
                };
                // Each response goes out in more than one write; with
                // Nagle's algorithm on, the second waits for the client's
                // delayed ACK (about 40 ms a call).
                if let Err(err) = stream.set_nodelay(true) {
                    tracing::debug!(%err, "could not set TCP_NODELAY on an MCP HTTP connection");
                }
                let service = service.clone();
                let tokens = Arc::clone(&tokens);
                let handler = hyper::service::service_fn(move |mut request| {
                    let service = service.clone();
                    let tokens = Arc::clone(&tokens);
                    async move {
                        Ok::<_, Infallible>(match authorized(&request, &tokens) {
                            Some(caller) => {
                                if let Some(caller) = caller {
                                    request.extensions_mut().insert(caller);
                                }
                                failures::handled(&service, request).await
                            }
                            None => unauthorized(peer),
                        })
                    }
                });
                let conn_stop = loop_stop.clone();
                connections.spawn(async move {
                    let conn = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), handler);
                    tokio::select! {
                        result = conn => if let Err(err) = result {
                            tracing::debug!(%err, "MCP HTTP connection ended with an error");
                        },
                        () = conn_stop.cancelled() => {}
                    }
                });
                // Reap finished connections so the set stays small.
                while connections.try_join_next().is_some() {}
            }
            connections.shutdown().await;
        });
        Ok(HttpServerHandle {
            local_addr,
            stop,
            task: Some(task),
        })
    }
}

/// A token the server accepts, as it is compared (its SHA-256 digest),
/// and the caller it names.
struct Token {
    digest: [u8; 32],
    caller: Caller,
}

impl Token {
    fn new(token: &str) -> Self {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        // The caller is a digest of the digest: what records are bound to
        // is never what passes the check above.
        let caller = Sha256::digest(digest)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        Token {
            digest,
            caller: Caller(caller),
        }
    }
}

/// Whether the request may pass: `Some` with the caller its token names
/// (`Some(None)` when the server checks no token), `None` when it lacks
/// an accepted token. Compared as SHA-256 digests, so the comparison's
/// time does not depend on how much of a guess was right.
fn authorized(request: &hyper::Request<Incoming>, tokens: &[Token]) -> Option<Option<Caller>> {
    if tokens.is_empty() {
        return Some(None);
    }
    let given = request
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))?;
    let given = Sha256::digest(given.as_bytes());
    tokens
        .iter()
        .find(|token| given.as_slice() == token.digest)
        .map(|token| Some(token.caller.clone()))
}

fn unauthorized(
    peer: SocketAddr,
) -> http::Response<http_body_util::combinators::BoxBody<Bytes, Infallible>> {
    tracing::info!(%peer, "MCP HTTP request refused: missing or wrong bearer token");
    let mut response = http::Response::new(
        Full::new(Bytes::from_static(
            b"Unauthorized: a valid bearer token is required\n",
        ))
        .boxed(),
    );
    *response.status_mut() = http::StatusCode::UNAUTHORIZED;
    response.headers_mut().insert(
        http::header::WWW_AUTHENTICATE,
        http::HeaderValue::from_static("Bearer"),
    );
    response
}
