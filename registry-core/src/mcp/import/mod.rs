//! Importing an MCP server's tools as plugins: connect, list every page,
//! register each tool under its owner, and keep the registration in step
//! with the server (refresh on `list_changed`, unregister on exit,
//! reconnect with backoff over HTTP).
//!
//! This file owns the import's public face ([`McpImport`]), the state one
//! import shares between its parts, and the client handler rmcp calls
//! back. The parts, each one job:
//!
//! - `config`: what a server is and how it is reached ([`McpServerConfig`]);
//! - `connect`: reaching it and the `initialize` handshake;
//! - `supervise`: watching the connection, unregistering, reconnecting;
//! - `sync`: listing its tools and registering them;
//! - `manifest`: a server's tools as last listed, kept ([`McpManifest`]);
//! - `lazy`: starting a server at the first call of one of its tools;
//! - `call`: calling an imported tool over the connection.

mod call;
mod config;
mod connect;
mod lazy;
mod manifest;
mod supervise;
mod sync;
mod task;
mod tls;

pub use config::McpServerConfig;
pub use manifest::{ManifestDrift, ManifestError, McpManifest};
pub(crate) use sync::MAX_IMPORTED_TOOLS;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};
use std::time::Duration;

use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, Peer, RoleClient};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::McpError;
use crate::catalog::plugins::PluginRegistry;
use crate::declare::imported::server_segment;
use call::ProgressRoutes;
use connect::open;
use lazy::Lazy;
use supervise::supervise;
use sync::RefusedTool;

/// A server whose tools are registered in a [`PluginRegistry`]:
/// connected up front ([`connect`](Self::connect)), or started at the
/// first call of one of its tools ([`lazy`](Self::lazy)).
///
/// Its tools are owned by [`owner`](Self::owner) (the server's name made
/// safe, see [`server_segment`]), so the registry's
/// [`unregister_owner`](PluginRegistry::unregister_owner) removes them all.
/// For an import that connected up front, that happens by itself when the
/// server exits or the connection breaks (calls in flight then fail at
/// once with an error result); for a lazy one, the tools stay registered
/// and the next call starts the server again. Both unregister on
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
    task_tools: crate::mcp::guard::TaskTools,
    /// A refresh is waiting to start: `list_changed` notifications that
    /// arrive meanwhile are served by it.
    refresh_queued: std::sync::atomic::AtomicBool,
    link: RwLock<Option<Link>>,
    /// One sync at a time, so refreshes never interleave registrations.
    sync: tokio::sync::Mutex<()>,
    state: Mutex<ImportState>,
    connected: tokio::sync::watch::Sender<bool>,
    /// Set for a lazy import: how to start the server at a call.
    lazy: Option<Lazy>,
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
    definitions: BTreeMap<String, (Arc<Value>, crate::input::ToolHandle)>,
    /// Every tool of the last listing as kept (refused ones too), sorted
    /// by the server's name: what [`McpImport::manifest`] holds.
    listing: Vec<Arc<Value>>,
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
            // The Tasks extension (2026-07-28's `io.modelcontextprotocol/tasks`):
            // a server may answer any call with a task, which `call` follows
            // to its end. A 2025-11-25 server's task tools are asked for a
            // task by the call itself (`params.task`), not by a capability.
            rmcp::model::ClientCapabilities::builder()
                .enable_tasks()
                .build(),
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
    /// Fails when a child-process server cannot be started
    /// ([`McpError::Spawn`]), the server cannot be reached or the
    /// handshake fails ([`McpError::Connect`], why in a
    /// [`ConnectError`](crate::mcp::ConnectError)), the first listing
    /// fails ([`McpError::List`]), or another import already owns the
    /// server's name in `registry` ([`McpError::OwnerInUse`]). A tool that cannot be imported (a non-object or
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
        let shared = Arc::new(Shared::new(registry, &config, owner));
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
            Arc::new(config),
            stop.clone(),
        ));
        Ok(McpImport {
            shared,
            stop,
            task: Some(task),
        })
    }

    /// Registers the tools `manifest` records, exactly as a live listing
    /// of them would (names, postures, refusals), without starting the
    /// server: they are listed, rendered and searched like any others.
    ///
    /// The first call of one of them starts the server (once, however
    /// many calls come at once), lists its tools and checks them against
    /// the manifest: where they differ, the registrations follow the
    /// server and the difference is logged and kept
    /// ([`manifest_drift`](Self::manifest_drift)); a call of a tool whose
    /// input schema or annotations changed fails, asking for the call
    /// again (it was checked against the old definition). A start that
    /// fails is that call's error result, naming the server and why;
    /// later calls fail with it at once until
    /// [`start_backoff`](McpServerConfig::start_backoff) has passed,
    /// then one tries again. When the server exits, its tools stay
    /// registered as last listed and the next call starts it again (a
    /// lazy import never reconnects in the background, whatever
    /// [`reconnect`](McpServerConfig::reconnect) says).
    ///
    /// Fails when the manifest is of another server
    /// ([`McpError::Manifest`], [`ManifestError::ServerMismatch`]) or
    /// another import already owns the server's name in `registry`
    /// ([`McpError::OwnerInUse`]).
    pub fn lazy(
        registry: &PluginRegistry,
        config: McpServerConfig,
        manifest: McpManifest,
    ) -> Result<McpImport, McpError> {
        if manifest.server() != config.name {
            return Err(McpError::Manifest {
                server: config.name.clone(),
                source: ManifestError::ServerMismatch {
                    manifest: manifest.server().to_owned(),
                    configured: config.name.clone(),
                },
            });
        }
        let owner = server_segment(&config.name);
        if registry.has_owner(&owner) {
            return Err(McpError::OwnerInUse {
                server: config.name.clone(),
                owner,
            });
        }
        let stop = CancellationToken::new();
        let listing = manifest.listing();
        let shared = Shared::new(registry, &config, owner);
        let shared = Arc::new(Shared {
            lazy: Some(Lazy::new(config, manifest, stop.clone())),
            ..shared
        });
        shared.register(listing);
        Ok(McpImport {
            shared,
            stop,
            task: None,
        })
    }

    /// The server's tools as last listed (or, for a lazy import not
    /// started yet, as its manifest records them), every one it offered,
    /// refused ones included: save it ([`McpManifest::to_json`]) to
    /// import the server lazily later. Empty once a server that was
    /// connected up front has gone.
    pub fn manifest(&self) -> McpManifest {
        McpManifest::of_kept(
            self.shared.server.as_str(),
            self.shared
                .state()
                .listing
                .iter()
                .map(|d| Value::clone(d))
                .collect(),
        )
    }

    /// For a lazy import: how what the server listed at its last start
    /// differed from the manifest the import was made from. `None` when
    /// it matched, before the first start, and for an import that
    /// connected up front.
    pub fn manifest_drift(&self) -> Option<ManifestDrift> {
        self.shared.lazy.as_ref().and_then(Lazy::drift)
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
    /// believed, with the description cut as the tool's is (2,048
    /// characters with a marker), so a hostile server's huge description
    /// is not kept whole.
    pub fn definition(&self, name: &str) -> Option<Value> {
        self.shared
            .state()
            .definitions
            .get(name)
            .map(|(definition, _)| Value::clone(definition))
    }

    /// The tools the server offered that were not imported, with why:
    /// `(the tool's name on the server, the reason)`, in the order they
    /// were refused.
    pub fn refused(&self) -> Vec<(String, String)> {
        self.shared
            .state()
            .refused
            .iter()
            .map(|refused| (refused.tool.clone(), refused.reason.clone()))
            .collect()
    }

    /// Whether the connection is up now (for a lazy import: whether its
    /// server has been started and is running).
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
    /// `list_changed` notification does by itself). Does nothing while
    /// the server is not connected (a lazy import not started).
    pub async fn refresh(&self) -> Result<(), McpError> {
        self.shared.sync_tools().await
    }

    /// Disconnects and unregisters every tool of the server.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
        if let Some(lazy) = &self.shared.lazy
            && let Some(task) = lazy.take_supervisor().await
        {
            let _ = task.await;
        }
    }
}

impl Drop for McpImport {
    fn drop(&mut self) {
        self.stop.cancel();
        // The supervisor unregisters too, but it may not run again (a
        // runtime shutting down): do it now.
        if self.task.is_some() || self.shared.lazy.is_some() {
            self.shared.registry.unregister_owner(&self.shared.owner);
        }
    }
}

impl Shared {
    /// The state of an import of `config`'s server into `registry`, its
    /// tools owned by `owner`; not connected yet.
    fn new(registry: &PluginRegistry, config: &McpServerConfig, owner: String) -> Shared {
        let (connected, _) = tokio::sync::watch::channel(false);
        Shared {
            server: config.name.clone(),
            owner,
            registry: registry.clone(),
            trusted: config.trusted,
            call_timeout: config.call_timeout,
            max_call_duration: config.max_call_duration.max(config.call_timeout),
            progress: ProgressRoutes::default(),
            task_tools: crate::mcp::guard::TaskTools::default(),
            refresh_queued: std::sync::atomic::AtomicBool::new(false),
            instructions: RwLock::new(None),
            link: RwLock::new(None),
            sync: tokio::sync::Mutex::new(()),
            state: Mutex::new(ImportState::default()),
            connected,
            lazy: None,
        }
    }

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
        self.cut_link();
        let removed = self.registry.unregister_owner(&self.owner);
        let mut state = self.state();
        state.tools.clear();
        state.definitions.clear();
        state.listing.clear();
        drop(state);
        self.connected.send_replace(false);
        removed
    }

    /// The connection is gone but the tools stay (a lazy import, whose
    /// next call starts the server again): fail calls in flight, refuse
    /// new ones until then, and say so.
    fn unlink(&self) {
        self.cut_link();
        self.connected.send_replace(false);
    }

    /// Drops the link and cancels what waits on it.
    fn cut_link(&self) {
        if let Some(link) = self
            .link
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            link.closed.cancel();
        }
    }
}
