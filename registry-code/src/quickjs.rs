//! The QuickJS engine (quickjs-ng, through `rquickjs`).
//!
//! One runtime per program, made and dropped on the thread that runs it.
//! The context has the standard library of the language and nothing of
//! the host: no module loader, no `os` or `std` module, no timers; the
//! prelude below replaces the clock (`Date`, `performance`) and
//! `Math.random` with the values the runtime passed, and adds `tools` and
//! `console`. Limits are the engine's own: a memory limit on its
//! allocator, a stack limit on its interpreter, and an interrupt handler
//! (called about every 10,000 operations) that counts steps, reads the
//! clock against the wall time and the stop flag, and ends the program
//! with an exception it cannot catch.
//!
//! The host loop: the program is wrapped in an async function and started;
//! then every pending job runs, the calls the program has in flight are
//! handed to the [`Host`] as one batch, and their promises are settled
//! from the replies, until its promise settles and no call is in flight
//! (calls it started and never awaited still run before it ends). A call is a promise made
//! here, its resolve and reject functions kept on the Rust side, so
//! nothing a program does to `Promise`, `JSON` or any prototype can reach
//! how calls are made or answered.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rquickjs::function::Rest;
use rquickjs::promise::PromiseState;
use rquickjs::{CaughtError, Context, Ctx, Exception, Function, Promise, Runtime, Value};

use crate::engine::{Engine, Finished, Host, Program, ProgramError, Reply, Request};
use crate::limits::Limits;

/// QuickJS: ES2023 with async/await, in a runtime of its own per program.
#[derive(Debug, Clone, Copy, Default)]
pub struct QuickJs;

/// Which limit the interrupt handler stopped the program for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interrupt {
    Time,
    Steps,
    Stopped,
}

/// Installs `tools`, `console`, the runtime's clock and randomness.
/// Called with the host's functions as arguments, so none of them is a
/// global a program could find or replace for another program.
const PRELUDE: &str = r#"(function (call, print, now, seed) {
  "use strict";
  const define = Object.defineProperty;
  const tools = new Proxy(Object.create(null), {
    get(_, name) {
      // Not a thenable: `await tools` must not call anything.
      if (typeof name !== "string" || name === "then") return undefined;
      return (input) => call(name, input);
    },
    set() { return false; },
    defineProperty() { return false; },
    deleteProperty() { return false; },
  });
  define(globalThis, "tools", { value: tools, writable: false, configurable: false });
  const out = (...args) => print(...args);
  define(globalThis, "console", {
    value: Object.freeze({ log: out, info: out, warn: out, error: out, debug: out }),
    writable: true,
    configurable: true,
  });
  const RealDate = Date;
  define(RealDate, "now", { value: () => now, writable: true, configurable: true });
  globalThis.Date = new Proxy(RealDate, {
    construct(target, args, newTarget) {
      return Reflect.construct(target, args.length ? args : [now], newTarget);
    },
    apply() { return new RealDate(now).toString(); },
  });
  delete globalThis.performance;
  const imul = Math.imul;
  let state = seed >>> 0;
  // mulberry32: small, and the same numbers for the same seed.
  Math.random = function random() {
    state = (state + 0x6D2B79F5) | 0;
    let t = imul(state ^ (state >>> 15), 1 | state);
    t = (t + imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})"#;

/// A call the program made whose promise is not settled yet.
struct Pending<'js> {
    request: Request,
    resolve: Function<'js>,
    reject: Function<'js>,
}

/// The program's side of the host loop, shared with the functions the
/// prelude installs.
struct Shared<'js> {
    pending: Vec<Pending<'js>>,
    output: Output,
    calls: usize,
    max_calls: usize,
}

/// What the program printed, cut at its limit.
struct Output {
    text: String,
    limit: usize,
    truncated: bool,
}

impl Output {
    fn push_line(&mut self, line: &str) {
        if self.truncated {
            return;
        }
        let room = self.limit.saturating_sub(self.text.len());
        let needed = line.len() + usize::from(!self.text.is_empty());
        if needed > room {
            self.truncated = true;
            if !self.text.is_empty() && room > 0 {
                self.text.push('\n');
            }
            let room = self.limit.saturating_sub(self.text.len());
            self.text.push_str(cut(line, room));
            return;
        }
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(line);
    }
}

/// `text` cut to at most `bytes`, on a character boundary.
fn cut(text: &str, bytes: usize) -> &str {
    if text.len() <= bytes {
        return text;
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

impl Engine for QuickJs {
    fn name(&self) -> &'static str {
        "quickjs"
    }

    fn language(&self) -> &'static str {
        "JavaScript"
    }

    fn run(&self, program: &Program<'_>, host: &mut dyn Host) -> Result<Finished, ProgramError> {
        let limits = program.limits;
        let runtime = Runtime::new().map_err(|err| ProgramError::Engine(err.to_string()))?;
        runtime.set_memory_limit(limits.memory_bytes);
        runtime.set_max_stack_size(limits.stack_bytes);
        let interrupted = Rc::new(Cell::new(None));
        {
            let interrupted = Rc::clone(&interrupted);
            let stop = program.stop.clone();
            // A wall time too long to add is no deadline at all.
            let deadline = Instant::now().checked_add(limits.wall_time);
            let budget = limits.steps;
            let mut steps = 0u64;
            runtime.set_interrupt_handler(Some(Box::new(move || {
                steps += 1;
                let why = if stop.load(Ordering::Relaxed) {
                    Interrupt::Stopped
                } else if steps > budget {
                    Interrupt::Steps
                } else if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                    Interrupt::Time
                } else {
                    return false;
                };
                interrupted.set(Some(why));
                true
            })));
        }
        let context =
            Context::full(&runtime).map_err(|err| ProgramError::Engine(err.to_string()))?;
        let result = context.with(|ctx| run_in(&ctx, program, host, &interrupted));
        // Out of memory, QuickJS may have no memory left to make an error
        // of, and throws `null`; by then the program's values may be freed,
        // so its memory cannot tell. A `throw null` of the program's own is
        // rare; the message names both.
        let result = match result {
            Err(ProgramError::Threw(thrown)) if thrown == "null" => {
                Err(ProgramError::NullThrown(limits.memory_bytes))
            }
            other => other,
        };
        // Every value of the program is gone with the closure; the context
        // and runtime are dropped here, on the thread that made them.
        drop(context);
        drop(runtime);
        result
    }
}

/// The host loop, inside the program's context.
fn run_in<'js>(
    ctx: &Ctx<'js>,
    program: &Program<'_>,
    host: &mut dyn Host,
    interrupted: &Cell<Option<Interrupt>>,
) -> Result<Finished, ProgramError> {
    let limits = program.limits;
    let shared = Rc::new(RefCell::new(Shared {
        pending: Vec::new(),
        output: Output {
            text: String::new(),
            limit: limits.max_output_bytes,
            truncated: false,
        },
        calls: 0,
        max_calls: limits.max_calls,
    }));
    // Whatever happens below, no JS value outlives the context: the
    // pending calls' functions are dropped before it is.
    let _clear = ClearOnDrop(Rc::clone(&shared));
    let fail = |err: rquickjs::Error| classify(ctx, err, limits, interrupted);

    let prelude: Function<'js> = ctx.eval(PRELUDE).map_err(fail)?;
    let call = {
        let shared = Rc::clone(&shared);
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, name: Value<'js>, input: Value<'js>| {
                make_call(&ctx, &shared, name, input)
            },
        )
        .map_err(fail)?
    };
    let print = {
        let shared = Rc::clone(&shared);
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, args: Rest<Value<'js>>| {
            let line = args
                .0
                .into_iter()
                .map(|value| display(&ctx, value))
                .collect::<Vec<_>>()
                .join(" ");
            shared.borrow_mut().output.push_line(&line);
        })
        .map_err(fail)?
    };
    // The seed is cut to 32 bits: mulberry32's state.
    let seed = (program.seed & u64::from(u32::MAX)) as f64;
    prelude
        .call::<_, ()>((call, print, program.clock_ms, seed))
        .map_err(fail)?;

    // On one line with the program's first, so its line numbers are the
    // program's own.
    let source = format!("(async () => {{{}\n}})()", program.source);
    let main: Promise<'js> = match ctx.eval(source) {
        Ok(main) => main,
        Err(err) => {
            return Err(match classify(ctx, err, limits, interrupted) {
                ProgramError::Threw(message) if message.starts_with("SyntaxError") => {
                    ProgramError::Syntax(message)
                }
                other => other,
            });
        }
    };
    loop {
        while ctx.execute_pending_job() {
            if let Some(why) = interrupted.get() {
                return Err(limit_error(why, limits));
            }
        }
        if let Some(why) = interrupted.get() {
            return Err(limit_error(why, limits));
        }
        let state = main.state();
        if state == PromiseState::Rejected {
            let err = main
                .result::<Value<'js>>()
                .expect("a settled promise has a result")
                .expect_err("a rejected promise");
            return Err(classify(ctx, err, limits, interrupted));
        }
        let pending = std::mem::take(&mut shared.borrow_mut().pending);
        if pending.is_empty() {
            if state == PromiseState::Resolved {
                let value: Value<'js> = main
                    .result()
                    .expect("a settled promise has a result")
                    .map_err(fail)?;
                return finish(ctx, &shared, value);
            }
            return Err(ProgramError::Stuck);
        }
        // Calls still in flight when the program returned (started, never
        // awaited) run before it ends, as a script's pending work does.
        let (requests, settle): (Vec<Request>, Vec<(Function<'js>, Function<'js>)>) = pending
            .into_iter()
            .map(|p| (p.request, (p.resolve, p.reject)))
            .unzip();
        let replies = host
            .run_calls(requests)
            .map_err(|_| ProgramError::Stopped)?;
        for ((resolve, reject), reply) in settle.into_iter().zip(replies) {
            let settled = match reply {
                Reply::Value(value) => ctx
                    .json_parse(value.to_string())
                    .and_then(|value| resolve.call::<_, ()>((value,))),
                Reply::Text(text) => resolve.call::<_, ()>((text,)),
                Reply::Error(message) => Exception::from_message(ctx.clone(), &message)
                    .and_then(|error| reject.call::<_, ()>((error,))),
            };
            settled.map_err(fail)?;
        }
    }
}

/// Empties the pending calls when the host loop ends, however it ends.
struct ClearOnDrop<'js>(Rc<RefCell<Shared<'js>>>);

impl Drop for ClearOnDrop<'_> {
    fn drop(&mut self) {
        if let Ok(mut shared) = self.0.try_borrow_mut() {
            shared.pending.clear();
        }
    }
}

/// `tools.<name>(input)`: a promise the host loop settles.
fn make_call<'js>(
    ctx: &Ctx<'js>,
    shared: &Rc<RefCell<Shared<'js>>>,
    name: Value<'js>,
    input: Value<'js>,
) -> rquickjs::Result<Promise<'js>> {
    let (promise, resolve, reject) = ctx.promise()?;
    let request = match request(ctx, shared, name, input) {
        Ok(request) => request,
        Err(message) => {
            let error = Exception::from_message(ctx.clone(), &message)?;
            reject.call::<_, ()>((error,))?;
            return Ok(promise);
        }
    };
    shared.borrow_mut().pending.push(Pending {
        request,
        resolve,
        reject,
    });
    Ok(promise)
}

/// The request a call makes, or why it cannot be made (which rejects its
/// promise at once).
fn request<'js>(
    ctx: &Ctx<'js>,
    shared: &Rc<RefCell<Shared<'js>>>,
    name: Value<'js>,
    input: Value<'js>,
) -> Result<Request, String> {
    let Some(name) = name.as_string().and_then(|name| name.to_string().ok()) else {
        return Err("a tool's name must be a string".to_owned());
    };
    {
        let mut shared = shared.borrow_mut();
        if shared.calls >= shared.max_calls {
            return Err(format!(
                "call of `{name}` not made: this program already made {} tool calls, its limit",
                shared.max_calls
            ));
        }
        shared.calls += 1;
    }
    let input = if input.is_undefined() {
        serde_json::Value::Object(serde_json::Map::new())
    } else {
        let text = ctx
            .json_stringify(input)
            .map_err(|err| {
                let caught = CaughtError::from_error(ctx, err);
                format!("the input of `{name}` cannot be written as JSON: {caught}")
            })?
            .ok_or_else(|| format!("the input of `{name}` cannot be written as JSON"))?
            .to_string()
            .map_err(|err| format!("the input of `{name}` is not text: {err}"))?;
        serde_json::from_str(&text)
            .map_err(|err| format!("the input of `{name}` is not JSON: {err}"))?
    };
    Ok(Request { name, input })
}

/// A value as `console.log` prints it: a string as is, anything else as
/// JSON, and what JSON cannot write by its type.
fn display<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> String {
    if let Some(text) = value.as_string() {
        return text.to_string().unwrap_or_default();
    }
    if value.is_undefined() {
        return "undefined".to_owned();
    }
    if value.is_function() {
        return "[function]".to_owned();
    }
    match ctx.json_stringify(value) {
        Ok(Some(text)) => text.to_string().unwrap_or_default(),
        Ok(None) => "undefined".to_owned(),
        Err(_) => {
            // A cycle, a BigInt: the exception is cleared, the value named.
            let _ = ctx.catch();
            "[unprintable value]".to_owned()
        }
    }
}

/// The program's result: what it printed, then what it returned.
fn finish<'js>(
    ctx: &Ctx<'js>,
    shared: &Rc<RefCell<Shared<'js>>>,
    value: Value<'js>,
) -> Result<Finished, ProgramError> {
    let value = if value.is_undefined() {
        None
    } else if let Some(text) = value.as_string() {
        Some(
            text.to_string()
                .map_err(|err| ProgramError::Result(err.to_string()))?,
        )
    } else {
        match ctx.json_stringify(value) {
            Ok(Some(text)) => Some(
                text.to_string()
                    .map_err(|err| ProgramError::Result(err.to_string()))?,
            ),
            Ok(None) => None,
            Err(err) => {
                let caught = CaughtError::from_error(ctx, err);
                return Err(ProgramError::Result(caught.to_string()));
            }
        }
    };
    let mut shared = shared.borrow_mut();
    let calls = shared.calls;
    let output = &mut shared.output;
    let value = value.map(|value| {
        let room = output.limit.saturating_sub(output.text.len());
        if value.len() > room {
            output.truncated = true;
            cut(&value, room).to_owned()
        } else {
            value
        }
    });
    Ok(Finished {
        printed: std::mem::take(&mut output.text),
        value,
        truncated: output.truncated,
        calls,
    })
}

fn limit_error(why: Interrupt, limits: &Limits) -> ProgramError {
    match why {
        Interrupt::Time => ProgramError::TimeLimit(limits.wall_time),
        Interrupt::Steps => ProgramError::StepLimit(limits.steps),
        Interrupt::Stopped => ProgramError::Stopped,
    }
}

/// What an exception out of the engine means: a limit the interrupt
/// handler enforced, the memory or stack limit, or the program's own.
fn classify<'js>(
    ctx: &Ctx<'js>,
    err: rquickjs::Error,
    limits: &Limits,
    interrupted: &Cell<Option<Interrupt>>,
) -> ProgramError {
    if let Some(why) = interrupted.get() {
        let _ = ctx.catch();
        return limit_error(why, limits);
    }
    let caught = CaughtError::from_error(ctx, err);
    let (message, stack) = match &caught {
        CaughtError::Exception(exception) => (
            exception.message().unwrap_or_default(),
            exception.stack().unwrap_or_default(),
        ),
        CaughtError::Value(value) => (display(ctx, value.clone()), String::new()),
        CaughtError::Error(rquickjs::Error::Allocation) => {
            return ProgramError::MemoryLimit(limits.memory_bytes);
        }
        CaughtError::Error(err) => return ProgramError::Engine(err.to_string()),
    };
    if message == "out of memory" {
        return ProgramError::MemoryLimit(limits.memory_bytes);
    }
    if message.contains("stack overflow") || message.contains("Maximum call stack size exceeded") {
        return ProgramError::StackLimit(limits.stack_bytes);
    }
    let name = match &caught {
        CaughtError::Exception(exception) => exception
            .get::<_, String>("name")
            .unwrap_or_else(|_| "Error".to_owned()),
        _ => String::new(),
    };
    let mut text = if name.is_empty() {
        message
    } else {
        format!("{name}: {message}")
    };
    let stack = stack.trim_end();
    if !stack.is_empty() {
        text.push('\n');
        text.push_str(stack);
    }
    ProgramError::Threw(text)
}
