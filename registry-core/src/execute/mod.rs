//! Execution: runs a model's turn of tool calls against one pool.
//!
//! Owns, in pipeline order: resolving names ([`resolve`]: pool first, an
//! alias of a pooled tool runs it, anything else is refused with the layer
//! that removed it), parsing (through [`ToolHandle::prepare`](crate::ToolHandle::prepare)),
//! classification ([`classify`]: postures and resource access), planning
//! ([`plan`](mod@plan): a pure function behind a [`ConflictRule`], by
//! default [`AccessRule`], each batch with its [`BatchReason`]), running batches on tokio with permission,
//! timeouts and cancellation ([`runner`]), caps and spilling ([`cap`]),
//! session-state modifiers ([`modifier`]), events for UIs ([`events`]),
//! per-tool metrics ([`metrics`]) and what lasts across turns ([`session`]).
//!
//! Never does: read the unfiltered tool list on the hot path (only to
//! explain a refusal), decide permissions itself (the
//! [`PermissionPipeline`](crate::PermissionPipeline) does), spawn a task
//! that could outlive the turn, or panic across its API (author code is
//! caught; a panic becomes that call's error result).

mod call;
mod cap;
mod classify;
mod config;
mod error;
mod events;
mod metrics;
mod modifier;
mod plan;
mod resolve;
mod runner;
mod session;

pub use call::{ToolCall, ToolCallResult};
pub use classify::CallClass;
pub use config::{
    DEFAULT_MAX_CONCURRENCY, DEFAULT_PREVIEW_CHARS, DEFAULT_TURN_BUDGET_CHARS, ExecutorConfig,
};
pub use error::CallError;
pub use events::ExecEvent;
pub use metrics::ToolMetrics;
pub use modifier::{ContextModifier, SessionState};
pub use plan::{
    AccessRule, Batch, BatchMode, BatchReason, ConcurrencySafeRule, ConflictRule, OpenBatch, Plan,
    PlanItem, plan,
};
pub use runner::Executor;
pub use session::Session;
