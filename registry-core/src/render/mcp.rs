//! MCP `tools/list` result, with fail-closed annotations.

use std::sync::Arc;

use serde_json::Value;

use super::CACHE_KEY_PREFIX;
use super::cache::{self, Fragment};
use super::json::{ObjectWriter, into_string};
use crate::declare::posture::{PostureKind, SafetyPosture};
use crate::input::handle::ToolHandle;
use crate::pool::ToolPool;

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
pub(crate) fn mcp_tool(tool: &ToolHandle) -> Value {
    // The writer writes valid JSON (every fragment is parsed back by the
    // render tests); `Null` is unreachable.
    serde_json::from_str(mcp_fragment(tool)).unwrap_or_default()
}

/// The `outputSchema` MCP may publish for `tool`: its typed output's
/// schema, when that is an object schema (MCP accepts no other).
pub(crate) fn mcp_output_schema(tool: &ToolHandle) -> Option<&Value> {
    let schema = tool.spec().output_schema()?;
    crate::declare::require_object_schema(schema).ok()?;
    Some(schema)
}

/// [`mcp_tool`] as compact JSON text in MCP wire order: the `Tool` keys
/// (`name`, `title`, `description`, `inputSchema`, `outputSchema`,
/// `annotations`) and the `annotations` keys (`title`, `readOnlyHint`,
/// `destructiveHint`, `idempotentHint`, `openWorldHint`) in the order the
/// MCP schema declares them, the schemas in canonical byte order.
///
/// This is the text `tools/list` sends for the tool. The order is the
/// one an MCP SDK writes when it serialises its own `Tool` type (rmcp's
/// struct fields; `serde_json`'s default map, which is sorted, for the
/// schemas), so a server that parses this text into SDK types and
/// serialises them again sends these bytes unchanged. Canonical key
/// order inside the `Tool` would not survive that round trip.
pub(crate) fn mcp_tool_json(tool: &ToolHandle) -> String {
    let spec = tool.spec();
    let posture = spec.posture();
    let title = (spec.user_facing_name() != spec.name()).then(|| spec.user_facing_name());
    let hint = hints(posture);
    // Like the safety hints, only what is looser than MCP's defaults
    // (`idempotentHint: false`, `openWorldHint: true`) is written.
    let idempotent = *posture.idempotent().value();
    let closed_world = !*posture.open_world().value();

    let schema = super::schema::provider_schema_json(tool);
    let mut out = Vec::with_capacity(schema.len() + spec.description().len() + 128);
    let mut object = ObjectWriter::in_order(&mut out);
    object.string("name", spec.name());
    if let Some(title) = title {
        object.string("title", title);
    }
    object
        .string("description", spec.description())
        .raw("inputSchema", schema);
    if let Some(output) = mcp_output_schema(tool) {
        object.value("outputSchema", output);
    }
    if title.is_some() || hint.is_some() || idempotent || closed_world {
        object.object("annotations", |annotations| {
            if let Some(title) = title {
                annotations.string("title", title);
            }
            if let Some((hint, value)) = hint {
                annotations.bool(hint, value);
            }
            if idempotent {
                annotations.bool("idempotentHint", true);
            }
            if closed_world {
                annotations.bool("openWorldHint", false);
            }
        });
    }
    object.close();
    into_string(out)
}

/// [`mcp_tool_json`], rendered once per tool.
pub(crate) fn mcp_fragment(tool: &ToolHandle) -> &str {
    cache::fragment(tool, Fragment::Mcp, mcp_tool_json)
}

/// `{"tools":[...]}` with each tool as [`mcp_tool_json`].
pub(crate) fn tools_list_json<'a>(tools: impl IntoIterator<Item = &'a ToolHandle>) -> String {
    // Each tool's bytes are rendered once per handle and reused by every
    // pool (see `render/cache.rs`).
    cache::wrapped_json_array("{\"tools\":", tools.into_iter().map(mcp_fragment), "}")
}

impl ToolPool {
    /// The result of an MCP `tools/list` request, `{"tools": [...]}`
    /// (every tool in pool order as an MCP `Tool`: `name`, `title` when a
    /// `user_facing_name` was declared, `description`, `inputSchema`,
    /// `outputSchema` for a typed object output, and the fail-closed
    /// `annotations`; no pagination cursor), compact. Each tool's keys
    /// are in MCP wire order, the order an MCP SDK writes its own `Tool`
    /// in, and the schemas canonical inside; byte-identical across runs.
    /// Cached.
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
    fn the_tools_list_is_each_tools_wire_text_in_pool_order() {
        use crate::catalog::BaseTools;
        use crate::permission::PermissionContext;
        use crate::pool::ToolRegistry;

        let build = |builder: ToolBuilder| {
            builder
                .build(|_, _| async { Ok(ToolOutput::text("")) })
                .unwrap_or_else(|err| panic!("{err}"))
        };
        let base = BaseTools::__from_handles(vec![
            typed(Counter),
            build(
                ToolBuilder::new("b", "B.")
                    .user_facing_name("Bee")
                    .read_only(true),
            ),
        ])
        .unwrap_or_else(|err| panic!("{err}"));
        let registry = ToolRegistry::new(base);
        registry
            .plugins()
            .register("p", build(ToolBuilder::new("c", "C.").destructive(false)))
            .unwrap_or_else(|err| panic!("{err}"))
            .detach();
        let pool = registry.assemble_tool_pool(&PermissionContext::new());
        let tools: Vec<String> = pool.iter().map(mcp_tool_json).collect();
        assert_eq!(tools.len(), 3);
        assert_eq!(
            *pool.render_mcp_tools_list(),
            format!(r#"{{"tools":[{}]}}"#, tools.join(","))
        );
    }

    #[test]
    fn a_titled_reader_says_so_and_a_bare_tool_promises_nothing() {
        let build = |builder: ToolBuilder| {
            builder
                .build(|_, _| async { Ok(ToolOutput::text("")) })
                .unwrap_or_else(|err| panic!("{err}"))
        };
        let read = build(
            ToolBuilder::new("notes_read", "Read a note.")
                .read_only(true)
                .user_facing_name("Read note"),
        );
        assert_eq!(
            mcp_tool(&read),
            serde_json::json!({
                "name": "notes_read",
                "title": "Read note",
                "description": "Read a note.",
                "inputSchema": { "type": "object" },
                "annotations": { "title": "Read note", "readOnlyHint": true }
            })
        );
        assert_eq!(
            mcp_tool_json(&read),
            r#"{"name":"notes_read","title":"Read note","description":"Read a note.","inputSchema":{"type":"object"},"annotations":{"title":"Read note","readOnlyHint":true}}"#
        );

        // Nothing declared: no hints, the client assumes the worst.
        let bare = build(ToolBuilder::new("notes_sync", "Sync notes."));
        assert!(mcp_tool(&bare).get("annotations").is_none());

        // Writes but never destroys: the one thing MCP's defaults do not say.
        let append =
            build(ToolBuilder::new("notes_append", "Append to a note.").destructive(false));
        assert_eq!(
            mcp_tool(&append)["annotations"],
            serde_json::json!({ "destructiveHint": false })
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
