//! `tool_search` end to end: every query form, the discovery gate through
//! the executor, the three deferral policies, both result shapes, session
//! renders whose prefix stays byte-stable, and a search that only ever
//! sees the session's pool.

use std::sync::Arc;

use registry_core::{
    Executor, PermissionContext, ToolBuilder, ToolCall, ToolContext, ToolHandle, ToolOutput,
    ToolRegistry,
    catalog::{BaseTools, PluginGuard},
    declare::{Loading, RemoteOrigin},
    permission::{RuleBehavior, RuleSource},
    pool::ToolPool,
    render::AnthropicOptions,
    session::Session,
};
use registry_core::{
    render::ProviderFormat,
    search::{
        Document, QueryError, ResultShape, SearchIndex, TOOL_SEARCH_NAME, ToolSearch,
        ToolSearchError, ToolSearchIndex, ToolSearchOutcome, ToolSearchScope,
    },
    session::{AutoDeferral, DeferralPolicy},
};
use serde_json::{Value, json};

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
        ToolHandle::new(ToolSearch),
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

/// A scope searched directly, as `tool_search` searches it under an
/// executor whose session is `session`.
struct Scoped {
    scope: ToolSearchScope,
    session: Arc<Session>,
}

impl Scoped {
    fn search(&self, query: &str, max: usize) -> Result<ToolSearchOutcome, ToolSearchError> {
        self.scope.search(&self.session, query, max)
    }
}

impl World {
    fn pool(&self, cx: &PermissionContext) -> ToolPool {
        self.registry.assemble_tool_pool(cx)
    }

    fn scope(&self, pool: &ToolPool, session: &Arc<Session>, shape: ResultShape) -> Scoped {
        Scoped {
            scope: ToolSearchScope::new(Arc::clone(&self.index), &self.registry, pool, shape),
            session: Arc::clone(session),
        }
    }

    fn names(&self, query: &str) -> Vec<String> {
        let pool = self.pool(&PermissionContext::new());
        let scope = self.scope(
            &pool,
            &Arc::new(Session::new()),
            ResultShape::ToolReferences,
        );
        let outcome = scope.search(query, 5).unwrap();
        outcome.names().into_iter().map(str::to_owned).collect()
    }
}

#[test]
fn every_query_form_finds_what_it_says() {
    let w = world();
    // Free text over name parts, hints and descriptions.
    assert_eq!(w.names("merge a PR")[0], "mcp__github__merge_pull_request");
    assert_eq!(
        w.names("ship the website")[0],
        "deploy_site",
        "hint words count"
    );
    assert_eq!(
        w.names("send a chat message")[0],
        "mcp__slack__post_message"
    );
    // select: exact names and aliases, in the order given.
    assert_eq!(
        w.names("select:mcp__slack__list_channels,cat"),
        ["mcp__slack__list_channels", "read_file"]
    );
    // An exact name is that tool alone.
    assert_eq!(
        w.names("mcp__github__create_issue"),
        ["mcp__github__create_issue"]
    );
    // A server prefix: that server's tools by name; more words rank within.
    assert_eq!(
        w.names("mcp__github"),
        [
            "mcp__github__create_issue",
            "mcp__github__list_pull_requests",
            "mcp__github__merge_pull_request"
        ]
    );
    assert_eq!(w.names("mcp__slack list")[0], "mcp__slack__list_channels");
    assert!(
        w.names("mcp__slack list")
            .iter()
            .all(|n| n.starts_with("mcp__slack__"))
    );
    // +term: every result has it (in its name or its description).
    let required = w.names("list +channels");
    assert_eq!(
        required,
        ["mcp__slack__list_channels", "mcp__slack__post_message"]
    );
    assert_eq!(
        w.names("+pull merge"),
        [
            "mcp__github__merge_pull_request",
            "mcp__github__list_pull_requests"
        ]
    );
}

#[test]
fn rankings_are_deterministic_and_ties_break_by_name() {
    let w = world();
    let first = w.names("list");
    for _ in 0..5 {
        assert_eq!(w.names("list"), first);
    }
    // The same tool on two servers scores the same: name order decides,
    // whatever order they were indexed in.
    for order in [
        ["mcp__b__ping", "mcp__a__ping"],
        ["mcp__a__ping", "mcp__b__ping"],
    ] {
        let mut index = SearchIndex::new();
        for name in order {
            index.insert(Document {
                name,
                aliases: &[],
                hint: None,
                description: "Ping a host.",
            });
        }
        let found = index.search(&"ping".parse().unwrap(), 5, &index.membership_of_all());
        let names: Vec<&str> = found.hits.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["mcp__a__ping", "mcp__b__ping"]);
        assert_eq!(found.hits[0].score, found.hits[1].score);
    }
}

#[test]
fn search_sees_only_the_pool() {
    let w = world();
    let mut cx = PermissionContext::new();
    cx.add_rule(RuleSource::Project, RuleBehavior::Deny, "mcp__slack")
        .unwrap();
    let pool = w.pool(&cx);
    let scope = w.scope(
        &pool,
        &Arc::new(Session::new()),
        ResultShape::ToolReferences,
    );
    let found = scope.search("post a message", 5).unwrap();
    assert!(
        found.names().iter().all(|n| !n.starts_with("mcp__slack")),
        "{:?}",
        found.names()
    );
    let selected = scope.search("select:mcp__slack__post_message", 5).unwrap();
    assert!(selected.names().is_empty());
    assert_eq!(selected.unknown(), ["mcp__slack__post_message"]);
    assert!(
        selected
            .render()
            .contains("No tool is named: mcp__slack__post_message")
    );
}

#[test]
fn the_index_follows_plugins_one_tool_at_a_time() {
    let w = world();
    let before = w.index.len();
    let guard = w
        .registry
        .plugins()
        .register(
            "jira",
            build(tool(
                "mcp__jira__transition_issue",
                "Move an issue to another status.",
            )),
        )
        .unwrap();
    assert_eq!(w.index.sync(&w.registry), 1);
    assert_eq!(w.index.len(), before + 1);
    assert_eq!(
        w.names("move a ticket to another status")[0],
        "mcp__jira__transition_issue"
    );
    drop(guard);
    assert_eq!(w.index.sync(&w.registry), 1);
    assert_eq!(w.index.sync(&w.registry), 0, "nothing changed since");
    assert_eq!(w.index.len(), before);
    assert!(
        !w.names("move a ticket to another status")
            .contains(&"mcp__jira__transition_issue".to_owned())
    );
    // A scope made before a plugin registered never returns the newcomer,
    // even when it reuses a removed tool's slot.
    let pool = w.pool(&PermissionContext::new());
    let scope = w.scope(
        &pool,
        &Arc::new(Session::new()),
        ResultShape::ToolReferences,
    );
    let _late = w
        .registry
        .plugins()
        .register(
            "jira",
            build(tool("mcp__jira__create_sprint", "Create a sprint.")),
        )
        .unwrap();
    w.index.sync(&w.registry);
    assert!(
        scope
            .search("create a sprint", 5)
            .unwrap()
            .names()
            .iter()
            .all(|n| *n != "mcp__jira__create_sprint")
    );
}

#[test]
fn both_result_shapes() {
    let w = world();
    let pool = w.pool(&PermissionContext::new());
    let session = Arc::new(Session::new());
    let refs = w.scope(&pool, &session, ResultShape::ToolReferences);
    let outcome = refs.search("select:mcp__github__create_issue", 5).unwrap();
    assert_eq!(
        outcome.tool_references(),
        json!([{ "type": "tool_reference", "tool_name": "mcp__github__create_issue" }])
    );
    assert_eq!(
        outcome.render(),
        r#"[{"tool_name":"mcp__github__create_issue","type":"tool_reference"}]"#
    );

    let defs = w.scope(
        &pool,
        &session,
        ResultShape::Definitions(ProviderFormat::OpenAiChat),
    );
    let rendered: Value = serde_json::from_str(
        &defs
            .search("select:mcp__github__create_issue", 5)
            .unwrap()
            .render(),
    )
    .unwrap();
    assert_eq!(rendered[0]["type"], "function");
    assert_eq!(rendered[0]["function"]["name"], "mcp__github__create_issue");
    assert!(
        rendered[0]["function"]["parameters"].is_object(),
        "full definition, schema included"
    );

    let nothing = refs.search("zebra xylophone", 5).unwrap();
    assert_eq!(nothing.render(), "No tools matched `zebra xylophone`.");
}

#[test]
fn bad_input_is_a_typed_error() {
    let w = world();
    let pool = w.pool(&PermissionContext::new());
    let scope = w.scope(
        &pool,
        &Arc::new(Session::new()),
        ResultShape::ToolReferences,
    );
    assert_eq!(
        scope.search("  ", 5).unwrap_err(),
        ToolSearchError::Query(QueryError::Empty)
    );
    assert_eq!(
        scope.search("x", 0).unwrap_err(),
        ToolSearchError::MaxResults { given: 0 }
    );
    assert_eq!(
        scope.search("x", 51).unwrap_err(),
        ToolSearchError::MaxResults { given: 51 }
    );
}

fn executor(w: &World, pool: &ToolPool, session: &Arc<Session>, shape: ResultShape) -> Executor {
    let scope = w.scope(pool, session, shape).scope;
    w.registry
        .executor()
        .session(Arc::clone(session))
        .context(ToolContext::new().with(scope))
        .build()
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

#[test]
fn discovery_gate_through_the_executor() {
    let w = world();
    let pool = w.pool(&PermissionContext::new());
    let session = Arc::new(Session::new());
    session.decide_deferral(&pool, DeferralPolicy::Always, ProviderFormat::Anthropic);
    let exec = executor(&w, &pool, &session, ResultShape::ToolReferences);

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
fn the_three_policies() {
    let w = world();
    let pool = w.pool(&PermissionContext::new());
    let deferred = |policy| {
        let session = Session::new();
        let d = session.decide_deferral(&pool, policy, ProviderFormat::Anthropic);
        d.deferred().map(str::to_owned).collect::<Vec<_>>()
    };
    let all = [
        "deploy_site",
        "mcp__github__create_issue",
        "mcp__github__list_pull_requests",
        "mcp__github__merge_pull_request",
        "mcp__slack__list_channels",
        "mcp__slack__post_message",
    ];
    // Always: declared `defer` and every MCP import; never `always_load`,
    // an eager built-in, or tool_search.
    assert_eq!(deferred(DeferralPolicy::Always), all);
    assert!(deferred(DeferralPolicy::Never).is_empty());
    // Auto: measured in the provider format's bytes against the share.
    let session = Session::new();
    let measured = session
        .decide_deferral(&pool, DeferralPolicy::Never, ProviderFormat::Anthropic)
        .deferrable_bytes();
    assert_eq!(measured, 0, "never measures nothing");
    let bytes = Session::new()
        .decide_deferral(&pool, DeferralPolicy::Always, ProviderFormat::Anthropic)
        .deferrable_bytes();
    assert!(bytes > 0);
    let roomy = DeferralPolicy::Auto(AutoDeferral::new(bytes * 10, 10).unwrap()); // threshold = bytes
    assert!(
        deferred(roomy).is_empty(),
        "at the threshold nothing is deferred"
    );
    let tight = DeferralPolicy::Auto(AutoDeferral::new(bytes * 10 - 10, 10).unwrap());
    assert_eq!(deferred(tight), all);
    // Formats weigh differently: the OpenAI strict schema is larger.
    let openai = Session::new()
        .decide_deferral(&pool, DeferralPolicy::Always, ProviderFormat::OpenAiChat)
        .deferrable_bytes();
    assert_ne!(openai, bytes);
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
    let scope = w.scope(
        &pool,
        &session,
        ResultShape::Definitions(ProviderFormat::OpenAiChat),
    );
    scope.search("select:mcp__slack__post_message", 5).unwrap();
    scope.search("select:mcp__github__create_issue", 5).unwrap();
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
    assert_eq!(
        by_name("mcp__slack__post_message").unwrap()["defer_loading"],
        true
    );
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
    let scope = w.scope(
        &pool,
        &session,
        ResultShape::Definitions(ProviderFormat::OpenAiResponses),
    );
    scope.search("select:mcp__slack__post_message", 5).unwrap();
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
