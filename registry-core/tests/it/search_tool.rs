//! `tool_search` end to end through the public API: the discovery gate
//! through the executor, tool search set up in one call, session renders
//! whose prefix stays byte-stable as tools are discovered, and the pool an
//! executor offers being the pool it resolves against. (The query forms,
//! ranking, result shapes, typed errors and deferral policies are unit
//! tests of `registry_core::search`.)

use std::sync::Arc;

use registry_core::{
    Executor, PermissionContext, ToolBuilder, ToolCall, ToolHandle, ToolOutput, ToolRegistry,
    catalog::{BaseTools, PluginGuard},
    declare::{Loading, RemoteOrigin},
    pool::ToolPool,
    render::{AnthropicOptions, ProviderFormat},
    search::ToolSearchIndex,
    session::{DeferralPolicy, Session},
};
use serde_json::{Value, json};

/// The search tool's name.
const TOOL_SEARCH_NAME: &str = "tool_search";

fn tool(name: &str, description: &str) -> ToolBuilder {
    ToolBuilder::new(name, description).read_only(true)
}

fn build(builder: ToolBuilder) -> ToolHandle {
    builder
        .build(|_args, _cx| async { Ok(ToolOutput::text("ran")) })
        .unwrap()
}

/// Built-ins: `tool_search`, an eager reader, a declared-deferred deploy
/// tool, an always-load status tool. Plugins: a GitHub-like and a
/// Slack-like MCP server.
struct World {
    registry: Arc<ToolRegistry>,
    index: Arc<ToolSearchIndex>,
    _guards: Vec<PluginGuard>,
}

fn world() -> World {
    let builtins = vec![
        registry_core::search::__tool_search(),
        build(tool("read_file", "Read a UTF-8 file.").aliases(["cat"])),
        build(
            tool("deploy_site", "Deploy the site to production.")
                .loading(Loading::Deferred)
                .search_hint("publish release ship website"),
        ),
        build(tool("status", "Show the agent's status.").loading(Loading::AlwaysLoad)),
    ];
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(builtins).unwrap(),
    ));
    let mut guards = Vec::new();
    for (name, description) in [
        (
            "mcp__github__create_issue",
            "Create a new issue in a GitHub repository.",
        ),
        (
            "mcp__github__list_pull_requests",
            "List pull requests in a GitHub repository.",
        ),
        (
            "mcp__github__merge_pull_request",
            "Merge a pull request in a GitHub repository.",
        ),
        (
            "mcp__slack__post_message",
            "Post a new message to a Slack channel.",
        ),
        (
            "mcp__slack__list_channels",
            "List public channels in the workspace.",
        ),
    ] {
        let mut parts = name.split("__").skip(1);
        let (owner, remote) = (parts.next().unwrap(), parts.next().unwrap());
        // Imported tools carry their origin: that, not the name, is what
        // makes them deferrable.
        let imported = tool(name, description).remote_origin(RemoteOrigin::new(owner, remote));
        guards.push(registry.plugins().register(owner, build(imported)).unwrap());
    }
    let index = Arc::new(ToolSearchIndex::new(&registry));
    World {
        registry,
        index,
        _guards: guards,
    }
}

impl World {
    fn pool(&self, cx: &PermissionContext) -> ToolPool {
        self.registry.assemble_tool_pool(cx)
    }

    /// An executor running in `session`, every deferrable tool deferred
    /// and `tool_search` answering in `format`'s way, over the world's
    /// shared index.
    fn executor(&self, session: &Arc<Session>, format: ProviderFormat) -> Executor {
        self.registry
            .executor()
            .session(Arc::clone(session))
            .tool_search_with(Arc::clone(&self.index), DeferralPolicy::Always, format)
            .build()
    }
}

fn call(exec: &Executor, name: &str, args: Value) -> (bool, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut results = runtime.block_on(exec.run_turn(vec![ToolCall::new("c1", name, args)]));
    let result = results.remove(0);
    (result.is_error(), result.into_content())
}

/// Runs `tool_search` for `query` under `exec`, as the model calls it.
fn search_for(exec: &Executor, query: &str) {
    let (error, text) = call(exec, TOOL_SEARCH_NAME, json!({ "query": query }));
    assert!(!error, "{query}: {text}");
}

#[test]
fn discovery_gate_through_the_executor() {
    let w = world();
    let session = Arc::new(Session::new());
    let exec = w.executor(&session, ProviderFormat::Anthropic);

    let (error, text) = call(&exec, "mcp__github__create_issue", json!({}));
    assert!(error);
    assert!(
        text.contains("is deferred and not loaded in this session"),
        "{text}"
    );

    let (error, text) = call(
        &exec,
        TOOL_SEARCH_NAME,
        json!({ "query": "open a new issue", "max_results": 1 }),
    );
    assert!(!error, "{text}");
    assert_eq!(
        text,
        r#"[{"tool_name":"mcp__github__create_issue","type":"tool_reference"}]"#
    );
    assert!(session.is_discovered("mcp__github__create_issue"));
    assert_eq!(
        call(&exec, "mcp__github__create_issue", json!({})),
        (false, "ran".to_owned())
    );
    // Others stay gated.
    assert!(call(&exec, "mcp__slack__post_message", json!({})).0);
    // An eager built-in and an always-load one were never deferred.
    assert!(!call(&exec, "read_file", json!({})).0);
    assert!(!call(&exec, "status", json!({})).0);
}

#[test]
fn tool_search_without_a_scope_says_so() {
    let w = world();
    let _pool = w.pool(&PermissionContext::new());
    let exec = w.registry.executor().build();
    let (error, text) = call(&exec, TOOL_SEARCH_NAME, json!({ "query": "issue" }));
    assert!(error);
    assert!(
        text.contains("tool search is not set up in this session"),
        "{text}"
    );
    let (error, text) = call(
        &exec,
        TOOL_SEARCH_NAME,
        json!({ "query": "issue", "limit": 3 }),
    );
    assert!(
        error && text.contains("limit"),
        "unknown fields are refused: {text}"
    );
}

#[test]
fn anthropic_render_marks_deferred_tools_and_drops_search_when_nothing_is_deferred() {
    let w = world();
    let pool = w.pool(&PermissionContext::new());
    let session = Session::new();
    session.decide_deferral(&pool, DeferralPolicy::Always, ProviderFormat::Anthropic);
    let tools: Value = serde_json::from_str(
        &pool
            .for_session(&session)
            .render_anthropic(AnthropicOptions::new().with_cache_control(true)),
    )
    .unwrap();
    let by_name = |name: &str| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
    };
    assert_eq!(
        by_name("mcp__slack__post_message").unwrap()["defer_loading"],
        true
    );
    assert_eq!(by_name("deploy_site").unwrap()["defer_loading"], true);
    assert!(by_name("read_file").unwrap().get("defer_loading").is_none());
    assert!(
        by_name(TOOL_SEARCH_NAME)
            .unwrap()
            .get("defer_loading")
            .is_none()
    );
    assert_eq!(
        by_name("tool_search").unwrap()["cache_control"],
        json!({ "type": "ephemeral" }),
        "last non-deferred built-in"
    );

    let never = Session::new();
    never.decide_deferral(&pool, DeferralPolicy::Never, ProviderFormat::Anthropic);
    let rendered = pool
        .for_session(&never)
        .render_anthropic(AnthropicOptions::new());
    assert!(!rendered.contains("defer_loading"));
    assert!(
        !rendered.contains(TOOL_SEARCH_NAME),
        "no search tool when nothing is deferred"
    );
}

#[test]
fn formats_without_deferral_append_discoveries_after_a_stable_prefix() {
    let w = world();
    let pool = w.pool(&PermissionContext::new());
    let session = Arc::new(Session::new());
    session.decide_deferral(&pool, DeferralPolicy::Always, ProviderFormat::OpenAiChat);
    let renders = |s: &Session| {
        let view = pool.for_session(s);
        [view.render_openai_chat(), view.render_mcp_tools_list()]
    };
    let before = renders(&session);
    for render in &before {
        for deferred in [
            "deploy_site",
            "mcp__github__create_issue",
            "mcp__slack__post_message",
        ] {
            assert!(
                !render.contains(deferred),
                "deferred tools are left out until discovered"
            );
        }
        assert!(render.contains("read_file") && render.contains(TOOL_SEARCH_NAME));
    }
    // Discovered in this order: slack first, then github.
    let exec = w.executor(&session, ProviderFormat::OpenAiChat);
    search_for(&exec, "select:mcp__slack__post_message");
    search_for(&exec, "select:mcp__github__create_issue");
    let after = renders(&session);
    for (before, after) in before.iter().zip(&after) {
        let stable = before.trim_end_matches(['}', ']']);
        assert!(
            after.starts_with(stable),
            "the prefix is byte-stable:\n{before}\n{after}"
        );
        let slack = after.find("mcp__slack__post_message").unwrap();
        let github = after.find("mcp__github__create_issue").unwrap();
        assert!(slack < github, "appended in discovery order");
    }
    // The prompt catalog lists deferred tools by name with their hint,
    // and does not change as tools are discovered.
    let catalog = pool.for_session(&session).render_prompt_catalog();
    assert!(
        catalog.contains("- deploy_site (deferred): publish release ship website\n"),
        "{catalog}"
    );
    assert!(catalog.contains("- mcp__slack__list_channels (deferred)\n"));
    assert!(catalog.contains("- read_file: Read a UTF-8 file.\n"));
    let fresh = Session::new();
    fresh.decide_deferral(&pool, DeferralPolicy::Always, ProviderFormat::OpenAiChat);
    assert_eq!(pool.for_session(&fresh).render_prompt_catalog(), catalog);
}

#[test]
fn openai_responses_defers_natively_and_discovery_changes_no_byte() {
    let w = world();
    let pool = w.pool(&PermissionContext::new());
    let session = Arc::new(Session::new());
    session.decide_deferral(
        &pool,
        DeferralPolicy::Always,
        ProviderFormat::OpenAiResponses,
    );
    let before = pool.for_session(&session).render_openai_responses();
    let tools: Vec<Value> = serde_json::from_str(&before).unwrap();
    let by_name = |name: &str| tools.iter().find(|t| t["name"] == name).cloned();
    // An MCP server's tools are in its namespace, under their short names.
    let slack = by_name("slack").unwrap();
    assert_eq!(slack["type"], "namespace");
    let post = slack["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "post_message")
        .unwrap();
    assert_eq!(post["defer_loading"], true);
    assert!(by_name("read_file").unwrap().get("defer_loading").is_none());
    // tool_search is the client-executed tool search, not a function.
    let search: Vec<&Value> = tools
        .iter()
        .filter(|t| t["type"] == "tool_search")
        .collect();
    assert_eq!(search.len(), 1, "{before}");
    assert_eq!(search[0]["execution"], "client");
    assert_eq!(search[0]["parameters"]["type"], "object");
    assert!(by_name(TOOL_SEARCH_NAME).is_none(), "not also a function");
    let exec = w.executor(&session, ProviderFormat::OpenAiResponses);
    search_for(&exec, "select:mcp__slack__post_message");
    assert!(session.is_discovered("mcp__slack__post_message"));
    assert_eq!(
        pool.for_session(&session).render_openai_responses(),
        before,
        "discovery leaves the tools array byte-identical"
    );
}

#[test]
fn without_a_decision_declarations_decide() {
    let w = world();
    let pool = w.pool(&PermissionContext::new());
    let session = Session::new();
    let view = pool.for_session(&session);
    assert_eq!(view.pending(), ["deploy_site"]);
    assert!(view.render_openai_chat().contains(TOOL_SEARCH_NAME));
    assert!(!view.render_openai_chat().contains("deploy_site"));
}

/// `ExecutorBuilder::tool_search` sets tool search up in one call: the
/// session defers, `tool_search` finds into the executor's own session,
/// and what it found runs. There is no second session to pass.
#[test]
fn tool_search_in_one_call_loads_into_the_executors_session() {
    let w = world();
    let exec = w
        .registry
        .executor()
        .tool_search(DeferralPolicy::Always, ProviderFormat::Anthropic)
        .build();
    assert!(
        exec.session()
            .is_deferred(exec.pool().get("mcp__github__create_issue").unwrap())
    );
    let (error, text) = call(&exec, "mcp__github__create_issue", json!({}));
    assert!(error && text.contains("is deferred"), "{text}");
    let (error, text) = call(
        &exec,
        TOOL_SEARCH_NAME,
        json!({ "query": "open a new issue", "max_results": 1 }),
    );
    assert!(!error, "{text}");
    assert!(exec.session().is_discovered("mcp__github__create_issue"));
    assert_eq!(
        call(&exec, "mcp__github__create_issue", json!({})),
        (false, "ran".to_owned())
    );
    // The session's render now carries the discovered tool in full.
    let render = exec
        .pool()
        .for_session(exec.session())
        .render_anthropic(Default::default());
    assert!(
        render.contains(r#""name":"mcp__github__create_issue""#),
        "{render}"
    );
}

/// The pool an executor offers is the pool it resolves against: a plugin
/// registered after the build is in neither, so nothing offered is then
/// refused, and nothing refused was offered.
#[test]
fn the_offered_pool_is_the_resolved_pool() {
    let w = world();
    let exec = w
        .registry
        .executor()
        .mode(registry_core::PermissionMode::Bypass)
        .build();
    let _late = w
        .registry
        .plugins()
        .register(
            "late",
            build(tool("late_tool", "Registered after the build.")),
        )
        .unwrap();
    assert!(exec.pool().get("late_tool").is_none());
    let (error, text) = call(&exec, "late_tool", json!({}));
    assert!(error, "{text}");
    // The next executor has it, offered and runnable.
    let next = w
        .registry
        .executor()
        .mode(registry_core::PermissionMode::Bypass)
        .build();
    assert!(next.pool().get("late_tool").is_some());
    assert_eq!(
        call(&next, "late_tool", json!({})),
        (false, "ran".to_owned())
    );
}
