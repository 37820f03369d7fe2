//! The demo's deferred-tools section: an imported MCP server's tools are
//! deferred, the model's first call to one is refused, `tool_search`
//! finds and loads it, and the call runs.

use std::sync::Arc;

use registry_core::{
    Flags, ToolBuilder, ToolCall, ToolOutput, ToolRegistry, catalog::BaseTools,
    declare::RemoteOrigin,
};
use registry_core::{
    render::ProviderFormat,
    search::{TOOL_SEARCH_FLAG, ToolSearchIndex},
    session::DeferralPolicy,
};
use serde_json::json;

/// A few tools as GitHub's MCP server publishes them (names and
/// descriptions verbatim), imported as `mcp__github__<tool>`.
const GITHUB: &[(&str, &str)] = &[
    ("create_issue", "Create a new issue in a GitHub repository."),
    (
        "list_pull_requests",
        "List pull requests in a GitHub repository. If the user specifies an author, then DO NOT use this tool and use the search_pull_requests tool instead.",
    ),
    (
        "merge_pull_request",
        "Merge a pull request in a GitHub repository.",
    ),
    (
        "get_file_contents",
        "Get the contents of a file or directory from a GitHub repository",
    ),
    (
        "search_code",
        "Fast and precise code search across ALL GitHub repositories using GitHub's native search engine. Best for finding exact symbols, functions, classes, or specific code patterns.",
    ),
];

/// Registers five of GitHub's MCP tools as an MCP import would (`mcp__github__*`,
/// with their remote origin, so they are deferrable); they answer `done`.
/// Keep the guards: dropping one removes its tool.
pub fn register_github(
    registry: &ToolRegistry,
) -> Result<Vec<registry_core::catalog::PluginGuard>, Box<dyn std::error::Error>> {
    let mut guards = Vec::new();
    for (name, description) in GITHUB {
        let tool = ToolBuilder::new(format!("mcp__github__{name}"), *description)
            .remote_origin(RemoteOrigin::new("github", *name))
            .read_only(true)
            .build(|_, _| async { Ok(ToolOutput::text("done")) })?;
        guards.push(registry.plugins().register("github", tool)?);
    }
    Ok(guards)
}

/// Prints the section: deferral decision, the gate, the search, the call.
/// Runs without a tracing subscriber: the demo's `--trace` file is about
/// its main turn.
pub async fn print_tool_search() -> Result<(), Box<dyn std::error::Error>> {
    use tracing::instrument::WithSubscriber;
    section()
        .with_subscriber(tracing::subscriber::NoSubscriber::default())
        .await
}

async fn section() -> Result<(), Box<dyn std::error::Error>> {
    println!("\n== Deferred tools and tool_search\n");
    let registry = Arc::new(ToolRegistry::new(BaseTools::linked(
        &Flags::new().with(TOOL_SEARCH_FLAG),
    )?));
    let guards = register_github(&registry)?;
    let index = Arc::new(ToolSearchIndex::new(&registry));
    // A small budget so these few tools cross it: 1,000 bytes.
    let policy = DeferralPolicy::Auto {
        threshold_bytes: 1_000,
    };
    let executor = registry
        .executor()
        .tool_search_with(index, policy, ProviderFormat::Anthropic)
        .build();
    let view = executor.pool().for_session(executor.session());
    println!(
        "auto policy: the deferrable tools take more than 1000 bytes (Anthropic format): {} deferred",
        view.pending().len()
    );
    println!("prompt catalog lists them by name:");
    for line in view
        .render_prompt_catalog()
        .lines()
        .filter(|l| l.contains("(deferred)"))
    {
        println!("  {line}");
    }

    let turns = [
        ToolCall::new("1", "mcp__github__merge_pull_request", json!({})),
        ToolCall::new(
            "2",
            "tool_search",
            json!({ "query": "merge my PR", "max_results": 2 }),
        ),
        ToolCall::new("3", "mcp__github__merge_pull_request", json!({})),
    ];
    for call in turns {
        let label = format!("{} {}", call.name, call.input);
        let result = executor.run_turn(vec![call]).await.remove(0);
        let status = if result.is_error() { "error" } else { "ok" };
        println!("{label}\n  -> {status}: {}", result.content());
    }
    drop(guards);
    Ok(())
}
