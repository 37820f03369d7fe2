//! Deferred tools and `tool_search`: finding tools by what they do.
//!
//! Owns: the tokenizer ([`terms`]: identifier splitting, stop words, a
//! light stemmer), the query language ([`Query`]), the inverted index and
//! its ranking ([`SearchIndex`]).
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
