//! Everything per conversation: what lasts across the turns of one
//! session, and how a pool looks to it.
//!
//! Owns: the [`Session`] an executor runs in (`conversation`: discovered
//! tools in discovery order, the deferral decided for it, the turn lock,
//! the Rule of Two properties its calls brought),
//! the [`SessionState`] that tool results change through
//! [`ContextModifier`]s (defined beside [`ToolContext`](crate::declare::ToolContext),
//! which hands it to each call), which tools a session sends without their
//! schema (`deferral`: [`DeferralPolicy`] and the decision it makes for a
//! pool), the pool as one
//! session renders it (`tools`: [`SessionTools`], from
//! [`ToolPool::for_session`](crate::pool::ToolPool::for_session)), per-tool
//! counters (`metrics`: [`ToolMetrics`]), and a conversation's state as a store shared by
//! server replicas keeps it (`store`: [`SessionRecord`], [`SessionStore`],
//! [`MemorySessionStore`], [`StoreLimits`]).
//!
//! Never does: run a call (the [`execute`](crate::execute) stage applies
//! modifiers and counts), search (the [`search`](crate::search) stage
//! discovers, into a session), or change which tools exist: a session only
//! narrows how a pool is sent.

pub(crate) mod conversation;
pub(crate) mod deferral;
pub(crate) mod metrics;
mod store;
mod tools;

pub use crate::declare::state::{ContextModifier, SessionState};
pub use conversation::Session;
pub use deferral::DeferralPolicy;
pub use metrics::ToolMetrics;
pub use store::{
    Lease, MemorySessionStore, SessionRecord, SessionStore, StoreError, StoreLimits, Stored,
};
pub use tools::SessionTools;
