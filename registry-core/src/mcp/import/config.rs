//! How an MCP server to import is configured: its name, how it is
//! reached (a child process, streamable HTTP, an in-process stream), how
//! far it is trusted, and the time limits, heartbeat and reconnect
//! [`Backoff`] that `connect` and `supervise` apply. Nothing here does I/O.
//!
//! The defaults are stated in the doc of the setter that overrides each,
//! so a user reads them where they change them.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::mcp::child::{ChildConfig, StderrTo};

/// A call to an imported tool that has not answered after this long
/// fails (unless configured otherwise).
const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// However much progress a call reports, it fails after this long (unless
/// configured otherwise).
const DEFAULT_MAX_CALL_DURATION: Duration = Duration::from_secs(600);

/// A server that has not completed the `initialize` handshake after this
/// long is given up on (unless configured otherwise).
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// A byte stream an in-process server is reached through.
pub(super) trait Duplex: AsyncRead + AsyncWrite + Send + Unpin + 'static {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Duplex for T {}

pub(super) enum Transport {
    Command(ChildConfig),
    Http {
        url: String,
        bearer_token: Option<String>,
    },
    /// One-shot: taken by the first connection.
    Io(Mutex<Option<Box<dyn Duplex>>>),
}

/// How often and how patiently a broken HTTP connection is retried
/// ([`McpServerConfig::reconnect`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Backoff {
    /// The wait before the first retry; each retry doubles it.
    pub(crate) initial: Duration,
    /// The longest wait between retries.
    pub(crate) max: Duration,
    /// Retries before giving up (the tools stay unregistered).
    pub(crate) attempts: u32,
}

/// One MCP server to import: how to reach it and how far to trust it.
pub struct McpServerConfig {
    pub(super) name: String,
    pub(super) transport: Transport,
    pub(super) trusted: bool,
    pub(super) call_timeout: Duration,
    pub(super) max_call_duration: Duration,
    pub(super) connect_timeout: Duration,
    pub(super) reconnect: Option<Backoff>,
    pub(super) heartbeat: Option<Duration>,
    pub(super) start_backoff: StartBackoff,
}

/// How long a lazy import waits after a failed start before a call may
/// start its server again ([`McpServerConfig::start_backoff`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct StartBackoff {
    /// The wait after the first failure; each further failure in a row
    /// doubles it.
    pub(super) initial: Duration,
    /// The longest wait.
    pub(super) max: Duration,
}

impl StartBackoff {
    /// The wait after `failures` failed starts in a row (at least one).
    pub(super) fn after(self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(31);
        self.initial.saturating_mul(1u32 << doublings).min(self.max)
    }
}

/// A lazy import whose server failed to start tries again no sooner than
/// this (unless configured otherwise), doubling per failure in a row...
const DEFAULT_START_BACKOFF: Duration = Duration::from_secs(1);

/// ...up to this.
const DEFAULT_MAX_START_BACKOFF: Duration = Duration::from_secs(60);

/// How often an HTTP import pings its server unless configured otherwise.
const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(10);

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
            start_backoff: StartBackoff {
                initial: DEFAULT_START_BACKOFF,
                max: DEFAULT_MAX_START_BACKOFF,
            },
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
    /// (default 30 s).
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

    /// Believe the server's `readOnlyHint` and `destructiveHint` (off by
    /// default). Untrusted, every imported tool gets the strictest
    /// posture: not read-only, not concurrency-safe, destructive. Trusted,
    /// `readOnlyHint: true` makes a tool read-only, concurrency-safe and
    /// not destructive; otherwise it writes, runs alone, and is
    /// destructive unless `destructiveHint: false`.
    pub fn trusted(mut self, trusted: bool) -> Self {
        self.trusted = trusted;
        self
    }

    /// How long one call may go without an answer or a progress
    /// notification before it fails (default 60 s).
    /// Each progress notification gives the call this long again, up to
    /// [`max_call_duration`](Self::max_call_duration).
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// The longest one call may take, however much progress it reports
    /// (default 10 minutes; never less than the call timeout).
    pub fn max_call_duration(mut self, limit: Duration) -> Self {
        self.max_call_duration = limit;
        self
    }

    /// Reconnect a broken HTTP connection (off by default; ignored for
    /// child processes and streams, which cannot come back): the first
    /// retry after `initial`, each wait doubling up to `max`, giving up
    /// (the tools stay unregistered) after `attempts` retries. 250 ms
    /// doubling to 30 s over 10 attempts rides out a server restart. A
    /// lazy import ignores it: its next call starts the server again
    /// ([`start_backoff`](Self::start_backoff)).
    pub fn reconnect(mut self, initial: Duration, max: Duration, attempts: u32) -> Self {
        self.reconnect = Some(Backoff {
            initial,
            max,
            attempts,
        });
        self
    }

    /// Pings the server every `interval` and treats a ping that fails or
    /// gets no answer within `interval` as a broken connection (its tools
    /// are unregistered; with [`reconnect`](Self::reconnect), it is
    /// retried). On by default for HTTP, every 10 s; `None` turns it off.
    pub fn heartbeat(mut self, interval: Option<Duration>) -> Self {
        self.heartbeat = interval;
        self
    }

    /// For a lazy import ([`McpImport::lazy`](super::McpImport::lazy)),
    /// which starts its server at the first call: after a start fails,
    /// calls fail at once with that failure for `initial` before one
    /// starts the server again, the wait doubling with each failure in a
    /// row up to `max` (default 1 s doubling to 60 s), so a server that
    /// cannot start is not respawned on every call. A start that succeeds
    /// resets it.
    pub fn start_backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.start_backoff = StartBackoff {
            initial,
            max: max.max(initial),
        };
        self
    }

    /// The server's name, as configured.
    pub fn name(&self) -> &str {
        &self.name
    }
}
