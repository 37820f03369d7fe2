//! Deferred tools and `tool_search`: finding tools by what they do.
//!
//! Owns: the tokenizer ([`terms`]: identifier splitting, stop words, a
//! light stemmer), the query language ([`Query`]), the inverted index and
//! its ranking ([`SearchIndex`]), the index shared by a registry's
//! sessions ([`ToolSearchIndex`]), the deferral policy ([`DeferralPolicy`],
//! decided per session into a [`Deferral`]) and the `tool_search` built-in
//! ([`ToolSearch`], searching a [`ToolSearchScope`]).
//!
//! How the pieces meet, per runtime and per session:
//!
//! 1. build the list with the flag [`TOOL_SEARCH_FLAG`] so `tool_search`
//!    is a built-in of the pool, and one [`ToolSearchIndex`] per registry;
//! 2. per session, [`Session::decide_deferral`](crate::Session::decide_deferral)
//!    with the policy and the provider format in use;
//! 3. render with [`ToolPool::for_session`](crate::ToolPool::for_session)
//!    (which drops `tool_search` while nothing is deferred);
//! 4. give the executor a [`ToolSearchScope`] in its context; what
//!    `tool_search` returns is discovered, and the executor then runs it.
//!
//! Never does: decide what a session may use (it searches only the
//! [`Membership`] it is handed, built from a pool), or iterate a hash map
//! into anything ordered.

mod deferral;
mod fields;
mod index;
mod query;
mod shared;
mod tokenize;
mod tool;

pub use deferral::{
    AutoDeferral, Deferral, DeferralPolicy, DeferralShareError, ProviderFormat, is_deferrable,
};
pub use index::{DocId, Document, Membership, SearchHit, SearchIndex, SearchResults};
pub use query::{MAX_QUERY_TERMS, Query, QueryError};
pub use shared::ToolSearchIndex;
pub use tokenize::{split_words, stem, terms};
#[cfg(not(test))]
pub use tool::ToolSearch;
pub use tool::{
    DEFAULT_MAX_RESULTS, MAX_RESULTS, ResultShape, TOOL_SEARCH_FLAG, TOOL_SEARCH_NAME,
    ToolSearchError, ToolSearchInput, ToolSearchOutcome, ToolSearchScope,
};
