//! The scope `tool_search` searches: every query form, determinism, a
//! search that only sees the session's pool, the index following plugin
//! churn, both result shapes and typed errors.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{build, tool, world};
use crate::catalog::BaseTools;
use crate::declare::ToolBuilder;
use crate::declare::ToolOutput;
use crate::permission::{PermissionContext, RuleBehavior, RuleSource};
use crate::pool::ToolRegistry;
use crate::render::ProviderFormat;
use crate::search::ToolSearchIndex;
use crate::search::index::{Document, SearchIndex};
use crate::search::query::QueryError;
use crate::search::tool::{ResultShape, ToolSearchError};
use crate::session::Session;

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

/// A scope picks up the plugin tools registered since the index was
/// built.
#[test]
fn a_scope_syncs_the_index_with_its_registry() {
    let registry = ToolRegistry::new(BaseTools::__from_handles(Vec::new()).unwrap());
    let index = ToolSearchIndex::new(&registry);
    let tool = ToolBuilder::new("mcp__notes__find_note", "Find a note by its title.")
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap();
    let guard = registry.plugins().register("notes", tool).unwrap();

    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    let members = index.scope(&registry, &pool); // picks up the new plugin tool
    let found = index.search(&"look up a note".parse().unwrap(), 5, &members);
    assert_eq!(found.hits[0].name, "mcp__notes__find_note");

    drop(guard);
    assert_eq!(index.sync(&registry), 1); // one tool left the index
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
