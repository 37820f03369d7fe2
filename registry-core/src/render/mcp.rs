//! MCP `tools/list` result, with fail-closed annotations.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::{CACHE_KEY_PREFIX, provider_input_schema};
use crate::canonical::to_canonical_string;
use crate::handle::ToolHandle;
use crate::pool::ToolPool;
use crate::posture::{PostureKind, Setting};

const KEY: &str = "mcp_tools_list";

/// The value of a hint only when the author declared a fixed boolean.
fn declared_fixed(setting: &Setting<PostureKind>) -> Option<bool> {
    match setting.value() {
        PostureKind::Fixed(value) if setting.is_declared() => Some(*value),
        _ => None,
    }
}

/// One tool as an MCP `Tool` object: `name`, `title` (the
/// `user_facing_name`, when one was declared), `description`,
/// `inputSchema`, and `annotations`.
///
/// The annotations fail closed: `readOnlyHint` and `destructiveHint` appear
/// only when the posture was declared as a fixed boolean. A per-input or
/// defaulted posture is omitted, so the client applies MCP's strict
/// defaults (`readOnlyHint: false`, `destructiveHint: true`).
/// `idempotentHint` and `openWorldHint` are never emitted (nothing declares
/// them); `annotations.title` repeats `title`. Empty annotations are left
/// out.
///
/// ```
/// use registry_core::{ToolBuilder, ToolOutput, mcp_tool};
/// use serde_json::json;
///
/// let read = ToolBuilder::new("notes_read", "Read a note.")
///     .read_only(true)
///     .user_facing_name("Read note")
///     .build(|_, _| async { Ok(ToolOutput::text("")) })
///     .unwrap();
/// assert_eq!(mcp_tool(&read), json!({
///     "name": "notes_read",
///     "title": "Read note",
///     "description": "Read a note.",
///     "inputSchema": { "type": "object" },
///     "annotations": { "title": "Read note", "readOnlyHint": true }
/// }));
///
/// // Nothing declared: no hints, the client assumes the worst.
/// let bare = ToolBuilder::new("notes_sync", "Sync notes.")
///     .build(|_, _| async { Ok(ToolOutput::text("")) })
///     .unwrap();
/// assert!(mcp_tool(&bare).get("annotations").is_none());
/// ```
pub fn mcp_tool(tool: &ToolHandle) -> Value {
    let spec = tool.spec();
    let title = (spec.user_facing_name() != spec.name()).then(|| spec.user_facing_name());

    let mut annotations = Map::new();
    if let Some(title) = title {
        annotations.insert("title".into(), Value::String(title.to_owned()));
    }
    if let Some(read_only) = declared_fixed(spec.read_only()) {
        annotations.insert("readOnlyHint".into(), Value::Bool(read_only));
    }
    if let Some(destructive) = declared_fixed(spec.destructive()) {
        annotations.insert("destructiveHint".into(), Value::Bool(destructive));
    }

    let mut out = Map::new();
    out.insert("name".into(), Value::String(spec.name().to_owned()));
    if let Some(title) = title {
        out.insert("title".into(), Value::String(title.to_owned()));
    }
    out.insert(
        "description".into(),
        Value::String(spec.description().to_owned()),
    );
    out.insert("inputSchema".into(), provider_input_schema(tool));
    if !annotations.is_empty() {
        out.insert("annotations".into(), Value::Object(annotations));
    }
    Value::Object(out)
}

impl ToolPool {
    /// The result of an MCP `tools/list` request, `{"tools": [...]}`
    /// ([`mcp_tool`] for every tool, pool order; no pagination cursor), as
    /// compact canonical JSON. Cached.
    pub fn render_mcp_tools_list(&self) -> Arc<str> {
        self.render_cached(&format!("{CACHE_KEY_PREFIX}{KEY}"), |pool| {
            let mut result = Map::new();
            result.insert(
                "tools".into(),
                Value::Array(pool.iter().map(mcp_tool).collect()),
            );
            to_canonical_string(&Value::Object(result))
        })
    }
}
