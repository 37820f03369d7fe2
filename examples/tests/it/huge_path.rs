//! A `path` argument of 100 MB (`a/a/a/…`, fifty million components),
//! through the executor with the real tools (`read_file` in every
//! permission mode, the other file tools in two), with and without path
//! deny rules: refused by its length alone, before anything walks it.
//!
//! Nothing here is timed (the machines tests run on are shared and
//! noisy). What is asserted instead is *where* the call is refused: by
//! the tool's input validation, whose error names the `path` argument
//! and its length, so the permission pipeline (which normalises the path,
//! matches rules against it and resolves it component by component) never
//! sees it; the streamed events show no permission decision at all. The
//! cost was in those steps, and in the batch planner's access key (one
//! part per component, built before validation): 3.5 GiB and 8–9 s in
//! release, in every mode. The key is every path now, decided by
//! `AccessKey::path` from the length, for every tool that declares one.
//!
//! Measured by hand (see [`by_hand`]): release build, 100 MiB path,
//! `read_file` and `edit_file` in bypass mode: well under a second and
//! about twice the path's size in peak memory, the path's own copy in the
//! arguments and the parsed input's.

use std::sync::Arc;

use registry_core::execute::ExecEvent;
use registry_core::permission::RuleOfTwo;
use registry_core::permission::{
    Approval, ApprovalRequest, Approver, Grants, JudgeFuture, PermissionPolicy, Refusal,
    RuleBehavior, RuleSource,
};
use registry_core::{
    Flags, PermissionContext, PermissionMode, Tool, ToolCall, ToolCallResult, ToolHandle,
    ToolRegistry, catalog::BaseTools, path::MAX_PATH_BYTES,
};
use registry_examples::tools::read_file::{ReadFile, ReadFileError, ReadFileInput};
use registry_examples::{Sandbox, SandboxError};
use serde_json::{Map, Value};

/// What the sandbox's files say: a result holding it read a file.
const SECRET: &str = "the contents of a file nobody may read";

/// The size of the path the brief is about.
const HUGE: usize = 100 * 1024 * 1024;

/// The modes a runtime can run a turn in without a classifier.
const MODES: [PermissionMode; 5] = [
    PermissionMode::Default,
    PermissionMode::Bypass,
    PermissionMode::DontAsk,
    PermissionMode::Plan,
    PermissionMode::AcceptEdits,
];

/// Deny rules a project might hold about paths.
const DENY: [&str; 2] = ["read_file(**/.env)", "read_file(secrets/**)"];

/// The other file tools that take a `path`, each with the rest of its
/// arguments (valid, so only the path can be what is refused; run, they
/// would read or overwrite the files that say [`SECRET`]).
const OTHER_TOOLS: [(&str, &[(&str, &str)]); 5] = [
    (
        "edit_file",
        &[("old_string", SECRET), ("new_string", "overwritten")],
    ),
    ("write_file", &[("content", "overwritten")]),
    ("grep", &[("pattern", "contents")]),
    ("glob", &[("pattern", "**")]),
    ("list_dir", &[]),
];

/// Approves everything, so an ask is never what stops the call.
struct ApproveAll;

impl Approver for ApproveAll {
    fn approve<'a>(&'a self, _request: &'a ApprovalRequest) -> JudgeFuture<'a, Approval> {
        Box::pin(async { Approval::AllowOnce })
    }
}

/// `a/a/…/a`, `bytes` bytes long (give or take one).
fn huge_path(bytes: usize) -> String {
    let mut path = "a/".repeat(bytes / 2);
    path.pop();
    path
}

/// `read_file`'s arguments, the path moved in (never copied).
fn args(path: String) -> Value {
    tool_args(path, &[])
}

/// A tool's arguments: the path moved in, and `rest`.
fn tool_args(path: String, rest: &[(&str, &str)]) -> Value {
    let mut args = Map::from_iter([("path".to_owned(), Value::String(path))]);
    for (name, value) in rest {
        args.insert((*name).to_owned(), Value::String((*value).to_owned()));
    }
    Value::Object(args)
}

/// A sandbox whose files all say [`SECRET`], among them the ones the deny
/// rules are about.
fn sandbox() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("secrets")).expect("dir");
    for file in [".env", "secrets/key", "a"] {
        std::fs::write(dir.path().join(file), SECRET).expect("file");
    }
    dir
}

fn rules(deny: &[&str]) -> PermissionContext {
    let mut rules = PermissionContext::new();
    for rule in deny {
        rules
            .add_rule(RuleSource::Project, RuleBehavior::Deny, rule)
            .expect("rule");
    }
    rules
}

/// One `read_file` call of `path` through an executor over the real tools,
/// streamed when `events` is given.
async fn run(
    registry: &ToolRegistry,
    mode: PermissionMode,
    deny: &[&str],
    path: String,
    events: Option<tokio::sync::mpsc::UnboundedSender<ExecEvent>>,
) -> ToolCallResult {
    let dir = sandbox();
    let call = ToolCall::new("call-1", "read_file", args(path));
    run_in(registry, dir.path(), mode, deny, call, events).await
}

/// One call through an executor over the real tools, sandboxed in `dir`,
/// streamed when `events` is given.
async fn run_in(
    registry: &ToolRegistry,
    dir: &std::path::Path,
    mode: PermissionMode,
    deny: &[&str],
    call: ToolCall,
    events: Option<tokio::sync::mpsc::UnboundedSender<ExecEvent>>,
) -> ToolCallResult {
    let executor = registry
        .executor()
        .permissions(rules(deny))
        .mode(mode)
        // A runtime that runs a shell in bypass mode names it unattended.
        .rule_of_two(RuleOfTwo::new().allow_unattended("run_command"))
        .approver(Arc::new(ApproveAll))
        .workspace(dir)
        .context(Sandbox::new(dir).expect("sandbox").context())
        .build();
    let calls = vec![call];
    let mut results = match events {
        Some(events) => executor.run_turn_streaming(calls, events).await,
        None => executor.run_turn(calls).await,
    };
    results.remove(0)
}

/// The refusal `read_file`'s validation gives a path of `len` bytes.
fn refused_by_length(len: usize) -> String {
    SandboxError::ArgumentTooLong {
        argument: "path",
        len,
    }
    .to_string()
}

/// Every mode, with the deny rules (streamed, so the events show how far
/// the call got) and without them (through `run_turn`). Without rules the
/// path is cut to 10 MB: still five million components, 2,500 times what
/// the kernel takes, and the same code path (the length decides before
/// any rule is read), for a test that stays well under two seconds in a
/// debug build; each 100 MB call costs two fresh copies of the path (the
/// arguments and the parsed input), and faulting those in is what takes
/// the time.
#[tokio::test]
async fn a_100_mb_path_is_refused_by_its_length_in_every_mode() {
    let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).expect("catalog"));
    let path = huge_path(HUGE);
    let cut = &path[..HUGE / 10];
    for mode in MODES {
        for (deny, path) in [(&DENY[..], &path[..]), (&[][..], cut)] {
            let streamed = !deny.is_empty();
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let events = streamed.then_some(tx);
            let result = run(&registry, mode, deny, path.to_owned(), events).await;
            let case = format!("{mode}, deny rules {deny:?}, {} bytes", path.len());
            assert!(result.is_error(), "{case}: {}", result.content());
            assert!(!result.content().contains(SECRET), "{case}");
            // Refused by validation, naming the argument: before the
            // permission pipeline, the one place that normalises,
            // matches and resolves the path.
            assert!(
                result.content().contains(&refused_by_length(path.len())),
                "{case}: {}",
                result.content()
            );
            let mut seen = 0;
            while let Ok(event) = rx.try_recv() {
                seen += 1;
                assert!(
                    !matches!(event, ExecEvent::Permission { .. }),
                    "{case}: reached the permission pipeline: {event:?}"
                );
            }
            assert!(!streamed || seen > 0, "{case}: no events");
        }
    }
}

/// The other file tools, which declare their `path` as their access too:
/// the same 100 MB path in bypass mode, and cut to 10 MB in the default
/// one, under deny rules about paths (their own), streamed. Each is
/// refused by its own validation naming `path` (the executor builds the
/// access key first, from the same text, which is what cost gigabytes),
/// and no file is read or written.
///
/// Two modes, not five, and one of them cut: each call costs two fresh
/// copies of the path (the arguments, the parsed input), and faulting
/// those in is all the time this test takes (about 0.2 s per 100 MB call
/// in a debug build); the mode does not reach validation, as the test
/// above shows for `read_file` in all five.
#[tokio::test]
async fn a_100_mb_path_is_refused_by_every_file_tool() {
    let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).expect("catalog"));
    let dir = sandbox();
    let path = huge_path(HUGE);
    let cut = &path[..HUGE / 10];
    for (mode, path) in [
        (PermissionMode::Bypass, &path[..]),
        (PermissionMode::Default, cut),
    ] {
        for (tool, rest) in OTHER_TOOLS {
            let deny = [format!("{tool}(**/.env)"), format!("{tool}(secrets/**)")];
            let deny: Vec<&str> = deny.iter().map(String::as_str).collect();
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let call = ToolCall::new("call-1", tool, tool_args(path.to_owned(), rest));
            let result = run_in(&registry, dir.path(), mode, &deny, call, Some(tx)).await;
            let case = format!("{tool}, {mode}, {} bytes", path.len());
            assert!(result.is_error(), "{case}: {}", result.content());
            assert!(
                result.content().contains(&refused_by_length(path.len())),
                "{case}: {}",
                result.content()
            );
            // No contents, no listing.
            for found in [SECRET, ".env", "secrets/key", "overwritten"] {
                assert!(!result.content().contains(found), "{case}: {found}");
            }
            let mut seen = 0;
            while let Ok(event) = rx.try_recv() {
                seen += 1;
                assert!(
                    !matches!(event, ExecEvent::Permission { .. }),
                    "{case}: reached the permission pipeline: {event:?}"
                );
            }
            assert!(seen > 0, "{case}: no events");
        }
    }
    for file in [".env", "secrets/key", "a"] {
        let text = std::fs::read_to_string(dir.path().join(file)).expect("still there");
        assert_eq!(text, SECRET, "{file} was written");
    }
}

/// The length check is a shortcut, not the gate: a runtime that
/// authorizes a call without validating it first still gets a denial
/// in every mode (the deny rule cannot be checked against a path that
/// long, and the tool's own check refuses it), never the file.
#[tokio::test]
async fn without_validation_the_pipeline_still_denies_it() {
    let dir = sandbox();
    let cx = Sandbox::new(dir.path()).expect("sandbox").context();
    let handle = ToolHandle::new(ReadFile);
    // Just over the limit: every step past validation reads it in full.
    let path = huge_path(MAX_PATH_BYTES + 2);
    assert!(path.len() > MAX_PATH_BYTES);
    let call = handle.prepare(args(path.clone())).expect("parses");
    for mode in MODES {
        for deny in [&[][..], &DENY[..]] {
            let policy = PermissionPolicy::new(mode)
                .with_approver(Arc::new(ApproveAll))
                .with_workspace(dir.path());
            let answer = policy
                .authorize(&rules(deny), &Grants::default(), &call, "1", &cx)
                .await;
            let case = format!("{mode}, deny rules {deny:?}");
            let Some(Refusal { reason, .. }) = answer.refusal() else {
                panic!("{case}: {answer:?}");
            };
            assert!(
                reason.contains(&format!("is {} bytes long", path.len())),
                "{case}: {reason}"
            );
        }
    }
}

/// Code holding the tool calls it directly, with no executor: the same
/// refusal, from `call` itself.
#[tokio::test]
async fn a_direct_call_is_refused_by_its_length() {
    let dir = sandbox();
    let cx = Sandbox::new(dir.path()).expect("sandbox").context();
    let path = huge_path(HUGE / 16);
    let len = path.len();
    let input = ReadFileInput {
        path,
        offset: None,
        limit: None,
    };
    let err = ReadFile.call(input, &cx).await.unwrap_err();
    assert!(
        matches!(
            err,
            ReadFileError::Sandbox(SandboxError::ArgumentTooLong { argument: "path", len: l }) if l == len
        ),
        "{err}"
    );
}

/// A path at the limit is still a path: read, or refused by what it
/// names, as any other.
#[tokio::test]
async fn a_path_at_the_limit_is_judged_as_usual() {
    let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).expect("catalog"));
    // `./././…/.env`, exactly `MAX_PATH_BYTES` long.
    let mut path = "./".repeat((MAX_PATH_BYTES - ".env".len()) / 2);
    path.push_str(".env");
    assert_eq!(path.len(), MAX_PATH_BYTES);
    let result = run(&registry, PermissionMode::Bypass, &DENY, path.clone(), None).await;
    assert!(result.is_error(), "{}", result.content());
    assert!(
        result.content().contains("deny rule `read_file(**/.env)`"),
        "{}",
        result.content()
    );
    let result = run(&registry, PermissionMode::Bypass, &[], path, None).await;
    assert!(!result.is_error(), "{}", result.content());
    assert!(result.content().contains(SECRET));
}

/// By hand, for the time and the peak memory of one call (release):
///
/// ```text
/// cargo test --release -p registry-examples --test it --no-run
/// HUGE_PATH_TOOL=edit_file HUGE_PATH_MODE=bypass HUGE_PATH_RULES=1 /usr/bin/time -v \
///     target/release/deps/it-<hash> huge_path::by_hand --ignored --exact --nocapture
/// ```
///
/// `HUGE_PATH_TOOL` is `read_file` (the default) or one of
/// [`OTHER_TOOLS`]; `HUGE_PATH_MIB` sets the size (default 100; 0
/// measures the base).
#[tokio::test]
#[ignore = "measured by hand"]
async fn by_hand() {
    let tool = std::env::var("HUGE_PATH_TOOL").unwrap_or_else(|_| "read_file".into());
    let rest = OTHER_TOOLS
        .iter()
        .find(|(name, _)| *name == tool)
        .map_or(&[][..], |(_, rest)| rest);
    let mode: PermissionMode = std::env::var("HUGE_PATH_MODE")
        .unwrap_or_else(|_| "default".into())
        .parse()
        .expect("a mode");
    let deny = if std::env::var_os("HUGE_PATH_RULES").is_some() {
        vec![format!("{tool}(**/.env)"), format!("{tool}(secrets/**)")]
    } else {
        Vec::new()
    };
    let deny: Vec<&str> = deny.iter().map(String::as_str).collect();
    let mib: usize = std::env::var("HUGE_PATH_MIB")
        .ok()
        .and_then(|mib| mib.parse().ok())
        .unwrap_or(100);
    let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).expect("catalog"));
    let dir = sandbox();
    let call = ToolCall::new(
        "call-1",
        &tool,
        tool_args(huge_path(mib * 1024 * 1024), rest),
    );
    let started = std::time::Instant::now();
    let result = run_in(&registry, dir.path(), mode, &deny, call, None).await;
    let elapsed = started.elapsed();
    let said: String = result.content().chars().take(300).collect();
    eprintln!(
        "{tool}, mode {mode}, deny rules {deny:?}: {elapsed:?}, error {}: {said}",
        result.is_error()
    );
}
