//! registry-embed's integration tests, one module per suite, linked into
//! one test binary (each binary links candle and the tokenizer again).
//! Run one suite by its module's name:
//! `cargo test -p registry-embed --test it search_dev::`.

// The search evaluation's parts, shared with registry-core's lexical eval.
#[path = "../../../registry-core/tests/it/search_eval/bm25.rs"]
mod bm25;
#[path = "../../../registry-core/tests/it/search_eval/harness.rs"]
mod harness;
mod model;

mod embed;
mod search_dev;
mod search_heldout;
mod search_models;
