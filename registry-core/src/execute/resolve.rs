//! From the name a model used to the pooled tool that runs.
//!
//! A name in the pool (primary name or alias of a pooled tool) runs; the
//! index answers that with one map lookup. Only a miss reads the
//! authoritative list and the plugin registry, to explain the refusal: a
//! primary name missing from the pool was filtered out on purpose and is
//! never run.

use std::collections::HashMap;

use super::error::CallError;
use super::session::Session;
use crate::handle::ToolHandle;
use crate::permission::PermissionContext;
use crate::pool::{ToolPool, ToolRegistry};
use crate::posture::Loading;

/// Every name and alias of one pool's tools, to the tool. Primary names
/// win over aliases (a plugin alias can never shadow a tool's name).
#[derive(Debug, Default)]
pub(crate) struct PoolIndex {
    by_name: HashMap<Box<str>, ToolHandle>,
}

impl PoolIndex {
    pub(crate) fn new(pool: &ToolPool) -> Self {
        let mut by_name = HashMap::with_capacity(pool.len() * 2);
        for tool in pool.iter() {
            by_name.insert(tool.name().into(), tool.clone());
        }
        for tool in pool.iter() {
            for alias in tool.spec().aliases() {
                by_name
                    .entry(alias.as_str().into())
                    .or_insert_with(|| tool.clone());
            }
        }
        PoolIndex { by_name }
    }

    fn get(&self, name: &str) -> Option<&ToolHandle> {
        self.by_name.get(name)
    }
}

/// Resolves one call's name: the pooled tool, or why it cannot run.
pub(crate) fn resolve<'a>(
    index: &'a PoolIndex,
    registry: &ToolRegistry,
    permissions: &PermissionContext,
    session: &Session,
    name: &str,
) -> Result<&'a ToolHandle, CallError> {
    let Some(tool) = index.get(name) else {
        return Err(explain(registry, permissions, name));
    };
    if *tool.spec().loading().value() == Loading::Deferred && !session.is_discovered(tool.name()) {
        return Err(CallError::NotDiscovered {
            tool: tool.name().to_owned(),
        });
    }
    Ok(tool)
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
    if let Some(plugin) = plugins.tools().iter().find(|p| p.tool().name() == name) {
        return CallError::NotInPool {
            tool: plugin.tool().name().to_owned(),
        };
    }
    CallError::NoSuchTool {
        name: name.to_owned(),
    }
}
