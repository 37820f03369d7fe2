//! Narrowing: the tools of the authoritative list one permission context
//! keeps, and, for a tool it drops, the layer that dropped it.

use crate::catalog::{BaseTools, Missing};
use crate::input::ToolHandle;
use crate::permission::{PermissionContext, RuleSource};

/// Narrows the authoritative list for one context: removes internal-only
/// tools, then tools a whole-tool deny rule covers (by name or alias), then
/// tools the active mode leaves out, then tools whose `enabled` self-check
/// says no. The order of the list (by name) is kept.
pub(crate) fn narrow(base: &BaseTools, cx: &PermissionContext) -> Vec<ToolHandle> {
    base.iter()
        .filter(|tool| {
            let spec = tool.spec();
            if spec.is_internal() {
                return false;
            }
            if let Some((source, rule)) = cx.whole_tool_deny(spec.name(), spec.aliases()) {
                tracing::debug!(tool = spec.name(), %rule, ?source, "removed by a deny rule");
                return false;
            }
            if !cx.mode().keeps(spec.name()) {
                tracing::debug!(
                    tool = spec.name(),
                    mode = cx.mode().name(),
                    "removed by the mode"
                );
                return false;
            }
            tool.is_enabled()
        })
        .cloned()
        .collect()
}

/// Which narrowing layer keeps a declared tool out of a pool: the answer
/// [`ToolRegistry::explain_removed`](crate::ToolRegistry::explain_removed) gives, and the reason the executor
/// shows a model that called a tool it may not use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Removed {
    /// The tool is internal-only: never in the ordinary pool.
    #[error("tool `{tool}` is internal and never offered")]
    Internal {
        /// The tool's primary name.
        tool: String,
    },
    /// A whole-tool deny rule covers the tool (by name, alias or server).
    #[error("tool `{tool}` is denied by the {} rule `{rule}`", .rule_source.name())]
    DenyRule {
        /// The tool's primary name.
        tool: String,
        /// Where the rule came from.
        rule_source: RuleSource,
        /// The rule, as written.
        rule: String,
    },
    /// The active mode leaves the tool out.
    #[error("tool `{tool}` is not available in the `{mode}` mode")]
    Mode {
        /// The tool's primary name.
        tool: String,
        /// The mode's name.
        mode: String,
    },
    /// The tool's `enabled` self-check says no.
    #[error("tool `{tool}` is disabled: its `enabled` check says no")]
    Disabled {
        /// The tool's primary name.
        tool: String,
    },
    /// Not in the authoritative list at all: a `cfg` gate or a runtime
    /// flag (see [`BaseTools::explain_missing`]).
    #[error(transparent)]
    Missing(Missing),
}

/// The narrowing layer that removes `tool` under `cx`, checked in the
/// order [`narrow`] applies them; `None` when every layer keeps it.
pub(crate) fn removed_by(tool: &ToolHandle, cx: &PermissionContext) -> Option<Removed> {
    let spec = tool.spec();
    let name = spec.name().to_owned();
    if spec.is_internal() {
        return Some(Removed::Internal { tool: name });
    }
    if let Some((rule_source, rule)) = cx.whole_tool_deny(spec.name(), spec.aliases()) {
        return Some(Removed::DenyRule {
            tool: name,
            rule_source,
            rule: rule.to_string(),
        });
    }
    if !cx.mode().keeps(spec.name()) {
        return Some(Removed::Mode {
            tool: name,
            mode: cx.mode().name().to_owned(),
        });
    }
    if !tool.is_enabled() {
        return Some(Removed::Disabled { tool: name });
    }
    None
}
