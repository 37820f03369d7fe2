//! The interpreter behind the `code` tool, as a trait: another engine
//! can be added beside QuickJS without touching the tool or the executor.
//!
//! An engine runs one program on the calling thread, from its source to
//! its result, and talks to the outside through a [`Host`] only: the calls
//! the program has in flight together go out as one batch, their replies
//! come back, and nothing else crosses (no files, network, environment;
//! the clock and randomness are the values in [`Program`]).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::limits::Limits;

/// One tool call a program made: the name it used and its input.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Request {
    /// The tool's name, as the program wrote it (an alias resolves too).
    pub name: String,
    /// The call's input.
    pub input: serde_json::Value,
}

/// How a call ended, as the program sees it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Reply {
    /// A structured result (a tool with an output schema): the program
    /// gets the value.
    Value(serde_json::Value),
    /// A text result: the program gets the string.
    Text(String),
    /// A refused or failed call: the program's promise rejects with an
    /// `Error` of this message, the text the model would have read.
    Error(String),
}

/// The program's call ended (it timed out, or the turn was dropped): the
/// engine stops the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

/// Where an engine sends a program's tool calls.
pub trait Host {
    /// Runs the calls the program has in flight together, as one turn of
    /// the executor's; one reply per call, in order. Blocks until they
    /// all ended.
    fn run_calls(&mut self, calls: Vec<Request>) -> Result<Vec<Reply>, Stopped>;
}

/// A program to run, and everything it may know of the world.
#[derive(Debug, Clone)]
pub struct Program<'a> {
    /// Its source.
    pub source: &'a str,
    /// What it may spend.
    pub limits: &'a Limits,
    /// What `Date.now()` answers, in milliseconds since the epoch: the
    /// runtime's clock read once, so a replay sees the same time.
    pub clock_ms: f64,
    /// The seed of `Math.random()`, so a replay draws the same numbers.
    pub seed: u64,
    /// Set when the program's call ended: the engine stops at its next
    /// interrupt check.
    pub stop: Arc<AtomicBool>,
}

/// What a program that finished produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Finished {
    /// What it printed (`console.log` and its kin), one line per call.
    pub printed: String,
    /// What it returned, as text (a string as is, anything else as
    /// JSON); `None` when it returned nothing.
    pub value: Option<String>,
    /// Whether its output was cut at [`Limits::max_output_bytes`].
    pub truncated: bool,
    /// How many tool calls it made.
    pub calls: usize,
}

/// Why a program did not finish. Its `Display` is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProgramError {
    /// The source does not parse.
    #[error("the program does not parse: {0}")]
    Syntax(String),
    /// An exception nobody caught.
    #[error("the program threw an exception it did not catch: {0}")]
    Threw(String),
    /// It ran past its wall time.
    #[error("the program ran past its time limit of {} ms and was stopped", .0.as_millis())]
    TimeLimit(Duration),
    /// It spent its step budget (an endless loop, most often).
    #[error(
        "the program ran past its budget of {0} steps and was stopped (an endless loop?); each step is about 10,000 operations"
    )]
    StepLimit(u64),
    /// It used more memory than its limit.
    #[error("the program ran out of memory: its limit is {} MiB", .0 / (1024 * 1024))]
    MemoryLimit(usize),
    /// It threw `null`: what QuickJS throws when it is so far out of
    /// memory that it cannot make an error (or a `throw null` of the
    /// program's own).
    #[error(
        "the program threw `null`: it ran out of memory (its limit is {} MiB), or threw `null` itself",
        .0 / (1024 * 1024)
    )]
    NullThrown(usize),
    /// It recursed deeper than its stack allows.
    #[error("the program recursed too deeply: its stack is limited to {} KiB", .0 / 1024)]
    StackLimit(usize),
    /// It waits for something that can never happen: no tool call is in
    /// flight, and its result never settles.
    #[error(
        "the program is waiting for a promise that nothing will settle (no tool call is in flight), so it was stopped"
    )]
    Stuck,
    /// It was called from another program: programs do not start
    /// programs.
    #[error("a program cannot run a program: call the tools it needs directly")]
    Nested,
    /// Its call ended (a timeout, a dropped turn) while it ran.
    #[error("the program was stopped: the call that ran it ended")]
    Stopped,
    /// Its result could not be written as text.
    #[error("the program's result cannot be written as JSON: {0}")]
    Result(String),
    /// The engine itself failed (it could not start, or its thread died).
    #[error("the interpreter failed: {0}")]
    Engine(String),
}

/// An interpreter that runs programs for the `code` tool.
pub trait Engine: Send + Sync + 'static {
    /// The engine's name, for traces and errors (`"quickjs"`).
    fn name(&self) -> &'static str;

    /// The language programs are written in, for the tool's description
    /// (`"JavaScript"`).
    fn language(&self) -> &'static str;

    /// Runs `program` to its end on the calling thread, sending its tool
    /// calls to `host`. Must never panic, whatever the program does; every
    /// limit in [`Program::limits`] ends it with its [`ProgramError`].
    fn run(&self, program: &Program<'_>, host: &mut dyn Host) -> Result<Finished, ProgramError>;
}
