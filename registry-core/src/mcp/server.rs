//! Serving a pool as an MCP server: `tools/list` from the MCP renderer,
//! `tools/call` through the [`Executor`], `list_changed` when the pool
//! would change.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    Implementation, InitializeRequestParams, InitializeResult, InputRequiredResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::{CancellationToken, DropGuard};

mod listing;
mod tasks;

use super::approval::{ClientApprover, Relay};
use super::replicas::Sessions;
use super::replicas::calls::{self, CallTag};
use super::shared::{RecordOf, SharedStore, Synced};
use super::{McpError, ServeError};
use crate::execute::{Executor, ExecutorBuilder, ExecutorTemplate, ToolCall};
use crate::input::handle::ToolHandle;
use crate::permission::PermissionContext;
use crate::pool::{ToolPool, ToolRegistry};
use crate::render::ProviderFormat;
use crate::search::{ResultShape, TOOL_SEARCH_NAME, ToolSearchIndex, ToolSearchScope};
use crate::session::{DeferralPolicy, MemorySessionStore, Session, SessionStore, StoreLimits};

/// Tools per `tools/list` page unless configured.
const DEFAULT_PAGE_SIZE: usize = 100;

/// How long a `tools/list` page is fresh unless configured
/// ([`McpServer::with_list_freshness`]): a minute. A client that caches
/// the list sees a tool added to the pool within that long; a tool
/// removed or denied is refused when called, whatever the client cached.
const DEFAULT_LIST_TTL: Duration = Duration::from_secs(60);

/// The prefix of every `tools/list` cursor this server hands out.
const CURSOR_PREFIX: &str = "offset:";

/// A tool registry served over MCP.
///
/// Cheap to clone: clones share the registry, the permission context and
/// the cached listing; configuring a clone (`with_*`) changes only that
/// clone. Every connection (a stdio peer, an HTTP session)
/// gets its own [`Session`] and its own allow-always grants, so
/// deferred-tool discovery, session state and approvals never leak
/// between clients; a session's calls run one turn at a time,
/// as the executor runs a conversation's turns.
///
/// - `tools/list` is [`ToolPool::render_mcp_tools_list`]: the same tools
///   in the same order with the same fields, cut into pages of
///   [`page_size`](Self::page_size) with an opaque cursor (a stale or
///   forged cursor is an `invalid params` error). By default every listed
///   tool can be called, deferred ones included: listing a tool is
///   discovering it. With [`with_deferral`](Self::with_deferral), deferred
///   tools are listed once the conversation's `tool_search` finds them.
/// - `tools/call` is one executor turn of one call: deny rules, the
///   permission mode, caps and timeouts apply, and an `Ask` with no
///   approver is an error result saying approval is needed. A tool with
///   a typed output whose schema is an object schema (listed as its
///   `outputSchema`) also returns `structuredContent` (not when the text
///   was cut to its cap: a cut value is not a valid one).
/// - `notifications/tools/list_changed` goes to every client when the
///   registry's plugin generation moves or
///   [`set_permissions`](Self::set_permissions) changes the context.
#[derive(Clone)]
pub struct McpServer {
    shared: Arc<Shared>,
    settings: Arc<Settings>,
}

/// How calls run and pages are cut: copied on write, so configuring a
/// clone never changes the server it was cloned from.
#[derive(Clone)]
struct Settings {
    /// What every connection's executor is made from, with that
    /// connection's session.
    template: ExecutorTemplate,
    page_size: NonZeroUsize,
    info: Implementation,
    /// Where each HTTP session's record lives, when replicas share one.
    pub(crate) shared: Option<SharedStore>,
    /// Where stateless conversations live when no store is shared: this
    /// process's memory.
    local: SharedStore,
    /// Asks go to the client's user, who has this long to answer.
    client_approvals: Option<Duration>,
    /// Deferred tools stay out of `tools/list` until `tool_search`
    /// discovers them; `None`: every tool is listed, and so discovered.
    deferral: Option<DeferralPolicy>,
    /// How long a `tools/list` page may be treated as fresh, and by whom.
    list_ttl: Duration,
    list_scope: CacheScope,
    /// The tool that runs programs, listed with the pool's TypeScript API
    /// (and alone, when `only`).
    code_tool: Option<super::code_listing::CodeTool>,
}

/// What every clone shares: the registry, the permission context and the
/// listing cached for it.
struct Shared {
    registry: ToolRegistry,
    permissions: RwLock<Arc<PermissionContext>>,
    /// Moves with every permission change; a view built under an older
    /// value is stale.
    permissions_version: tokio::sync::watch::Sender<u64>,
    view: Mutex<Option<Arc<View>>>,
    /// What `tool_search` searches, built on the first need.
    search: std::sync::OnceLock<Arc<ToolSearchIndex>>,
    /// The calls running as tasks (see `tasks`).
    tasks: tasks::ServedTasks,
}

/// One pool, as listed and as run.
struct View {
    generation: u64,
    permissions_version: u64,
    permissions: Arc<PermissionContext>,
    pool: Arc<ToolPool>,
    /// What `tools/list` pages through: each listed tool and the handle it
    /// was read from (a tool whose definition rmcp could not take is
    /// missing from both).
    tools: Arc<[Tool]>,
    sources: Box<[ToolHandle]>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("server", &self.settings.info.name)
            .field("page_size", &self.settings.page_size)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server running calls as `executor` would: its registry, its
    /// permission context (the listed pool is assembled under it), its
    /// policy (mode, approver, classifier), its configuration and its
    /// context.
    ///
    /// ```
    /// # use registry_core::{Flags, PermissionMode, ToolRegistry, catalog::BaseTools};
    /// # let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).unwrap());
    /// let server = registry_core::mcp::McpServer::new(registry.executor().mode(PermissionMode::Plan));
    /// ```
    ///
    /// Each connection gets its own fresh [`Session`] (discoveries and
    /// session state never leak between clients), so a session given to
    /// the builder is not used; nor is its conflict rule or access root,
    /// since every `tools/call` is a turn of one call. Pages hold
    /// 100 tools and `serverInfo` names this crate until configured
    /// otherwise.
    pub fn new(executor: ExecutorBuilder) -> Self {
        let template = executor.into_template();
        McpServer {
            shared: Arc::new(Shared {
                registry: template.registry().clone(),
                permissions: RwLock::new(Arc::new(template.permissions().clone())),
                permissions_version: tokio::sync::watch::Sender::new(0),
                view: Mutex::new(None),
                search: std::sync::OnceLock::new(),
                tasks: tasks::ServedTasks::default(),
            }),
            settings: Arc::new(Settings {
                template,
                page_size: NonZeroUsize::new(DEFAULT_PAGE_SIZE).unwrap_or(NonZeroUsize::MIN),
                info: Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
                shared: None,
                local: SharedStore {
                    store: Arc::new(MemorySessionStore::new()),
                    limits: StoreLimits::default(),
                },
                client_approvals: None,
                deferral: None,
                list_ttl: DEFAULT_LIST_TTL,
                list_scope: CacheScope::Private,
                code_tool: None,
            }),
        }
    }

    /// Changes this server's settings (a copy, if a clone shares them);
    /// connections opened from now on use them.
    fn configure(mut self, f: impl FnOnce(&mut Settings)) -> Self {
        f(Arc::make_mut(&mut self.settings));
        self
    }

    /// Tools per `tools/list` page (default 100).
    pub fn with_page_size(self, page_size: NonZeroUsize) -> Self {
        self.configure(|settings| settings.page_size = page_size)
    }

    /// The `serverInfo` name and version clients see.
    pub fn with_server_info(self, name: impl Into<String>, version: impl Into<String>) -> Self {
        let info = Implementation::new(name, version);
        self.configure(|settings| settings.info = info)
    }

    /// Keeps each HTTP conversation's record (discovered tools, session
    /// state, allow-always grants) in `store`, bounded by `limits`, so any
    /// replica sharing the store can answer its next request: a 2025
    /// session's by its session id (with rmcp's handshake, renewed as the
    /// session is used), a stateless 2026-07-28 conversation's by its
    /// handle. The store also relays a client's answer to the replica that
    /// asked, and keeps each SSE stream's events for replay on any
    /// replica. A call whose record cannot be read is not run: its result
    /// is an error naming the store, which the client may retry. (Stdio
    /// connections have no session id, and keep their state in memory.)
    pub fn with_session_store(self, store: Arc<dyn SessionStore>, limits: StoreLimits) -> Self {
        self.configure(|settings| settings.shared = Some(SharedStore { store, limits }))
    }

    /// The shared store, if one is configured.
    pub(crate) fn shared_store(&self) -> Option<&SharedStore> {
        self.settings.shared.as_ref()
    }

    /// Where a record of `of` lives: the shared store for any record
    /// when there is one; otherwise this process's memory for a
    /// stateless conversation, and nowhere for a session (its connection
    /// holds it).
    fn store_for(&self, of: &RecordOf) -> Option<&SharedStore> {
        match (&self.settings.shared, of) {
            (Some(shared), _) => Some(shared),
            (None, RecordOf::Conversation { .. }) => Some(&self.settings.local),
            (None, RecordOf::Session(_)) => None,
        }
    }

    /// Sends every ask to the client's user, through elicitation, instead
    /// of the pipeline's approver: a session's client that
    /// declared form elicitation gets `elicitation/create` and has
    /// `timeout` to answer; a 2026-07-28 client gets an input-required
    /// result and retries with the answer. An "always" holds for the
    /// rest of the conversation, on every replica sharing its store. A
    /// client that cannot be asked is refused, as with no approver.
    /// Five minutes (`Duration::from_secs(300)`) gives a person time to
    /// read the question.
    ///
    /// The question is a form with one field, `decision` (`once`,
    /// `always` or `deny`); anything but an accepted `once` or `always`
    /// is a denial (a decline, a malformed answer, no answer in time). A
    /// retried 2026-07-28 call's answer is matched to its question by a
    /// digest of the tool and its arguments, so an answer never approves
    /// another call.
    pub fn with_client_approvals(self, timeout: Duration) -> Self {
        self.configure(|settings| settings.client_approvals = Some(timeout))
    }

    /// Defers tools as an agent runtime would: each conversation's
    /// `tools/list` holds what `policy` loads (measured in the MCP
    /// format), `tool_search` while anything is deferred, and the
    /// deferred tools the conversation discovered through `tool_search`;
    /// a deferred tool called before its discovery is refused, saying to
    /// search for it. A session's client is sent `list_changed` when a
    /// search discovers something; a stateless client lists again with its
    /// conversation handle. Discoveries are kept with the conversation's
    /// record, so they hold on every replica sharing its store. (By
    /// default every tool is listed, which discovers it.) The pool must
    /// hold `tool_search` (the registry built with the
    /// [`TOOL_SEARCH_FLAG`](crate::search::TOOL_SEARCH_FLAG) flag), or
    /// deferred tools could never be found.
    pub fn with_deferral(self, policy: DeferralPolicy) -> Self {
        self.configure(|settings| settings.deferral = Some(policy))
    }

    /// The index `tool_search` searches under
    /// [`with_deferral`](Self::with_deferral) (by default a lexical index
    /// of the registry, built on first use): give one with
    /// [`ToolSearchIndex::with_semantic`] to rank by meaning. Shared by
    /// every clone of this server; set it before serving.
    pub fn with_search_index(self, index: Arc<ToolSearchIndex>) -> Self {
        if self.shared.search.set(index).is_err() {
            tracing::warn!(
                "with_search_index: the server already has its index; the new one is not used"
            );
        }
        self
    }

    /// How long a client may treat a `tools/list` page as fresh (`ttlMs`,
    /// default a minute). A client that caches the list sees a tool added
    /// to the pool within that long; a tool removed or denied is refused
    /// when called, whatever the client cached. Every replica of one
    /// configuration sends the same page, byte for byte.
    pub fn with_list_freshness(self, ttl: Duration) -> Self {
        self.configure(|settings| settings.list_ttl = ttl)
    }

    /// Lets any client or intermediary cache a `tools/list` page
    /// (`cacheScope: public`) instead of only the asking client (`private`,
    /// the default). The list depends only on the server's configuration,
    /// so this is right when the tool names are no secret.
    pub fn with_public_list(self) -> Self {
        self.configure(|settings| settings.list_scope = CacheScope::Public)
    }

    /// Lists the tool named `name` (the `code` tool of `registry-code`,
    /// which runs programs) with the pool's TypeScript API after its
    /// description: the tools its programs may call, with their inputs
    /// and results, in one definition. The ordinary listing stays beside
    /// it.
    pub fn with_code_tool(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.configure(|settings| {
            settings.code_tool = Some(super::code_listing::CodeTool { name, only: false });
        })
    }

    /// [`with_code_tool`](Self::with_code_tool), and that tool is the
    /// only one listed or called directly (Cloudflare's code mode): every
    /// other tool is reached through its programs, each call still under
    /// the executor's rules; a direct call of another is refused.
    pub fn with_only_code_tool(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.configure(|settings| {
            settings.code_tool = Some(super::code_listing::CodeTool { name, only: true });
        })
    }

    /// Tools per `tools/list` page.
    pub fn page_size(&self) -> usize {
        self.settings.page_size.get()
    }

    /// Replaces the permission context (rules, mode): the pool is
    /// reassembled for the next request, and clients are told the list
    /// changed.
    pub fn set_permissions(&self, permissions: PermissionContext) {
        *self
            .shared
            .permissions
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(permissions);
        self.shared.permissions_version.send_modify(|v| *v += 1);
    }

    /// The pool a request sees now: the cached one, or a fresh one when
    /// the plugin generation or the permission context moved.
    fn view(&self) -> Arc<View> {
        let shared = &self.shared;
        let generation = shared.registry.plugins().generation();
        let version = *shared.permissions_version.borrow();
        let mut cached = shared.view.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(view) = cached.as_ref()
            && view.generation == generation
            && view.permissions_version == version
        {
            return Arc::clone(view);
        }
        let permissions = Arc::clone(
            &shared
                .permissions
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let pool = shared.registry.assemble_tool_pool(&permissions);
        if let Some(code) = &self.settings.code_tool
            && pool.get(&code.name).is_none()
        {
            // A mistyped name, a flag left off, a deny rule: say so, or
            // the listing is silently without its code tool.
            tracing::warn!(
                tool = %code.name,
                "the code tool this server lists is not in the pool (its flag off, denied, or misnamed)"
            );
        }
        let (tools, sources) =
            listing::listed_tools(&pool, cached.as_deref(), self.settings.code_tool.as_ref());
        let view = Arc::new(View {
            // The pool's own generation: a registration racing this
            // assembly makes the next request assemble again.
            generation: pool.plugin_generation(),
            permissions_version: version,
            tools,
            sources,
            permissions,
            pool: Arc::new(pool),
        });
        *cached = Some(Arc::clone(&view));
        view
    }

    /// The `tools/list` page at `cursor` (`None`: the first), of every
    /// tool.
    pub(crate) fn list_page(&self, cursor: Option<&str>) -> Result<ListToolsResult, McpError> {
        self.page_of(&self.view(), cursor, None)
    }

    /// The page at `cursor` of `view`'s tools, or of those `listed` keeps.
    fn page_of(
        &self,
        view: &View,
        cursor: Option<&str>,
        listed: Option<&dyn Fn(&ToolHandle) -> bool>,
    ) -> Result<ListToolsResult, McpError> {
        let kept: Vec<Tool>;
        let tools: &[Tool] = match listed {
            None => &view.tools,
            Some(listed) => {
                kept = view
                    .sources
                    .iter()
                    .zip(view.tools.iter())
                    .filter(|(handle, _)| listed(handle))
                    .map(|(_, tool)| tool.clone())
                    .collect();
                &kept
            }
        };
        let start = match cursor {
            None => 0,
            Some(cursor) => cursor
                .strip_prefix(CURSOR_PREFIX)
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n <= tools.len())
                .ok_or_else(|| McpError::BadCursor {
                    cursor: cursor.to_owned(),
                })?,
        };
        let end = start.saturating_add(self.page_size()).min(tools.len());
        let mut result = ListToolsResult::with_all_items(tools[start..end].to_vec());
        result.next_cursor = (end < tools.len()).then(|| format!("{CURSOR_PREFIX}{end}"));
        result.ttl_ms = Some(u64::try_from(self.settings.list_ttl.as_millis()).unwrap_or(u64::MAX));
        result.cache_scope = Some(self.settings.list_scope);
        Ok(result)
    }

    /// Serves one peer over a byte stream (a pipe, a socket, an in-memory
    /// duplex) until it disconnects.
    pub async fn serve_io<T>(&self, io: T) -> Result<(), McpError>
    where
        T: AsyncRead + AsyncWrite + Send + Unpin + 'static,
    {
        let running = self
            .connection()
            .serve(io)
            .await
            .map_err(|err| self.serve_failed(serve_error(err)))?;
        running
            .waiting()
            .await
            .map_err(|source| self.serve_failed(ServeError::Task { source }))?;
        Ok(())
    }

    fn serve_failed(&self, source: ServeError) -> McpError {
        McpError::Serve {
            server: self.settings.info.name.clone(),
            source,
        }
    }

    /// Serves one peer over this process's stdin and stdout until it
    /// disconnects (the usual way an MCP client runs a local server).
    pub async fn serve_stdio(&self) -> Result<(), McpError> {
        self.serve_io(tokio::io::join(tokio::io::stdin(), tokio::io::stdout()))
            .await
    }

    /// A handler for one connection (stdio, or HTTP without replicas).
    pub(crate) fn connection(&self) -> Connection {
        self.connection_over(None)
    }

    /// A handler for one connection served through `sessions` (HTTP).
    pub(crate) fn connection_over(&self, sessions: Option<Arc<Sessions>>) -> Connection {
        let stop = CancellationToken::new();
        let approver = self
            .settings
            .client_approvals
            .map(|_| Arc::new(ClientApprover::new()));
        Connection {
            server: self.clone(),
            session: Arc::new(Session::new()),
            approver,
            sessions,
            synced: tokio::sync::Mutex::default(),
            executor: Mutex::new(None),
            watcher: stop.child_token(),
            _stop: stop.drop_guard(),
            initialized: AtomicBool::new(false),
            watching: AtomicBool::new(false),
        }
    }
}

/// A failed server handshake, by rmcp's error type: the client left
/// (rmcp read the end of the stream, or answering found it closed), or
/// the handshake failed otherwise.
fn serve_error(err: rmcp::service::ServerInitializeError) -> ServeError {
    use rmcp::service::ServerInitializeError as Init;
    let left = match &err {
        Init::ConnectionClosed(_) => true,
        Init::TransportError { error, .. } => super::error::stream_closed(error),
        _ => false,
    };
    match left {
        true => ServeError::ClientLeft,
        false => ServeError::Handshake {
            source: Box::new(err),
        },
    }
}

/// One connected client: its session, its executor for the current view,
/// and the task telling it about list changes (stopped when the
/// connection ends).
pub(crate) struct Connection {
    server: McpServer,
    /// This connection's conversation (its grants included): kept across
    /// views, never shared with another connection.
    session: Arc<Session>,
    /// The client's user, when asks go to them.
    approver: Option<Arc<ClientApprover>>,
    /// The HTTP sessions this connection is one of, with their relay.
    sessions: Option<Arc<Sessions>>,
    /// The revision of the shared record this connection last saw.
    synced: tokio::sync::Mutex<Synced>,
    executor: Mutex<Option<(Arc<View>, Arc<Executor>)>>,
    watcher: CancellationToken,
    _stop: DropGuard,
    /// `initialize` was answered: a second one is refused, not taken
    /// (rmcp's default would store the new, unnegotiated version as the
    /// session's, and a client asking for "9913-11-25" mid-session turned
    /// its own `ping` into "method not found"; found by the `mcp_frames`
    /// fuzz target).
    initialized: AtomicBool,
    /// The `list_changed` watcher runs: a repeated `initialized`
    /// notification starts no second one (each would be a task and a
    /// duplicate notification per change, for as long as the connection
    /// lasts).
    watching: AtomicBool,
}

impl Connection {
    /// The executor for the current view (built once per view and
    /// connection), with that view.
    fn executor(&self) -> (Arc<View>, Arc<Executor>) {
        let view = self.server.view();
        let mut slot = self.executor.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((built_for, executor)) = slot.as_ref()
            && Arc::ptr_eq(built_for, &view)
        {
            return (view, Arc::clone(executor));
        }
        let shared = &self.server.shared;
        let settings = &self.server.settings;
        match settings.deferral {
            Some(policy) => {
                self.session
                    .decide_deferral(&view.pool, policy, ProviderFormat::Mcp);
            }
            None => {
                for tool in view.pool.iter() {
                    self.session.discover(tool.name());
                }
            }
        }
        let mut context = settings.template.context().clone();
        if settings.deferral.is_some() {
            let index = shared
                .search
                .get_or_init(|| Arc::new(ToolSearchIndex::new(&shared.registry)));
            context = context.with(ToolSearchScope::new(
                Arc::clone(index),
                &shared.registry,
                &view.pool,
                ResultShape::Definitions(ProviderFormat::Mcp),
            ));
        }
        let executor = Arc::new(settings.template.executor(
            Arc::clone(&self.session),
            Arc::clone(&view.pool),
            (*view.permissions).clone(),
            context,
            self.approver.clone().map(|approver| approver as _),
        ));
        *slot = Some((Arc::clone(&view), Arc::clone(&executor)));
        (view, executor)
    }

    /// Runs one `tools/call` through the executor. When the client sent a
    /// progress token, what the tool reports through
    /// [`ToolContext::progress`](crate::declare::ToolContext::progress) goes back to
    /// it as `notifications/progress`.
    async fn call(
        &self,
        request: CallToolRequestParams,
        id: String,
        peer: rmcp::Peer<RoleServer>,
        token: Option<rmcp::model::ProgressToken>,
        tag: Option<CallTag>,
        task: Option<rmcp::task_manager::TaskContext>,
    ) -> CallToolResult {
        if let Some(why) =
            (self.server.settings.code_tool.as_ref()).and_then(|code| code.refuses(&request.name))
        {
            return CallToolResult::error(vec![ContentBlock::text(why)]);
        }
        let (view, executor) = self.executor();
        let args = Value::Object(request.arguments.unwrap_or_default());
        let call = ToolCall::new(id, request.name.clone(), args);
        let result = match token {
            // An attempt of a task: its progress is the task's status.
            _ if task.is_some() => tasks::run_reporting(&executor, call, task).await,
            None => executor.run_turn(vec![call]).await.pop(),
            Some(token) => {
                let (events, mut heard) = tokio::sync::mpsc::unbounded_channel();
                let forward = async move {
                    let mut step = 0u32;
                    while let Some(event) = heard.recv().await {
                        if let crate::execute::ExecEvent::Progress { message, .. } = event {
                            step += 1;
                            let note = calls::progress(token.clone(), step, message, tag.as_ref());
                            if peer.send_notification(note).await.is_err() {
                                return;
                            }
                        }
                    }
                };
                let turn = executor.run_turn_streaming(vec![call], events);
                let (mut results, ()) = tokio::join!(turn, forward);
                results.pop()
            }
        };
        let Some(result) = result else {
            return CallToolResult::error(vec![ContentBlock::text(
                "the executor returned no result for the call",
            )]);
        };
        if result.is_error() {
            return CallToolResult::error(vec![ContentBlock::text(result.into_content())]);
        }
        let structured = structured(&view, &request.name, &result);
        let content = result.blocks().iter().map(super::content::to_mcp).collect();
        let mut out = CallToolResult::success(content);
        out.structured_content = structured;
        out
    }

    /// Sends `list_changed` whenever the plugin generation or the
    /// permission context moves, until the connection ends.
    fn watch_changes(&self, peer: rmcp::Peer<RoleServer>) {
        let shared = &self.server.shared;
        let mut plugins = shared.registry.plugins().subscribe();
        let mut permissions = shared.permissions_version.subscribe();
        let stop = self.watcher.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    changed = plugins.changed() => if changed.is_err() { return },
                    changed = permissions.changed() => if changed.is_err() { return },
                }
                plugins.mark_unchanged();
                permissions.mark_unchanged();
                if let Err(err) = peer.notify_tool_list_changed().await {
                    tracing::debug!(%err, "client gone; stopped sending list_changed");
                    return;
                }
            }
        });
    }
}

/// The structured value of a result: its first structured block that is
/// an object (a `Json<T>` result, unless it was cut or spilled), or for a
/// tool with an output schema whose result is text, that text's JSON.
/// Looked up by the name the client sent: an alias gets no structured
/// value, only the content.
fn structured(view: &View, name: &str, result: &crate::execute::ToolCallResult) -> Option<Value> {
    let tool = view.pool.get(name)?;
    let block = result.blocks().iter().find_map(|block| match block {
        crate::declare::ContentBlock::Json(value @ Value::Object(_)) => Some(value.clone()),
        _ => None,
    });
    if block.is_some() {
        return block;
    }
    crate::render::mcp_output_schema(tool)?;
    if result.spilled_to().is_some() {
        return None;
    }
    match serde_json::from_str::<Value>(result.content()) {
        Ok(value @ Value::Object(_)) => Some(value),
        _ => {
            tracing::debug!(tool = name, "typed result was cut; no structuredContent");
            None
        }
    }
}

impl Connection {
    /// Points this connection's approver (when asks go to the client) at
    /// whoever can answer for this request: the session's client while
    /// the call waits, the stateless client's retry, or nobody.
    fn prepare_approver(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) {
        let (Some(approver), Some(timeout)) =
            (&self.approver, self.server.settings.client_approvals)
        else {
            return;
        };
        if super::shared::is_stateless(context) {
            let can_answer = context
                .client_capabilities()
                .is_some_and(|caps| caps.elicitation.is_some());
            match can_answer {
                true => approver.ask_in_rounds(request.input_responses.as_ref()),
                false => approver.ask_nobody(),
            }
        } else if context
            .peer
            .supported_elicitation_modes()
            .contains(&rmcp::service::ElicitationMode::Form)
        {
            let relay = self
                .sessions
                .clone()
                .zip(super::shared::session_id(context))
                .map(|(sessions, session)| Relay { sessions, session });
            approver.ask_peer(context.peer.clone(), timeout, relay);
        } else {
            approver.ask_nobody();
        }
    }
}

/// A result's `_meta` handing out the conversation's handle.
fn conversation_meta(handle: &str) -> rmcp::model::MetaObject {
    let mut meta = rmcp::model::MetaObject::default();
    meta.0.insert(
        super::shared::CONVERSATION_META_KEY.to_owned(),
        Value::String(handle.to_owned()),
    );
    meta
}

impl ServerHandler for Connection {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_tasks()
                .build(),
        )
        .with_server_info(self.server.settings.info.clone())
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        if self.initialized.swap(true, Ordering::SeqCst) {
            return Err(ErrorData::invalid_request(
                "the session is already initialized: `initialize` is a session's first request, \
                 sent once",
                None,
            ));
        }
        // What rmcp's default does, once.
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if !self.watching.swap(true, Ordering::SeqCst) {
            self.watch_changes(context.peer);
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        if self.server.settings.deferral.is_none() {
            return self
                .server
                .list_page(cursor.as_deref())
                .map_err(|err| ErrorData::invalid_params(err.to_string(), None));
        }
        // What the conversation discovered decides what it sees.
        let record = super::shared::record_of(&context)
            .map_err(|message| ErrorData::invalid_params(message, None))?;
        let caller = super::shared::caller_of(&context);
        if let Some(of) = &record
            && let Some(store) = self.server.store_for(of)
            && let Err(err) = store
                .load(of, &self.synced, &self.session, caller.as_ref())
                .await
        {
            tracing::error!(%err, "session record unavailable; tools/list refused");
            return Err(err.into_error("the list may be asked for again"));
        }
        let (view, _) = self.executor();
        let session = &self.session;
        let defers = session
            .deferral()
            .is_some_and(|deferral| deferral.defers_anything());
        let listed = |tool: &ToolHandle| {
            !session.needs_discovery(tool) && (defers || tool.name() != TOOL_SEARCH_NAME)
        };
        self.server
            .page_of(&view, cursor.as_deref(), Some(&listed))
            .map_err(|err| ErrorData::invalid_params(err.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.runs_as_task(&request, &context) {
            return Ok(self.start_task(request, context).into());
        }
        let id = format!(
            "mcp-{}",
            serde_json::to_string(&context.id).unwrap_or_default()
        );
        // A client's `notifications/cancelled` cancels `context.ct`:
        // dropping the turn then cancels the tool.
        //
        // Boxed: an executor turn is a large future, and rmcp moves this
        // handler's future (spawning it, wrapping it) before polling it;
        // inline, every call would copy the whole turn's state several
        // times. Boxed, it is allocated once, where it runs.
        let token = context.meta.get_progress_token();
        let record = match super::shared::record_of(&context) {
            Ok(record) => record,
            Err(message) => return Err(ErrorData::invalid_params(message, None)),
        };
        let store = record
            .as_ref()
            .and_then(|of| Some((of, self.server.store_for(of)?)));
        let caller = super::shared::caller_of(&context);
        if let Some((of, store)) = store
            && let Err(err) = store
                .load(of, &self.synced, &self.session, caller.as_ref())
                .await
        {
            tracing::error!(%err, "session record unavailable; call refused");
            return err.into_call_answer();
        }
        // Held while the call runs: a replica its client resumes the
        // stream on tells a running call from a lost one.
        let replica = self.sessions.as_ref().and_then(|s| s.replica_name());
        let (tag, _running) = match calls::lease(store, &context, replica).await {
            Ok(leased) => leased.unzip(),
            Err(err) => return Ok(super::shared::not_run(&err).into()),
        };
        self.prepare_approver(&request, &context);
        let discovered = self.session.discovered().len();
        let task = tasks::task_of(&context);
        let call = Box::pin(self.call(request, id, context.peer.clone(), token, tag, task));
        let result = tokio::select! {
            result = call => result,
            () = context.ct.cancelled() => return Ok(CallToolResult::error(vec![ContentBlock::text(
                "the call was cancelled by the client",
            )]).into()),
        };
        if self.server.settings.deferral.is_some()
            && self.session.discovered().len() != discovered
            && !super::shared::is_stateless(&context)
            && let Err(err) = context.peer.notify_tool_list_changed().await
        {
            tracing::debug!(%err, "client gone; list_changed after a discovery not sent");
        }
        let mut stored = false;
        if let Some((of, store)) = store {
            match store
                .save(of, &self.synced, &self.session, caller.as_ref())
                .await
            {
                Ok(saved) => stored = saved,
                // The call ran: its result stands (an error would invite
                // a second run). What it changed lives on in this replica
                // only; a grant lost this way means a later ask, never a
                // wider permission.
                Err(err) => tracing::error!(%err, "session record not saved after a call"),
            }
        }
        let handle = record
            .as_ref()
            .and_then(RecordOf::handle)
            .filter(|_| stored);
        let questions = self
            .approver
            .as_ref()
            .map(|approver| approver.take_questions())
            .unwrap_or_default();
        if !questions.is_empty() {
            // The call was not run: it waits for the client's answers,
            // which come with its retry.
            let mut asking =
                InputRequiredResult::new(Some(questions), Some(String::from("approval")));
            if let Some(handle) = handle {
                asking = asking.with_meta(conversation_meta(handle));
            }
            return Ok(asking.into());
        }
        let mut result = result;
        if let Some(handle) = handle {
            result.meta = Some(conversation_meta(handle));
        }
        Ok(result.into())
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        let owner = tasks::Owner::of(&context);
        self.server.shared.tasks.get(&request.task_id, &owner)
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = tasks::Owner::of(&context);
        let answers = request.input_responses;
        self.server
            .shared
            .tasks
            .update(&request.task_id, &owner, answers)
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = tasks::Owner::of(&context);
        self.server.shared.tasks.cancel(&request.task_id, &owner)
    }
}
