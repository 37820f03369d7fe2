//! Importing an MCP server's tools as plugins: connect, list every page,
//! register each tool under its owner, and keep the registration in step
//! with the server (refresh on `list_changed`, unregister on exit,
//! reconnect with backoff over HTTP).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, PaginatedRequestParams, Tool};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use super::McpError;
use super::child::{Child, ChildConfig, StderrTo};
use crate::catalog::plugins::PluginRegistry;
use crate::declare::builder::BoxError;
use crate::declare::imported::{
    DefinitionImport, RemoteAnnotations, RemoteToolDefinition, imported_tool_name, server_segment,
};
use crate::declare::output::ToolOutput;

/// A call to an imported tool that has not answered after this long
/// fails (unless configured otherwise).
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// However much progress a call reports, it fails after this long (unless
/// configured otherwise).
pub const DEFAULT_MAX_CALL_DURATION: Duration = Duration::from_secs(600);

/// A server that has not completed the `initialize` handshake after this
/// long is given up on (unless configured otherwise).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a tool that requires the Tasks extension is not imported (or, over
/// HTTP where its listing cannot be read, fails at its first call).
const TASKS_REQUIRED: &str = "it requires the MCP Tasks extension (`execution.taskSupport: \"required\"`), which this client does not support: every plain call to it fails";

/// How long a child that failed the handshake is given to exit before its
/// status is reported as still running.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// Listing stops after this many pages: a server whose cursors never end
/// would otherwise keep the import busy forever.
const MAX_PAGES: usize = 1_000;

/// The most tools one server may offer: a listing of more fails (a page
/// of more is refused as it is read, before it is held whole).
pub const MAX_IMPORTED_TOOLS: usize = 10_000;

/// A byte stream an in-process server is reached through.
trait Duplex: AsyncRead + AsyncWrite + Send + Unpin + 'static {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Duplex for T {}

enum Transport {
    Command(ChildConfig),
    Http {
        url: String,
        bearer_token: Option<String>,
    },
    /// One-shot: taken by the first connection.
    Io(Mutex<Option<Box<dyn Duplex>>>),
}

/// How often and how patiently a broken HTTP connection is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// The wait before the first retry; each retry doubles it.
    pub initial: Duration,
    /// The longest wait between retries.
    pub max: Duration,
    /// Retries before giving up (the tools stay unregistered).
    pub attempts: u32,
}

impl Default for Backoff {
    /// 250 ms doubling to 30 s, 10 attempts.
    fn default() -> Self {
        Backoff {
            initial: Duration::from_millis(250),
            max: Duration::from_secs(30),
            attempts: 10,
        }
    }
}

/// One MCP server to import: how to reach it and how far to trust it.
pub struct McpServerConfig {
    name: String,
    transport: Transport,
    trusted: bool,
    call_timeout: Duration,
    max_call_duration: Duration,
    connect_timeout: Duration,
    reconnect: Option<Backoff>,
    heartbeat: Option<Duration>,
}

/// How often an HTTP import pings its server unless configured otherwise.
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(10);

impl std::fmt::Debug for McpServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let transport = match &self.transport {
            Transport::Command(child) => format!("command {}", child.program.display()),
            Transport::Http { url, .. } => format!("http {url}"),
            Transport::Io(_) => "in-process stream".to_owned(),
        };
        f.debug_struct("McpServerConfig")
            .field("name", &self.name)
            .field("transport", &transport)
            .field("trusted", &self.trusted)
            .field("call_timeout", &self.call_timeout)
            .finish_non_exhaustive()
    }
}

impl McpServerConfig {
    fn new(name: impl Into<String>, transport: Transport) -> Self {
        // Over HTTP nothing tells the client a server went away until a
        // request fails (each request is its own exchange), so HTTP
        // imports ping; a pipe's end is seen at once.
        let heartbeat = matches!(transport, Transport::Http { .. }).then_some(DEFAULT_HEARTBEAT);
        McpServerConfig {
            name: name.into(),
            transport,
            trusted: false,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            max_call_duration: DEFAULT_MAX_CALL_DURATION,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            reconnect: None,
            heartbeat,
        }
    }

    /// A server run as a child process speaking MCP on its stdin and
    /// stdout. Its tools go away when it exits. It inherits the host's
    /// environment and working directory unless configured otherwise
    /// ([`inherit_env`](Self::inherit_env), [`env`](Self::env),
    /// [`current_dir`](Self::current_dir)); its standard error goes to
    /// `tracing` ([`stderr`](Self::stderr)), never to the host's own.
    pub fn command<S: Into<String>>(
        name: impl Into<String>,
        program: impl Into<PathBuf>,
        args: impl IntoIterator<Item = S>,
    ) -> Self {
        Self::new(
            name,
            Transport::Command(ChildConfig {
                program: program.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: Vec::new(),
                inherit_env: true,
                current_dir: None,
                stderr: StderrTo::default(),
            }),
        )
    }

    /// A remote server at a streamable-HTTP `url`.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self::new(
            name,
            Transport::Http {
                url: url.into(),
                bearer_token: None,
            },
        )
    }

    /// A server reached through an in-process byte stream (one end of a
    /// `tokio::io::duplex`, a socket you connected): one connection, no
    /// reconnect.
    pub fn io<T>(name: impl Into<String>, stream: T) -> Self
    where
        T: AsyncRead + AsyncWrite + Send + Unpin + 'static,
    {
        Self::new(name, Transport::Io(Mutex::new(Some(Box::new(stream)))))
    }

    /// Sets an environment variable for a child-process server.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Transport::Command(child) = &mut self.transport {
            child.env.push((key.into(), value.into()));
        }
        self
    }

    /// Whether a child-process server inherits the host's environment (on
    /// by default); off, it sees only the variables set with
    /// [`env`](Self::env).
    pub fn inherit_env(mut self, inherit: bool) -> Self {
        if let Transport::Command(child) = &mut self.transport {
            child.inherit_env = inherit;
        }
        self
    }

    /// The working directory of a child-process server (by default the
    /// host's).
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Transport::Command(child) = &mut self.transport {
            child.current_dir = Some(dir.into());
        }
        self
    }

    /// Where a child-process server's standard error goes (by default
    /// [`StderrTo::Tracing`]). Whatever the choice, its last few KiB are
    /// kept for the error that reports a child that died.
    pub fn stderr(mut self, to: StderrTo) -> Self {
        if let Transport::Command(child) = &mut self.transport {
            child.stderr = to;
        }
        self
    }

    /// How long connecting and the `initialize` handshake may take
    /// (default [`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sends `Authorization: Bearer <token>` to an HTTP server.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        if let Transport::Http { bearer_token, .. } = &mut self.transport {
            *bearer_token = Some(token.into());
        }
        self
    }

    /// Believe the server's `readOnlyHint` (see
    /// [`ImportedPosture::from_hints`](super::ImportedPosture::from_hints)).
    /// Off by default.
    pub fn trusted(mut self, trusted: bool) -> Self {
        self.trusted = trusted;
        self
    }

    /// How long one call may go without an answer or a progress
    /// notification before it fails (default [`DEFAULT_CALL_TIMEOUT`]).
    /// Each progress notification gives the call this long again, up to
    /// [`max_call_duration`](Self::max_call_duration).
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// The longest one call may take, however much progress it reports
    /// (default [`DEFAULT_MAX_CALL_DURATION`]; never less than the call
    /// timeout).
    pub fn max_call_duration(mut self, limit: Duration) -> Self {
        self.max_call_duration = limit;
        self
    }

    /// Reconnect a broken HTTP connection with `backoff` (off by default;
    /// ignored for child processes and streams, which cannot come back).
    pub fn reconnect(mut self, backoff: Backoff) -> Self {
        self.reconnect = Some(backoff);
        self
    }

    /// Pings the server every `interval` and treats a ping that fails or
    /// gets no answer within `interval` as a broken connection (its tools
    /// are unregistered; with [`reconnect`](Self::reconnect), it is
    /// retried). On by default for HTTP ([`DEFAULT_HEARTBEAT`]); `None`
    /// turns it off.
    pub fn heartbeat(mut self, interval: Option<Duration>) -> Self {
        self.heartbeat = interval;
        self
    }

    /// The server's name, as configured.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A tool the server offered that was not imported, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedTool {
    /// The tool's name on the server.
    pub tool: String,
    /// Why it was refused.
    pub reason: String,
}

/// A connected server whose tools are registered in a [`PluginRegistry`].
///
/// Its tools are owned by [`owner`](Self::owner) (the server's name made
/// safe, see [`server_segment`]), so the registry's
/// [`unregister_owner`](PluginRegistry::unregister_owner) removes them all.
/// That happens by itself when the server exits or the connection breaks
/// (calls in flight then fail at once with an error result), and on
/// [`shutdown`](Self::shutdown) or drop.
#[derive(Debug)]
pub struct McpImport {
    shared: Arc<Shared>,
    stop: CancellationToken,
    task: Option<tokio::task::JoinHandle<()>>,
}

struct Shared {
    server: String,
    owner: String,
    registry: PluginRegistry,
    trusted: bool,
    call_timeout: Duration,
    max_call_duration: Duration,
    progress: ProgressRoutes,
    /// What the server said about itself in `initialize` (`instructions`).
    instructions: RwLock<Option<String>>,
    /// Tools the server listed as requiring the Tasks extension (seen in
    /// the raw frames where this crate reads them).
    task_tools: super::guard::TaskTools,
    /// A refresh is waiting to start: `list_changed` notifications that
    /// arrive meanwhile are served by it.
    refresh_queued: std::sync::atomic::AtomicBool,
    link: RwLock<Option<Link>>,
    /// One sync at a time, so refreshes never interleave registrations.
    sync: tokio::sync::Mutex<()>,
    state: Mutex<ImportState>,
    connected: tokio::sync::watch::Sender<bool>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct ImportState {
    /// Imported name → the server's own name.
    tools: BTreeMap<String, String>,
    refused: Vec<RefusedTool>,
    /// Imported name → the server's definition as listed, and the handle
    /// built from it: a refresh that lists the same definition keeps the
    /// handle, so nothing that holds it notices.
    definitions: BTreeMap<String, (Value, crate::input::ToolHandle)>,
}

/// The live connection calls go through.
#[derive(Clone)]
struct Link {
    peer: Peer<RoleClient>,
    /// Cancelled when the connection ends: in-flight calls stop waiting.
    closed: CancellationToken,
}

/// The client side of one connection: refreshes on `list_changed`.
struct Client {
    shared: Weak<Shared>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::default(),
            rmcp::model::Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(shared) = self.shared.upgrade()
            && !shared.progress.deliver(&params)
        {
            tracing::debug!(server = %shared.server, token = ?params.progress_token, "progress for no call in flight");
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let Some(shared) = self.shared.upgrade() else {
            return;
        };
        // However many notifications come, at most one refresh waits to
        // start: a flood costs a listing at a time, not a task each.
        if shared
            .refresh_queued
            .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            return;
        }
        // Not awaited here: the refresh lists tools over this same
        // connection, whose notification handler must return first.
        tokio::spawn(async move {
            let _one_at_a_time = shared.sync.lock().await;
            shared
                .refresh_queued
                .store(false, std::sync::atomic::Ordering::Release);
            if let Err(err) = shared.sync_tools_locked().await {
                tracing::warn!(server = %shared.server, %err, "refresh after list_changed failed");
            }
        });
    }
}

type Running = RunningService<RoleClient, Client>;

impl McpImport {
    /// Connects to the server, imports every tool it lists (all pages),
    /// and keeps them in step until the server goes away.
    ///
    /// Fails when the server cannot be reached, the handshake or the
    /// first listing fails, or another import already owns the server's
    /// name in `registry`. A tool that cannot be imported (a non-object or
    /// malformed input schema, a name colliding after normalisation) is
    /// left out and logged; see [`refused`](Self::refused).
    pub async fn connect(
        registry: &PluginRegistry,
        config: McpServerConfig,
    ) -> Result<McpImport, McpError> {
        let owner = server_segment(&config.name);
        if registry.has_owner(&owner) {
            return Err(McpError::OwnerInUse {
                server: config.name.clone(),
                owner,
            });
        }
        let (connected, _) = tokio::sync::watch::channel(false);
        let shared = Arc::new(Shared {
            server: config.name.clone(),
            owner,
            registry: registry.clone(),
            trusted: config.trusted,
            call_timeout: config.call_timeout,
            max_call_duration: config.max_call_duration.max(config.call_timeout),
            progress: ProgressRoutes::default(),
            task_tools: super::guard::TaskTools::default(),
            refresh_queued: std::sync::atomic::AtomicBool::new(false),
            instructions: RwLock::new(None),
            link: RwLock::new(None),
            sync: tokio::sync::Mutex::new(()),
            state: Mutex::new(ImportState::default()),
            connected,
        });
        let connection = open(&shared, &config).await?;
        shared.attach(&connection.running);
        if let Err(err) = shared.sync_tools().await {
            let _ = connection.running.cancel().await;
            shared.detach();
            return Err(err);
        }
        let stop = CancellationToken::new();
        let task = tokio::spawn(supervise(
            Arc::clone(&shared),
            connection,
            config,
            stop.clone(),
        ));
        Ok(McpImport {
            shared,
            stop,
            task: Some(task),
        })
    }

    /// The plugin owner of this server's tools (and the `<server>` of
    /// `mcp__<server>__<tool>`).
    pub fn owner(&self) -> &str {
        &self.shared.owner
    }

    /// The imported tools: model-facing name → the server's own name.
    pub fn tools(&self) -> BTreeMap<String, String> {
        self.shared.state().tools.clone()
    }

    /// What the server said in `initialize` about how to use it (its
    /// `instructions`), for the runtime's system prompt; `None` when it
    /// said nothing. Never rendered into tool definitions by this crate.
    pub fn instructions(&self) -> Option<String> {
        self.shared
            .instructions
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The server's own definition of an imported tool (by its imported
    /// name), as it was listed: every field it sent that rmcp models,
    /// annotations and `outputSchema` included, whether or not they were
    /// believed.
    pub fn definition(&self, name: &str) -> Option<Value> {
        self.shared
            .state()
            .definitions
            .get(name)
            .map(|(definition, _)| definition.clone())
    }

    /// The tools the server offered that were not imported, with why.
    pub fn refused(&self) -> Vec<RefusedTool> {
        self.shared.state().refused.clone()
    }

    /// Whether the connection is up now.
    pub fn is_connected(&self) -> bool {
        *self.shared.connected.borrow()
    }

    /// Waits until the connection is down (the server exited, the
    /// connection broke, or it was shut down) and its tools are gone.
    pub async fn disconnected(&self) {
        let mut rx = self.shared.connected.subscribe();
        let _ = rx.wait_for(|up| !*up).await;
    }

    /// Lists the server's tools again and re-registers them (what a
    /// `list_changed` notification does by itself).
    pub async fn refresh(&self) -> Result<(), McpError> {
        self.shared.sync_tools().await
    }

    /// Disconnects and unregisters every tool of the server.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for McpImport {
    fn drop(&mut self) {
        self.stop.cancel();
        // The supervisor unregisters too, but it may not run again (a
        // runtime shutting down): do it now.
        if self.task.is_some() {
            self.shared.registry.unregister_owner(&self.shared.owner);
        }
    }
}

/// A live connection, with the child process behind it when there is one.
struct Connection {
    running: Running,
    child: Option<Child>,
}

/// Opens a connection and completes the handshake, within the configured
/// connect timeout. A failure says why in words a user can act on: how a
/// child ended and what it last wrote to standard error, or what an HTTP
/// server answered.
async fn open(shared: &Arc<Shared>, config: &McpServerConfig) -> Result<Connection, McpError> {
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

/// Both halves of a byte stream behind the guard (see `super::guard`).
fn guarded<R, W>(
    shared: &Shared,
    read: R,
    write: W,
) -> (super::guard::GuardedRead<R>, super::guard::GuardedWrite<W>) {
    let in_flight = super::guard::InFlight::default();
    (
        super::guard::GuardedRead::new(read, in_flight.clone(), shared.task_tools.clone()),
        super::guard::GuardedWrite::new(write, in_flight),
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

/// Waits for the connection to end, then unregisters the server's tools
/// and, for HTTP with a backoff, reconnects.
async fn supervise(
    shared: Arc<Shared>,
    mut connection: Connection,
    config: McpServerConfig,
    stop: CancellationToken,
) {
    loop {
        let Connection { running, mut child } = connection;
        let cancel = running.cancellation_token();
        let peer = running.peer().clone();
        let reason = tokio::select! {
            reason = running.waiting() => match &mut child {
                Some(child) => format!("{reason:?}; {}", child.report(EXIT_GRACE).await),
                None => format!("{reason:?}"),
            },
            () = stop.cancelled() => {
                cancel.cancel();
                "shut down".to_owned()
            }
            failure = heartbeat(&peer, config.heartbeat) => {
                cancel.cancel();
                failure
            }
        };
        let removed = shared.detach();
        tracing::info!(server = %shared.server, removed, %reason, "MCP server disconnected; its tools are unregistered");
        let (Some(backoff), Transport::Http { .. }) = (config.reconnect, &config.transport) else {
            return;
        };
        if stop.is_cancelled() {
            return;
        }
        drop(child);
        match reconnect(&shared, &config, backoff, &stop).await {
            Some(next) => connection = next,
            None => return,
        }
    }
}

/// Returns (with why) when a ping fails or goes unanswered; never, with
/// no interval.
async fn heartbeat(peer: &Peer<RoleClient>, interval: Option<Duration>) -> String {
    let Some(interval) = interval else {
        return std::future::pending().await;
    };
    loop {
        tokio::time::sleep(interval).await;
        let ping = rmcp::model::ClientRequest::PingRequest(rmcp::model::PingRequest {
            method: Default::default(),
            extensions: Default::default(),
        });
        match tokio::time::timeout(interval, peer.send_request(ping)).await {
            Ok(Ok(_)) => {}
            Ok(Err(err)) => return format!("heartbeat failed: {err}"),
            Err(_) => return format!("heartbeat unanswered within {interval:?}"),
        }
    }
}

async fn reconnect(
    shared: &Arc<Shared>,
    config: &McpServerConfig,
    backoff: Backoff,
    stop: &CancellationToken,
) -> Option<Connection> {
    let mut delay = backoff.initial;
    for attempt in 1..=backoff.attempts {
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = stop.cancelled() => return None,
        }
        delay = (delay * 2).min(backoff.max);
        match open(shared, config).await {
            Ok(connection) => {
                shared.attach(&connection.running);
                match shared.sync_tools().await {
                    Ok(()) => return Some(connection),
                    Err(err) => {
                        tracing::warn!(server = %shared.server, attempt, %err, "reconnected but listing failed");
                        let _ = connection.running.cancel().await;
                        shared.detach();
                    }
                }
            }
            Err(err) => tracing::warn!(server = %shared.server, attempt, %err, "reconnect failed"),
        }
    }
    tracing::error!(server = %shared.server, attempts = backoff.attempts, "gave up reconnecting");
    None
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, ImportState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn link(&self) -> Option<Link> {
        self.link
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn attach(&self, running: &Running) {
        let instructions = running
            .peer()
            .peer_info()
            .and_then(|info| info.instructions.clone());
        *self
            .instructions
            .write()
            .unwrap_or_else(PoisonError::into_inner) = instructions;
        *self.link.write().unwrap_or_else(PoisonError::into_inner) = Some(Link {
            peer: running.peer().clone(),
            closed: CancellationToken::new(),
        });
        self.connected.send_replace(true);
    }

    /// The connection is gone: fail calls in flight, refuse new ones,
    /// unregister the server's tools, and only then say so (whoever waits
    /// on [`McpImport::disconnected`] sees no tool left). Returns how many
    /// tools were removed.
    fn detach(&self) -> usize {
        if let Some(link) = self
            .link
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            link.closed.cancel();
        }
        let removed = self.registry.unregister_owner(&self.owner);
        let mut state = self.state();
        state.tools.clear();
        state.definitions.clear();
        drop(state);
        self.connected.send_replace(false);
        removed
    }

    /// Every page of `tools/list`.
    async fn list_all(&self, peer: &Peer<RoleClient>) -> Result<Vec<Tool>, McpError> {
        let list_error = |message: String| McpError::List {
            server: self.server.clone(),
            message,
        };
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..MAX_PAGES {
            let request = PaginatedRequestParams::default().with_cursor(cursor.clone());
            let page = tokio::time::timeout(self.call_timeout, peer.list_tools(Some(request)))
                .await
                .map_err(|_| list_error(format!("no answer within {:?}", self.call_timeout)))?
                .map_err(|err| list_error(err.to_string()))?;
            tools.extend(page.tools);
            if tools.len() > MAX_IMPORTED_TOOLS {
                return Err(list_error(format!(
                    "it lists more than {MAX_IMPORTED_TOOLS} tools, the most one server may offer"
                )));
            }
            match page.next_cursor {
                None => return Ok(tools),
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(list_error(format!("the cursor `{next}` came back twice")));
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(list_error(format!("more than {MAX_PAGES} pages")))
    }

    /// Lists the server's tools and replaces this server's registrations
    /// with them.
    async fn sync_tools(self: &Arc<Self>) -> Result<(), McpError> {
        let _one_at_a_time = self.sync.lock().await;
        self.sync_tools_locked().await
    }

    /// [`sync_tools`](Self::sync_tools), with the sync lock held.
    async fn sync_tools_locked(self: &Arc<Self>) -> Result<(), McpError> {
        let Some(link) = self.link() else {
            return Ok(());
        };
        let mut listed = self.list_all(&link.peer).await?;
        // Sorted by the server's own name: which of two colliding tools
        // wins does not depend on the server's order.
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        let previous = std::mem::take(&mut self.state().definitions);
        let mut tools = BTreeMap::new();
        let mut refused = Vec::new();
        let mut handles = Vec::new();
        let mut definitions = BTreeMap::new();
        for tool in listed {
            let remote = tool.name.to_string();
            let definition = serde_json::to_value(&tool).unwrap_or(Value::Null);
            let name = imported_tool_name(&self.server, &remote);
            // The same definition as before: the same handle.
            let unchanged = previous
                .get(&name)
                .filter(|(old, _)| *old == definition && !tools.contains_key(&name))
                .map(|(_, handle)| (name.clone(), handle.clone()));
            match unchanged.map_or_else(|| self.build_tool(&tool, &tools), Ok) {
                Ok((name, handle)) => {
                    tools.insert(name.clone(), remote);
                    definitions.insert(name, (definition, handle.clone()));
                    handles.push(handle);
                }
                Err(reason) => {
                    tracing::warn!(server = %self.server, tool = %remote, %reason, "MCP tool not imported");
                    refused.push(RefusedTool {
                        tool: remote,
                        reason,
                    });
                }
            }
        }
        // One atomic swap: calls resolved against the old set keep
        // working for every tool that is still offered.
        for err in self.registry.replace_owner(self.owner.as_str(), handles) {
            let crate::catalog::plugins::PluginError::InputNotObject { tool: name, .. } = &err;
            definitions.remove(name);
            let remote = tools.remove(name).unwrap_or_else(|| name.clone());
            refused.push(RefusedTool {
                tool: remote,
                reason: err.to_string(),
            });
        }
        let mut state = self.state();
        state.tools = tools;
        state.refused = refused;
        state.definitions = definitions;
        Ok(())
    }

    /// One imported tool, or why not: the clash and Tasks checks are this
    /// import's own; the tool is [`DefinitionImport`]'s, the one
    /// implementation.
    fn build_tool(
        self: &Arc<Self>,
        tool: &Tool,
        taken: &BTreeMap<String, String>,
    ) -> Result<(String, crate::input::ToolHandle), String> {
        let remote = tool.name.to_string();
        let name = imported_tool_name(&self.server, &remote);
        if let Some(other) = taken.get(&name) {
            return Err(format!(
                "its name normalises to `{name}`, already taken by the server's tool `{other}`"
            ));
        }
        if self.task_tools.contains(&remote) {
            return Err(TASKS_REQUIRED.to_owned());
        }
        let shared = Arc::downgrade(self);
        let handle = DefinitionImport::new(self.server.as_str())
            .trusted(self.trusted)
            .import(&remote_definition(tool), move |args, cx| {
                let shared = shared.clone();
                let remote = remote.clone();
                let cx = cx.clone();
                async move {
                    let shared = shared
                        .upgrade()
                        .ok_or_else(|| -> BoxError { "the MCP import was shut down".into() })?;
                    shared.call(&remote, args, &cx).await
                }
            })
            .map_err(|err| err.reason())?;
        Ok((name, handle))
    }

    /// One call over the live connection: the server's error result, a
    /// broken connection, a timeout and malformed content are all errors.
    ///
    /// The call may go [`call_timeout`](McpServerConfig::call_timeout)
    /// without an answer; each progress notification the server sends for
    /// it is passed on to the call's context ([`ToolContext::progress`],
    /// which the executor reports as `ExecEvent::Progress`) and gives it
    /// that long again, up to
    /// [`max_call_duration`](McpServerConfig::max_call_duration) in all.
    async fn call(
        &self,
        remote: &str,
        args: Value,
        cx: &crate::declare::ToolContext,
    ) -> Result<ToolOutput, BoxError> {
        let Some(link) = self.link() else {
            return Err(format!("MCP server `{}` is not connected", self.server).into());
        };
        let arguments = match args {
            Value::Object(map) => map,
            other => return Err(format!("arguments must be an object, got {other}").into()),
        };
        let disconnected = || format!("MCP server `{}` disconnected during the call", self.server);
        let params = CallToolRequestParams::new(remote.to_owned()).with_arguments(arguments);
        let request =
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params));
        let mut handle = link
            .peer
            .send_request_with_option(request, rmcp::service::PeerRequestOptions::no_options())
            .await
            .map_err(|_| disconnected())?;
        // Its progress reaches the call from here on; a dropped call (a
        // timeout, a cancelled turn) tells the server it is abandoned.
        let progress = self
            .progress
            .watch(handle.progress_token.clone(), cx.clone());
        let abandon = Abandon {
            peer: Some(handle.peer.clone()),
            id: handle.id.clone(),
        };
        let start = tokio::time::Instant::now();
        let hard_end = start + self.max_call_duration;
        let mut deadline = (start + self.call_timeout).min(hard_end);
        let answer = loop {
            tokio::select! {
                answer = &mut handle.rx => break answer,
                () = link.closed.cancelled() => return Err(disconnected().into()),
                () = progress.heard() => {
                    deadline = (tokio::time::Instant::now() + self.call_timeout).min(hard_end);
                }
                () = tokio::time::sleep_until(deadline) => {
                    return Err(if deadline >= hard_end {
                        format!(
                            "MCP server `{}` was still working after {:?}, the longest a call may take, progress and all",
                            self.server, self.max_call_duration
                        )
                    } else {
                        format!(
                            "MCP server `{}` did not answer within {:?}",
                            self.server, self.call_timeout
                        )
                    }
                    .into());
                }
            }
        };
        abandon.disarm();
        let result = match answer {
            Err(_) => return Err(disconnected().into()),
            Ok(Err(rmcp::ServiceError::TransportClosed)) => return Err(disconnected().into()),
            Ok(Err(err)) if err.to_string().contains("task augmentation") => {
                return Err(
                    format!("MCP server `{}`: this tool {TASKS_REQUIRED}", self.server).into(),
                );
            }
            Ok(Err(err)) => return Err(format!("MCP server `{}`: {err}", self.server).into()),
            Ok(Ok(rmcp::model::ServerResult::CallToolResult(result))) => result,
            Ok(Ok(rmcp::model::ServerResult::EmptyResult(_))) => {
                CallToolResult::success(Vec::new())
            }
            Ok(Ok(other)) => {
                let kind = serde_json::to_value(&other)
                    .ok()
                    .and_then(|v| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()))
                    .unwrap_or_default();
                return Err(format!(
                    "MCP server `{}` answered the call with something that is not a tool result (fields {kind:?}); tools that need the Tasks extension are not supported",
                    self.server
                )
                .into());
            }
        };
        let output = result_output(&result);
        if result.is_error == Some(true) {
            return Err(output.into_string().into());
        }
        Ok(output)
    }
}

/// Tells the server a call was abandoned, unless disarmed (the answer
/// came).
struct Abandon {
    peer: Option<Peer<RoleClient>>,
    id: rmcp::model::RequestId,
}

impl Abandon {
    fn disarm(mut self) {
        self.peer = None;
    }
}

impl Drop for Abandon {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        let id = self.id.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let notification = rmcp::model::CancelledNotification::new(
                    rmcp::model::CancelledNotificationParam::new(
                        Some(id),
                        Some("the caller stopped waiting".to_owned()),
                    ),
                );
                let _ = peer.send_notification(notification.into()).await;
            });
        }
    }
}

/// The calls in flight by progress token: where a server's progress
/// notifications go.
#[derive(Default)]
struct ProgressRoutes {
    routes: Mutex<std::collections::HashMap<rmcp::model::ProgressToken, Route>>,
}

struct Route {
    cx: crate::declare::ToolContext,
    heard: Arc<tokio::sync::Notify>,
}

/// A call's registration in [`ProgressRoutes`], removed when dropped.
struct Watched<'a> {
    routes: &'a ProgressRoutes,
    token: rmcp::model::ProgressToken,
    heard: Arc<tokio::sync::Notify>,
}

impl Watched<'_> {
    /// Resolves when a progress notification arrives for the call.
    async fn heard(&self) {
        self.heard.notified().await;
    }
}

impl Drop for Watched<'_> {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.token);
    }
}

impl ProgressRoutes {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<rmcp::model::ProgressToken, Route>>
    {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn watch(
        &self,
        token: rmcp::model::ProgressToken,
        cx: crate::declare::ToolContext,
    ) -> Watched<'_> {
        let heard = Arc::new(tokio::sync::Notify::new());
        self.lock().insert(
            token.clone(),
            Route {
                cx,
                heard: Arc::clone(&heard),
            },
        );
        Watched {
            routes: self,
            token,
            heard,
        }
    }

    /// Passes a progress notification to its call; `false` when no call
    /// in flight has that token.
    fn deliver(&self, params: &rmcp::model::ProgressNotificationParam) -> bool {
        let routes = self.lock();
        let Some(route) = routes.get(&params.progress_token) else {
            return false;
        };
        let amount = match params.total {
            Some(total) => format!("{}/{}", params.progress, total),
            None => format!("{}", params.progress),
        };
        let text = match &params.message {
            Some(message) => format!("{message} ({amount})"),
            None => amount,
        };
        route.cx.progress(text);
        route.heard.notify_one();
        true
    }
}

/// The definition an rmcp tool is, field for field (no serde round
/// trip: nothing here can fail). Fields the definition does not read
/// (`icons`) are left behind.
fn remote_definition(tool: &Tool) -> RemoteToolDefinition {
    RemoteToolDefinition {
        name: tool.name.to_string(),
        title: tool.title.clone(),
        description: tool.description.as_deref().map(str::to_owned),
        input_schema: Value::Object((*tool.input_schema).clone()),
        output_schema: tool
            .output_schema
            .as_ref()
            .map(|schema| Value::Object((**schema).clone())),
        annotations: tool.annotations.as_ref().map(|a| RemoteAnnotations {
            title: a.title.clone(),
            read_only_hint: a.read_only_hint,
            destructive_hint: a.destructive_hint,
            idempotent_hint: a.idempotent_hint,
            open_world_hint: a.open_world_hint,
        }),
        meta: tool.meta.as_ref().map(|meta| meta.0.clone()),
    }
}

/// A result as blocks, nothing left out: each content block as it is
/// (see [`super::content::from_mcp`]), then `structuredContent` as a
/// structured block unless a text block already is that JSON.
fn result_output(result: &CallToolResult) -> ToolOutput {
    let mut blocks: Vec<_> = result
        .content
        .iter()
        .map(super::content::from_mcp)
        .collect();
    if let Some(structured) = &result.structured_content {
        let already = result.content.iter().any(|block| {
            block
                .as_text()
                .and_then(|t| serde_json::from_str::<Value>(&t.text).ok())
                .is_some_and(|value| &value == structured)
        });
        if !already {
            blocks.push(crate::declare::ContentBlock::Json(structured.clone()));
        }
    }
    ToolOutput::new(blocks)
}
