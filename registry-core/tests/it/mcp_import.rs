//! Importing an MCP server's tools: names, descriptions, annotations,
//! schemas and loading from untrusted input; refresh on `list_changed`;
//! what a crash, an error and a silent server do to calls.

#![cfg(feature = "mcp")]

use crate::mcp_support;

use std::time::Duration;

use mcp_support::{FakeServer, names, plain, tool, until};
use registry_core::declare::imported::imported_tool_name;
use registry_core::mcp::{McpImport, McpServerConfig};
use registry_core::permission::RuleOfTwo;
use registry_core::{
    ToolContext, ToolHandle,
    catalog::PluginRegistry,
    declare::{Loading, PostureKind},
    render::ProviderFormat,
};
use serde_json::json;

/// The `_meta` key an MCP server marks an always-loaded tool with.
const ALWAYS_LOAD_META_KEY: &str = "anthropic/alwaysLoad";

/// The longest description an imported tool keeps, in characters.
const MAX_DESCRIPTION_CHARS: usize = 2048;

fn handle(registry: &PluginRegistry, name: &str) -> ToolHandle {
    registry
        .get(name)
        .unwrap_or_else(|| panic!("`{name}` not registered; have {:?}", names(registry)))
}

#[tokio::test]
async fn hostile_names_and_descriptions_are_made_safe_and_keep_their_origin() {
    let long = "x".repeat(300);
    let hostile = [
        "search",
        "séarch",
        "a b",
        "a/b",
        "🔍",
        "tab\there",
        "a__b",
        "-",
        &format!("{long}1"),
        &format!("{long}2"),
    ];
    let mut tools: Vec<_> = hostile.iter().map(|n| plain(n)).collect();
    tools.push(tool(json!({
        "name": "wordy",
        "description": "é".repeat(10_000),
        "inputSchema": { "type": "object" }
    })));
    tools.push(tool(
        json!({ "name": "mute", "inputSchema": { "type": "object" } }),
    ));
    let registry = PluginRegistry::new();
    let fake = FakeServer::new(tools, 0);
    let (import, _server) = fake.import(&registry, "my.server", |c| c).await;

    let imported = import.tools();
    assert_eq!(
        imported.len(),
        hostile.len() + 2,
        "{imported:?} refused {:?}",
        import.refused()
    );
    for (name, remote) in &imported {
        assert!(
            (1..=64).contains(&name.len())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{name}: not a name every provider accepts"
        );
        assert!(
            name.starts_with(&format!("mcp__{}__", import.owner())),
            "{name}"
        );
        let spec = handle(&registry, name).spec().clone();
        let origin = spec
            .remote_origin()
            .expect("imported tools record their server");
        assert_eq!(origin.server(), "my.server");
        assert_eq!(origin.tool(), remote);
        assert!(spec.description().chars().count() <= MAX_DESCRIPTION_CHARS);
    }
    let wordy = handle(&registry, &imported_tool_name("my.server", "wordy"));
    assert!(wordy.spec().description().contains("[description cut: "));
    let mute = handle(&registry, &imported_tool_name("my.server", "mute"));
    assert!(mute.spec().description().contains("no description"));

    // A call goes out under the server's own name, unicode and all.
    let weird = handle(&registry, &imported_tool_name("my.server", "🔍"));
    let out = weird
        .call_json(json!({ "q": "ü" }), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out.as_str(), r#"🔍 {"q":"ü"}"#);
    assert_eq!(fake.0.called.lock().unwrap().as_slice(), ["🔍"]);
}

#[tokio::test]
async fn a_name_colliding_after_normalisation_refuses_only_that_tool() {
    // A clean name crafted to equal another tool's normalised name.
    let crafted = imported_tool_name("srv", "a b")
        .trim_start_matches("mcp__srv__")
        .to_owned();
    let registry = PluginRegistry::new();
    let fake = FakeServer::new(vec![plain(&crafted), plain("a b"), plain("other")], 0);
    let (import, _server) = fake.import(&registry, "srv", |c| c).await;
    let refused = import.refused();
    assert_eq!(refused.len(), 1, "{refused:?}");
    let (tool, reason) = &refused[0];
    assert_eq!(
        *tool, crafted,
        "sorted by the server's name, `a b` came first"
    );
    assert!(
        reason.contains("already taken by the server's tool `a b`"),
        "{reason}"
    );
    assert_eq!(names(&registry).len(), 2);
}

#[tokio::test]
async fn bad_input_schemas_refuse_that_tool_alone() {
    let registry = PluginRegistry::new();
    let fake = FakeServer::new(
        vec![
            plain("good"),
            tool(json!({ "name": "stringly", "inputSchema": { "type": "string" } })),
            tool(json!({ "name": "untyped", "inputSchema": { "properties": {} } })),
            tool(json!({ "name": "listy", "inputSchema": { "type": "object", "properties": [] } })),
            tool(json!({ "name": "badreq", "inputSchema": { "type": "object", "required": "x" } })),
        ],
        0,
    );
    let (import, _server) = fake.import(&registry, "srv", |c| c).await;
    assert_eq!(names(&registry), ["mcp__srv__good"]);
    let refused = import.refused();
    assert_eq!(refused.len(), 4, "{refused:?}");
    for (tool, reason) in &refused {
        assert!(reason.starts_with("bad input schema: "), "{tool}: {reason}");
    }
}

fn annotated() -> Vec<rmcp::model::Tool> {
    vec![
        tool(
            json!({ "name": "reader", "inputSchema": { "type": "object" },
            "annotations": { "readOnlyHint": true } }),
        ),
        tool(
            json!({ "name": "appender", "inputSchema": { "type": "object" },
            "annotations": { "readOnlyHint": false, "destructiveHint": false } }),
        ),
        tool(json!({ "name": "liar", "inputSchema": { "type": "object" },
            "annotations": { "readOnlyHint": true, "destructiveHint": true } })),
        plain("silent"),
    ]
}

fn posture(tool: &ToolHandle) -> (bool, bool, bool) {
    let call = tool.prepare(json!({})).unwrap();
    (
        call.is_read_only(),
        call.is_concurrency_safe(),
        call.is_destructive(),
    )
}

#[tokio::test]
async fn annotations_from_an_untrusted_server_change_nothing() {
    let registry = PluginRegistry::new();
    let (_import, _server) = FakeServer::new(annotated(), 0)
        .import(&registry, "u", |c| c)
        .await;
    for name in ["reader", "appender", "liar", "silent"] {
        let tool = handle(&registry, &format!("mcp__u__{name}"));
        assert_eq!(posture(&tool), (false, false, true), "{name}");
        // Not declared: re-serving it promises nothing either.
        assert!(!tool.spec().read_only().is_declared(), "{name}");
        assert_eq!(tool.spec().destructive().value(), &PostureKind::Fixed(true));
    }
}

#[tokio::test]
async fn a_trusted_server_s_read_only_hint_makes_calls_read_only_and_concurrent() {
    let registry = PluginRegistry::new();
    let (_import, _server) = FakeServer::new(annotated(), 0)
        .import(&registry, "t", |c| c.trusted(true))
        .await;
    let of = |name: &str| posture(&handle(&registry, &format!("mcp__t__{name}")));
    assert_eq!(of("reader"), (true, true, false));
    // readOnlyHint wins over a contradictory destructiveHint: read-only
    // tools destroy nothing, by the spec's own reading.
    assert_eq!(of("liar"), (true, true, false));
    assert_eq!(of("appender"), (false, false, false));
    assert_eq!(
        of("silent"),
        (false, false, true),
        "missing = strictest, trusted or not"
    );
}

#[tokio::test]
async fn imported_tools_are_deferred_unless_meta_says_always_load() {
    let registry = PluginRegistry::new();
    let fake = FakeServer::new(
        vec![
            plain("lazy"),
            tool(
                json!({ "name": "eager", "inputSchema": { "type": "object" },
                "_meta": { ALWAYS_LOAD_META_KEY: true } }),
            ),
            tool(
                json!({ "name": "stringy", "inputSchema": { "type": "object" },
                "_meta": { ALWAYS_LOAD_META_KEY: "true" } }),
            ),
        ],
        0,
    );
    let (_import, _server) = fake.import(&registry, "s", |c| c).await;
    let loading = |name: &str| {
        *handle(&registry, &format!("mcp__s__{name}"))
            .spec()
            .loading()
            .value()
    };
    assert_eq!(loading("lazy"), Loading::Deferred);
    assert_eq!(loading("eager"), Loading::AlwaysLoad);
    assert_eq!(loading("stringy"), Loading::Deferred);
}

#[tokio::test]
async fn every_page_is_imported() {
    let tools: Vec<_> = (0..23).map(|i| plain(&format!("t{i:02}"))).collect();
    let registry = PluginRegistry::new();
    let (import, _server) = FakeServer::new(tools, 5)
        .import(&registry, "paged", |c| c)
        .await;
    assert_eq!(import.tools().len(), 23);
    assert_eq!(
        names(&registry).first().map(String::as_str),
        Some("mcp__paged__t00")
    );
    assert_eq!(
        names(&registry).last().map(String::as_str),
        Some("mcp__paged__t22")
    );
}

#[tokio::test]
async fn a_renamed_tool_list_is_refreshed_on_list_changed() {
    let registry = PluginRegistry::new();
    let fake = FakeServer::new(vec![plain("old_name"), plain("kept")], 0);
    let (import, _server) = fake.import(&registry, "srv", |c| c).await;
    assert_eq!(names(&registry), ["mcp__srv__kept", "mcp__srv__old_name"]);
    let generation = registry.generation();

    fake.replace_tools(vec![plain("new_name"), plain("kept")])
        .await;
    until(&registry, || {
        names(&registry) == ["mcp__srv__kept", "mcp__srv__new_name"]
    })
    .await;
    assert!(registry.generation() > generation);
    assert_eq!(
        import.tools().get("mcp__srv__new_name").map(String::as_str),
        Some("new_name")
    );
    // The new tool runs, under its new name.
    let out = handle(&registry, "mcp__srv__new_name")
        .call_json(json!({}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out.as_str(), "new_name {}");
}

#[tokio::test]
async fn a_crash_mid_call_fails_the_call_and_unregisters_the_tools() {
    let registry = PluginRegistry::new();
    let fake = FakeServer::new(vec![plain("hang"), plain("echo")], 0);
    let (import, server) = fake.import(&registry, "crashy", |c| c).await;
    let hang = handle(&registry, "mcp__crashy__hang");
    let call = tokio::spawn(async move { hang.call_json(json!({}), &ToolContext::new()).await });
    // Wait until the server is inside the call, then kill it.
    while fake.0.called.lock().unwrap().is_empty() {
        tokio::task::yield_now().await;
    }
    server.abort();
    let err = tokio::time::timeout(Duration::from_secs(20), call)
        .await
        .expect("the in-flight call finished")
        .unwrap()
        .expect_err("a crash is an error");
    assert!(
        err.to_string().contains("disconnected during the call"),
        "{err}"
    );
    tokio::time::timeout(Duration::from_secs(20), import.disconnected())
        .await
        .expect("the import noticed");
    assert!(names(&registry).is_empty(), "{:?}", names(&registry));
    assert!(!import.is_connected());
}

#[tokio::test]
async fn a_silent_server_times_out_and_errors_become_error_results() {
    let registry = PluginRegistry::new();
    let fake = FakeServer::new(
        vec![
            plain("hang"),
            plain("fail"),
            plain("broken"),
            plain("blocks"),
        ],
        0,
    );
    let (_import, _server) = fake
        .import(&registry, "s", |c| {
            c.call_timeout(Duration::from_millis(200))
        })
        .await;
    let cx = ToolContext::new();
    let err = handle(&registry, "mcp__s__hang")
        .call_json(json!({}), &cx)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("did not answer within"), "{err}");
    let err = handle(&registry, "mcp__s__fail")
        .call_json(json!({}), &cx)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("the fake server says no"), "{err}");
    let err = handle(&registry, "mcp__s__broken")
        .call_json(json!({}), &cx)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("the fake server broke"), "{err}");
    let out = handle(&registry, "mcp__s__blocks")
        .call_json(json!({}), &cx)
        .await
        .unwrap();
    assert_eq!(out.as_str(), "caption\n[image: image/png, 2 bytes]");
}

#[tokio::test]
async fn one_registry_cannot_import_two_servers_under_one_owner() {
    let registry = PluginRegistry::new();
    let (import, _server) = FakeServer::new(vec![plain("a")], 0)
        .import(&registry, "dup", |c| c)
        .await;
    let (stream, _other) = FakeServer::new(vec![plain("b")], 0).spawn();
    let err = McpImport::connect(&registry, McpServerConfig::io("dup", stream))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("already uses"), "{err}");
    import.shutdown().await;
    assert!(names(&registry).is_empty());
}

/// A server written by hand on the wire: a correct handshake and listing,
/// then `tools/call` answers that are not valid results.
async fn raw_server(stream: tokio::io::DuplexStream) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (read, mut write) = tokio::io::split(stream);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let request: serde_json::Value = serde_json::from_str(&line).unwrap();
        let Some(id) = request.get("id").cloned() else {
            continue;
        };
        let result = match request["method"].as_str() {
            Some("initialize") => json!({
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "raw", "version": "0" }
            }),
            Some("tools/list") => json!({ "tools": [
                { "name": "garbled", "inputSchema": { "type": "object" } },
                { "name": "empty", "inputSchema": { "type": "object" } }
            ] }),
            Some("tools/call") if request["params"]["name"] == "garbled" => {
                json!({ "content": "not a list of blocks", "isError": "maybe" })
            }
            Some("tools/call") => json!({ "content": [] }),
            _ => json!({}),
        };
        let reply = json!({ "jsonrpc": "2.0", "id": id, "result": result });
        write
            .write_all(format!("{reply}\n").as_bytes())
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn malformed_content_is_an_error_result_and_empty_content_is_empty_text() {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(raw_server(ours));
    let registry = PluginRegistry::new();
    let _import = McpImport::connect(
        &registry,
        McpServerConfig::io("raw", theirs).call_timeout(Duration::from_secs(20)),
    )
    .await
    .unwrap();
    let cx = ToolContext::new();
    let err = handle(&registry, "mcp__raw__garbled")
        .call_json(json!({}), &cx)
        .await
        .expect_err("a result that does not parse is an error");
    assert!(err.to_string().contains("MCP server `raw`"), "{err}");
    let out = handle(&registry, "mcp__raw__empty")
        .call_json(json!({}), &cx)
        .await
        .unwrap();
    assert_eq!(out.as_str(), "");
}

#[tokio::test]
async fn server_wide_deny_rules_remove_an_import_from_the_pool_and_refuse_its_calls() {
    use registry_core::{
        PermissionContext, PermissionMode, ToolCall, ToolRegistry,
        catalog::BaseTools,
        permission::{RuleBehavior, RuleSource},
        session::Session,
    };
    use std::sync::Arc;

    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(Vec::new()).unwrap(),
    ));
    let fake = FakeServer::new(vec![plain("a"), plain("b")], 0);
    let (_import, _server) = fake
        .import(registry.plugins(), "srv", |c| c.trusted(true))
        .await;
    let open = PermissionContext::new();
    let pool = registry.assemble_tool_pool(&open);
    assert_eq!(pool.len(), 2);

    for rule in ["mcp__srv", "mcp__srv__*"] {
        let mut denied = PermissionContext::new();
        denied
            .add_rule(RuleSource::Session, RuleBehavior::Deny, rule)
            .unwrap();
        assert!(registry.assemble_tool_pool(&denied).is_empty(), "{rule}");
        // A pool assembled before the rule still refuses at call time.
        let session = Arc::new(Session::new());
        session.discover("mcp__srv__a");
        let executor = registry
            .executor()
            .permissions(denied)
            .mode(PermissionMode::Bypass)
            .session(session)
            .build();
        let result = executor
            .run_turn(vec![ToolCall::new("c", "mcp__srv__a", json!({}))])
            .await
            .pop()
            .unwrap();
        assert!(result.is_error(), "{rule}: {}", result.content());
    }
    assert!(
        fake.0.called.lock().unwrap().is_empty(),
        "no denied call reached the server"
    );
}

#[tokio::test]
async fn a_refresh_that_changes_nothing_changes_nothing() {
    let registry = PluginRegistry::new();
    let fake = FakeServer::new(vec![plain("a"), plain("b")], 0);
    let (import, _server) = fake.import(&registry, "srv", |c| c).await;
    let a = handle(&registry, "mcp__srv__a");
    let generation = registry.generation();
    for _ in 0..3 {
        import.refresh().await.unwrap();
    }
    assert_eq!(registry.generation(), generation, "nothing changed");
    assert!(handle(&registry, "mcp__srv__a").ptr_eq(&a), "same handle");
    // A changed definition gets a new handle, in one generation step; the
    // unchanged tool keeps its own.
    let b = handle(&registry, "mcp__srv__b");
    *fake.0.tools.lock().unwrap() = vec![
        tool(
            json!({ "name": "a", "description": "Now different.", "inputSchema": { "type": "object" } }),
        ),
        plain("b"),
        plain("c"),
    ];
    import.refresh().await.unwrap();
    assert_eq!(registry.generation(), generation + 1, "one atomic swap");
    assert!(!handle(&registry, "mcp__srv__a").ptr_eq(&a));
    assert!(handle(&registry, "mcp__srv__b").ptr_eq(&b));
    assert_eq!(
        names(&registry),
        ["mcp__srv__a", "mcp__srv__b", "mcp__srv__c"]
    );
}

/// 1,000 refreshes, each changing the server's list (a tool comes or goes,
/// the kept one's description changes),
/// while calls run through an executor built before the first: every call
/// to a tool that stays offered succeeds, and no snapshot ever sees the
/// server with fewer tools than it keeps offering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn executors_built_before_a_refresh_keep_every_tool_that_still_exists() {
    use registry_core::{
        PermissionContext, PermissionMode, ToolCall, ToolRegistry, catalog::BaseTools,
        session::Session,
    };
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(Vec::new()).unwrap(),
    ));
    let fake = FakeServer::new(vec![plain("kept"), plain("other")], 0);
    let (import, _server) = fake
        .import(registry.plugins(), "srv", |c| c.trusted(true))
        .await;
    let rules = PermissionContext::new();
    let _pool = registry.assemble_tool_pool(&rules);
    let session = Arc::new(Session::new());
    session.discover("mcp__srv__kept");
    session.discover("mcp__srv__other");
    let executor = Arc::new(
        registry
            .executor()
            .permissions(rules)
            .mode(PermissionMode::Bypass)
            .rule_of_two(RuleOfTwo::new().allow_unattended("mcp__srv__kept"))
            .session(session)
            .build(),
    );
    let done = Arc::new(AtomicBool::new(false));
    let callers: Vec<_> = (0..4)
        .map(|worker| {
            let executor = Arc::clone(&executor);
            let done = Arc::clone(&done);
            tokio::spawn(async move {
                let mut calls = 0usize;
                while !done.load(Ordering::Acquire) {
                    let id = format!("w{worker}-{calls}");
                    let result = executor
                        .run_turn(vec![ToolCall::new(
                            id,
                            "mcp__srv__kept",
                            json!({ "n": calls }),
                        )])
                        .await
                        .pop()
                        .unwrap();
                    assert!(!result.is_error(), "call {calls}: {}", result.content());
                    calls += 1;
                }
                calls
            })
        })
        .collect();
    let watcher = {
        let plugins = registry.plugins().clone();
        let done = Arc::clone(&done);
        tokio::spawn(async move {
            while !done.load(Ordering::Acquire) {
                assert!(
                    plugins.get("mcp__srv__kept").is_some(),
                    "a snapshot without the kept tool"
                );
                tokio::task::yield_now().await;
            }
        })
    };
    for i in 0..1_000 {
        // The kept tool's definition changes too (a new handle each time):
        // the executor finds it by owner and name, not by identity.
        let kept = tool(json!({
            "name": "kept",
            "description": format!("Version {}.", i % 3),
            "inputSchema": { "type": "object" }
        }));
        let mut tools = vec![kept];
        if i % 2 == 0 {
            tools.push(plain(&format!("extra{}", i % 7)));
        }
        *fake.0.tools.lock().unwrap() = tools;
        import.refresh().await.unwrap();
    }
    done.store(true, Ordering::Release);
    let mut total = 0;
    for caller in callers {
        total += caller.await.unwrap();
    }
    watcher.await.unwrap();
    assert!(total > 0, "no call ran during the refreshes");
}

/// An untrusted server's tool that asks is refused with a reason that
/// says the server is untrusted and names both ways out.
#[tokio::test]
async fn refusing_an_untrusted_servers_tool_says_why_and_what_would_change_it() {
    use registry_core::{
        PermissionContext, ToolCall, ToolRegistry, catalog::BaseTools, session::Session,
    };
    use std::sync::Arc;

    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(Vec::new()).unwrap(),
    ));
    let (_import, _server) = FakeServer::new(annotated(), 0)
        .import(registry.plugins(), "u", |c| c)
        .await;
    let rules = PermissionContext::new();
    let _pool = registry.assemble_tool_pool(&rules);
    let session = Arc::new(Session::new());
    session.discover("mcp__u__reader");
    let executor = registry
        .executor()
        .permissions(rules)
        .session(session)
        .build();
    let result = executor
        .run_turn(vec![ToolCall::new("c", "mcp__u__reader", json!({}))])
        .await
        .pop()
        .unwrap();
    assert!(result.is_error());
    let reason = result.content();
    for part in [
        "MCP server `u`, which is not trusted",
        "McpServerConfig::trusted(true)",
        "a rule `mcp__u__reader`",
    ] {
        assert!(reason.contains(part), "{part:?} in {reason}");
    }
}

/// A server's progress reaches the call's events, and keeps a long call
/// alive past its call timeout; a call that reports progress forever still
/// ends at its maximum duration.
#[tokio::test]
async fn progress_is_reported_and_extends_a_call_up_to_its_limit() {
    use registry_core::{
        PermissionContext, PermissionMode, ToolCall, ToolRegistry, catalog::BaseTools,
        execute::ExecEvent, session::Session,
    };
    use std::sync::Arc;

    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(Vec::new()).unwrap(),
    ));
    let fake = FakeServer::new(vec![plain("progress")], 0);
    let (_import, _server) = fake
        .import(registry.plugins(), "srv", |c| {
            c.trusted(true)
                .call_timeout(Duration::from_millis(400))
                .max_call_duration(Duration::from_millis(1_500))
        })
        .await;
    let rules = PermissionContext::new();
    let _pool = registry.assemble_tool_pool(&rules);
    let session = Arc::new(Session::new());
    session.discover("mcp__srv__progress");
    let executor = registry
        .executor()
        .permissions(rules)
        .mode(PermissionMode::Bypass)
        .rule_of_two(RuleOfTwo::new().allow_unattended("mcp__srv__progress"))
        .session(session)
        .build();
    let run = |args: serde_json::Value| {
        let executor = &executor;
        async move {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let call = ToolCall::new("c", "mcp__srv__progress", args);
            let result = executor
                .run_turn_streaming(vec![call], tx)
                .await
                .pop()
                .unwrap();
            let mut progress = Vec::new();
            while let Ok(event) = rx.try_recv() {
                if let ExecEvent::Progress { message, .. } = event {
                    progress.push(message);
                }
            }
            (result, progress)
        }
    };
    // 6 steps 150 ms apart: 900 ms in all, more than twice the timeout.
    let (result, progress) = run(json!({ "steps": 6, "every": 150 })).await;
    assert!(!result.is_error(), "{}", result.content());
    assert_eq!(result.content(), "done after 6");
    assert_eq!(progress.first().map(String::as_str), Some("step 1 (1/6)"));
    assert_eq!(progress.len(), 6, "{progress:?}");
    // Silence: the timeout holds.
    let (result, _) = run(json!({ "steps": 1, "every": 800 })).await;
    assert!(result.is_error());
    assert!(
        result.content().contains("did not answer within 400ms"),
        "{}",
        result.content()
    );
    // Progress forever: the maximum holds.
    let (result, progress) = run(json!({ "steps": 0, "every": 100 })).await;
    assert!(result.is_error());
    assert!(
        result.content().contains("still working after 1.5s"),
        "{}",
        result.content()
    );
    assert!(progress.len() >= 5, "{progress:?}");
}

/// Our own server forwards what a tool reports through its context to a
/// client that asked for progress: imported back, it is the call's
/// progress again.
#[tokio::test]
async fn our_server_forwards_a_tools_progress() {
    use registry_core::{ToolBuilder, ToolCall, ToolOutput, execute::ExecEvent};

    let worker = ToolBuilder::new("work", "Works in three steps.")
        .build(|_, cx| {
            let cx = cx.clone();
            async move {
                for step in 1..=3 {
                    cx.progress(format!("step {step}"));
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Ok(ToolOutput::text("worked"))
            }
        })
        .unwrap();
    let (_import, executor) = through_our_server(worker).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let result = executor
        .run_turn_streaming(vec![ToolCall::new("c", "mcp__back__work", json!({}))], tx)
        .await
        .pop()
        .unwrap();
    assert_eq!(result.content(), "worked");
    let mut progress = Vec::new();
    while let Ok(event) = rx.try_recv() {
        if let ExecEvent::Progress { message, .. } = event {
            progress.push(message);
        }
    }
    assert_eq!(progress, ["step 1 (1)", "step 2 (2)", "step 3 (3)"]);
}

/// Everything a server declares is kept: the descriptive hints (believed
/// from a trusted server, like the safety ones), `outputSchema`, the raw
/// definition, the server's instructions, and content a model can use.
#[tokio::test]
async fn what_a_server_declares_is_kept() {
    let registry = PluginRegistry::new();
    let annotated = tool(json!({
        "name": "forecast",
        "inputSchema": { "type": "object" },
        "outputSchema": {
            "type": "object",
            "properties": { "temperature": { "type": "number" } }
        },
        "annotations": {
            "readOnlyHint": true,
            "idempotentHint": true,
            "openWorldHint": false
        }
    }));
    let fake = FakeServer::new(vec![annotated, plain("blocks")], 0);
    let (import, _server) = fake.import(&registry, "t", |c| c.trusted(true)).await;
    let forecast = handle(&registry, "mcp__t__forecast");
    let spec = forecast.spec();
    assert!(*spec.posture().idempotent().value());
    assert!(!*spec.posture().open_world().value());
    assert_eq!(
        spec.output_schema()
            .and_then(|s| s.pointer("/properties/temperature/type")),
        Some(&json!("number"))
    );
    // Re-served, the hints go out again.
    let rendered = ProviderFormat::Mcp.definition(&forecast);
    assert_eq!(
        rendered["annotations"],
        json!({ "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false })
    );
    assert!(rendered.get("outputSchema").is_some());
    // The raw definition, as listed.
    let definition = import.definition("mcp__t__forecast").unwrap();
    assert_eq!(definition["annotations"]["openWorldHint"], json!(false));
    assert_eq!(
        import.instructions().as_deref(),
        Some("Ask for forecasts by city.")
    );

    // From an untrusted server the hints are not believed, the schema is
    // kept.
    let untrusted = PluginRegistry::new();
    let listed = fake.0.tools.lock().unwrap().clone();
    let (_import, _server) = FakeServer::new(listed, 0)
        .import(&untrusted, "u", |c| c)
        .await;
    let forecast = handle(&untrusted, "mcp__u__forecast");
    assert!(!*forecast.spec().posture().idempotent().value());
    assert!(*forecast.spec().posture().open_world().value());
    assert!(forecast.spec().output_schema().is_some());
}

/// Rich results cross MCP both ways: served by our server as MCP content
/// (base64 image, structured content, a resource link, an embedded PDF)
/// and imported back as the same blocks.
#[tokio::test]
async fn rich_results_survive_our_server_and_our_import() {
    use registry_core::declare::{ContentBlock, EmbeddedResource, Image, ResourceLink};
    use registry_core::{ToolBuilder, ToolCall, ToolOutput};

    let png = b"\x89PNG\r\n\x1a\n\x00\xffbytes".to_vec();
    let made = ToolOutput::text("a chart and its data")
        .with(Image::new(png.clone(), "image/png"))
        .with(ContentBlock::Json(json!({ "points": [1, 2, 3] })))
        .with(ResourceLink::new("file:///data.csv", "data.csv").media_type("text/csv"))
        .with(EmbeddedResource::bytes(
            "file:///r.pdf",
            b"%PDF-1.7".to_vec(),
            "application/pdf",
        ));
    let expected = made.blocks().to_vec();
    let chart = ToolBuilder::new("chart", "Draws a chart.")
        .read_only(true)
        .build(move |_, _| {
            let made = made.clone();
            async move { Ok(made) }
        })
        .unwrap();
    let (_import, executor) = through_our_server(chart).await;
    let result = executor
        .run_turn(vec![ToolCall::new("c", "mcp__back__chart", json!({}))])
        .await
        .pop()
        .unwrap();
    assert!(!result.is_error(), "{}", result.content());
    // The structured block went out as text and as structuredContent; it
    // comes back as the text block (the JSON) the content held, plus the
    // structured value only when no text block is that JSON already.
    let blocks = result.blocks();
    assert_eq!(blocks[0], expected[0]);
    assert_eq!(blocks[1], ContentBlock::Image(Image::new(png, "image/png")));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&blocks[2].text_view()).unwrap(),
        json!({ "points": [1, 2, 3] })
    );
    assert_eq!(blocks[3], expected[3]);
    assert_eq!(blocks[4], expected[4]);
    assert_eq!(blocks.len(), 5, "{blocks:?}");
}

/// Serves `tool` with our own server over an in-memory stream and imports
/// it back as `mcp__back__<name>`, in bypass mode (see
/// [`served`](crate::mcp_support::served)).
async fn through_our_server(
    tool: registry_core::ToolHandle,
) -> (McpImport, registry_core::Executor) {
    let bypass = registry_core::PermissionMode::Bypass;
    crate::mcp_support::served(tool, bypass, |s| s, |c| c).await
}

/// A hook sees an imported tool's result as any other: the secret the
/// server sent is gone before the model's result is made.
#[tokio::test]
async fn an_after_hook_redacts_an_imported_tools_result() {
    use registry_core::execute::{AfterCall, CallHook, HookFuture, HookedCall};
    use registry_core::{PermissionMode, ToolCall, ToolOutput};

    struct Redact;
    impl CallHook for Redact {
        fn name(&self) -> &str {
            "redact"
        }
        fn after<'a>(
            &'a self,
            _call: HookedCall<'a>,
            output: &'a ToolOutput,
        ) -> HookFuture<'a, AfterCall> {
            let text = output.as_str().replace("sk-live-4f9a", "[redacted]");
            Box::pin(async move { AfterCall::Replace(ToolOutput::text(text)) })
        }
    }

    let registry = crate::execute_support::registry_of(Vec::new());
    let fake = FakeServer::new(vec![plain("echo")], 0);
    let (_import, _server) = fake.import(registry.plugins(), "vault", |c| c).await;
    let exec = registry
        .executor()
        .mode(PermissionMode::Bypass)
        .rule_of_two(RuleOfTwo::new().allow_unattended("mcp__vault__echo"))
        .hook(Redact)
        .build();
    // Imported tools are deferred: found first, as tool search would.
    exec.session().discover("mcp__vault__echo");
    let results = exec
        .run_turn(vec![ToolCall::new(
            "1",
            "mcp__vault__echo",
            json!({ "key": "sk-live-4f9a" }),
        )])
        .await;
    assert!(!results[0].is_error(), "{}", results[0].content());
    assert!(
        results[0].content().contains("[redacted]"),
        "{}",
        results[0].content()
    );
    assert!(!results[0].content().contains("sk-live-4f9a"));
}
