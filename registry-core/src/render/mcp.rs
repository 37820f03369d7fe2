//! MCP `tools/list` result, with fail-closed annotations.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::CACHE_KEY_PREFIX;
use super::cache::{self, Fragment};
use crate::declare::posture::{PostureKind, SafetyPosture};
use crate::input::handle::ToolHandle;
use crate::input::provider_input_schema;
use crate::pool::ToolPool;
use crate::text::to_canonical_string;

const KEY: &str = "mcp_tools_list";

/// The annotations a posture justifies, as `(key, value)` pairs.
///
/// MCP's defaults are this crate's defaults: a tool that says nothing is
/// `readOnlyHint: false` and `destructiveHint: true`, and `destructiveHint`
/// means something only when `readOnlyHint` is false. So a hint is written
/// only where the tool's answer is the same for every call and looser than
/// MCP's default; everything else is left out, and the client assumes the
/// worst:
///
/// | `read_only` | `destructive` | hints |
/// |---|---|---|
/// | `true` | `false` | `readOnlyHint: true` |
/// | `true` | `true` or per input | none (contradictory: the worst wins) |
/// | `false` | `false` | `destructiveHint: false` |
/// | anything else (`false` and `true`, or per input) | | none |
///
/// Declared and defaulted values count alike: an undeclared `destructive`
/// is already "not read-only". Hints are never trusted for safety by a
/// careful client; they only tell it which calls it may skip asking about.
fn hints(posture: &SafetyPosture) -> Option<(&'static str, bool)> {
    let fixed = |kind: &PostureKind| match kind {
        PostureKind::Fixed(value) => Some(*value),
        _ => None,
    };
    match (
        fixed(posture.read_only().value()),
        fixed(posture.destructive().value()),
    ) {
        (Some(true), Some(false)) => Some(("readOnlyHint", true)),
        (Some(false), Some(false)) => Some(("destructiveHint", false)),
        _ => None,
    }
}

/// One tool as an MCP `Tool` object: `name`, `title` (the
/// `user_facing_name`, when one was declared), `description`,
/// `inputSchema`, `outputSchema` (for a typed JSON output, see below) and
/// `annotations`.
///
/// `outputSchema` is published when the tool's output is
/// [`Json<T>`](crate::declare::Json) and `T`'s schema is an object schema (MCP
/// requires `"type": "object"` there, and a `structuredContent` that is an
/// object); a call's result then carries the value as `structuredContent`
/// beside its text. Text outputs and non-object `T`s publish none.
///
/// The annotations fail closed: `readOnlyHint: true` for a tool that only
/// reads, `destructiveHint: false` for one that writes but never destroys,
/// nothing otherwise (see the table on `hints` in the source: MCP's own
/// defaults, `readOnlyHint: false` and `destructiveHint: true`, are exactly
/// this crate's fail-closed defaults, so they need no hint, and a per-input
/// posture is never promised for every call). `idempotentHint: true` and
/// `openWorldHint: false` are written when the tool declares them
/// (`#[tool(idempotent = true, open_world = false)]`): MCP's defaults are
/// the other way round and need no hint. `annotations.title` repeats
/// `title`. Empty annotations are left out.
///
/// ```
/// use registry_core::{ToolBuilder, ToolOutput, render::mcp_tool};
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
///
/// // Writes but never destroys: the one thing MCP's defaults do not say.
/// let append = ToolBuilder::new("notes_append", "Append to a note.")
///     .destructive(false)
///     .build(|_, _| async { Ok(ToolOutput::text("")) })
///     .unwrap();
/// assert_eq!(mcp_tool(&append)["annotations"], json!({ "destructiveHint": false }));
/// ```
pub fn mcp_tool(tool: &ToolHandle) -> Value {
    let spec = tool.spec();
    let title = (spec.user_facing_name() != spec.name()).then(|| spec.user_facing_name());

    let mut annotations = Map::new();
    if let Some(title) = title {
        annotations.insert("title".into(), Value::String(title.to_owned()));
    }
    if let Some((hint, value)) = hints(spec.posture()) {
        annotations.insert(hint.into(), Value::Bool(value));
    }
    // Like the safety hints, only what is looser than MCP's defaults
    // (`idempotentHint: false`, `openWorldHint: true`) is written.
    if *spec.posture().idempotent().value() {
        annotations.insert("idempotentHint".into(), Value::Bool(true));
    }
    if !*spec.posture().open_world().value() {
        annotations.insert("openWorldHint".into(), Value::Bool(false));
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
    if let Some(schema) = mcp_output_schema(tool) {
        out.insert("outputSchema".into(), schema.clone());
    }
    if !annotations.is_empty() {
        out.insert("annotations".into(), Value::Object(annotations));
    }
    Value::Object(out)
}

/// The `outputSchema` MCP may publish for `tool`: its typed output's
/// schema, when that is an object schema (MCP accepts no other).
pub fn mcp_output_schema(tool: &ToolHandle) -> Option<&Value> {
    let schema = tool.spec().output_schema()?;
    crate::declare::require_object_schema(schema).ok()?;
    Some(schema)
}

/// The keys of an MCP `Tool`, in the order the MCP schema declares them
/// (and rmcp's `Tool` serialises them).
const TOOL_KEYS: [&str; 8] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "_meta",
];

/// The keys of MCP `ToolAnnotations`, in the same declared order.
const ANNOTATION_KEYS: [&str; 5] = [
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// [`mcp_tool`] as compact JSON text in MCP wire order: the `Tool` keys
/// and the `annotations` keys in the order the MCP schema declares them,
/// every other object (the schemas) in canonical byte order.
///
/// This is the text `tools/list` sends for the tool. The order is the
/// one an MCP SDK writes when it serialises its own `Tool` type (rmcp's
/// struct fields; `serde_json`'s default map, which is sorted, for the
/// schemas), so a server that parses this text into SDK types and
/// serialises them again sends these bytes unchanged. Canonical key
/// order inside the `Tool` would not survive that round trip.
///
/// ```
/// use registry_core::{ToolBuilder, ToolOutput, render::mcp_tool_json};
///
/// let tool = ToolBuilder::new("notes_read", "Read a note.")
///     .read_only(true)
///     .user_facing_name("Read note")
///     .build(|_, _| async { Ok(ToolOutput::text("")) })
///     .unwrap();
/// assert_eq!(
///     mcp_tool_json(&tool),
///     r#"{"name":"notes_read","title":"Read note","description":"Read a note.","inputSchema":{"type":"object"},"annotations":{"title":"Read note","readOnlyHint":true}}"#
/// );
/// ```
pub fn mcp_tool_json(tool: &ToolHandle) -> String {
    let mut out = String::new();
    match mcp_tool(tool) {
        Value::Object(map) => write_in_order(&mut out, &map, &TOOL_KEYS, write_tool_value),
        other => out.push_str(&to_canonical_string(&other)),
    }
    out
}

/// A `Tool` member's value: `annotations` in [`ANNOTATION_KEYS`] order,
/// everything else canonical.
fn write_tool_value(out: &mut String, key: &str, value: &Value) {
    match value {
        Value::Object(annotations) if key == "annotations" => {
            write_in_order(out, annotations, &ANNOTATION_KEYS, write_canonical);
        }
        value => write_canonical(out, key, value),
    }
}

fn write_canonical(out: &mut String, _key: &str, value: &Value) {
    out.push_str(&to_canonical_string(value));
}

/// Writes `map` with the keys in `order` first, in that order, then any
/// others in byte order (none today: a key the MCP schema does not name
/// is still written, never dropped), each value by `write_value`.
fn write_in_order(
    out: &mut String,
    map: &Map<String, Value>,
    order: &[&str],
    write_value: fn(&mut String, &str, &Value),
) {
    let mut rest: Vec<&str> = map
        .keys()
        .map(String::as_str)
        .filter(|key| !order.contains(key))
        .collect();
    rest.sort_unstable();
    let keys = order
        .iter()
        .copied()
        .filter(|key| map.contains_key(*key))
        .chain(rest);
    out.push('{');
    for (i, key) in keys.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(key.to_owned()).to_string());
        out.push(':');
        write_value(out, key, &map[key]);
    }
    out.push('}');
}

/// `{"tools":[...]}` with each tool as [`mcp_tool_json`].
pub(crate) fn tools_list_json<'a>(tools: impl IntoIterator<Item = &'a ToolHandle>) -> String {
    // Each tool's bytes are rendered once per handle and reused by every
    // pool (see `render/cache.rs`).
    let tools = cache::json_array(
        tools
            .into_iter()
            .map(|tool| cache::fragment(tool, Fragment::Mcp, mcp_tool_json)),
    );
    format!("{{\"tools\":{tools}}}")
}

impl ToolPool {
    /// The result of an MCP `tools/list` request, `{"tools": [...]}`
    /// ([`mcp_tool_json`] for every tool, pool order; no pagination
    /// cursor), compact. Each tool's keys are in MCP wire order (see
    /// [`mcp_tool_json`]); byte-identical across runs. Cached.
    pub fn render_mcp_tools_list(&self) -> Arc<str> {
        self.render_cached(&format!("{CACHE_KEY_PREFIX}{KEY}"), |pool| {
            tools_list_json(pool.iter())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::builder::ToolBuilder;
    use crate::declare::output::ToolOutput;

    fn hint_of(builder: ToolBuilder) -> Option<(&'static str, bool)> {
        let tool = builder
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{err}"));
        hints(tool.spec().posture())
    }

    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Count {
        /// How many.
        n: u32,
    }

    struct Counter;
    impl crate::declare::Tool for Counter {
        type Input = serde_json::Map<String, Value>;
        type Output = crate::declare::Json<Count>;
        type Error = std::convert::Infallible;
        async fn call(
            &self,
            _: Self::Input,
            _: &crate::declare::ToolContext,
        ) -> Result<Self::Output, Self::Error> {
            Ok(crate::declare::Json(Count { n: 1 }))
        }
    }

    struct Listing;
    impl crate::declare::Tool for Listing {
        type Input = serde_json::Map<String, Value>;
        type Output = crate::declare::Json<Vec<u32>>;
        type Error = std::convert::Infallible;
        async fn call(
            &self,
            _: Self::Input,
            _: &crate::declare::ToolContext,
        ) -> Result<Self::Output, Self::Error> {
            Ok(crate::declare::Json(vec![1]))
        }
    }

    fn typed<T: crate::declare::Tool>(tool: T) -> ToolHandle {
        let declaration = crate::declare::definition::Declaration::new("typed", "A typed tool.");
        ToolHandle::from_parts(tool, declaration, None)
    }

    #[test]
    fn typed_object_output_publishes_an_output_schema_and_text_does_not() {
        let rendered = mcp_tool(&typed(Counter));
        assert_eq!(
            rendered["outputSchema"],
            serde_json::json!({
                "type": "object",
                "properties": { "n": { "type": "integer", "format": "uint32", "minimum": 0, "description": "How many." } },
                "required": ["n"]
            })
        );
        // MCP only takes object output schemas: a list publishes none.
        assert!(typed(Listing).spec().output_schema().is_some());
        assert!(mcp_tool(&typed(Listing)).get("outputSchema").is_none());
        let text = ToolBuilder::new("t", "A tool.")
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{err}"));
        assert!(mcp_tool(&text).get("outputSchema").is_none());
    }

    #[test]
    fn tool_json_is_the_value_in_mcp_wire_order() {
        let tool = typed(Counter);
        let text = mcp_tool_json(&tool);
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap_or_else(|err| panic!("{err}")),
            mcp_tool(&tool)
        );
        // `Tool` keys in schema order; schemas canonical inside.
        assert!(
            text.starts_with(r#"{"name":"typed","description":"A typed tool.","inputSchema":{"#),
            "{text}"
        );
        let output = text.find(r#","outputSchema":{"properties":{"n":{"description":"How many.","format":"uint32","minimum":0,"type":"integer"}},"required":["n"],"type":"object"}"#);
        assert!(output.is_some(), "{text}");

        let both = ToolBuilder::new("t", "A tool.")
            .user_facing_name("T")
            .destructive(false)
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            mcp_tool_json(&both),
            r#"{"name":"t","title":"T","description":"A tool.","inputSchema":{"type":"object"},"annotations":{"title":"T","destructiveHint":false}}"#
        );
    }

    #[test]
    fn hints_say_only_what_is_looser_than_mcp_defaults_for_every_call() {
        let t = || ToolBuilder::new("t", "A tool.");
        let cases: [(ToolBuilder, Option<(&str, bool)>); 9] = [
            (t(), None),
            (t().read_only(true), Some(("readOnlyHint", true))),
            (
                t().read_only(true).destructive(false),
                Some(("readOnlyHint", true)),
            ),
            (t().read_only(true).destructive(true), None),
            (t().read_only(false), None),
            (t().destructive(false), Some(("destructiveHint", false))),
            (t().destructive(true), None),
            (t().read_only_when(|_| true), None),
            (t().read_only(false).destructive_when(|_| false), None),
        ];
        for (i, (builder, want)) in cases.into_iter().enumerate() {
            assert_eq!(hint_of(builder), want, "case {i}");
        }
    }
}
