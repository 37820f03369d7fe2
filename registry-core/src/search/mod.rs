//! Deferred tools and `tool_search`: finding tools by what they do.
//!
//! Owns: the tokenizer (names read as identifiers, text as prose, stop
//! words, a light stemmer), a lexicon of everyday words that stand for
//! each other, the query language, the inverted index and its ranking,
//! the seam for ranking by meaning ([`Embedder`], [`SemanticRanking`],
//! [`Fusion`]) and its vector store, explanations of a ranking
//! ([`Explanation`]), the index shared by a registry's
//! sessions ([`ToolSearchIndex`]), the `tool_search` built-in (under the
//! flag [`TOOL_SEARCH_FLAG`]) and the per-executor scope it searches. The
//! deferral policy that decides what needs searching is per session, in
//! [`session`](crate::session).
//!
//! How the pieces meet, per runtime and per session:
//!
//! 1. build the list with the flag [`TOOL_SEARCH_FLAG`] so `tool_search`
//!    is a built-in of the pool;
//! 2. turn search on with
//!    [`ExecutorBuilder::tool_search`](crate::execute::ExecutorBuilder::tool_search)
//!    (the registry's own index), or
//!    [`tool_search_with`](crate::execute::ExecutorBuilder::tool_search_with)
//!    and one [`ToolSearchIndex`] of your own, shared by every executor:
//!    the executor's session decides its deferral, and `tool_search`
//!    searches the executor's pool;
//! 3. render with [`ToolPool::for_session`](crate::pool::ToolPool::for_session)
//!    (which drops `tool_search` while nothing is deferred); what
//!    `tool_search` returns is discovered, and the executor then runs it.
//!
//! Never does: decide what a session may use (it searches only the pool
//! it is handed), or iterate a hash map into anything ordered.
//!
//! # Deferred tools, found by search
//!
//! A few hundred MCP tools cost tokens on every turn. A session can send
//! some tools *deferred* (by name, without their schema; see
//! [`session`](crate::session) for which and when) and let the model find
//! them with the built-in `tool_search`, which loads what it returns. The
//! executor refuses a deferred tool until the session discovered it,
//! telling the model to search first.
//!
//! ```standalone_crate
//! use std::sync::Arc;
//! use registry_core::search::{TOOL_SEARCH_FLAG, ToolSearchIndex};
//! use registry_core::session::DeferralPolicy;
//! use registry_core::{catalog::BaseTools, declare::RemoteOrigin, render::ProviderFormat};
//! use registry_core::{Flags, ToolBuilder, ToolCall, ToolOutput, ToolRegistry};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // `tool_search` joins the list under its runtime flag.
//! let registry = ToolRegistry::new(BaseTools::linked(&Flags::new().with(TOOL_SEARCH_FLAG)).unwrap());
//! // What an MCP import registers (it records the server the tool came from).
//! let issue = ToolBuilder::new("mcp__github__create_issue", "Create a new issue in a GitHub repository.")
//!     .remote_origin(RemoteOrigin::new("github", "create_issue"))
//!     .build(|_, _| async { Ok(ToolOutput::text("#1")) })
//!     .unwrap();
//! let _guard = registry.plugins().register("github", issue).unwrap();
//!
//! let index = Arc::new(ToolSearchIndex::new(&registry)); // once; shared by every executor
//! let executor = registry
//!     .executor()
//!     .tool_search_with(index, DeferralPolicy::Always, ProviderFormat::Anthropic)
//!     .build();
//! let tools = executor.pool().for_session(executor.session()).render_anthropic(Default::default());
//! assert!(tools.contains(r#""defer_loading":true"#));
//!
//! // The model searches; what it finds is loaded into the executor's session.
//! let search = ToolCall::new("toolu_1", "tool_search", json!({ "query": "report a new issue" }));
//! let found = executor.run_turn(vec![search]).await;
//! assert_eq!(found[0].content(), r#"[{"tool_name":"mcp__github__create_issue","type":"tool_reference"}]"#);
//! assert!(executor.session().is_discovered("mcp__github__create_issue"));
//! # }
//! ```
//!
//! # Ranking by meaning
//!
//! Words miss what a user says in other words ("what's the clock showing
//! in Tokyo" for `get_current_time`); a lexicon of everyday words bridges
//! some of it, a model more. [`ToolSearchIndex::with_semantic`] adds an
//! [`Embedder`] (the `registry-embed` crate runs potion-base-8M, a static
//! model, or all-MiniLM-L6-v2, a transformer, locally): each tool's text
//! (its name's words, its hint and its description) is embedded once and
//! kept in one contiguous matrix, plugin churn embeds only texts it has
//! not seen, recent queries' vectors are remembered, and each query's
//! lexical and cosine rankings are fused ([`Fusion`]: normalised scores
//! or reciprocal ranks, weight configurable). An embedder that fails
//! never loses a tool or a search: the lexical ranking answers, and
//! waiting tools are embedded later.
//! [`ToolSearchIndex::explain`] says why each tool ranked where it did.
//!
//! Search quality is measured through `tool_search` on a dev split (408
//! tools of eleven public MCP servers, 127 intents, used for tuning) and a
//! held-out split (703 tools of 38 other servers, 124 intents written
//! before any ranking ran, never printed), against plain BM25, with
//! paired bootstrap intervals (`scripts/search-eval.sh`); the numbers are
//! in `docs/performance.md`.
mod explain;
mod fields;
mod index;
mod lexicon;
mod query;
mod semantic;
mod setup;
mod shared;
mod tokenize;
mod tool;
mod vectors;

#[cfg(test)]
mod tests;

pub(crate) use crate::session::deferral::TOOL_SEARCH_NAME;
pub use explain::{Explanation, WordMatch};
pub use query::QueryError;
pub use semantic::{EmbedError, Embedder, Fusion, SemanticRanking};
pub use shared::ToolSearchIndex;
pub use tool::TOOL_SEARCH_FLAG;
// What a `tool_search` result carries for the provider adapters.
pub(crate) use tool::ToolSearchOutcome;
// What the MCP server puts in its executors' contexts.
#[cfg(feature = "mcp")]
pub(crate) use tool::{ResultShape, ToolSearchScope};

/// Not public API. The `tool_search` built-in as a handle, for test
/// binaries that cannot build their linked list (they link tools broken on
/// purpose) and assemble theirs with `BaseTools::__from_handles`; a
/// runtime gets it from the list, under [`TOOL_SEARCH_FLAG`].
#[doc(hidden)]
#[cfg(not(test))]
pub fn __tool_search() -> crate::input::handle::ToolHandle {
    crate::input::handle::ToolHandle::new(tool::ToolSearch)
}
