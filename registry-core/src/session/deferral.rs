//! Which tools a session sends without their schema: the deferral policy
//! and the decision it makes for one pool in one provider format.

use std::collections::BTreeSet;

use crate::declare::posture::Loading;
use crate::input::handle::ToolHandle;
use crate::pool::{PoolEntry, ToolPool};
use crate::render::ProviderFormat;

/// The search tool's primary name: what a session leaves out of its
/// renders while it defers nothing.
pub(crate) const TOOL_SEARCH_NAME: &str = "tool_search";

/// When a session defers tools.
///
/// ```
/// use registry_core::session::DeferralPolicy;
///
/// // Defer once the deferrable tools would take more than 40 kB: 10% of a
/// // 400 kB context, the default.
/// assert_eq!(DeferralPolicy::default(), DeferralPolicy::Auto { threshold_bytes: 40_000 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeferralPolicy {
    /// Every deferrable tool is deferred: declared `defer`, or imported
    /// from an MCP server and not declared always-load; never
    /// `always_load` tools or `tool_search` itself.
    Always,
    /// Nothing is deferred; `tool_search` is left out of renders.
    Never,
    /// Deferrable tools are deferred only when their full definitions, in
    /// the provider format in use, would take more than `threshold_bytes`
    /// bytes of the context.
    Auto {
        /// The rendered size above which the deferrable tools are
        /// deferred (at it, nothing is).
        threshold_bytes: usize,
    },
}

impl DeferralPolicy {
    /// The default threshold of [`Auto`](Self::Auto): 10% of 400,000
    /// bytes (about 100,000 tokens at four bytes a token).
    const DEFAULT_THRESHOLD_BYTES: usize = 40_000;
}

impl Default for DeferralPolicy {
    /// [`Auto`](Self::Auto) at 40,000 bytes.
    fn default() -> Self {
        DeferralPolicy::Auto {
            threshold_bytes: Self::DEFAULT_THRESHOLD_BYTES,
        }
    }
}

/// Whether a pooled tool may be deferred at all: declared `defer`, or a
/// tool imported from an MCP server (one whose spec carries a
/// [`RemoteOrigin`](crate::declare::RemoteOrigin)) not declared always-load.
/// `always_load` tools and `tool_search` itself never are.
///
/// An import is known by its recorded origin, not its name: a local plugin
/// that happens to be called `mcp__x` is loaded like any other local tool,
/// and an imported tool stays deferrable whatever it is named.
pub(crate) fn is_deferrable(entry: &PoolEntry) -> bool {
    let tool = entry.tool();
    if tool.name() == TOOL_SEARCH_NAME {
        return false;
    }
    match tool.spec().loading().value() {
        Loading::Deferred => true,
        Loading::AlwaysLoad => false,
        Loading::Eager => tool.spec().remote_origin().is_some(),
    }
}

/// What a [`DeferralPolicy`] decided for one pool: the deferred tools,
/// by primary name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Deferral {
    deferred: BTreeSet<String>,
    deferrable_bytes: usize,
}

impl Deferral {
    /// Applies `policy` to `pool`, measuring in `format`.
    pub(crate) fn decide(pool: &ToolPool, policy: DeferralPolicy, format: ProviderFormat) -> Self {
        let deferrable: Vec<&ToolHandle> = pool
            .entries()
            .iter()
            .filter(|entry| is_deferrable(entry))
            .map(PoolEntry::tool)
            .collect();
        let measure = || {
            deferrable
                .iter()
                .map(|tool| format.rendered_bytes(tool))
                .sum()
        };
        let (defer, deferrable_bytes) = match policy {
            DeferralPolicy::Never => (false, 0),
            DeferralPolicy::Always => (true, measure()),
            DeferralPolicy::Auto { threshold_bytes } => {
                let bytes: usize = measure();
                (bytes > threshold_bytes, bytes)
            }
        };
        tracing::debug!(
            ?policy,
            ?format,
            deferrable = deferrable.len(),
            deferrable_bytes,
            defer,
            "deferral decided"
        );
        Deferral {
            deferred: if defer {
                deferrable
                    .iter()
                    .map(|tool| tool.name().to_owned())
                    .collect()
            } else {
                BTreeSet::new()
            },
            deferrable_bytes,
        }
    }

    /// Whether the tool with this primary name is deferred.
    pub(crate) fn is_deferred(&self, name: &str) -> bool {
        self.deferred.contains(name)
    }

    /// Whether any tool is deferred (and so `tool_search` is offered).
    pub(crate) fn defers_anything(&self) -> bool {
        !self.deferred.is_empty()
    }

    /// The deferred tools' names, sorted.
    #[cfg(test)]
    pub(crate) fn deferred(&self) -> impl ExactSizeIterator<Item = &str> {
        self.deferred.iter().map(String::as_str)
    }

    /// The measured size of the deferrable tools' full definitions (0 when
    /// the policy measured nothing).
    #[cfg(test)]
    pub(crate) fn deferrable_bytes(&self) -> usize {
        self.deferrable_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three policies over one imported tool.
    #[test]
    fn each_policy_decides_for_a_pool() {
        use crate::{
            catalog::BaseTools,
            declare::{RemoteOrigin, ToolBuilder, ToolOutput},
            permission::PermissionContext,
            pool::ToolRegistry,
        };
        let registry = ToolRegistry::new(BaseTools::__from_handles(Vec::new()).unwrap());
        // What an MCP import registers: a tool recording its server.
        let tool = ToolBuilder::new("mcp__docs__search", "Search the docs.")
            .remote_origin(RemoteOrigin::new("docs", "search"))
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap();
        let _guard = registry.plugins().register("docs", tool).unwrap();
        let pool = registry.assemble_tool_pool(&PermissionContext::new());

        let always = Deferral::decide(&pool, DeferralPolicy::Always, ProviderFormat::Anthropic);
        assert!(always.is_deferred("mcp__docs__search"));
        let never = Deferral::decide(&pool, DeferralPolicy::Never, ProviderFormat::Anthropic);
        assert!(!never.defers_anything());
        // One small tool is far under the default budget.
        let auto = Deferral::decide(&pool, DeferralPolicy::default(), ProviderFormat::Anthropic);
        assert!(!auto.defers_anything());
        assert!(auto.deferrable_bytes() > 0);
        // A tiny budget defers it.
        let tight = DeferralPolicy::Auto {
            threshold_bytes: 10,
        };
        assert!(
            Deferral::decide(&pool, tight, ProviderFormat::Anthropic)
                .is_deferred("mcp__docs__search")
        );
    }

    /// An import is known by the origin it records, never by its name.
    #[test]
    fn only_tools_with_a_remote_origin_are_deferrable_imports() {
        use crate::{
            catalog::BaseTools,
            declare::{RemoteOrigin, ToolBuilder, ToolOutput},
            permission::PermissionContext,
            pool::ToolRegistry,
        };
        let build = |builder: ToolBuilder| {
            builder
                .build(|_, _| async { Ok(ToolOutput::text("")) })
                .unwrap_or_else(|err| panic!("{err}"))
        };
        let registry = ToolRegistry::new(
            BaseTools::__from_handles(vec![build(ToolBuilder::new(
                "mcp__builtin__named",
                "A built-in tool that only looks imported.",
            ))])
            .unwrap_or_else(|err| panic!("{err}")),
        );
        let plugins = [
            // A local plugin that merely has an import-like name.
            build(ToolBuilder::new("mcp__x__local", "A local plugin.")),
            // Imports, whatever they are called.
            build(
                ToolBuilder::new("mcp__x__remote", "An imported tool.")
                    .remote_origin(RemoteOrigin::new("x", "remote")),
            ),
            build(
                ToolBuilder::new("renamed", "An imported tool under another name.")
                    .remote_origin(RemoteOrigin::new("x", "renamed")),
            ),
            // An import the server marked always-load.
            build(
                ToolBuilder::new("mcp__x__pinned", "An always-load import.")
                    .remote_origin(RemoteOrigin::new("x", "pinned"))
                    .loading(Loading::AlwaysLoad),
            ),
        ];
        let _guards: Vec<_> = plugins
            .into_iter()
            .map(|tool| {
                registry
                    .plugins()
                    .register("x", tool)
                    .unwrap_or_else(|err| panic!("{err}"))
            })
            .collect();
        let pool = registry.assemble_tool_pool(&PermissionContext::new());
        let deferrable: BTreeSet<&str> = pool
            .entries()
            .iter()
            .filter(|entry| is_deferrable(entry))
            .map(|entry| entry.tool().name())
            .collect();
        assert_eq!(
            deferrable,
            BTreeSet::from(["mcp__x__remote", "renamed"]),
            "pool: {:?}",
            pool.iter().map(|t| t.name()).collect::<Vec<_>>()
        );
    }
}
