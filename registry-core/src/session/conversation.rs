//! What lasts across the turns of one conversation: which tools are
//! deferred and which of those were discovered (in discovery order), the
//! session state modifiers change, the allow-always grants a person gave,
//! and metrics. The conversation's record (for a store shared by server
//! replicas) is the session's to write and restore.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::SystemTime;

use super::deferral::{Deferral, DeferralPolicy};
use super::metrics::{Metrics, ToolMetrics};
use super::store::SessionRecord;
use super::{ContextModifier, SessionState};
use crate::declare::Exposures;
use crate::declare::context::ToolContext;
use crate::declare::posture::Loading;
use crate::input::handle::ToolHandle;
use crate::permission::exposure::Acquired;
use crate::permission::{ExposedBy, Grants};
use crate::pool::ToolPool;
use crate::render::ProviderFormat;

/// One conversation's state. Share it (`Arc`) between the executors of its
/// turns.
#[derive(Debug, Default)]
pub struct Session {
    discovered: RwLock<Discovered>,
    /// The policy's decision, once made; until then the declarations
    /// decide (`defer` tools are deferred).
    deferral: RwLock<Option<Arc<Deferral>>>,
    state: Mutex<Arc<SessionState>>,
    /// What a person approved "always" in this conversation; the
    /// permission policy reads and adds to it.
    grants: Grants,
    /// The Rule of Two properties the conversation's calls brought.
    pub(crate) acquired: Arc<Acquired>,
    /// The durable turn suspended and waiting for a person, by id: the
    /// one turn that may be resumed.
    pending_turn: Mutex<PendingTurn>,
    metrics: Metrics,
    /// Held for a whole turn: a session's turns never overlap, whichever
    /// executor runs them, so an unsafe call of one turn cannot run beside
    /// a call of another and modifiers apply in turn order.
    pub(crate) turn: tokio::sync::Mutex<()>,
}

/// The durable turn a session waits for, and the ones resumed here.
#[derive(Debug, Default)]
struct PendingTurn {
    waiting: Option<String>,
    claimed: Vec<String>,
}

/// The executor's session, in every call's context: how a built-in that
/// records into the conversation (`tool_search`'s discoveries) finds the
/// one session the executor runs, never a second one passed beside it.
/// Crate-private, so no runtime can put another in its place.
pub(crate) struct CallSession(pub(crate) Arc<Session>);

/// Discovered tools: a set to ask, and the order they came in, so renders
/// can append them after the stable prefix.
#[derive(Debug, Default)]
struct Discovered {
    set: BTreeSet<String>,
    order: Vec<String>,
}

impl Session {
    /// A fresh session: nothing discovered, empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// The session a call runs in, from its context: the executor's own
    /// (`None` outside an executor). What a tool keeps per conversation
    /// (code mode's replay journal) is bound to it.
    pub fn of(cx: &ToolContext) -> Option<&Arc<Session>> {
        cx.get::<CallSession>().map(|session| &session.0)
    }

    /// This conversation's allow-always grants
    /// ([`Grants::rules`] lists them as rules a runtime may persist).
    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// The conversation as a store keeps it, at `now`: discoveries in
    /// order, state, the grants still live (lapsed ones are left out) and
    /// the calls that brought Rule of Two properties.
    pub fn record(&self, now: SystemTime) -> SessionRecord {
        SessionRecord {
            format: SessionRecord::FORMAT,
            discovered: self.discovered(),
            state: (*self.state()).clone(),
            grants: self.grants.records(now),
            exposed_by: self.acquired.calls(),
            pending_turn: self.pending_turn(),
        }
    }

    /// Puts a stored record back: discoveries are added (in order), the
    /// state replaced, the grants still live at `now` restored (a grant
    /// already held keeps the later of its two lapse times), and the Rule
    /// of Two properties added (nothing acquired is ever forgotten).
    pub fn restore(&self, record: SessionRecord, now: SystemTime) {
        for name in record.discovered {
            self.discover(name);
        }
        self.replace_state(record.state);
        self.grants.restore(record.grants, now);
        self.acquired.restore(record.exposed_by);
        self.set_pending_turn(record.pending_turn);
    }

    /// The id of the durable turn that waits for a person, if one does
    /// (see [`Executor::resume`](crate::execute::Executor::resume)).
    pub fn pending_turn(&self) -> Option<String> {
        self.pending_turn
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .waiting
            .clone()
    }

    pub(crate) fn set_pending_turn(&self, turn: Option<String>) {
        let mut pending = self
            .pending_turn
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        pending.waiting = turn.filter(|id| !pending.claimed.contains(id));
    }

    /// Marks `turn` resumed: no longer waiting, and never again from a
    /// restored record (the last few claims are remembered).
    pub(crate) fn claim_pending_turn(&self, turn: &str) {
        let mut pending = self
            .pending_turn
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        pending.waiting = None;
        if pending.claimed.len() == 16 {
            pending.claimed.remove(0);
        }
        pending.claimed.push(turn.to_owned());
    }

    /// The Rule of Two properties this conversation has acquired from
    /// calls that ran (see [`RuleOfTwo`](crate::permission::RuleOfTwo)).
    pub fn exposures(&self) -> Exposures {
        self.acquired.exposures()
    }

    /// The calls that brought them (the first few for each property), in
    /// the order they ran.
    pub fn exposed_by(&self) -> Vec<ExposedBy> {
        self.acquired.calls()
    }

    /// Marks a deferred tool (by primary name) as discovered, so calls to
    /// it run. `tool_search` calls it for what it returns; runtimes that
    /// load a tool's schema some other way call it too.
    pub fn discover(&self, name: impl Into<String>) {
        let name = name.into();
        let mut discovered = self
            .discovered
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if discovered.set.insert(name.clone()) {
            discovered.order.push(name);
        }
    }

    /// Whether `name` was discovered.
    pub fn is_discovered(&self, name: &str) -> bool {
        self.discovered
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .set
            .contains(name)
    }

    /// Every discovered name, in the order of discovery.
    pub fn discovered(&self) -> Vec<String> {
        self.discovered
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .order
            .clone()
    }

    /// Decides which of `pool`'s tools this session defers, by `policy`,
    /// measuring in `format`, and keeps the decision (replacing any
    /// earlier one; discoveries stay). Decide again when the pool changes.
    /// ([`ExecutorBuilder::tool_search`](crate::execute::ExecutorBuilder::tool_search)
    /// decides for the executor's pool.)
    pub fn decide_deferral(&self, pool: &ToolPool, policy: DeferralPolicy, format: ProviderFormat) {
        let deferral = Arc::new(Deferral::decide(pool, policy, format));
        *self
            .deferral
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(deferral);
    }

    /// The session's deferral decision: the one
    /// [`decide_deferral`](Self::decide_deferral) made, or `None`, when
    /// declarations decide.
    pub(crate) fn deferral(&self) -> Option<Arc<Deferral>> {
        self.deferral
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether `tool` is deferred in this session: by the decision, once
    /// made; before that, by its declaration (`defer`).
    pub fn is_deferred(&self, tool: &ToolHandle) -> bool {
        match &*self.deferral.read().unwrap_or_else(PoisonError::into_inner) {
            Some(deferral) => deferral.is_deferred(tool.name()),
            None => *tool.spec().loading().value() == Loading::Deferred,
        }
    }

    /// Whether a call to `tool` must wait for discovery: deferred here and
    /// not discovered yet.
    pub fn needs_discovery(&self, tool: &ToolHandle) -> bool {
        self.is_deferred(tool) && !self.is_discovered(tool.name())
    }

    /// The current session state (a snapshot; later modifiers do not
    /// change it).
    pub fn state(&self) -> Arc<SessionState> {
        Arc::clone(&self.state.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Replaces the session state (a restored session's, from its
    /// [`SessionRecord`]).
    pub fn replace_state(&self, state: SessionState) {
        *self.state.lock().unwrap_or_else(PoisonError::into_inner) = Arc::new(state);
    }

    /// Applies modifiers in the order given, under the state's lock: a
    /// modifier must not call back into its session.
    pub(crate) fn apply(&self, modifiers: impl IntoIterator<Item = ContextModifier>) {
        let mut modifiers = modifiers.into_iter().peekable();
        if modifiers.peek().is_none() {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let state = Arc::make_mut(&mut state);
        for modifier in modifiers {
            let label = modifier.label().to_owned();
            tracing::debug!(modifier = %label, "applying a context modifier");
            // Author code: a panic is logged and skips that modifier only
            // (whatever it changed before panicking stays changed).
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| modifier.apply(state))) {
                tracing::error!(
                    modifier = %label,
                    message = %crate::text::panic_message(payload.as_ref()),
                    "a context modifier panicked; skipped"
                );
            }
        }
    }

    /// Per-tool counters, by primary name. A turn adds its counters when
    /// it ends; a turn whose future was dropped adds nothing.
    pub fn metrics(&self) -> BTreeMap<String, ToolMetrics> {
        self.metrics.snapshot()
    }

    pub(crate) fn record_metrics<'a>(
        &self,
        turn: impl IntoIterator<Item = (&'a str, &'a ToolMetrics)>,
    ) {
        self.metrics.merge(turn);
    }
}
