//! Tool search from inside the crate: the scope `tool_search` searches
//! (every query form, typed errors, both result shapes, a search that only
//! sees its pool), the deferral policies, and the semantic seam. What the
//! public API reaches (an executor with `tool_search`, session renders)
//! is tested in `tests/it/search_tool.rs`.
//!
//! This build has no `#[tool]` `tool_search` (see `tool.rs`):
//! [`stand_in`](super::tool::stand_in) takes its place in the lists.

mod deferral;
mod scope;
mod semantic;

use std::sync::Arc;

use crate::catalog::{BaseTools, PluginGuard};
use crate::declare::posture::Loading;
use crate::declare::{RemoteOrigin, ToolBuilder, ToolOutput};
use crate::input::handle::ToolHandle;
use crate::permission::PermissionContext;
use crate::pool::{ToolPool, ToolRegistry};
use crate::search::ToolSearchIndex;
use crate::search::tool::{ResultShape, ToolSearchScope};
use crate::session::Session;

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
        super::tool::stand_in(),
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
    fn search(
        &self,
        query: &str,
        max: usize,
    ) -> Result<super::tool::ToolSearchOutcome, super::tool::ToolSearchError> {
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
