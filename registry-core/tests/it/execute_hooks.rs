//! Hooks around every call: before (rewrite, allow, ask, deny), after
//! (redact, withhold, end the turn), failing closed, never loosening a
//! deny rule, and seeing a program's calls as the model's.

use crate::execute_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use execute_support::*;
use registry_core::declare::Exposure;
use registry_core::execute::{
    AfterCall, BatchVerdict, BeforeCall, CallHook, HookFuture, HookedCall,
};
use registry_core::permission::{Approval, RefusedBy, RuleBehavior, RuleSource};
use registry_core::provider::Provider;
use registry_core::{
    PermissionContext, PermissionMode, ToolBuilder, ToolCall, ToolHandle, ToolOutput,
};
use serde_json::{Value, json};

const SECRET: &str = "sk-live-4f9a2b7c";

/// A file tool whose files hold a planted secret; `write_note` writes.
fn tools() -> Vec<ToolHandle> {
    let read_file = ToolBuilder::new("read_file", "Read a file.")
        .read_only(true)
        .concurrency_safe(true)
        .build(|args: Value, _| async move {
            let path = args["path"].as_str().unwrap_or_default().to_owned();
            Ok(ToolOutput::text(format!("{path}: API_KEY={SECRET}\nok")))
        })
        .unwrap();
    let grep = ToolBuilder::new("grep", "Search files.")
        .read_only(true)
        .concurrency_safe(true)
        .build(
            |_: Value, _| async move { Ok(ToolOutput::text(format!(".env:1:API_KEY={SECRET}"))) },
        )
        .unwrap();
    // Writes a note in the conversation's workspace: an effect, nothing
    // read back.
    let write_note = ToolBuilder::new("write_note", "Write a note.")
        .rule_of_two([Exposure::ExternalEffect])
        .build(
            |args: Value, _| async move { Ok(ToolOutput::text(format!("wrote {}", args["text"]))) },
        )
        .unwrap();
    // Fails with what it read in its message.
    let parse_env = ToolBuilder::new("parse_env", "Parse an env file.")
        .read_only(true)
        .build(|_: Value, _| async move {
            Err::<ToolOutput, _>(format!("bad line `API_KEY={SECRET}x`").into())
        })
        .unwrap();
    vec![read_file, grep, write_note, parse_env]
}

/// Redacts the secret from every result; records what it saw.
#[derive(Default)]
struct Redact {
    seen: Mutex<Vec<(String, bool)>>,
}

impl CallHook for Redact {
    fn name(&self) -> &str {
        "redact"
    }

    fn before<'a>(&'a self, call: HookedCall<'a>) -> HookFuture<'a, BeforeCall> {
        self.seen
            .lock()
            .unwrap()
            .push((call.tool.to_owned(), call.by_program));
        Box::pin(async { BeforeCall::Continue })
    }

    fn after<'a>(
        &'a self,
        _call: HookedCall<'a>,
        output: &'a ToolOutput,
    ) -> HookFuture<'a, AfterCall> {
        Box::pin(async move {
            let text = output.as_str();
            if text.contains(SECRET) {
                AfterCall::Replace(ToolOutput::text(text.replace(SECRET, "[redacted]")))
            } else {
                AfterCall::Keep
            }
        })
    }
}

/// A hook that says `before` to every call of `tool`, and `after` to its
/// results.
struct Says {
    tool: &'static str,
    before: BeforeCall,
    after: AfterCall,
}

impl CallHook for Says {
    fn name(&self) -> &str {
        "says"
    }

    fn before<'a>(&'a self, call: HookedCall<'a>) -> HookFuture<'a, BeforeCall> {
        let said = if call.tool == self.tool {
            self.before.clone()
        } else {
            BeforeCall::Continue
        };
        Box::pin(async move { said })
    }

    fn after<'a>(
        &'a self,
        call: HookedCall<'a>,
        _output: &'a ToolOutput,
    ) -> HookFuture<'a, AfterCall> {
        let said = if call.tool == self.tool {
            self.after.clone()
        } else {
            AfterCall::Keep
        };
        Box::pin(async move { said })
    }
}

fn says(tool: &'static str, before: BeforeCall, after: AfterCall) -> Says {
    Says {
        tool,
        before,
        after,
    }
}

#[test]
fn a_redaction_hook_cleans_every_result_before_the_model_sees_it() {
    let redact = Arc::new(Redact::default());
    let exec = registry_of(tools())
        .executor()
        .hook(Arc::clone(&redact))
        .build();
    let rt = paused_runtime();
    // Through a provider adapter, as the model would get them.
    let response = json!({
        "content": [
            { "type": "tool_use", "id": "t1", "name": "read_file", "input": { "path": ".env" } },
            { "type": "tool_use", "id": "t2", "name": "grep", "input": { "pattern": "KEY" } }
        ]
    });
    let next = rt
        .block_on(Provider::Anthropic.respond(&exec, &response))
        .unwrap();
    let sent = serde_json::to_string(&next.results).unwrap();
    assert!(!sent.contains(SECRET), "{sent}");
    assert_eq!(sent.matches("[redacted]").count(), 2, "{sent}");
    assert_eq!(
        *redact.seen.lock().unwrap(),
        [("read_file".to_owned(), false), ("grep".to_owned(), false)]
    );
}

#[test]
fn a_redaction_hook_cleans_an_error_that_quotes_a_secret() {
    let redact = Arc::new(Redact::default());
    let exec = registry_of(tools())
        .executor()
        .hook(Arc::clone(&redact))
        .build();
    let rt = paused_runtime();
    let results = rt.block_on(exec.run_turn(vec![ToolCall::new("1", "parse_env", json!({}))]));
    assert!(results[0].is_error());
    assert!(
        !results[0].content().contains(SECRET),
        "{}",
        results[0].content()
    );
    assert!(
        results[0].content().contains("[redacted]x"),
        "{}",
        results[0].content()
    );
    // A refusal is the executor's own text: hooks do not see it.
    let results = rt.block_on(exec.run_turn(vec![ToolCall::new("2", "nope", json!({}))]));
    assert_eq!(results[0].content(), "no such tool: `nope`");
}

#[test]
fn a_hook_denies_asks_allows_and_rewrites() {
    let rt = paused_runtime();
    let call = |input| vec![ToolCall::new("1", "write_note", input)];
    // Deny: refused by the hook, with its reason.
    let exec = registry_of(tools())
        .executor()
        .mode(PermissionMode::Bypass)
        .hook(says(
            "write_note",
            BeforeCall::Deny("no notes today".into()),
            AfterCall::Keep,
        ))
        .build();
    let results = rt.block_on(exec.run_turn(call(json!({ "text": "x" }))));
    assert_eq!(
        results[0].content(),
        "permission to run `write_note` was denied: no notes today"
    );
    assert_eq!(
        results[0].refusal().unwrap().by,
        RefusedBy::Hook("says".into())
    );

    // Allow: a write that would ask (default mode, no approver) runs.
    let exec = registry_of(tools())
        .executor()
        .hook(says("write_note", BeforeCall::Allow, AfterCall::Keep))
        .build();
    let results = rt.block_on(exec.run_turn(call(json!({ "text": "x" }))));
    assert_eq!(results[0].content(), r#"wrote "x""#);

    // Ask: even a read asks; the approver is consulted with the reason.
    let asked = Arc::new(Mutex::new(Vec::new()));
    let exec = {
        let asked = Arc::clone(&asked);
        registry_of(tools())
            .executor()
            .hook(says(
                "read_file",
                BeforeCall::Ask("a person looks first".into()),
                AfterCall::Keep,
            ))
            .approve_with(move |request| {
                asked.lock().unwrap().push(request.reason.clone());
                async { Approval::Deny { reason: None } }
            })
            .build()
    };
    let results = rt.block_on(exec.run_turn(vec![ToolCall::new(
        "1",
        "read_file",
        json!({ "path": "a" }),
    )]));
    assert!(results[0].is_error());
    assert_eq!(asked.lock().unwrap().len(), 1);
    assert!(asked.lock().unwrap()[0].contains("a person looks first"));

    // Rewrite: the tool runs with the hook's input.
    let exec = registry_of(tools())
        .executor()
        .mode(PermissionMode::Bypass)
        .hook(says(
            "write_note",
            BeforeCall::Rewrite(json!({ "text": "rewritten" })),
            AfterCall::Keep,
        ))
        .build();
    let results = rt.block_on(exec.run_turn(call(json!({ "text": "x" }))));
    assert_eq!(results[0].content(), r#"wrote "rewritten""#);
}

#[test]
fn a_hooks_allow_never_loosens_a_deny_rule() {
    let mut rules = PermissionContext::new();
    rules
        .add_rule(RuleSource::User, RuleBehavior::Deny, "write_note")
        .unwrap();
    let rt = paused_runtime();
    for mode in [PermissionMode::Default, PermissionMode::Bypass] {
        let exec = registry_of(tools())
            .executor()
            .mode(mode)
            .permissions(rules.clone())
            .hook(says("write_note", BeforeCall::Allow, AfterCall::Keep))
            .build();
        let results = rt.block_on(exec.run_turn(vec![ToolCall::new(
            "1",
            "write_note",
            json!({ "text": "x" }),
        )]));
        assert!(results[0].is_error(), "{mode:?}: {}", results[0].content());
    }
}

/// A hook that panics, or never answers, on the side it is told.
struct Broken {
    panics: bool,
    before: bool,
}

impl CallHook for Broken {
    fn name(&self) -> &str {
        "broken"
    }

    fn before<'a>(&'a self, _call: HookedCall<'a>) -> HookFuture<'a, BeforeCall> {
        let (panics, now) = (self.panics, self.before);
        Box::pin(async move {
            if now && panics {
                panic!("the hook broke");
            }
            if now {
                std::future::pending::<()>().await;
            }
            BeforeCall::Continue
        })
    }

    fn after<'a>(
        &'a self,
        _call: HookedCall<'a>,
        _output: &'a ToolOutput,
    ) -> HookFuture<'a, AfterCall> {
        let (panics, now) = (self.panics, !self.before);
        Box::pin(async move {
            if now && panics {
                panic!("the hook broke");
            }
            if now {
                std::future::pending::<()>().await;
            }
            AfterCall::Keep
        })
    }
}

#[test]
fn a_failing_hook_fails_closed() {
    let rt = paused_runtime();
    for (panics, before, expected) in [
        (
            true,
            true,
            "the hook `broken` panicked (the hook broke) before the call, so the call was not run",
        ),
        (
            false,
            true,
            "the hook `broken` did not answer within 2s before the call, so the call was not run",
        ),
        (
            true,
            false,
            "the result of `read_file` was withheld: the hook `broken` panicked (the hook broke) after the call",
        ),
        (
            false,
            false,
            "the result of `read_file` was withheld: the hook `broken` did not answer within 2s after the call",
        ),
    ] {
        let exec = registry_of(tools())
            .executor()
            .hook(Broken { panics, before })
            .hook_timeout(Duration::from_secs(2))
            .build();
        let results = rt.block_on(exec.run_turn(vec![ToolCall::new(
            "1",
            "read_file",
            json!({ "path": "a" }),
        )]));
        assert!(results[0].is_error());
        assert!(
            results[0].content().ends_with(expected),
            "{}",
            results[0].content()
        );
        assert!(!results[0].content().contains(SECRET));
    }
}

#[test]
fn an_after_hook_can_withhold_a_result_or_end_the_turn() {
    let rt = paused_runtime();
    let exec = registry_of(tools())
        .executor()
        .mode(PermissionMode::Bypass)
        .hook(says(
            "grep",
            BeforeCall::Continue,
            AfterCall::Error("grep output is not for the model".into()),
        ))
        .build();
    let results = rt.block_on(exec.run_turn(vec![ToolCall::new("1", "grep", json!({}))]));
    assert!(results[0].is_error());
    assert_eq!(results[0].content(), "grep output is not for the model");

    // The read's batch ends the turn: the write, in a later batch, is not
    // run.
    let exec = registry_of(tools())
        .executor()
        .mode(PermissionMode::Bypass)
        .hook(says(
            "read_file",
            BeforeCall::Continue,
            AfterCall::EndTurn("an injected instruction".into()),
        ))
        .build();
    let results = rt.block_on(exec.run_turn(vec![
        ToolCall::new("1", "read_file", json!({ "path": "page.html" })),
        ToolCall::new("2", "write_note", json!({ "text": "x" })),
    ]));
    assert!(!results[0].is_error(), "the result itself is kept");
    assert_eq!(
        results[1].content(),
        "tool `write_note` was not run: the hook `says` ended the turn: an injected instruction"
    );
}

#[test]
fn hooks_see_a_programs_calls_as_the_models() {
    let redact = Arc::new(Redact::default());
    let kept = Arc::new(Mutex::new(None));
    let mut tools = tools();
    tools.push(runner(&kept));
    let exec = registry_of(tools)
        .executor()
        .mode(PermissionMode::Bypass)
        .hook(Arc::clone(&redact))
        .build();
    let rt = paused_runtime();
    let results = rt.block_on(exec.run_turn(vec![ToolCall::new(
        "outer",
        "runner",
        json!({ "calls": [["read_file", { "path": ".env" }]] }),
    )]));
    assert!(
        !results[0].content().contains(SECRET),
        "{}",
        results[0].content()
    );
    assert!(results[0].content().contains("[redacted]"));
    assert_eq!(
        *redact.seen.lock().unwrap(),
        [("runner".to_owned(), false), ("read_file".to_owned(), true)]
    );
}

/// Refuses a batch that reads a file and writes a note together, and
/// counts what it saw before and after each batch.
#[derive(Default)]
struct NoReadAndWrite {
    seen: Mutex<Vec<String>>,
}

impl CallHook for NoReadAndWrite {
    fn name(&self) -> &str {
        "no_read_and_write"
    }

    fn before_batch<'a>(&'a self, calls: &'a [HookedCall<'a>]) -> HookFuture<'a, BatchVerdict> {
        let tools: Vec<&str> = calls.iter().map(|c| c.tool).collect();
        self.seen.lock().unwrap().push(format!("before {tools:?}"));
        let both = tools.contains(&"read_file") && tools.contains(&"grep");
        Box::pin(async move {
            if both {
                BatchVerdict::Stop(
                    "reads of files and of search results never share a batch".into(),
                )
            } else {
                BatchVerdict::Continue
            }
        })
    }

    fn after_batch<'a>(&'a self, calls: &'a [HookedCall<'a>]) -> HookFuture<'a, BatchVerdict> {
        let errors = calls.iter().filter(|c| c.is_error).count();
        self.seen
            .lock()
            .unwrap()
            .push(format!("after {} ({errors} failed)", calls.len()));
        Box::pin(async { BatchVerdict::Continue })
    }
}

#[test]
fn batch_hooks_see_each_batch_and_can_stop_the_turn() {
    let rt = paused_runtime();
    let hook = Arc::new(NoReadAndWrite::default());
    let exec = registry_of(tools())
        .executor()
        .mode(PermissionMode::Bypass)
        .hook(Arc::clone(&hook))
        .build();
    // One call alone: its batch is itself.
    let results = rt.block_on(exec.run_turn(vec![ToolCall::new("1", "parse_env", json!({}))]));
    assert!(results[0].is_error());
    assert_eq!(
        *hook.seen.lock().unwrap(),
        ["before [\"parse_env\"]", "after 1 (1 failed)"]
    );

    // Two reads in one batch: stopped before either runs; the write in
    // the next batch does not run either.
    hook.seen.lock().unwrap().clear();
    let results = rt.block_on(exec.run_turn(vec![
        ToolCall::new("1", "read_file", json!({ "path": "a" })),
        ToolCall::new("2", "grep", json!({})),
        ToolCall::new("3", "write_note", json!({ "text": "x" })),
    ]));
    for result in &results[..2] {
        assert_eq!(
            result.refusal().map(|r| &r.by),
            Some(&RefusedBy::Hook("no_read_and_write".into()))
        );
        assert!(!result.content().contains(SECRET));
    }
    assert!(
        results[2]
            .content()
            .contains("the hook `no_read_and_write` stopped the turn"),
        "{}",
        results[2].content()
    );
    assert_eq!(
        *hook.seen.lock().unwrap(),
        ["before [\"read_file\", \"grep\"]"]
    );
}

/// A batch hook that panics stops the turn: fails closed.
struct PanicsAroundBatches;

impl CallHook for PanicsAroundBatches {
    fn name(&self) -> &str {
        "panics"
    }

    fn before_batch<'a>(&'a self, _: &'a [HookedCall<'a>]) -> HookFuture<'a, BatchVerdict> {
        panic!("batch hook bug")
    }
}

#[test]
fn a_failing_batch_hook_fails_closed() {
    let rt = paused_runtime();
    let exec = registry_of(tools())
        .executor()
        .mode(PermissionMode::Bypass)
        .hook(PanicsAroundBatches)
        .build();
    let results = rt.block_on(exec.run_turn(vec![ToolCall::new(
        "1",
        "read_file",
        json!({ "path": "a" }),
    )]));
    assert_eq!(
        results[0].refusal().map(|r| &r.by),
        Some(&RefusedBy::Hook("panics".into()))
    );
    assert!(
        results[0]
            .content()
            .contains("panicked (batch hook bug) before a batch"),
        "{}",
        results[0].content()
    );
}
