//! The one way to make an [`Executor`]: from a registry, every setting
//! optional, every default the fail-closed one.
//!
//! The permission context is given once: the pool is assembled from it
//! (whole-tool deny rules, the pool-filtering mode) and the same context
//! decides each call. [`McpServer`](crate::mcp::McpServer) takes the same
//! builder.

use std::path::PathBuf;
use std::sync::Arc;

use super::config::ExecutorConfig;
use super::executor::Executor;
use super::hooks::{CallHook, Hooks};
use super::plan::{AccessRule, ConflictRule};
use super::runner::Runner;
use crate::declare::ToolContext;
use crate::permission::{
    Approval, ApprovalRequest, Approver, PermissionContext, PermissionMode, PermissionPolicy,
    SafetyClassifier, approve_with,
};
use crate::pool::ToolPool;
use crate::pool::ToolRegistry;
use crate::session::Session;

/// Configures an [`Executor`] over a registry; made by
/// [`ToolRegistry::executor`].
///
/// Unsaid means strict: no permission rules, [`PermissionMode::Default`]
/// (reads run; anything else asks), no approver (so an ask is a denial
/// that says approval was needed), no safety classifier, a fresh
/// [`Session`], [`ExecutorConfig::default`] (output caps, at most 10
/// concurrent calls, no timeout), an empty [`ToolContext`], and calls
/// planned by their declared accesses (`AccessRule`).
///
/// ```
/// use registry_core::catalog::BaseTools;
/// use registry_core::{Flags, PermissionMode, ToolBuilder, ToolCall, ToolOutput, ToolRegistry};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).unwrap());
/// let echo = ToolBuilder::new("echo", "Repeat `text`.")
///     .read_only(true)
///     .build(|args, _| async move { Ok(ToolOutput::text(args["text"].to_string())) })
///     .unwrap();
/// let _guard = registry.plugins().register("demo", echo).unwrap();
///
/// let executor = registry.executor().mode(PermissionMode::Default).build();
/// let results = executor
///     .run_turn(vec![ToolCall::new("1", "echo", serde_json::json!({ "text": "hi" }))])
///     .await;
/// assert_eq!(results[0].content(), r#""hi""#);
/// # }
/// ```
#[must_use = "an executor builder does nothing until `build`"]
pub struct ExecutorBuilder {
    template: ExecutorTemplate,
    session: Arc<Session>,
    /// What a later stage attaches to `build` (see [`BuildHook`]).
    hooks: Vec<BuildHook>,
}

/// Work a later stage attaches to [`ExecutorBuilder::build`]: given the
/// registry, the pool just assembled and the session, it may extend the
/// context every call starts from (tool search puts its scope there and
/// decides the session's deferral for the pool).
pub(crate) type BuildHook =
    Box<dyn FnOnce(&ToolRegistry, &ToolPool, &Session, ToolContext) -> ToolContext + Send>;

/// Everything an executor holds but its session and its pool index: what
/// many conversations share. An MCP server keeps one and makes each
/// connection's executor from it and that connection's session.
#[derive(Clone)]
pub(crate) struct ExecutorTemplate {
    pub(super) registry: ToolRegistry,
    pub(super) permissions: PermissionContext,
    pub(super) policy: PermissionPolicy,
    pub(super) config: ExecutorConfig,
    pub(super) context: ToolContext,
    pub(super) rule: Arc<dyn ConflictRule>,
    pub(super) access_root: Option<PathBuf>,
    pub(super) call_hooks: Hooks,
}

impl std::fmt::Debug for ExecutorBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecutorBuilder")
            .field("policy", &self.template.policy)
            .field("config", &self.template.config)
            .finish_non_exhaustive()
    }
}

impl ToolRegistry {
    /// Starts an [`Executor`] over this registry, with every default
    /// fail-closed (see [`ExecutorBuilder`]):
    /// `registry.executor().mode(PermissionMode::Default).build()`.
    pub fn executor(&self) -> ExecutorBuilder {
        ExecutorBuilder {
            template: ExecutorTemplate {
                registry: self.clone(),
                permissions: PermissionContext::new(),
                policy: PermissionPolicy::new(PermissionMode::Default),
                config: ExecutorConfig::default(),
                context: ToolContext::new(),
                rule: Arc::new(AccessRule),
                access_root: None,
                call_hooks: Hooks::default(),
            },
            session: Arc::new(Session::new()),
            hooks: Vec::new(),
        }
    }
}

impl ExecutorBuilder {
    /// The permission mode for calls the tool and the rules delegate
    /// (default: [`PermissionMode::Default`]).
    pub fn mode(mut self, mode: PermissionMode) -> Self {
        self.template.policy = self.template.policy.with_mode(mode);
        self
    }

    /// The permission rules: the pool is assembled under them, and they
    /// decide each call (default: none). Change them later with
    /// [`Executor::set_permissions`].
    pub fn permissions(mut self, permissions: PermissionContext) -> Self {
        self.template.permissions = permissions;
        self
    }

    /// Who answers when a call needs approval (default: nobody, so the
    /// call is denied with a reason saying approval was needed).
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.template.policy = self.template.policy.with_approver(approver);
        self
    }

    /// Who answers when a call needs approval, as an async closure over
    /// the request (see [`approve_with`](crate::permission::approve_with)):
    ///
    /// ```
    /// # let registry = registry_core::ToolRegistry::linked(&Default::default()).unwrap();
    /// use registry_core::permission::Approval;
    /// let executor = registry
    ///     .executor()
    ///     .approve_with(|request| async move {
    ///         println!("{} wants to run: {}", request.tool, request.reason);
    ///         Approval::AllowOnce // ask a person here
    ///     })
    ///     .build();
    /// ```
    pub fn approve_with<F, Fut>(self, judge: F) -> Self
    where
        F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Approval> + Send + 'static,
    {
        self.approver(approve_with(judge))
    }

    /// The safety classifier the `auto` mode consults (default: none, so
    /// `auto` asks instead).
    pub fn classifier(mut self, classifier: Arc<dyn SafetyClassifier>) -> Self {
        self.template.policy = self.template.policy.with_classifier(classifier);
        self
    }

    /// The workspace `accept_edits` accepts edits inside (see
    /// [`PermissionPolicy::with_workspace`]).
    pub fn workspace(mut self, root: impl AsRef<std::path::Path>) -> Self {
        self.template.policy = self.template.policy.with_workspace(root);
        self
    }

    /// How the Rule of Two applies (see
    /// [`RuleOfTwo`](crate::permission::RuleOfTwo): always on; this only
    /// names the tools that may complete it unattended in `bypass` mode).
    pub fn rule_of_two(mut self, rule: crate::permission::RuleOfTwo) -> Self {
        self.template.policy = self.template.policy.with_rule_of_two(rule);
        self
    }

    /// Replaces the whole permission policy, mode, approver, classifier,
    /// workspace and grant lifetime included (one policy may serve many
    /// conversations). A later [`mode`](Self::mode),
    /// [`approver`](Self::approver), [`classifier`](Self::classifier) or
    /// [`workspace`](Self::workspace) changes this builder's copy of that
    /// setting.
    pub fn policy(mut self, policy: PermissionPolicy) -> Self {
        self.template.policy = policy;
        self
    }

    /// The conversation the executor's turns belong to (default: a fresh
    /// one): its discoveries, state and allow-always grants. Give the
    /// executors of one conversation the same session; a grant a person
    /// gave in one turn then answers in the next.
    pub fn session(mut self, session: Arc<Session>) -> Self {
        self.session = session;
        self
    }

    /// Caps, timeouts and concurrency (default: [`ExecutorConfig::default`]).
    pub fn config(mut self, config: ExecutorConfig) -> Self {
        self.template.config = config;
        self
    }

    /// The context every call's [`ToolContext`] starts from: the runtime's
    /// typed extensions and working directory (default: empty).
    pub fn context(mut self, context: ToolContext) -> Self {
        self.template.context = context;
        self
    }

    /// The directory relative paths in declared accesses are anchored at
    /// before calls are compared: the root your tools resolve their own
    /// relative paths against (a sandbox or workspace root); a relative
    /// root is taken from the process's working directory.
    ///
    /// Unset, the [working directory](ToolContext::with_working_dir) of
    /// the context is used; with neither, the executor cannot know what a
    /// relative path names, so a call that declares one conflicts with
    /// every call touching any path (absolute paths still compare). Set it
    /// wrong and two names of one file can look disjoint: give the root
    /// the tools themselves use.
    pub fn access_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.template.access_root = Some(root.into());
        self
    }

    /// Assembles the pool under the permission context (built-ins sorted,
    /// then plugins sorted, as registered now) and makes the executor: the
    /// pool it offers ([`Executor::pool`]) is the pool it resolves calls
    /// against. A plugin registered later is in neither; build another
    /// executor (cheap: one index of names) for the next turn.
    pub fn build(self) -> Executor {
        let ExecutorBuilder {
            mut template,
            session,
            hooks,
        } = self;
        let pool = template.registry.assemble_tool_pool(&template.permissions);
        for hook in hooks {
            template.context = hook(&template.registry, &pool, &session, template.context);
        }
        Executor::new(Runner::new(template, session, Arc::new(pool)))
    }

    /// Adds a hook around every call (see [`CallHook`] for where hooks
    /// sit in a call and how they fail closed); hooks run in the order
    /// they were added, for the model's calls, a program's and an MCP
    /// client's alike.
    pub fn hook(mut self, hook: impl CallHook) -> Self {
        self.template.call_hooks.push(Arc::new(hook));
        self
    }

    /// How long each hook may take before it counts as failed (default
    /// 10 s): before a call, the call is then denied; after it, its result
    /// is withheld.
    pub fn hook_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.template.call_hooks.set_timeout(timeout);
        self
    }

    /// Attaches work to [`build`](Self::build) (see [`BuildHook`]).
    pub(crate) fn on_build(mut self, hook: BuildHook) -> Self {
        self.hooks.push(hook);
        self
    }

    /// The builder without its session: what an MCP server keeps, to make
    /// each connection's executor with that connection's session.
    #[cfg(feature = "mcp")]
    pub(crate) fn into_template(self) -> ExecutorTemplate {
        if !self.hooks.is_empty() {
            // A server sets these up per connection (`with_deferral`).
            tracing::warn!(
                "an MCP server ignores the builder's tool_search; use McpServer::with_deferral"
            );
        }
        self.template
    }
}

#[cfg(feature = "mcp")]
impl ExecutorTemplate {
    /// The registry the executors run over.
    pub(crate) fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// The permission context the template was given.
    pub(crate) fn permissions(&self) -> &PermissionContext {
        &self.permissions
    }

    /// The context every call starts from.
    pub(crate) fn context(&self) -> &ToolContext {
        &self.context
    }

    /// One conversation's executor for `pool` (assembled by the caller
    /// under `permissions`), with `context` as every call's starting
    /// context and, when given, `approver` answering its asks.
    pub(crate) fn executor(
        &self,
        session: Arc<Session>,
        pool: Arc<ToolPool>,
        permissions: PermissionContext,
        context: ToolContext,
        approver: Option<Arc<dyn Approver>>,
    ) -> Executor {
        let mut template = ExecutorTemplate {
            registry: self.registry.clone(),
            permissions,
            policy: self.policy.clone(),
            config: self.config.clone(),
            context,
            rule: Arc::clone(&self.rule),
            access_root: self.access_root.clone(),
            call_hooks: self.call_hooks.clone(),
        };
        if let Some(approver) = approver {
            template.policy = template.policy.with_approver(approver);
        }
        Executor::new(Runner::new(template, session, pool))
    }
}
