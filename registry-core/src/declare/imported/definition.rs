//! A tool definition as an MCP server publishes it: one entry of a
//! `tools/list` result, typed, with nothing interpreted yet.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One tool as an MCP server defines it: an entry of a `tools/list`
/// result (`{"tools": [...]}`), field for field, so the JSON
/// deserializes straight into it.
///
/// Nothing here is checked or believed yet: the name may hold any
/// character, the schema may be anything, the annotations may lie.
/// [`DefinitionImport`](super::DefinitionImport) decides what each field
/// is allowed to become. Fields the MCP spec adds that this type does not
/// know (`icons`, `execution`, ...) are ignored when deserializing.
///
/// ```
/// use registry_core::declare::imported::RemoteToolDefinition;
///
/// let definition: RemoteToolDefinition = serde_json::from_value(serde_json::json!({
///     "name": "search",
///     "description": "Find notes by text.",
///     "inputSchema": { "type": "object", "properties": { "q": { "type": "string" } } },
///     "annotations": { "readOnlyHint": true },
///     "_meta": { "anthropic/alwaysLoad": true },
///     "icons": [{ "src": "https://example.com/search.png" }]
/// }))?;
/// assert_eq!(definition.name, "search");
/// assert_eq!(definition.annotations.and_then(|a| a.read_only_hint), Some(true));
/// assert!(definition.meta.is_some_and(|m| m["anthropic/alwaysLoad"] == true));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RemoteToolDefinition {
    /// The tool's name on its server: what a call sends. Any text; the
    /// imported tool's own name is made from it
    /// ([`imported_tool_name`](super::imported_tool_name)).
    pub name: String,
    /// A name for people (MCP's `title`); wins over
    /// [`RemoteAnnotations::title`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the model reads to choose the tool; cut to a bound on import
    /// (`imported_description`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of the arguments (MCP's `inputSchema`). Import
    /// refuses one that is not a well-formed object schema; a missing one
    /// is `null`, and refused the same way.
    #[serde(default)]
    pub input_schema: Value,
    /// The JSON Schema of the structured result (MCP's `outputSchema`);
    /// kept on import only when it is a well-formed object schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The server's hints about the tool's behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<RemoteAnnotations>,
    /// The tool's `_meta` object (where
    /// `ALWAYS_LOAD_META_KEY` is read).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl RemoteToolDefinition {
    /// A definition with only a name and an input schema; set the other
    /// (public) fields as needed.
    ///
    /// ```
    /// use registry_core::declare::imported::RemoteToolDefinition;
    ///
    /// let mut definition = RemoteToolDefinition::new("search", serde_json::json!({ "type": "object" }));
    /// definition.description = Some("Find notes by text.".to_owned());
    /// assert!(definition.annotations.is_none());
    /// ```
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        RemoteToolDefinition {
            name: name.into(),
            input_schema,
            ..RemoteToolDefinition::default()
        }
    }
}

/// A server's hints about a tool (MCP's `ToolAnnotations`). Each is
/// `None` when the server said nothing; import reads a missing hint as the
/// strictest one, and believes the safety hints only from a trusted server
/// (`ImportedPosture`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RemoteAnnotations {
    /// A name for people (used when the definition has no `title`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment (MCP default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy data, rather than only add (MCP default
    /// `true`; meaningful only when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments does nothing more (MCP
    /// default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// Calls may reach an open world of things, such as the web (MCP
    /// default `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}
