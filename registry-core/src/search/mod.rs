//! Deferred tools and `tool_search`: finding tools by what they do.
//!
//! Owns: the tokenizer ([`terms`]: names read as identifiers, text as
//! prose, stop words, a light stemmer), the query language ([`Query`]),
//! the inverted index and its ranking ([`SearchIndex`]), the seam for
//! ranking by meaning ([`Embedder`], [`SemanticRanking`], [`Fusion`]), the
//! index shared by a registry's sessions ([`ToolSearchIndex`]) and the
//! `tool_search` built-in ([`ToolSearch`], searching a
//! [`ToolSearchScope`]; typed results in [`ToolSearchOutcome`]). The deferral policy
//! that decides what needs searching is per session, in
//! [`session`](crate::session).
//!
//! How the pieces meet, per runtime and per session:
//!
//! 1. build the list with the flag [`TOOL_SEARCH_FLAG`] so `tool_search`
//!    is a built-in of the pool, and one [`ToolSearchIndex`] per registry;
//! 2. per session, [`Session::decide_deferral`](crate::session::Session::decide_deferral)
//!    with the policy and the provider format in use;
//! 3. render with [`ToolPool::for_session`](crate::pool::ToolPool::for_session)
//!    (which drops `tool_search` while nothing is deferred);
//! 4. give the executor a [`ToolSearchScope`] in its context; what
//!    `tool_search` returns is discovered, and the executor then runs it.
//!
//! Never does: decide what a session may use (it searches only the
//! [`Membership`] it is handed, built from a pool), or iterate a hash map
//! into anything ordered.
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
//! ```
//! use std::sync::Arc;
//! use registry_core::search::{ResultShape, TOOL_SEARCH_FLAG, ToolSearchIndex, ToolSearchScope};
//! use registry_core::session::{DeferralPolicy, Session};
//! use registry_core::{catalog::try_all_base_tools, declare::RemoteOrigin, render::ProviderFormat};
//! use registry_core::{Flags, PermissionContext, ToolBuilder, ToolOutput, ToolRegistry};
//!
//! // `tool_search` joins the list under its runtime flag.
//! let registry = ToolRegistry::new(try_all_base_tools(&Flags::new().with(TOOL_SEARCH_FLAG)).unwrap());
//! // What an MCP import registers (it records the server the tool came from).
//! let issue = ToolBuilder::new("mcp__github__create_issue", "Create a new issue in a GitHub repository.")
//!     .remote_origin(RemoteOrigin::new("github", "create_issue"))
//!     .build(|_, _| async { Ok(ToolOutput::text("#1")) })
//!     .unwrap();
//! let _guard = registry.plugins().register("github", issue).unwrap();
//!
//! let index = Arc::new(ToolSearchIndex::new(&registry)); // once; shared by every session
//! let pool = registry.assemble_tool_pool(&PermissionContext::new());
//! let session = Arc::new(Session::new());
//! session.decide_deferral(&pool, DeferralPolicy::Always, ProviderFormat::Anthropic);
//! assert!(pool.for_session(&session).render_anthropic(Default::default()).contains(r#""defer_loading":true"#));
//!
//! // Give the executor the scope in its context
//! // (`registry.executor().context(ToolContext::new().with(scope))`); here, called directly.
//! // `tool_search` searches the executor's own session.
//! let scope = ToolSearchScope::new(index, &registry, &pool, ResultShape::ToolReferences);
//! let found = scope.search(&session, "report a new issue", 5).unwrap();
//! assert_eq!(found.render(), r#"[{"tool_name":"mcp__github__create_issue","type":"tool_reference"}]"#);
//! assert!(session.is_discovered("mcp__github__create_issue"));
//! ```
//!
//! # Ranking by meaning
//!
//! Words miss what a user says in other words ("what's the clock showing
//! in Tokyo" for `get_current_time`). [`ToolSearchIndex::with_semantic`]
//! adds an [`Embedder`] (the `registry-embed` crate runs
//! all-MiniLM-L6-v2 locally): each tool's text ([`embedding_text`]) is
//! embedded once and cached with the index, plugin churn embeds only
//! texts it has not seen, and each query's lexical and cosine rankings
//! are fused ([`Fusion`]: normalised scores or reciprocal ranks, weight
//! configurable). An embedder that fails never loses a tool or a search:
//! the lexical ranking answers, and waiting tools are embedded later.
//!
//! Search quality is measured through `tool_search` on a dev split (408
//! tools of eleven public MCP servers, 127 intents, used for tuning) and a
//! held-out split (703 tools of 38 other servers, 124 intents written
//! before any ranking ran, never printed), against plain BM25, with
//! paired bootstrap intervals (`scripts/search-eval.sh`); the numbers are
//! in `docs/performance.md`.
mod fields;
mod index;
mod query;
mod semantic;
mod setup;
mod shared;
mod tokenize;
mod tool;

pub use crate::session::deferral::TOOL_SEARCH_NAME;
pub use index::{DocId, Document, Membership, SearchHit, SearchIndex, SearchResults};
pub use query::{MAX_QUERY_TERMS, Query, QueryError};
pub use semantic::{
    DEFAULT_SERVER_WEIGHT, EmbedError, Embedder, Fusion, SemanticRanking, embedding_text,
};
pub use shared::ToolSearchIndex;
pub use tokenize::{split_name, split_words, stem, terms};
#[cfg(not(test))]
pub use tool::ToolSearch;
pub use tool::{
    DEFAULT_MAX_RESULTS, MAX_RESULTS, ResultShape, TOOL_SEARCH_FLAG, ToolSearchError,
    ToolSearchHit, ToolSearchInput, ToolSearchOutcome, ToolSearchScope,
};
