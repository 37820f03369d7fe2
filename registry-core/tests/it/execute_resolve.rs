//! Resolution and the permission re-check: aliases of pooled tools run;
//! names a narrowing layer removed are refused with that layer; deferred
//! tools need discovering; unknown names reveal nothing; a stale pool
//! still obeys a new deny rule; an ask without an approver is a deny.
//!
//! Names a runtime flag or a `cfg` gate keeps out of the linked list are
//! tested in `linked_catalog/execute_resolve.rs`: that test reads its
//! binary's linked list, and this shared binary's holds every suite's
//! tools.

use crate::execute_support;

use std::sync::Arc;

use execute_support::*;
use registry_core::{
    Executor, PermissionContext, PermissionMode, ToolBuilder, ToolCall, ToolHandle, ToolOutput,
    ToolRegistry,
    catalog::BaseTools,
    declare::Loading,
    permission::{
        Approval, ApprovalRequest, Approver, PermissionPolicy, PoolMode, RuleBehavior, RuleSource,
    },
};
use serde_json::json;

fn named(name: &str) -> ToolBuilder {
    ToolBuilder::new(name, "A test tool.")
}

fn reader() -> ToolHandle {
    named("read_file")
        .aliases(["cat", "Read"])
        .read_only(true)
        .build(|_args, _cx| async { Ok(ToolOutput::text("contents")) })
        .unwrap()
}

fn writer(name: &str) -> ToolHandle {
    named(name)
        .build(|_args, _cx| async { Ok(ToolOutput::text("written")) })
        .unwrap()
}

fn run(exec: &Executor, name: &str) -> (bool, String) {
    let results =
        paused_runtime().block_on(exec.run_turn(vec![ToolCall::new("id", name, json!({}))]));
    let result = results.into_iter().next().unwrap();
    (result.is_error(), result.into_content())
}

#[test]
fn an_alias_of_a_pooled_tool_runs_it() {
    let exec = registry_of(vec![reader()]).executor().build();
    assert_eq!(run(&exec, "cat"), (false, "contents".to_owned()));
    assert_eq!(run(&exec, "Read"), (false, "contents".to_owned()));
    assert_eq!(exec.session().metrics()["read_file"].calls, 2);
}

#[test]
fn a_name_removed_by_a_deny_rule_is_refused_with_the_rule_and_its_source() {
    let mut cx = PermissionContext::new();
    cx.add_rule(RuleSource::Project, RuleBehavior::Deny, "cat")
        .unwrap();
    let exec = registry_of(vec![reader(), writer("write_file")])
        .executor()
        .permissions(cx)
        .build();
    let expected = "tool `read_file` is denied by the project rule `cat`; it cannot be called";
    assert_eq!(run(&exec, "read_file"), (true, expected.to_owned()));
    // Its alias does not sneak it back in.
    assert_eq!(run(&exec, "cat"), (true, expected.to_owned()));
    assert!(run(&exec, "write_file").0, "asks, and nobody can answer");
}

#[test]
fn names_removed_by_the_mode_enabled_or_internal_say_which() {
    let mode = PoolMode::keep_only("minimal", ["read_file", "off", "secret"]);
    let cx = PermissionContext::new().with_mode(mode);
    let off = named("off")
        .enabled(|| false)
        .build(|_a, _c| async { Ok(ToolOutput::text("")) })
        .unwrap();
    let secret = named("secret")
        .internal()
        .build(|_a, _c| async { Ok(ToolOutput::text("")) })
        .unwrap();
    let exec = registry_of(vec![reader(), writer("write_file"), off, secret])
        .executor()
        .permissions(cx)
        .build();
    assert_eq!(
        run(&exec, "write_file").1,
        "tool `write_file` is not available in the `minimal` mode; it cannot be called"
    );
    assert_eq!(
        run(&exec, "off").1,
        "tool `off` is disabled: its `enabled` check says no; it cannot be called"
    );
    assert_eq!(
        run(&exec, "secret").1,
        "tool `secret` is internal and never offered; it cannot be called"
    );
}

#[test]
fn unknown_names_are_refused_without_listing_any_tool() {
    let exec = registry_of(vec![reader(), writer("write_file")])
        .executor()
        .build();
    let (is_error, text) = run(&exec, "read_fil");
    assert!(is_error);
    assert_eq!(text, "no such tool: `read_fil`");
    // A hostile name is capped, not echoed in full.
    let (_, text) = run(&exec, &"x".repeat(100_000));
    assert!(
        text.chars().count()
            < registry_core::text::cap_error_text(&"x".repeat(100_000))
                .chars()
                .count()
                + 40,
        "{}",
        text.len()
    );
}

#[test]
fn a_deferred_tool_runs_only_once_discovered() {
    let deferred = named("web_fetch")
        .read_only(true)
        .loading(Loading::Deferred)
        .build(|_a, _c| async { Ok(ToolOutput::text("page")) })
        .unwrap();
    let exec = registry_of(vec![deferred]).executor().build();
    let (is_error, text) = run(&exec, "web_fetch");
    assert!(is_error);
    assert!(
        text.starts_with(
            "tool `web_fetch` is deferred and not loaded in this session; search for it"
        ),
        "{text}"
    );
    exec.session().discover("web_fetch");
    assert_eq!(run(&exec, "web_fetch"), (false, "page".to_owned()));
}

#[test]
fn a_stale_pool_is_refused_by_a_new_deny_rule() {
    let mut exec = registry_of(vec![reader()]).executor().build();
    assert!(!run(&exec, "read_file").0);
    let mut current = PermissionContext::new();
    current
        .add_rule(RuleSource::Session, RuleBehavior::Deny, "read_file")
        .unwrap();
    exec.set_permissions(current);
    let (is_error, text) = run(&exec, "cat");
    assert!(is_error);
    assert_eq!(
        text,
        "permission to run `read_file` was denied: `read_file` is denied by the session deny rule `read_file`"
    );
    assert_eq!(exec.session().metrics()["read_file"].denied, 1);
}

#[test]
fn bad_input_is_refused_with_the_field_path_before_anything_runs() {
    let typed = named("typed")
        .input_schema(json!({
            "type": "object",
            "properties": { "n": { "type": "integer" } },
            "required": ["n"]
        }))
        .read_only(true)
        .build(|_a, _c| async { Ok(ToolOutput::text("ran")) })
        .unwrap();
    let exec = registry_of(vec![typed]).executor().build();
    let results =
        paused_runtime().block_on(exec.run_turn(vec![ToolCall::new("id", "typed", json!([1]))]));
    assert!(results[0].is_error());
    assert!(
        results[0]
            .content()
            .starts_with("invalid input for tool `typed` at the input root"),
        "{}",
        results[0].content()
    );
}

struct Answer(Approval);

impl Approver for Answer {
    fn approve<'a>(
        &'a self,
        request: &'a ApprovalRequest,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Approval> + Send + 'a>> {
        assert_eq!(request.tool, "write_file");
        assert_eq!(request.call_id, "id");
        Box::pin(async move { self.0.clone() })
    }
}

fn with_policy(policy: PermissionPolicy) -> Executor {
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![reader(), writer("write_file")]).unwrap(),
    ));
    let cx = PermissionContext::new();
    let _pool = registry.assemble_tool_pool(&cx);
    registry.executor().permissions(cx).policy(policy).build()
}

#[test]
fn ask_without_an_approver_denies_and_an_approver_decides() {
    let none = with_policy(PermissionPolicy::new(PermissionMode::Default));
    assert_eq!(run(&none, "read_file"), (false, "contents".to_owned()));
    let (is_error, text) = run(&none, "write_file");
    assert!(is_error);
    assert!(
        text.starts_with("permission to run `write_file` was denied"),
        "{text}"
    );

    let yes = with_policy(
        PermissionPolicy::new(PermissionMode::Default)
            .with_approver(Arc::new(Answer(Approval::AllowOnce))),
    );
    assert_eq!(run(&yes, "write_file"), (false, "written".to_owned()));

    let no = with_policy(
        PermissionPolicy::new(PermissionMode::Default).with_approver(Arc::new(Answer(
            Approval::Deny {
                reason: Some("not today".to_owned()),
            },
        ))),
    );
    assert_eq!(
        run(&no, "write_file"),
        (
            true,
            "permission to run `write_file` was denied: the user denied this call of `write_file`: not today".to_owned()
        )
    );
}

/// An approver from a closure: one line on the builder, the request in
/// hand (tool, reason, input).
#[test]
fn an_approver_from_a_closure_decides() {
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![reader(), writer("write_file"), writer("delete_file")])
            .unwrap(),
    ));
    let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let exec = registry
        .executor()
        .approve_with(move |request| {
            seen.lock().unwrap().push(request.tool.clone());
            async move {
                if request.tool == "write_file" {
                    Approval::AllowOnce
                } else {
                    Approval::Deny {
                        reason: Some("only writes".to_owned()),
                    }
                }
            }
        })
        .build();
    assert_eq!(run(&exec, "read_file"), (false, "contents".to_owned()));
    assert_eq!(run(&exec, "write_file"), (false, "written".to_owned()));
    let (is_error, text) = run(&exec, "delete_file");
    assert!(is_error && text.ends_with("only writes"), "{text}");
    // Reads never ask.
    assert_eq!(*asked.lock().unwrap(), ["write_file", "delete_file"]);
}

#[test]
fn a_plugin_tool_removed_by_a_server_rule_is_refused_with_the_rule() {
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![reader()]).unwrap(),
    ));
    let guard = registry
        .plugins()
        .register("docs", writer("mcp__docs__search"))
        .unwrap();
    let mut cx = PermissionContext::new();
    cx.add_rule(RuleSource::User, RuleBehavior::Deny, "mcp__docs")
        .unwrap();
    let _pool = registry.assemble_tool_pool(&cx);
    let exec = registry.executor().permissions(cx).build();
    assert_eq!(
        run(&exec, "mcp__docs__search"),
        (
            true,
            "tool `mcp__docs__search` is denied by the user rule `mcp__docs`; it cannot be called"
                .to_owned()
        )
    );
    drop(guard);
    // Unregistered: now nothing declares it.
    assert_eq!(
        run(&exec, "mcp__docs__search").1,
        "no such tool: `mcp__docs__search`"
    );
}

#[test]
fn a_plugin_tool_unregistered_after_assembly_is_refused() {
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(vec![reader()]).unwrap(),
    ));
    let search = named("mcp__docs__search")
        .read_only(true)
        .build(|_a, _c| async { Ok(ToolOutput::text("found")) })
        .unwrap();
    registry
        .plugins()
        .register("docs", search)
        .unwrap()
        .detach();
    let exec = registry.executor().build();
    assert_eq!(run(&exec, "mcp__docs__search"), (false, "found".to_owned()));
    // Another plugin coming does not disturb it.
    registry
        .plugins()
        .register("other", writer("mcp__other__x"))
        .unwrap()
        .detach();
    assert_eq!(run(&exec, "mcp__docs__search"), (false, "found".to_owned()));
    assert_eq!(registry.plugins().unregister_owner("docs"), 1);
    assert_eq!(
        run(&exec, "mcp__docs__search"),
        (
            true,
            "tool `mcp__docs__search` is no longer available: its plugin `docs` was removed"
                .to_owned()
        )
    );
}
