//! Hooks around every call: what a runtime runs before a call (look at
//! it, rewrite its input, allow, ask or deny) and after it (look at the
//! result, redact or replace it, make it an error, end the turn), and
//! around each batch (look at the calls together, stop the turn), for
//! every call the executor runs: the model's, a program's (code mode) and
//! an MCP client's alike.
//!
//! See [`CallHook`] for where hooks sit in a call and how they fail.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::declare::ToolOutput;
use crate::input::handle::CatchUnwind;
use crate::permission::pipeline::Verdict;
use crate::permission::{Refusal, RefusedBy};
use crate::text::{cap_error_text, panic_message};

/// A hook's answer, as a boxed future (the trait stays object-safe).
pub type HookFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One call, as a hook sees it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct HookedCall<'a> {
    /// The tool's primary name (whatever name or alias the caller used).
    pub tool: &'a str,
    /// The call's id.
    pub id: &'a str,
    /// The input, as the hooks before this one left it.
    pub input: &'a Value,
    /// Whether a program made the call (code mode, or a provider's
    /// programmatic calling).
    pub by_program: bool,
    /// After the call: whether the body failed (the output is then its
    /// error message, as the model would read it). `false` before.
    pub is_error: bool,
}

/// What a hook says before a call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BeforeCall {
    /// Nothing to add.
    Continue,
    /// Run the call with this input instead; it is parsed and classified
    /// again.
    Rewrite(Value),
    /// Allow the call, as an allow rule would: deny rules, plan mode and
    /// ask rules still hold.
    Allow,
    /// A person must approve the call; they read this reason.
    Ask(String),
    /// Do not run the call; the model reads this reason.
    Deny(String),
}

/// What a hook says after a call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AfterCall {
    /// Keep the result.
    Keep,
    /// Replace the output (a redacted copy, say).
    Replace(ToolOutput),
    /// Withhold the output: the result is an error with this message.
    Error(String),
    /// Keep the result, and end the turn after this call's batch; the
    /// calls of later batches are not run (their results say why).
    EndTurn(String),
}

/// What a hook says around a batch (see [`CallHook::before_batch`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BatchVerdict {
    /// Nothing to add.
    Continue,
    /// Stop the turn. Before a batch: none of its calls runs (each is
    /// refused by the hook with this reason), nor any later one. After a
    /// batch: its results stand, and no later batch runs.
    Stop(String),
}

/// A hook around every call, added with
/// [`ExecutorBuilder::hook`](super::ExecutorBuilder::hook). Both methods
/// default to saying nothing, so a hook implements the side it cares
/// about.
///
/// # Where hooks sit in a call
///
/// 1. The name is resolved (an unknown tool, or one that does not allow
///    the call's caller, is refused; hooks never see it).
/// 2. **Before hooks**, in the order they were added. Each sees the input
///    as the hooks before it left it. `Rewrite` replaces the input for the
///    hooks after it and for the call; `Deny` ends the call there (later
///    hooks do not run); `Ask` and `Allow` are remembered (an `Ask` wins
///    over an `Allow`).
/// 3. The (possibly rewritten) input is parsed and classified: the call is
///    planned on what it will run with.
/// 4. The permission pipeline, with the hooks' verdict: a hook's `Ask`
///    asks right after the deny rules, the tool's own deny, plan mode and
///    the Rule of Two (as an ask rule does); a hook's `Allow` allows where
///    an allow rule would, after the ask rules. Deny rules come first, so
///    a hook can tighten a deny rule (deny what no rule denies) but never
///    loosen one, and a call that would complete the Rule of Two asks a
///    person whatever a hook allowed.
/// 5. The body runs.
/// 6. **After hooks**, in order, on what the body produced: its output,
///    or its error message as text (`is_error`; an error can quote what a
///    tool read), never a refusal or a timeout, whose text is the
///    executor's own. Each sees the output as the hooks before it left it. `Replace` swaps the
///    output (redact a block, drop one); `Error` makes the result an
///    error with that message (the output is withheld); `EndTurn` keeps
///    the result and runs no later batch of the turn (their calls are
///    answered with an error naming the hook).
/// 7. The result is capped and reported: what the model, the provider
///    adapters, the events and the spill files see is the hooked output.
///
/// Around each batch the planner made (calls that run together, or one
/// call alone), after every call's before hooks and before any of them
/// is authorized, [`before_batch`](Self::before_batch) sees the batch's
/// calls and may stop the turn; once all of them finished,
/// [`after_batch`](Self::after_batch) sees them (with `is_error`) and
/// may stop it too: what a hook can judge only of calls together (a read
/// and a send in one batch, a budget per batch).
///
/// A hook that panics or runs past the hook timeout (10 s unless
/// [`ExecutorBuilder::hook_timeout`](super::ExecutorBuilder::hook_timeout)
/// says) fails closed: before a call, the call is denied; after it, its
/// result is withheld; either way the message names the hook and what
/// happened. Without hooks, a call pays one emptiness check.
///
/// ```
/// use registry_core::ToolOutput;
/// use registry_core::execute::{AfterCall, CallHook, HookFuture, HookedCall};
///
/// /// Redacts a planted secret from every result.
/// struct Redact;
///
/// impl CallHook for Redact {
///     fn name(&self) -> &str {
///         "redact"
///     }
///
///     fn after<'a>(&'a self, _call: HookedCall<'a>, output: &'a ToolOutput) -> HookFuture<'a, AfterCall> {
///         Box::pin(async move {
///             let text = output.as_str();
///             if text.contains("sk-live-") {
///                 AfterCall::Replace(ToolOutput::text(text.replace("sk-live-", "[redacted]-")))
///             } else {
///                 AfterCall::Keep
///             }
///         })
///     }
/// }
/// ```
pub trait CallHook: Send + Sync + 'static {
    /// The hook's name, for messages and traces.
    fn name(&self) -> &str;

    /// Before the call's input is parsed.
    fn before<'a>(&'a self, call: HookedCall<'a>) -> HookFuture<'a, BeforeCall> {
        let _ = call;
        Box::pin(async { BeforeCall::Continue })
    }

    /// After the body produced `output`.
    fn after<'a>(
        &'a self,
        call: HookedCall<'a>,
        output: &'a ToolOutput,
    ) -> HookFuture<'a, AfterCall> {
        let _ = (call, output);
        Box::pin(async { AfterCall::Keep })
    }

    /// Before a batch of calls runs (each as its before hooks left it).
    fn before_batch<'a>(&'a self, calls: &'a [HookedCall<'a>]) -> HookFuture<'a, BatchVerdict> {
        let _ = calls;
        Box::pin(async { BatchVerdict::Continue })
    }

    /// After every call of a batch finished.
    fn after_batch<'a>(&'a self, calls: &'a [HookedCall<'a>]) -> HookFuture<'a, BatchVerdict> {
        let _ = calls;
        Box::pin(async { BatchVerdict::Continue })
    }
}

/// A shared hook is a hook: keep an `Arc` to read what it recorded.
impl<H: CallHook> CallHook for Arc<H> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn before<'a>(&'a self, call: HookedCall<'a>) -> HookFuture<'a, BeforeCall> {
        (**self).before(call)
    }

    fn after<'a>(
        &'a self,
        call: HookedCall<'a>,
        output: &'a ToolOutput,
    ) -> HookFuture<'a, AfterCall> {
        (**self).after(call, output)
    }

    fn before_batch<'a>(&'a self, calls: &'a [HookedCall<'a>]) -> HookFuture<'a, BatchVerdict> {
        (**self).before_batch(calls)
    }

    fn after_batch<'a>(&'a self, calls: &'a [HookedCall<'a>]) -> HookFuture<'a, BatchVerdict> {
        (**self).after_batch(calls)
    }
}

/// One call of a batch, as the batch hooks see it.
#[derive(Clone)]
pub(crate) struct BatchCall {
    pub(crate) tool: String,
    pub(crate) id: String,
    pub(crate) input: Arc<Value>,
    pub(crate) by_program: bool,
    /// After the batch: whether the call's result is an error.
    pub(crate) is_error: bool,
}

impl BatchCall {
    fn hooked(&self) -> HookedCall<'_> {
        HookedCall {
            tool: &self.tool,
            id: &self.id,
            input: &self.input,
            by_program: self.by_program,
            is_error: self.is_error,
        }
    }
}

/// What the before hooks made of a call.
pub(crate) struct Before {
    /// The input to run with.
    pub(crate) input: Value,
    /// Their verdict, if any said allow or ask.
    pub(crate) verdict: Option<Verdict>,
}

/// How the after hooks left a result.
pub(crate) enum After {
    /// The output to cap and report.
    Output(ToolOutput),
    /// Withheld, with the message the model reads.
    Withheld(String),
}

/// The executor's hooks, in the order they were added, and how long each
/// may take.
#[derive(Clone)]
pub(crate) struct Hooks {
    hooks: Arc<[Arc<dyn CallHook>]>,
    timeout: Duration,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            hooks: Arc::from([]),
            timeout: Duration::from_secs(10),
        }
    }
}

impl Hooks {
    pub(crate) fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    pub(crate) fn push(&mut self, hook: Arc<dyn CallHook>) {
        let mut hooks = self.hooks.to_vec();
        hooks.push(hook);
        self.hooks = Arc::from(hooks);
    }

    pub(crate) fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Runs every before hook; `Err` is the refusal that ends the call.
    pub(crate) async fn before(
        &self,
        tool: &str,
        id: &str,
        mut input: Value,
        by_program: bool,
    ) -> Result<Before, Refusal> {
        let mut verdict = None;
        for hook in self.hooks.iter() {
            let call = HookedCall {
                tool,
                id,
                input: &input,
                by_program,
                is_error: false,
            };
            let said = match self.settle(|| hook.before(call)).await {
                Ok(said) => said,
                Err(failure) => {
                    return Err(Refusal::new(
                        RefusedBy::Hook(hook.name().to_owned()),
                        format!(
                            "the hook `{}` {failure} before the call, so the call was not run",
                            hook.name()
                        ),
                    ));
                }
            };
            match said {
                BeforeCall::Continue => {}
                BeforeCall::Rewrite(rewritten) => input = rewritten,
                BeforeCall::Allow => {
                    if verdict.is_none() {
                        verdict = Some(Verdict::Allow(hook.name().to_owned()));
                    }
                }
                BeforeCall::Ask(reason) => {
                    if !matches!(verdict, Some(Verdict::Ask(_))) {
                        verdict = Some(Verdict::Ask(cap_error_text(&reason).into_owned()));
                    }
                }
                BeforeCall::Deny(reason) => {
                    return Err(Refusal::new(
                        RefusedBy::Hook(hook.name().to_owned()),
                        cap_error_text(&reason).into_owned(),
                    ));
                }
            }
        }
        Ok(Before { input, verdict })
    }

    /// Runs every after hook on `output`; the second value is why the
    /// turn ends, when a hook ended it.
    pub(crate) async fn after(
        &self,
        tool: &str,
        id: &str,
        input: &Value,
        by_program: bool,
        is_error: bool,
        mut output: ToolOutput,
    ) -> (After, Option<String>) {
        let mut end = None;
        for hook in self.hooks.iter() {
            let call = HookedCall {
                tool,
                id,
                input,
                by_program,
                is_error,
            };
            let said = match self.settle(|| hook.after(call, &output)).await {
                Ok(said) => said,
                Err(failure) => {
                    let message = format!(
                        "the result of `{tool}` was withheld: the hook `{}` {failure} after the call",
                        hook.name()
                    );
                    return (After::Withheld(message), end);
                }
            };
            match said {
                AfterCall::Keep => {}
                AfterCall::Replace(replaced) => output = replaced,
                AfterCall::Error(message) => {
                    return (After::Withheld(cap_error_text(&message).into_owned()), end);
                }
                AfterCall::EndTurn(reason) => {
                    end.get_or_insert_with(|| {
                        format!(
                            "the hook `{}` ended the turn: {}",
                            hook.name(),
                            cap_error_text(&reason)
                        )
                    });
                }
            }
        }
        (After::Output(output), end)
    }

    /// Runs every hook's `before_batch` (`after`: `after_batch`); the
    /// first `Stop` (or a hook that fails: it fails closed) names the hook
    /// and why.
    pub(crate) async fn around_batch(
        &self,
        calls: &[BatchCall],
        after: bool,
    ) -> Option<(String, String)> {
        let hooked: Vec<HookedCall<'_>> = calls.iter().map(BatchCall::hooked).collect();
        let when = if after { "after" } else { "before" };
        for hook in self.hooks.iter() {
            let said = self
                .settle(|| match after {
                    false => hook.before_batch(&hooked),
                    true => hook.after_batch(&hooked),
                })
                .await;
            match said {
                Ok(BatchVerdict::Continue) => {}
                Ok(BatchVerdict::Stop(reason)) => {
                    return Some((hook.name().to_owned(), cap_error_text(&reason).into_owned()));
                }
                Err(failure) => {
                    return Some((
                        hook.name().to_owned(),
                        format!("the hook {failure} {when} a batch, so the turn stopped"),
                    ));
                }
            }
        }
        None
    }

    /// A hook's answer, or how it failed ("panicked (...)", "did not
    /// answer within ..."): a panic while making the future or while
    /// polling it, or no answer in time.
    async fn settle<'a, T>(&self, ask: impl FnOnce() -> HookFuture<'a, T>) -> Result<T, String> {
        let panicked = |payload: Box<dyn std::any::Any + Send>| {
            format!(
                "panicked ({})",
                cap_error_text(&panic_message(payload.as_ref()))
            )
        };
        let answer =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(ask)).map_err(panicked)?;
        let mut answer = std::pin::pin!(CatchUnwind(answer));
        // Most hooks answer at once (the defaults always do): polled once
        // first, they never arm a timer.
        let first =
            std::future::poll_fn(|cx| std::task::Poll::Ready(answer.as_mut().poll(cx))).await;
        let answered = match first {
            std::task::Poll::Ready(answered) => Ok(answered),
            std::task::Poll::Pending => tokio::time::timeout(self.timeout, answer).await,
        };
        match answered {
            Ok(Ok(said)) => Ok(said),
            Ok(Err(payload)) => Err(panicked(payload)),
            Err(_) => Err(format!("did not answer within {:?}", self.timeout)),
        }
    }
}
