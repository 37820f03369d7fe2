//! Anthropic Messages API `tools` array.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Value, json};

use super::CACHE_KEY_PREFIX;
use super::cache::{self, Fragment};
use super::json::{ObjectWriter, into_string};
use crate::declare::posture::Loading;
use crate::input::handle::ToolHandle;
use crate::pool::ToolPool;

/// How [`ToolPool::render_anthropic`] renders.
///
/// ```
/// use registry_core::render::AnthropicOptions;
///
/// let options = AnthropicOptions::new().with_cache_control(true);
/// assert!(options.cache_control);
/// assert!(!AnthropicOptions::default().cache_control);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AnthropicOptions {
    /// Put `"cache_control": {"type": "ephemeral"}` on the last built-in
    /// tool that is not deferred, so the built-in prefix is cached and
    /// plugin churn never invalidates it. Off by default.
    pub cache_control: bool,
}

impl AnthropicOptions {
    /// The defaults: no cache breakpoint.
    pub fn new() -> Self {
        Self::default()
    }

    /// Switches the built-in prefix cache breakpoint on or off.
    pub fn with_cache_control(mut self, on: bool) -> Self {
        self.cache_control = on;
        self
    }

    fn cache_key(self) -> String {
        let AnthropicOptions { cache_control } = self;
        format!("{CACHE_KEY_PREFIX}anthropic?cache_control={cache_control}")
    }
}

/// One tool as an Anthropic Messages API tool definition: `name`,
/// `description`, `input_schema` (see [`provider_input_schema`](crate::input::provider_input_schema)),
/// `input_examples` when the tool declares some, `"strict": true` (with
/// the strict form of the schema) when it asks for it and the schema
/// allows it, and `"defer_loading": true` when the tool is deferred. Never carries
/// `cache_control`; [`ToolPool::render_anthropic`] adds it.
pub(crate) fn anthropic_tool(tool: &ToolHandle) -> Value {
    // The writer writes valid JSON (every fragment is parsed back by the
    // render tests); `Null` is unreachable.
    serde_json::from_str(anthropic_fragment(tool)).unwrap_or_default()
}

/// [`anthropic_tool`] as canonical JSON, rendered once per tool.
pub(crate) fn anthropic_fragment(tool: &ToolHandle) -> &str {
    cache::fragment(tool, Fragment::Anthropic, |tool| {
        anthropic_tool_json(tool, is_deferred(tool), false)
    })
}

/// [`anthropic_tool`] as canonical JSON with `defer_loading` decided by
/// the caller (a session's deferral policy) rather than the declaration,
/// and with the cache breakpoint when `cache_control` is set.
pub(crate) fn anthropic_tool_json(
    tool: &ToolHandle,
    deferred: bool,
    cache_control: bool,
) -> String {
    let spec = tool.spec();
    // `strict` where the schema allows it: the strict form (every object
    // closed, optional fields nullable and listed) is what the provider
    // holds the model to; the input accepts the nulls it brings.
    let strict = spec
        .strict()
        .then(|| super::schema::strict_schema_json(tool))
        .flatten();
    let schema = strict.unwrap_or_else(|| super::schema::provider_schema_json(tool));
    let mut out = Vec::with_capacity(schema.len() + spec.description().len() + 96);
    let mut object = ObjectWriter::canonical(&mut out);
    if let Some(callers) = spec.allowed_callers() {
        let callers = super::callers::anthropic_callers(callers);
        object.value(
            "allowed_callers",
            &Value::Array(callers.iter().map(|c| Value::from(*c)).collect()),
        );
    }
    if cache_control {
        object.object("cache_control", |control| {
            control.string("type", "ephemeral");
        });
    }
    if deferred {
        object.bool("defer_loading", true);
    }
    object.string("description", spec.description());
    if !spec.input_examples().is_empty() {
        // Under strict every property is listed as required (optional ones
        // nullable): an example that leaves one out would not match the
        // schema sent, so it gets an explicit null.
        let strict_schema = strict.and_then(|_| super::schema::strict_schema(tool));
        let examples = spec
            .input_examples()
            .iter()
            .map(|example| match &strict_schema {
                Some(schema) => with_nulls(example, schema),
                None => example.clone(),
            })
            .collect();
        object.value("input_examples", &Value::Array(examples));
    }
    object
        .raw("input_schema", schema)
        .string("name", spec.name());
    if strict.is_some() {
        object.bool("strict", true);
    }
    object.close();
    into_string(out)
}

/// `example` with `null` for every property `schema` lists that it leaves
/// out, in nested objects too.
fn with_nulls(example: &Value, schema: &Value) -> Value {
    let (Value::Object(fields), Some(Value::Object(properties))) =
        (example, schema.get("properties"))
    else {
        return example.clone();
    };
    let mut out = fields.clone();
    for (name, property) in properties {
        match out.get_mut(name) {
            Some(value) => *value = with_nulls(value, property),
            None => {
                out.insert(name.clone(), Value::Null);
            }
        }
    }
    Value::Object(out)
}

/// The content of an Anthropic `tool_result` that loads deferred tools:
/// one `{"type": "tool_reference", "tool_name": ...}` block per name, in
/// order. The API expands each into the tool's definition.
pub(crate) fn anthropic_tool_references<'a>(names: impl IntoIterator<Item = &'a str>) -> Value {
    Value::Array(
        names
            .into_iter()
            .map(|name| json!({ "type": "tool_reference", "tool_name": name }))
            .collect(),
    )
}

pub(crate) fn is_deferred(tool: &ToolHandle) -> bool {
    *tool.spec().loading().value() == Loading::Deferred
}

impl ToolPool {
    /// The Anthropic Messages API `tools` array, as compact canonical JSON:
    /// every tool in pool order (built-ins, then plugins) as `name`,
    /// `description`, `input_schema`, `input_examples` when it declares
    /// some, `"strict": true` when it asks for it and its schema allows it,
    /// `"defer_loading": true` when it is deferred, and `allowed_callers`
    /// when it says who may call it; with [`AnthropicOptions::cache_control`] a
    /// `"cache_control": {"type": "ephemeral"}` breakpoint on
    /// [`anthropic_cache_breakpoint`](Self::anthropic_cache_breakpoint).
    /// When a tool may be called from a program, the code execution tool
    /// its programs run in comes last (see
    /// [`Callers`](crate::declare::Callers)).
    ///
    /// Cached per options: rendering the same pool again returns the same
    /// `Arc` without any work.
    pub fn render_anthropic(&self, options: AnthropicOptions) -> Arc<str> {
        self.render_cached(&options.cache_key(), |pool| {
            let breakpoint = if options.cache_control {
                pool.anthropic_cache_breakpoint()
            } else {
                None
            };
            let program = super::program_tool(pool.iter(), super::ANTHROPIC_PROGRAM_TOOL);
            cache::json_array(
                pool.iter()
                    .enumerate()
                    .map(|(index, tool)| {
                        if breakpoint != Some(index) {
                            return Cow::Borrowed(anthropic_fragment(tool));
                        }
                        // Depends on the pool, so never cached per tool.
                        Cow::Owned(anthropic_tool_json(tool, is_deferred(tool), true))
                    })
                    .chain(program.map(Cow::Borrowed)),
            )
        })
    }

    /// The index (in [`iter`](Self::iter) order) of the tool that carries
    /// the cache breakpoint when [`AnthropicOptions::cache_control`] is on:
    /// the last built-in that is not deferred. `None` when every built-in is
    /// deferred or there are none.
    pub fn anthropic_cache_breakpoint(&self) -> Option<usize> {
        self.builtins()
            .iter()
            .rposition(|entry| !is_deferred(entry.tool()))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::declare::builder::ToolBuilder;
    use crate::declare::output::ToolOutput;

    #[test]
    fn a_deferred_tool_says_so() {
        let tool = ToolBuilder::new("notes_search", "Search notes.")
            .loading(Loading::Deferred)
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            anthropic_tool(&tool),
            json!({
                "name": "notes_search",
                "description": "Search notes.",
                "input_schema": { "type": "object" },
                "defer_loading": true
            })
        );
    }

    #[test]
    fn tool_references_are_one_block_per_name() {
        assert_eq!(
            anthropic_tool_references(["mcp__github__create_issue"]),
            json!([{ "type": "tool_reference", "tool_name": "mcp__github__create_issue" }])
        );
    }
}
