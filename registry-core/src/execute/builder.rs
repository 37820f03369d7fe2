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
use super::plan::{AccessRule, ConflictRule};
use super::runner::Executor;
use crate::declare::ToolContext;
use crate::permission::{
    Approver, PermissionContext, PermissionMode, PermissionPipeline, SafetyClassifier,
};
#[cfg(feature = "mcp")]
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
/// planned by their declared accesses ([`AccessRule`]).
///
/// ```
/// use registry_core::catalog::try_all_base_tools;
/// use registry_core::{Flags, PermissionMode, ToolBuilder, ToolCall, ToolOutput, ToolRegistry};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let registry = ToolRegistry::new(try_all_base_tools(&Flags::new()).unwrap());
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
    parts: Parts,
}

/// Everything an executor holds but its pool index.
pub(super) struct Parts {
    pub(super) registry: ToolRegistry,
    pub(super) permissions: PermissionContext,
    pub(super) pipeline: PermissionPipeline,
    pub(super) session: Arc<Session>,
    pub(super) config: ExecutorConfig,
    pub(super) context: ToolContext,
    pub(super) rule: Arc<dyn ConflictRule>,
    pub(super) access_root: Option<PathBuf>,
}

impl std::fmt::Debug for ExecutorBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecutorBuilder")
            .field("pipeline", &self.parts.pipeline)
            .field("config", &self.parts.config)
            .finish_non_exhaustive()
    }
}

impl ToolRegistry {
    /// Starts an [`Executor`] over this registry, with every default
    /// fail-closed (see [`ExecutorBuilder`]):
    /// `registry.executor().mode(PermissionMode::Default).build()`.
    pub fn executor(&self) -> ExecutorBuilder {
        ExecutorBuilder {
            parts: Parts {
                registry: self.clone(),
                permissions: PermissionContext::new(),
                pipeline: PermissionPipeline::new(PermissionMode::Default),
                session: Arc::new(Session::new()),
                config: ExecutorConfig::default(),
                context: ToolContext::new(),
                rule: Arc::new(AccessRule),
                access_root: None,
            },
        }
    }
}

impl ExecutorBuilder {
    /// The permission mode for calls the tool and the rules delegate
    /// (default: [`PermissionMode::Default`]).
    pub fn mode(mut self, mode: PermissionMode) -> Self {
        self.parts.pipeline = self.parts.pipeline.with_mode(mode);
        self
    }

    /// The permission rules: the pool is assembled under them, and they
    /// decide each call (default: none). Change them later with
    /// [`Executor::set_permissions`].
    pub fn permissions(mut self, permissions: PermissionContext) -> Self {
        self.parts.permissions = permissions;
        self
    }

    /// Who answers when a call needs approval (default: nobody, so the
    /// call is denied with a reason saying approval was needed).
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.parts.pipeline = self.parts.pipeline.with_approver(approver);
        self
    }

    /// The safety classifier the `auto` mode consults (default: none, so
    /// `auto` asks instead).
    pub fn classifier(mut self, classifier: Arc<dyn SafetyClassifier>) -> Self {
        self.parts.pipeline = self.parts.pipeline.with_classifier(classifier);
        self
    }

    /// The workspace `accept_edits` accepts edits inside (see
    /// [`PermissionPipeline::with_workspace`]).
    pub fn workspace(mut self, root: impl AsRef<std::path::Path>) -> Self {
        self.parts.pipeline = self.parts.pipeline.with_workspace(root);
        self
    }

    /// Replaces the whole permission pipeline, mode, approver, classifier
    /// and workspace included: for sharing one pipeline (and the "always"
    /// answers it has collected) between the executors of a conversation's
    /// turns. A later [`mode`](Self::mode), [`approver`](Self::approver),
    /// [`classifier`](Self::classifier) or [`workspace`](Self::workspace)
    /// changes this pipeline's copy of that setting; the grants stay
    /// shared.
    pub fn pipeline(mut self, pipeline: PermissionPipeline) -> Self {
        self.parts.pipeline = pipeline;
        self
    }

    /// The session the executor's turns belong to (default: a fresh one):
    /// give the executors of one conversation the same session.
    pub fn session(mut self, session: Arc<Session>) -> Self {
        self.parts.session = session;
        self
    }

    /// Caps, timeouts and concurrency (default: [`ExecutorConfig::default`]).
    pub fn config(mut self, config: ExecutorConfig) -> Self {
        self.parts.config = config;
        self
    }

    /// The context every call's [`ToolContext`] starts from: the runtime's
    /// typed extensions and working directory (default: empty).
    pub fn context(mut self, context: ToolContext) -> Self {
        self.parts.context = context;
        self
    }

    /// The rule that decides which calls share a batch (default:
    /// [`AccessRule`]).
    pub fn conflict_rule(mut self, rule: Arc<dyn ConflictRule>) -> Self {
        self.parts.rule = rule;
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
        self.parts.access_root = Some(root.into());
        self
    }

    /// Assembles the pool under the permission context (built-ins sorted,
    /// then plugins sorted, as registered now) and makes the executor. A
    /// plugin registered later is not in this executor's pool; build
    /// another (cheap: one index of names) for the next turn.
    pub fn build(self) -> Executor {
        let pool = self
            .parts
            .registry
            .assemble_tool_pool(&self.parts.permissions);
        Executor::from_parts(self.parts, &pool)
    }

    /// The executor for a pool the caller assembled under this builder's
    /// permission context (an MCP server's cached view).
    #[cfg(feature = "mcp")]
    pub(crate) fn build_for(self, pool: &ToolPool) -> Executor {
        Executor::from_parts(self.parts, pool)
    }

    /// What an MCP server keeps of the builder: it assembles a pool per
    /// request and a session per connection itself.
    #[cfg(feature = "mcp")]
    pub(crate) fn into_server_parts(
        self,
    ) -> (
        ToolRegistry,
        PermissionContext,
        PermissionPipeline,
        ExecutorConfig,
        ToolContext,
    ) {
        let Parts {
            registry,
            permissions,
            pipeline,
            config,
            context,
            ..
        } = self.parts;
        (registry, permissions, pipeline, config, context)
    }
}
