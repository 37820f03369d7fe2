//! `tool_search`: queries against the linked catalog (the example tools
//! and the fuzz tools) and imported tools of two servers.
//!
//! Property: no panic; a query that parses finds at most `max` tools,
//! each in the pool, and the same query finds the same tools twice; a
//! `max` out of range is an error, never a panic.

use std::sync::{Arc, LazyLock};

use registry_core::{
    PermissionContext, ToolBuilder, ToolOutput, ToolRegistry,
    catalog::{PluginGuard, try_all_base_tools},
    declare::RemoteOrigin,
    pool::ToolPool,
    search::{MAX_RESULTS, ResultShape, ToolSearchIndex, ToolSearchScope},
    session::Session,
};

/// The registry, its pool and index, built once.
struct World {
    registry: ToolRegistry,
    pool: ToolPool,
    index: Arc<ToolSearchIndex>,
    _guards: Vec<PluginGuard>,
}

static WORLD: LazyLock<World> = LazyLock::new(|| {
    let registry = ToolRegistry::new(
        try_all_base_tools(&registry_core::Flags::new()).expect("the fuzz catalog builds"),
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
    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    let index = Arc::new(ToolSearchIndex::new(&registry));
    World {
        registry,
        pool,
        index,
        _guards: guards,
    }
});

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
    let scope = ToolSearchScope::new(
        Arc::clone(&world.index),
        &world.registry,
        &world.pool,
        ResultShape::ToolReferences,
    );
    let session = Session::new();
    let first = scope.search(&session, query, max);
    if !(1..=MAX_RESULTS).contains(&max) {
        assert!(first.is_err(), "max {max} is out of range, and was taken");
        return;
    }
    let Ok(first) = first else {
        return;
    };
    let names = first.names();
    assert!(
        names.len() <= max,
        "{query:?}: {} tools for max {max}",
        names.len()
    );
    for name in &names {
        assert!(
            world.pool.get(name).is_some(),
            "{query:?} found {name}, not in the pool"
        );
    }
    let _ = first.render();
    let again = scope
        .search(&session, query, max)
        .expect("the same query parses twice");
    assert_eq!(again.names(), names, "{query:?}: two answers");
}
