//! The per-call context a runtime hands to every tool: typed extensions
//! (a sandbox root, a session, a client) looked up by type, and, when the
//! call runs under the [`Executor`](crate::execute::Executor), the call's own scope:
//! its id, a cancellation token, a progress channel, the session state as
//! it was when the call's batch started, and a queue for session-state
//! modifiers.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering, fence};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use tokio_util::sync::CancellationToken;

use crate::declare::state::{ContextModifier, SessionState};

type Extensions = HashMap<TypeId, Arc<dyn Any + Send + Sync>>;

/// What a runtime gives each call besides its input.
///
/// Runtimes put their own state in by type; tools take it out by type.
/// The map is only ever looked up, never iterated, so its order cannot leak
/// into anything rendered. It is shared copy-on-write, so the executor's
/// per-call clone costs a reference count, not a map.
///
/// ```
/// use registry_core::ToolContext;
///
/// struct Workspace(&'static str);
/// let cx = ToolContext::new().with(Workspace("/tmp/sandbox"));
/// assert_eq!(cx.get::<Workspace>().map(|w| w.0), Some("/tmp/sandbox"));
/// // Outside the executor there is no call scope: never cancelled, and
/// // progress and modifiers go nowhere.
/// assert!(!cx.is_cancelled());
/// assert!(cx.call_id().is_none());
/// ```
#[derive(Clone, Default)]
pub struct ToolContext {
    extensions: Arc<Extensions>,
    call: Option<Arc<CallScope>>,
}

/// The directory relative paths are resolved against (see
/// [`ToolContext::with_working_dir`]).
struct WorkingDir(std::path::PathBuf);

/// Takes a call's progress message to whoever streams the turn.
pub(crate) type ProgressSink = Box<dyn Fn(String) + Send + Sync>;

/// What the executor attaches to one call's context.
pub(crate) struct CallScope {
    pub(crate) index: usize,
    /// The call's id, moved here from the turn's slot while the call runs
    /// and handed back when it ends (see `CallScope::into_id`).
    pub(crate) id: String,
    pub(crate) cancel: CallCancel,
    /// Where [`ToolContext::progress`] reports go: set by the executor
    /// when the turn is streamed, `None` when nobody listens.
    pub(crate) progress: Option<ProgressSink>,
    pub(crate) state: Arc<SessionState>,
    pub(crate) modifiers: Mutex<Vec<ContextModifier>>,
    /// The call's rules, for tools that enforce them while they run: set
    /// by the executor once the pipeline allowed the call. Held erased:
    /// the permission stage comes after this one (it reads them back with
    /// `CallRules::of`).
    pub(crate) rules: OnceLock<Box<dyn std::any::Any + Send + Sync>>,
    /// 0 for a call of the model's turn, 1 for a call a program made.
    pub(crate) depth: u8,
    /// Whether a program made the call: one of ours (`depth` 1) or a
    /// provider's (the call names its program).
    pub(crate) by_program: bool,
    /// Where the turn's events go, when it is streamed: the executor's
    /// sink, erased (this stage comes before the executor's), for the
    /// events of the calls a program in this call makes.
    pub(crate) events: Option<Box<dyn std::any::Any + Send + Sync>>,
    /// Held while a program in this call has calls in flight: its turns
    /// run one after another, never interleaved.
    pub(crate) program: tokio::sync::Mutex<()>,
    /// Set when a hook ended a turn of this call's program: the program
    /// makes no more calls, and the outer turn ends too.
    pub(crate) ended: OnceLock<String>,
}

/// A call's cancellation: its own token, made only when the tool asks
/// for it (most never do, and making and dropping a token takes the token
/// tree's lock four times). In a concurrent batch of several calls it is
/// a child of the batch's token, which a failing sibling cancels; a call
/// that runs alone has no parent at all.
///
/// A call is cancelled when it ends ([`cancel`](Self::cancel)), however
/// it ends (success, error, timeout, a cancelling sibling, a dropped
/// turn: every call's future lives inside the turn's, and its guard ends
/// it when dropped); a token made after that is made cancelled, so work a
/// tool spawned with it never outlives the call.
pub(crate) struct CallCancel {
    /// The batch's token, for a call of a concurrent batch. Shared, not
    /// cloned: a token clone (and its drop) takes the token tree's lock,
    /// an `Arc` clone is one atomic add.
    parent: Option<Arc<CancellationToken>>,
    own: OnceLock<CancellationToken>,
    ended: AtomicBool,
}

impl CallCancel {
    /// Whether the call runs in a concurrent batch of several (its
    /// siblings run beside it).
    pub(crate) fn in_concurrent_batch(&self) -> bool {
        self.parent.is_some()
    }

    pub(crate) fn new(parent: Option<Arc<CancellationToken>>) -> Self {
        CallCancel {
            parent,
            own: OnceLock::new(),
            ended: AtomicBool::new(false),
        }
    }

    /// The call's own token, made on first use.
    pub(crate) fn token(&self) -> &CancellationToken {
        let token = self.own.get_or_init(|| match &self.parent {
            Some(parent) => parent.child_token(),
            None => CancellationToken::new(),
        });
        // Pairs with the fence in `cancel`: either this load sees `ended`,
        // or `cancel` sees the token and cancels it. Without the fences a
        // token made while the call ends could miss both.
        fence(Ordering::SeqCst);
        if self.ended.load(Ordering::Relaxed) {
            token.cancel();
        }
        token
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.ended.load(Ordering::Relaxed)
            || match self.own.get() {
                Some(token) => token.is_cancelled(),
                None => self.parent.as_deref().is_some_and(|p| p.is_cancelled()),
            }
    }

    /// Ends the call: cancels its token, now or when it is made.
    pub(crate) fn cancel(&self) {
        self.ended.store(true, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        if let Some(token) = self.own.get() {
            token.cancel();
        }
    }
}

impl CallScope {
    /// The call's id back from a scope that ended: moved out when nothing
    /// else holds the scope (the usual case), copied when a tool kept a
    /// clone of its context.
    pub(crate) fn into_id(scope: Arc<CallScope>) -> String {
        match Arc::try_unwrap(scope) {
            Ok(scope) => scope.id,
            Err(shared) => shared.id.clone(),
        }
    }

    /// The modifiers the call queued, in the order it queued them.
    pub(crate) fn take_modifiers(&self) -> Vec<ContextModifier> {
        std::mem::take(
            &mut *self
                .modifiers
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }
}

impl ToolContext {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the value of type `T`.
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// Adds (or replaces) the value of type `T`.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(&mut self.extensions).insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if the runtime provided one.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.extensions
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref::<T>())
    }

    /// Sets the working directory: the one directory every relative path
    /// of a call is resolved against, by the tools themselves, by the
    /// [permission pipeline](crate::permission::PermissionPolicy) (path rules and the
    /// `accept_edits` workspace check) and by the executor's access keys,
    /// so a relative path can never be judged against one directory and
    /// opened in another. See [`path`](crate::path).
    ///
    /// ```
    /// use registry_core::ToolContext;
    ///
    /// let cx = ToolContext::new().with_working_dir("/work/project");
    /// assert_eq!(cx.working_dir(), Some(std::path::Path::new("/work/project")));
    /// ```
    pub fn with_working_dir(self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.with(WorkingDir(dir.into()))
    }

    /// The working directory, when the runtime set one.
    pub fn working_dir(&self) -> Option<&std::path::Path> {
        self.get::<WorkingDir>().map(|dir| dir.0.as_path())
    }

    /// This context with a call scope attached (the executor's per-call
    /// context); the extensions are shared, not copied.
    pub(crate) fn for_call(&self, scope: Arc<CallScope>) -> Self {
        ToolContext {
            extensions: Arc::clone(&self.extensions),
            call: Some(scope),
        }
    }

    /// What the executor attached to this call for the permission stage
    /// (its rules), erased.
    pub(crate) fn call_rules_erased(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.call
            .as_deref()
            .and_then(|scope| scope.rules.get())
            .map(|rules| &**rules)
    }

    /// The executor's scope of this call, when it runs under one.
    pub(crate) fn scope(&self) -> Option<&Arc<CallScope>> {
        self.call.as_ref()
    }

    /// Whether the call was made by a program (code mode, see
    /// [`Executor::run_nested`](crate::Executor::run_nested)) rather than
    /// by the model.
    pub fn made_by_program(&self) -> bool {
        self.call.as_deref().is_some_and(|scope| scope.by_program)
    }

    /// The id of the call, when it runs under the executor.
    pub fn call_id(&self) -> Option<&str> {
        self.call.as_deref().map(|scope| &*scope.id)
    }

    /// Whether the call has been cancelled (it timed out, a failing
    /// sibling cancelled its batch, or the turn was dropped). Long-running
    /// tools should check it, or race [`cancelled`](Self::cancelled),
    /// between steps.
    pub fn is_cancelled(&self) -> bool {
        self.call
            .as_deref()
            .is_some_and(|scope| scope.cancel.is_cancelled())
    }

    /// Completes when the call is cancelled; never, outside the executor.
    pub async fn cancelled(&self) {
        match self.call.as_deref() {
            Some(scope) => scope.cancel.token().cancelled().await,
            None => std::future::pending().await,
        }
    }

    /// The call's cancellation token, for handing to work the tool spawns
    /// (which the executor cannot drop for it). The token is the call's
    /// own: it is cancelled as soon as the call ends, however it ends
    /// (success, error, timeout, a cancelling sibling, a dropped turn), so
    /// spawned work must not expect to outlive the call.
    pub fn cancellation_token(&self) -> Option<&CancellationToken> {
        self.call.as_deref().map(|scope| scope.cancel.token())
    }

    /// Reports progress to whoever streams the turn's events; a no-op when
    /// nobody does.
    pub fn progress(&self, message: impl Into<String>) {
        let Some(scope) = self.call.as_deref() else {
            return;
        };
        if let Some(progress) = &scope.progress {
            progress(message.into());
        }
    }

    /// The session state as it was when this call's batch started: a call
    /// never sees the modifiers of its concurrent siblings. `None` outside
    /// the executor.
    pub fn session_state(&self) -> Option<&SessionState> {
        self.call.as_deref().map(|scope| &*scope.state)
    }

    /// Queues a change of session state, applied by the executor after
    /// the call (after its whole batch, for a concurrent batch), in call
    /// order. Only a call that succeeds has its modifiers applied; outside
    /// the executor the modifier is dropped, and `false` says so.
    pub fn modify_session(&self, modifier: ContextModifier) -> bool {
        match self.call.as_deref() {
            Some(scope) => {
                scope
                    .modifiers
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(modifier);
                true
            }
            None => false,
        }
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("extensions", &self.extensions.len())
            .field("call_id", &self.call_id())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_token_follows_its_batch_and_ends_with_the_call() {
        // Asked for before the end: cancelled by the end.
        let batch = Arc::new(CancellationToken::new());
        let cancel = CallCancel::new(Some(Arc::clone(&batch)));
        let token = cancel.token().clone();
        assert!(!cancel.is_cancelled() && !token.is_cancelled());
        cancel.cancel();
        assert!(cancel.is_cancelled() && token.is_cancelled());
        assert!(
            !batch.is_cancelled(),
            "ending a call leaves its batch alone"
        );

        // Asked for only after the end: made cancelled.
        let cancel = CallCancel::new(Some(Arc::clone(&batch)));
        cancel.cancel();
        assert!(cancel.token().is_cancelled());

        // A cancelled batch reaches the call, with or without its token.
        let cancel = CallCancel::new(Some(Arc::clone(&batch)));
        let asked = CallCancel::new(Some(Arc::clone(&batch)));
        let token = asked.token().clone();
        batch.cancel();
        assert!(cancel.is_cancelled() && asked.is_cancelled() && token.is_cancelled());
    }

    #[test]
    fn a_call_without_a_batch_ends_alone() {
        let cancel = CallCancel::new(None);
        let token = cancel.token().clone();
        assert!(!cancel.is_cancelled() && !token.is_cancelled());
        cancel.cancel();
        assert!(cancel.is_cancelled() && token.is_cancelled());
    }

    #[test]
    fn a_token_made_while_the_call_ends_is_cancelled() {
        for _ in 0..500 {
            let cancel = Arc::new(CallCancel::new(None));
            let asker = {
                let cancel = Arc::clone(&cancel);
                std::thread::spawn(move || cancel.token().clone())
            };
            cancel.cancel();
            let token = asker.join().expect("the asking thread");
            assert!(token.is_cancelled());
        }
    }
}
