//! Code mode: the model writes a short program that calls tools, and
//! every call it makes runs through the executor of the turn.
//!
//! A task that reads twenty files and greps them costs the model twenty
//! round trips, each result in its context; as a program it is one call
//! of the `code` tool, and only what the program prints and returns comes
//! back. What sets this apart from other code modes is where the calls go:
//! each becomes a [`ToolCall`](registry_core::ToolCall) of the same
//! executor ([`Executor::run_nested`](registry_core::Executor::run_nested)),
//! so it is resolved against the same pool and checked by the same deny
//! rules, mode, approver, session grants and per-call classification as a
//! call the model makes itself; calls a program has in flight together
//! (`Promise.all`) are planned into batches by the same access keys; caps,
//! tracing and events ([`ExecEvent::Inner`](registry_core::execute::ExecEvent::Inner))
//! show every inner call under the outer one.
//!
//! # Turning it on
//!
//! Link this crate, set the runtime flag [`CODE_MODE_FLAG`] where the
//! list is built, and give the model the pool's TypeScript API
//! (`pool.render_typescript()`) in its prompt; optionally put a
//! [`CodeMode`] (engine, [`Limits`], [`Journal`]) in the executor's
//! context.
//!
//! ```
//! use registry_code::CODE_MODE_FLAG;
//! use registry_core::catalog::{BaseTools, Flags};
//! use registry_core::{ToolCall, ToolRegistry};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! registry_code::link();
//! let flags = Flags::new().with(CODE_MODE_FLAG);
//! let registry = ToolRegistry::new(BaseTools::linked(&flags).unwrap());
//! let executor = registry.executor().build();
//! let program = r#"
//!     const words = ["code", "mode"];
//!     return words.map((w) => w.toUpperCase()).join(" ");
//! "#;
//! let results = executor
//!     .run_turn(vec![ToolCall::new("1", "code", json!({ "program": program }))])
//!     .await;
//! assert_eq!(results[0].content(), "CODE MODE");
//! # }
//! ```
//!
//! # Programs
//!
//! The engine is QuickJS ([`QuickJs`]): modern JavaScript (async/await,
//! destructuring, template strings, classes, regular expressions, `Map`
//! and `Set`, JSON). A program is the body of an async function; `tools`
//! has a method per tool, by its name (`tools["my-tool"]` when the name is
//! not an identifier); a deferred tool becomes callable once the program
//! (or the model) found it with `tool_search`. A refused or failed call
//! rejects with an `Error` whose message is the text the model would have
//! read. The program has no host: no files, network, environment or
//! timers; `Date` reads the clock once, at the start, and `Math.random`
//! is seeded, both from the [`Journal`] so a replay sees the same values.
//!
//! # Limits
//!
//! [`Limits`]: wall time, a step budget (the engine's interrupt checks),
//! memory, stack, tool calls and output. An endless loop, a memory bomb,
//! a recursion without end, a huge string: each ends the program with its
//! [`ProgramError`], which is the `code` call's error result; the process
//! and its other turns go on. The program runs on a thread of its own, so
//! a busy interpreter never holds a worker of the async runtime.
//!
//! # Why QuickJS
//!
//! Measured against `boa_engine` 0.22 (pure Rust), one run each on a
//! shared 2-core machine:
//!
//! | | rquickjs 0.14 (QuickJS-ng 0.16) | boa_engine 0.22 |
//! |---|---|---|
//! | cold build, dev / release | 14 s / 49 s | 81 s / 223 s |
//! | start-up (runtime, context, `1+1`) | 83-158 µs | 202-211 µs |
//! | a host function call | 110-140 ns | 167-273 ns |
//! | a promise settled from Rust | 1.1-1.4 µs | 3.4-3.6 µs |
//! | what models write (26 checks) | 26/26 | 26/26 |
//! | stop an endless loop by time | interrupt handler, uncatchable | no way |
//! | memory limit | yes | none; a huge allocation aborts the process |
//! | stack limit | yes | yes |
//!
//! Boa has no memory limit and no way to stop a loop by the clock, so a
//! hostile program could take the process down; QuickJS enforces all
//! three inside the engine. Its unsafe code stays in `rquickjs`; this
//! crate forbids unsafe code.
//!
//! # What it costs
//!
//! `benches/code.rs` (one run, 2 cores under another build's load;
//! medians): a program's start-up (a thread, a runtime, the prelude)
//! about 0.4 ms against 1.7 µs for a direct one-call turn; each call a
//! program makes about 40 µs in a `Promise.all` and about 100 µs awaited
//! one by one (each is a round trip to the interpreter's thread and a
//! nested turn), against 1.4 µs direct. Against a model's round trip
//! (seconds) both are noise; the tokens saved are the point.
//!
//! # Another engine
//!
//! [`Engine`] is the interface: run a program, hand its calls in batches
//! to a [`Host`], enforce the limits. See [`engine`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod bridge;
pub mod engine;
pub mod journal;
mod limits;
mod quickjs;
mod tool;

pub use engine::{Engine, Finished, Host, Program, ProgramError, Reply, Request, Stopped};
pub use journal::Journal;
pub use limits::Limits;
pub use quickjs::QuickJs;
pub use tool::{CODE_MODE_FLAG, Code, CodeInput, CodeMode};

/// Links this crate's `code` tool into the binary: a crate nobody names
/// is not linked, and its tools are then in no list. Call it once where
/// the runtime builds its list (or name any item of this crate).
pub fn link() {}
