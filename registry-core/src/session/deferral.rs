//! Which tools a session sends without their schema: the deferral policy
//! and the decision it makes for one pool in one provider format.

use std::collections::BTreeSet;

use crate::declare::posture::Loading;
use crate::input::handle::ToolHandle;
use crate::pool::{PoolEntry, ToolPool};
use crate::render::ProviderFormat;

/// The search tool's primary name: what a session leaves out of its
/// renders while it defers nothing (exported by [`search`](crate::search)).
pub const TOOL_SEARCH_NAME: &str = "tool_search";

/// When a session defers tools.
///
/// ```
/// use registry_core::session::{AutoDeferral, DeferralPolicy};
///
/// // Defer once the deferrable tools would take more than 10% of a
/// // 400 kB context: the default.
/// assert_eq!(DeferralPolicy::default(), DeferralPolicy::Auto(AutoDeferral::new(400_000, 10).unwrap()));
/// assert!(AutoDeferral::new(400_000, 0).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeferralPolicy {
    /// Every deferrable tool is deferred (see [`is_deferrable`]).
    Always,
    /// Nothing is deferred; `tool_search` is left out of renders.
    Never,
    /// Deferrable tools are deferred only when their full definitions, in
    /// the provider format in use, would take more than a share of the
    /// context budget.
    Auto(AutoDeferral),
}

impl Default for DeferralPolicy {
    fn default() -> Self {
        DeferralPolicy::Auto(AutoDeferral::DEFAULT)
    }
}

/// The budget of [`DeferralPolicy::Auto`], in rendered bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoDeferral {
    context_bytes: usize,
    share_percent: u8,
}

/// [`AutoDeferral::new`] was given a share outside 1..=100.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the deferral share must be a percentage from 1 to 100, not {share_percent}")]
pub struct DeferralShareError {
    /// The share given.
    pub share_percent: u8,
}

impl AutoDeferral {
    /// 10% of 400,000 bytes (about 100,000 tokens at four bytes a token).
    pub const DEFAULT: AutoDeferral = AutoDeferral {
        context_bytes: 400_000,
        share_percent: 10,
    };

    /// Defer when the deferrable tools' definitions exceed
    /// `share_percent`% of `context_bytes`.
    pub fn new(context_bytes: usize, share_percent: u8) -> Result<Self, DeferralShareError> {
        if !(1..=100).contains(&share_percent) {
            return Err(DeferralShareError { share_percent });
        }
        Ok(AutoDeferral {
            context_bytes,
            share_percent,
        })
    }

    /// The byte count above which tools are deferred.
    pub fn threshold_bytes(self) -> usize {
        self.context_bytes / 100 * usize::from(self.share_percent)
            + self.context_bytes % 100 * usize::from(self.share_percent) / 100
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
pub fn is_deferrable(entry: &PoolEntry) -> bool {
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
///
/// ```standalone_crate
/// use registry_core::{render::ProviderFormat, session::{AutoDeferral, Deferral, DeferralPolicy}};
/// use registry_core::{
///     Flags, PermissionContext, ToolBuilder, ToolOutput, ToolRegistry,
///     catalog::try_all_base_tools, declare::RemoteOrigin,
/// };
///
/// let registry = ToolRegistry::new(try_all_base_tools(&Flags::new()).unwrap());
/// // What an MCP import registers: a tool recording its server.
/// let tool = ToolBuilder::new("mcp__docs__search", "Search the docs.")
///     .remote_origin(RemoteOrigin::new("docs", "search"))
///     .build(|_, _| async { Ok(ToolOutput::text("")) })
///     .unwrap();
/// let _guard = registry.plugins().register("docs", tool).unwrap();
/// let pool = registry.assemble_tool_pool(&PermissionContext::new());
///
/// let always = Deferral::decide(&pool, DeferralPolicy::Always, ProviderFormat::Anthropic);
/// assert!(always.is_deferred("mcp__docs__search"));
/// let never = Deferral::decide(&pool, DeferralPolicy::Never, ProviderFormat::Anthropic);
/// assert!(!never.defers_anything());
/// // One small tool is far under 10% of the default budget.
/// let auto = Deferral::decide(&pool, DeferralPolicy::default(), ProviderFormat::Anthropic);
/// assert!(!auto.defers_anything());
/// assert!(auto.deferrable_bytes() > 0);
/// // A tiny budget defers it.
/// let tight = DeferralPolicy::Auto(AutoDeferral::new(100, 10).unwrap());
/// assert!(Deferral::decide(&pool, tight, ProviderFormat::Anthropic).is_deferred("mcp__docs__search"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deferral {
    deferred: BTreeSet<String>,
    deferrable_bytes: usize,
}

impl Deferral {
    /// Nothing deferred.
    pub fn none() -> Self {
        Self::default()
    }

    /// Applies `policy` to `pool`, measuring in `format`.
    pub fn decide(pool: &ToolPool, policy: DeferralPolicy, format: ProviderFormat) -> Self {
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
            DeferralPolicy::Auto(auto) => {
                let bytes: usize = measure();
                (bytes > auto.threshold_bytes(), bytes)
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
    pub fn is_deferred(&self, name: &str) -> bool {
        self.deferred.contains(name)
    }

    /// Whether any tool is deferred (and so `tool_search` is offered).
    pub fn defers_anything(&self) -> bool {
        !self.deferred.is_empty()
    }

    /// The deferred tools' names, sorted.
    pub fn deferred(&self) -> impl ExactSizeIterator<Item = &str> {
        self.deferred.iter().map(String::as_str)
    }

    /// The measured size of the deferrable tools' full definitions (0 when
    /// the policy measured nothing).
    pub fn deferrable_bytes(&self) -> usize {
        self.deferrable_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_do_not_overflow_or_round_up() {
        assert_eq!(AutoDeferral::new(1_000, 10).unwrap().threshold_bytes(), 100);
        assert_eq!(
            AutoDeferral::new(usize::MAX, 100)
                .unwrap()
                .threshold_bytes(),
            usize::MAX
        );
        assert_eq!(AutoDeferral::new(99, 50).unwrap().threshold_bytes(), 49);
        assert_eq!(
            AutoDeferral::new(5, 101),
            Err(DeferralShareError { share_percent: 101 })
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
