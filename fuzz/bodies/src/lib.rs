//! The bodies of the fuzz targets under `fuzz/`.
//!
//! Each target is one function here taking the fuzzer's bytes; the
//! cargo-fuzz crate (`fuzz/`, its own workspace, built with libFuzzer)
//! calls them from one-line `fuzz_targets/*.rs`, and this crate's
//! `tests/corpora.rs` replays every checked-in corpus and regression
//! input through the same functions in `cargo test`. A body panics only
//! when a property of the code under test fails; input it has no use for
//! (not JSON, not UTF-8) is skipped.
//!
//! | target | what | property |
//! |---|---|---|
//! | [`prepare`](prepare::run) | arbitrary JSON through `ToolHandle::prepare` | no panic; a prepared call's arguments prepare again, to themselves |
//! | [`rules`](rules::run) | permission rule text | parse, display, parse: the same rule and the same text |
//! | [`shell`](shell::run) | `shell_reading::{read, classify, read_paths}` | no panic; a literal simple command reads the same after quoting every word |
//! | [`mcp_frames`](mcp_frames::run) | JSON-RPC lines into `McpServer::serve_io` | no panic; the server still answers a `ping` |
//! | [`lock`](lock::run) | `CatalogLock::parse` | no panic; what parses renders to text that parses to the same lock, byte-stably |
//! | [`input_deser`](input_deser::run) | the tool-input deserializer | the same answer as `serde_path_to_error` over `serde_json` |
//! | [`tool_search`](tool_search::run) | `tool_search` queries | no panic; at most `max` hits; the same answer twice |

registry_core::link!(registry_examples);

pub mod input_deser;
pub mod lock;
pub mod mcp_frames;
pub mod prepare;
pub mod rules;
pub mod shell;
pub mod tool_search;
pub mod tools;

/// A target's body: the fuzzer's bytes in, a panic if a property fails.
pub type Body = fn(&[u8]);

/// Every target by name (the name of its `fuzz_targets/*.rs` and of its
/// corpus directory), with its body.
pub const TARGETS: &[(&str, Body)] = &[
    ("prepare", prepare::run),
    ("rules", rules::run),
    ("shell", shell::run),
    ("mcp_frames", mcp_frames::run),
    ("lock", lock::run),
    ("input_deser", input_deser::run),
    ("tool_search", tool_search::run),
];

/// The input as JSON, or `None` when it is not (the body skips it).
fn json(data: &[u8]) -> Option<serde_json::Value> {
    serde_json::from_slice(data).ok()
}
