//! Deferred tools and `tool_search`: finding tools by what they do.
//!
//! Owns: the tokenizer ([`terms`]: identifier splitting, stop words, a
//! light stemmer), the query language ([`Query`]), the inverted index and
//! its ranking ([`SearchIndex`]).
//!
//! Never does: decide what a session may use (it searches only the
//! [`Membership`] it is handed, built from a pool), or iterate a hash map
//! into anything ordered.

mod fields;
mod index;
mod query;
mod tokenize;

pub use index::{DocId, Document, Membership, SearchHit, SearchIndex, SearchResults};
pub use query::{MAX_QUERY_TERMS, Query, QueryError};
pub use tokenize::{split_words, stem, terms};
