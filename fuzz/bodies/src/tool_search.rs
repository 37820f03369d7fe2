//! `tool_search`: queries against the linked catalog (the example tools
//! and the fuzz tools) and imported tools of two servers, called through
//! an executor with tool search on, as a model calls it.
//!
//! Property: no panic; a query that parses finds at most `max` tools,
//! each in the pool, and the same query finds the same tools twice; a
//! `max` out of range is an error, never a panic.

use std::sync::LazyLock;

use registry_core::{
    Executor, ToolBuilder, ToolCall, ToolOutput, ToolRegistry,
    catalog::{BaseTools, PluginGuard},
    declare::RemoteOrigin,
    render::ProviderFormat,
    search::TOOL_SEARCH_FLAG,
    session::DeferralPolicy,
};
use serde_json::{Value, json};

/// The largest `max_results` `tool_search` takes.
const MAX_RESULTS: usize = 50;

/// The registry, an executor with tool search on, and the runtime its
/// turns run on, built once.
struct World {
    executor: Executor,
    runtime: tokio::runtime::Runtime,
    _registry: ToolRegistry,
    _guards: Vec<PluginGuard>,
}

static WORLD: LazyLock<World> = LazyLock::new(|| {
    let registry = ToolRegistry::new(
        BaseTools::linked(&registry_core::Flags::new().with(TOOL_SEARCH_FLAG))
            .expect("the fuzz catalog builds"),
    );
    let mut guards = Vec::new();
    for (server, tool, description) in [
        (
            "github",
            "create_issue",
            "Open a new issue in a repository.",
        ),
        ("github", "merge_pull_request", "Merge a pull request."),
        ("slack", "post_message", "Post a message to a channel."),
        ("slack", "list_channels", "List public channels."),
    ] {
        let handle = ToolBuilder::new(format!("mcp__{server}__{tool}"), description)
            .read_only(true)
            .remote_origin(RemoteOrigin::new(server, tool))
            .build(|_args, _cx| async { Ok(ToolOutput::text("ran")) })
            .expect("a fuzz plugin tool builds");
        guards.push(
            registry
                .plugins()
                .register(server, handle)
                .expect("a fuzz plugin registers"),
        );
    }
    let executor = registry
        .executor()
        .tool_search(DeferralPolicy::Always, ProviderFormat::Anthropic)
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    World {
        executor,
        runtime,
        _registry: registry,
        _guards: guards,
    }
});

/// One `tool_search` call: whether it failed, and what the model reads.
fn search(world: &World, query: &str, max: usize) -> (bool, String) {
    let call = ToolCall::new(
        "fuzz",
        "tool_search",
        json!({ "query": query, "max_results": max }),
    );
    let mut results = world.runtime.block_on(world.executor.run_turn(vec![call]));
    let result = results.remove(0);
    (result.is_error(), result.into_content())
}

/// The tool names of a result's `tool_reference` blocks (none when it
/// says nothing matched).
fn names(content: &str) -> Vec<String> {
    let Some(Ok(Value::Array(blocks))) = serde_json::Deserializer::from_str(content)
        .into_iter::<Value>()
        .next()
    else {
        return Vec::new();
    };
    blocks
        .iter()
        .map(|block| {
            block["tool_name"]
                .as_str()
                .expect("a tool_reference block names its tool")
                .to_owned()
        })
        .collect()
}

/// The first byte is `max` (0 to 255, so out-of-range values are tried
/// too); the rest is the query.
pub fn run(data: &[u8]) {
    let Some((&max, query)) = data.split_first() else {
        return;
    };
    let Ok(query) = std::str::from_utf8(query) else {
        return;
    };
    let max = usize::from(max);
    let world = &*WORLD;
    let (error, first) = search(world, query, max);
    if !(1..=MAX_RESULTS).contains(&max) {
        assert!(error, "max {max} is out of range, and was taken: {first}");
        return;
    }
    if error {
        return;
    }
    let found = names(&first);
    assert!(
        found.len() <= max,
        "{query:?}: {} tools for max {max}",
        found.len()
    );
    for name in &found {
        assert!(
            world.executor.pool().get(name).is_some(),
            "{query:?} found {name}, not in the pool"
        );
    }
    let (error, again) = search(world, query, max);
    assert!(!error, "{query:?}: the same query parses twice: {again}");
    assert_eq!(names(&again), found, "{query:?}: two answers");
}
