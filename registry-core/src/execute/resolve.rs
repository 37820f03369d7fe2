//! From the name a model used to the pooled tool that runs.
//!
//! A name in the pool (primary name or alias of a pooled tool) runs; the
//! index answers that with one map lookup. Only a miss reads the
//! authoritative list and the plugin registry, to explain the refusal: a
//! primary name missing from the pool was filtered out on purpose and is
//! never run. A plugin tool unregistered since the pool was assembled is
//! refused too: a crashed plugin leaves no ghost tools.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::error::CallError;
use crate::input::handle::ToolHandle;
use crate::permission::PermissionContext;
use crate::pool::{Partition, PoolEntry, ToolPool, ToolRegistry};
use crate::session::Session;

/// FNV-1a: the index is hashed once per call, on a name of a few bytes,
/// where SipHash's setup costs more than the lookup. The keys are the
/// pool's own names, never the model's, so a name the model sends can
/// cost one probe sequence at most: there is no flooding to defend
/// against with a keyed hash.
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A pooled tool, and for a plugin tool its owner.
type Entry = (ToolHandle, Option<Arc<str>>);

/// Every name and alias of one pool's tools, to the tool (and, for a
/// plugin tool, its owner). Primary names win over aliases (a plugin alias
/// can never shadow a tool's name).
#[derive(Debug, Default)]
pub(crate) struct PoolIndex {
    by_name: HashMap<Box<str>, Entry, BuildHasherDefault<Fnv>>,
    /// The plugin generation the pool was assembled at.
    plugin_generation: u64,
}

impl PoolIndex {
    pub(crate) fn new(pool: &ToolPool) -> Self {
        let owner = |entry: &PoolEntry| match entry.partition() {
            Partition::Base => None,
            Partition::Plugin(owner) => Some(Arc::clone(owner)),
        };
        let mut by_name =
            HashMap::with_capacity_and_hasher(pool.len() * 2, BuildHasherDefault::default());
        for entry in pool.entries() {
            by_name.insert(
                entry.tool().name().into(),
                (entry.tool().clone(), owner(entry)),
            );
        }
        for entry in pool.entries() {
            for alias in entry.tool().spec().aliases() {
                by_name
                    .entry(alias.as_str().into())
                    .or_insert_with(|| (entry.tool().clone(), owner(entry)));
            }
        }
        PoolIndex {
            by_name,
            plugin_generation: pool.plugin_generation(),
        }
    }
}

/// A name the pool runs: the tool, and for a plugin tool its owner (which
/// the executor checks again right before the body, without a second
/// lookup).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Resolved<'a> {
    pub(crate) tool: &'a ToolHandle,
    pub(crate) owner: Option<&'a Arc<str>>,
}

/// Resolves one call's name: the pooled tool, or why it cannot run.
pub(crate) fn resolve<'a>(
    index: &'a PoolIndex,
    registry: &ToolRegistry,
    permissions: &PermissionContext,
    session: &Session,
    name: &str,
) -> Result<Resolved<'a>, CallError> {
    let Some((tool, owner)) = index.by_name.get(name) else {
        return Err(explain(registry, permissions, name));
    };
    if let Some(owner) = owner {
        still_registered(index, registry, tool, owner)?;
    }
    if session.needs_discovery(tool) {
        return Err(CallError::NotDiscovered {
            tool: tool.name().to_owned(),
        });
    }
    Ok(Resolved {
        tool,
        owner: owner.as_ref(),
    })
}

/// Whether a plugin tool of the pool is still registered: one atomic load
/// while the plugins are unchanged, a look at the registry only after one
/// came or went since the pool was built. Checked when the call is
/// resolved and again right before its body runs, since a plugin may leave
/// while earlier batches run.
///
/// A tool is still there when its owner still has a tool of its name,
/// whatever the handle: a refresh that re-registered the owner's tools
/// (an MCP `list_changed`) must not break an executor built before it.
/// The call runs with the handle it was prepared with.
pub(crate) fn still_registered(
    index: &PoolIndex,
    registry: &ToolRegistry,
    tool: &ToolHandle,
    owner: &str,
) -> Result<(), CallError> {
    let plugins = registry.plugins();
    if plugins.generation() != index.plugin_generation && !plugins.contains(owner, tool.name()) {
        return Err(CallError::Unregistered {
            tool: tool.name().to_owned(),
            owner: owner.to_owned(),
        });
    }
    Ok(())
}

/// The refusal for a name the pool does not hold.
fn explain(registry: &ToolRegistry, permissions: &PermissionContext, name: &str) -> CallError {
    if let Some(removed) = registry.explain_removed(permissions, name) {
        return CallError::Removed { removed };
    }
    if let Some((tool, _)) = registry.base().resolve(name) {
        return CallError::NotInPool {
            tool: tool.name().to_owned(),
        };
    }
    let plugins = registry.plugins().snapshot();
    if let Some(plugin) = plugins.tools().iter().find(|p| {
        let spec = p.tool().spec();
        spec.name() == name || spec.aliases().iter().any(|a| a == name)
    }) {
        return CallError::NotInPool {
            tool: plugin.tool().name().to_owned(),
        };
    }
    CallError::NoSuchTool {
        name: name.to_owned(),
    }
}

/// Refuses a call whose tool does not allow its caller (see
/// [`Callers`](crate::declare::Callers)).
pub(crate) fn allowed_caller(tool: &ToolHandle, by_program: bool) -> Result<(), CallError> {
    let Some(callers) = tool.spec().allowed_callers() else {
        return Ok(());
    };
    let allowed = if by_program {
        callers.allows_program()
    } else {
        callers.allows_direct()
    };
    if allowed {
        return Ok(());
    }
    Err(CallError::Caller {
        tool: tool.name().to_owned(),
        by_program,
    })
}
