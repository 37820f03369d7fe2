//! A lazy import: a server's tools registered from its [`McpManifest`]
//! with no server running, the server started by the first call of one
//! of them (once, however many calls come at the same moment), its
//! listing then checked against the manifest, and a failed start backed
//! off so a dead server is not respawned on every call.
//!
//! The order, for each call of a lazy import's tool (`Shared::ready`):
//!
//! 1. One start at a time: the first call opens the connection, lists
//!    the server's tools and registers them (`sync`), which replaces the
//!    manifest's registrations where they differ; the difference is
//!    logged and kept ([`ManifestDrift`]). Calls that come meanwhile wait
//!    for it, then find the server up.
//! 2. The call proceeds only if the tool it was checked as (its input
//!    schema and annotations, what parsing, posture and permission read)
//!    is still how the server defines it. Otherwise it fails, saying that
//!    the tool was registered anew: the model calls it again, and that
//!    call is checked against what the server now says.
//! 3. A start that fails is that call's error; later calls fail at once
//!    with it until the backoff has passed
//!    ([`McpServerConfig::start_backoff`]), then one tries again.
//!
//! When the server exits (or the connection breaks), the tools stay
//! registered as last listed and the next call starts it again: that is
//! the reconnect of a lazy import, which therefore never reconnects in
//! the background. Only [`McpImport::shutdown`](super::McpImport::shutdown)
//! or dropping the import unregisters them.
//!
//! Never does: start a server for anything but a call, or let a call run
//! against a definition it was not checked against.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::Shared;
use super::config::McpServerConfig;
use super::connect::open;
use super::manifest::{ManifestDrift, McpManifest};
use super::supervise::supervise;
use crate::declare::builder::BoxError;
use crate::mcp::McpError;
use crate::text::to_canonical_string;

/// What a lazy import keeps besides the import's own state.
pub(super) struct Lazy {
    /// How to start the server, each time.
    config: Arc<McpServerConfig>,
    /// What the import was made from, for checking listings against.
    manifest: McpManifest,
    /// The import's own stop: shut down, it starts nothing more.
    stop: CancellationToken,
    /// Held while a start is under way, so calls that find the server
    /// down start it once.
    starts: tokio::sync::Mutex<Starts>,
    /// How the last start's listing differed from the manifest.
    drift: Mutex<Option<ManifestDrift>>,
}

/// The starts so far.
#[derive(Default)]
struct Starts {
    /// The task watching the connection of the last start.
    supervisor: Option<JoinHandle<()>>,
    /// Failed starts since the last one that succeeded.
    failures: u32,
    /// When the last start failed, and why.
    last_failure: Option<(Instant, String)>,
}

impl Lazy {
    pub(super) fn new(
        config: McpServerConfig,
        manifest: McpManifest,
        stop: CancellationToken,
    ) -> Lazy {
        Lazy {
            config: Arc::new(config),
            manifest,
            stop,
            starts: tokio::sync::Mutex::new(Starts::default()),
            drift: Mutex::new(None),
        }
    }

    /// How the last start's listing differed from the manifest; `None`
    /// when it did not, or before the first start.
    pub(super) fn drift(&self) -> Option<ManifestDrift> {
        self.drift
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The task watching the current connection, if any (for shutting
    /// down: waits for a start under way to end first).
    pub(super) async fn take_supervisor(&self) -> Option<JoinHandle<()>> {
        self.starts.lock().await.supervisor.take()
    }
}

impl Shared {
    /// Readies a call of the tool imported as `name` (`remote` on the
    /// server), built from a definition whose [`call_fingerprint`] is
    /// `checked`: the server's name to call it by. For an import that
    /// connected up front, `remote` at once; for a lazy one, after
    /// starting the server if it is not running and checking that the
    /// tool is still defined as it was when the call was checked.
    pub(super) async fn ready(
        self: &Arc<Self>,
        name: &str,
        remote: &str,
        checked: &str,
    ) -> Result<String, BoxError> {
        if self.lazy.is_none() {
            return Ok(remote.to_owned());
        }
        self.start().await?;
        let state = self.state();
        match (state.tools.get(name), state.definitions.get(name)) {
            (Some(remote), Some((definition, _))) if call_fingerprint(definition) == checked => {
                Ok(remote.clone())
            }
            (Some(_), Some(_)) => Err(format!(
                "MCP server `{}` now defines `{name}` differently (its input schema or annotations) from the definition this call was checked against; the tool is registered anew as the server lists it: call it again",
                self.server
            )
            .into()),
            _ => Err(format!(
                "MCP server `{}` no longer offers `{name}` (its manifest did); its tools are registered anew as the server lists them",
                self.server
            )
            .into()),
        }
    }

    /// Starts the server unless it is running (see [`start_here`]), in a
    /// task of its own: a call dropped while the server starts (its turn
    /// cancelled, its timeout) must not cut a start off between linking
    /// the connection and watching it, which would leave a link no
    /// watcher ever clears and every later call failing on it.
    ///
    /// [`start_here`]: Self::start_here
    async fn start(self: &Arc<Self>) -> Result<(), BoxError> {
        let shared = Arc::clone(self);
        let start = tokio::spawn(async move {
            match &shared.lazy {
                Some(lazy) => shared.start_here(lazy).await,
                None => Ok(()),
            }
        });
        start.await.unwrap_or_else(|err| {
            Err(format!("MCP server `{}`: its start failed: {err}", self.server).into())
        })
    }

    /// Starts the server unless it is running: opens the connection,
    /// lists and registers its tools, records any drift from the
    /// manifest, and watches the connection. One start at a time.
    async fn start_here(self: &Arc<Self>, lazy: &Lazy) -> Result<(), BoxError> {
        let mut starts = lazy.starts.lock().await;
        // Under this lock a link means a start completed: it is set and
        // listed within one start.
        if self.link().is_some() {
            return Ok(());
        }
        if lazy.stop.is_cancelled() {
            return Err(format!("MCP server `{}`: its import was shut down", self.server).into());
        }
        if let Some((at, why)) = &starts.last_failure {
            let wait = lazy.config.start_backoff.after(starts.failures);
            let since = at.elapsed();
            if since < wait {
                return Err(format!(
                    "{why} (a start failed {since:.1?} ago; the next is tried {:.1?} from now)",
                    wait - since
                )
                .into());
            }
        }
        // The last connection's watcher has unlinked; let it finish.
        if let Some(old) = starts.supervisor.take() {
            let _ = old.await;
        }
        tracing::info!(server = %self.server, "starting the MCP server of a lazy import for a call");
        let started = tokio::select! {
            started = self.open_and_list(&lazy.config) => started,
            () = lazy.stop.cancelled() => {
                return Err(format!("MCP server `{}`: its import was shut down", self.server).into());
            }
        };
        match started {
            Ok(connection) => {
                starts.failures = 0;
                starts.last_failure = None;
                self.check_drift(lazy);
                starts.supervisor = Some(tokio::spawn(supervise(
                    Arc::clone(self),
                    connection,
                    Arc::clone(&lazy.config),
                    lazy.stop.clone(),
                )));
                Ok(())
            }
            Err(err) => {
                let why = err.to_string();
                starts.failures = starts.failures.saturating_add(1);
                starts.last_failure = Some((Instant::now(), why.clone()));
                let wait = lazy.config.start_backoff.after(starts.failures);
                tracing::warn!(server = %self.server, %err, ?wait, "starting the MCP server of a lazy import failed");
                Err(format!("{why} (the next start is tried after {wait:.1?})").into())
            }
        }
    }

    /// Opens a connection, lists the server's tools and registers them;
    /// on a failed listing, closes the connection again (the tools stay
    /// registered as they were).
    async fn open_and_list(
        self: &Arc<Self>,
        config: &McpServerConfig,
    ) -> Result<super::connect::Connection, McpError> {
        let connection = open(self, config).await?;
        self.attach(&connection.running);
        if let Err(err) = self.sync_tools().await {
            let _ = connection.running.cancel().await;
            self.unlink();
            return Err(err);
        }
        Ok(connection)
    }

    /// Compares what the server listed with the manifest, and says so
    /// when they differ.
    fn check_drift(&self, lazy: &Lazy) {
        let listing = self
            .state()
            .listing
            .iter()
            .map(|d| Value::clone(d))
            .collect();
        let listed = McpManifest::of_kept(self.server.as_str(), listing);
        let drift = lazy.manifest.drift(&listed);
        if let Some(drift) = &drift {
            tracing::warn!(
                server = %self.server,
                added = ?drift.added,
                removed = ?drift.removed,
                changed = ?drift.changed,
                "the MCP server's tools differ from its manifest; its registrations now follow the server"
            );
        }
        *lazy.drift.lock().unwrap_or_else(PoisonError::into_inner) = drift;
    }
}

/// What a call of an imported tool was checked against, of its kept
/// definition: the input schema (what its arguments were parsed by) and
/// the annotations (its posture and Rule of Two properties), as canonical
/// JSON.
pub(super) fn call_fingerprint(definition: &Value) -> String {
    to_canonical_string(&serde_json::json!({
        "annotations": definition.get("annotations"),
        "inputSchema": definition.get("inputSchema"),
    }))
}
