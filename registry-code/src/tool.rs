//! The `code` tool: a program in, what it printed and returned out.

use std::sync::Arc;

use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::bridge::{self, Run};
use crate::engine::{Engine, Finished, ProgramError};
use crate::journal::Journal;
use crate::limits::Limits;
use crate::quickjs::QuickJs;

/// The runtime flag that puts the `code` tool in the list
/// (`Flags::with`): code mode is off unless the runtime turns it on.
pub const CODE_MODE_FLAG: &str = "code_mode";

/// How the runtime runs programs: the engine, the limits and the journal.
/// Put it in the executor's context (`ExecutorBuilder::context`); without
/// one, programs run on [`QuickJs`] with the default [`Limits`] and a
/// journal of their own.
///
/// ```
/// use std::sync::Arc;
/// use registry_code::{CodeMode, Journal, Limits};
/// use registry_core::ToolContext;
///
/// let mut limits = Limits::default();
/// limits.max_calls = 20;
/// let journal = Arc::new(Journal::new());
/// let cx = ToolContext::new().with(CodeMode::new().limits(limits).journal(journal));
/// assert!(cx.get::<CodeMode>().is_some());
/// ```
#[derive(Clone)]
pub struct CodeMode {
    engine: Arc<dyn Engine>,
    limits: Limits,
    journal: Arc<Journal>,
}

impl std::fmt::Debug for CodeMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeMode")
            .field("engine", &self.engine.name())
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Default for CodeMode {
    fn default() -> Self {
        CodeMode {
            engine: Arc::new(QuickJs),
            limits: Limits::default(),
            journal: Arc::new(Journal::new()),
        }
    }
}

impl CodeMode {
    /// QuickJS, the default limits, a journal of its own.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs programs on `engine`.
    pub fn engine(mut self, engine: impl Engine) -> Self {
        self.engine = Arc::new(engine);
        self
    }

    /// Limits every program to `limits`.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Records programs' calls in `journal`, and replays them from it (see
    /// [`journal`](crate::journal)).
    pub fn journal(mut self, journal: Arc<Journal>) -> Self {
        self.journal = journal;
        self
    }
}

/// The input of `code`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodeInput {
    /// The program: the body of an async JavaScript function. Call tools
    /// with `await tools.<name>(input)`, run calls together with
    /// `Promise.all`, and `return` (or `console.log`) what you need.
    pub program: String,
}

/// Run a JavaScript program that calls tools, for work that takes many
/// calls: loops over results, calls in parallel, filtering large outputs
/// before you read them. Only what the program prints and returns comes
/// back; the results of its calls stay out of the conversation.
///
/// The program is the body of an async function. Each tool you have is a
/// method of `tools` taking its input object, for example
/// `await tools.read_file({ path: "a.rs" })`; run calls together with
/// `Promise.all`. A tool with a structured result resolves to its value,
/// any other to its text. A refused or failed call throws an `Error` with
/// the message you would have read; catch it to go on. Every call is
/// checked by the same permission rules as a call you make yourself.
/// `return` the answer or print it with `console.log`. The program cannot
/// reach files, the network or the environment except through tools;
/// `Date.now()` is the time it started; its time, memory and number of
/// calls are limited.
// Read-only: its own body touches nothing. Every effect is a call its
// program makes, and each of those is resolved, checked and run as a
// call of its own (a write in plan mode is refused there, a deny rule
// holds there). It runs alone: its calls may conflict with any other.
// Direct only: programs do not start programs, and the TypeScript API of
// the pool leaves it out.
#[tool(
    name = "code",
    read_only = true,
    allowed_callers = ["direct"],
    always_load,
    flag = "code_mode",
    search_hint = "run a javascript program script that calls many tools in a loop or in parallel",
    max_result_chars = 100_000,
    // A program brings nothing of its own: each call it makes brings its
    // tool's properties, weighed and recorded as a direct call's are.
    rule_of_two = []
)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Code;

impl Tool for Code {
    type Input = CodeInput;
    type Output = String;
    type Error = ProgramError;

    async fn call(&self, input: CodeInput, cx: &ToolContext) -> Result<String, ProgramError> {
        if cx.made_by_program() {
            return Err(ProgramError::Nested);
        }
        let settings = cx.get::<CodeMode>().cloned().unwrap_or_default();
        let finished = bridge::run(
            Run {
                engine: settings.engine,
                limits: settings.limits.clone(),
                cx,
                call_id: cx.call_id().unwrap_or("code").to_owned(),
                journal: &settings.journal,
            },
            input.program,
        )
        .await?;
        Ok(result_text(finished, &settings.limits))
    }
}

/// What the model reads: the printed lines, then the returned value.
fn result_text(finished: Finished, limits: &Limits) -> String {
    let Finished {
        printed,
        value,
        truncated,
        ..
    } = finished;
    let mut text = printed;
    if let Some(value) = value {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&value);
    }
    if text.is_empty() {
        text.push_str("(the program printed nothing and returned nothing)");
    }
    if truncated {
        text.push_str(&format!(
            "\n[output cut at {} bytes, the program's limit]",
            limits.max_output_bytes
        ));
    }
    text
}
