//! Each tool's rendered definition, once per format, shared by every pool.
//!
//! A tool's definition never changes after its [`ToolHandle`] is built, so
//! neither do the bytes of its definition in a given format. The handle
//! keeps them ([`Fragments`]); a pool's render is then the concatenation of
//! its tools' cached fragments. A new pool (a plugin came or went, a rule
//! changed) over tools rendered before costs a copy of bytes per tool, not
//! a schema walk and a JSON serialization.
//!
//! Concatenating canonical fragments gives the same bytes as writing the
//! whole array canonically: canonical JSON orders keys inside each object,
//! never across array items, and compact arrays are `[a,b,...]`.
//!
//! What must never be cached here: anything that depends on more than the
//! tool (its position in a pool, render options, session state). Such a
//! definition is rendered by its caller each time; see the Anthropic cache
//! breakpoint.

use crate::input::ToolHandle;

/// The per-tool definitions that are cached, one slot each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fragment {
    /// [`anthropic_tool`](super::anthropic_tool), canonical JSON (never
    /// with `cache_control`).
    Anthropic,
    /// [`openai_chat_tool`](super::openai_chat_tool), canonical JSON.
    OpenAiChat,
    /// [`openai_responses_tool`](super::openai_responses_tool), canonical
    /// JSON.
    OpenAiResponses,
    /// [`mcp_tool_json`](super::mcp_tool_json): MCP wire key order,
    /// canonical schemas.
    Mcp,
    /// [`prompt_catalog_entry`](super::prompt_catalog_entry).
    Prompt,
    /// The provider input schema, canonical JSON (`render::schema`).
    InputSchema,
    /// Its strict form, canonical JSON, or empty when it has none.
    StrictSchema,
    /// The tool as a method of the TypeScript API
    /// (`render::typescript`).
    TypeScript,
}

impl Fragment {
    /// Its slot in the handle's render slots; a new kind needs a new
    /// slot there (`every_kind_has_its_own_slot` checks).
    fn slot(self) -> usize {
        match self {
            Fragment::Anthropic => 0,
            Fragment::OpenAiChat => 1,
            Fragment::OpenAiResponses => 2,
            Fragment::Mcp => 3,
            Fragment::Prompt => 4,
            Fragment::InputSchema => 5,
            Fragment::StrictSchema => 6,
            Fragment::TypeScript => 7,
        }
    }
}

/// `tool`'s definition as `kind`, rendered by `render` the first time and
/// read from the handle afterwards. `render` must depend on the tool
/// alone.
pub(crate) fn fragment(
    tool: &ToolHandle,
    kind: Fragment,
    render: impl FnOnce(&ToolHandle) -> String,
) -> &str {
    tool.render_slots()
        .slot(kind.slot())
        .get_or_init(|| render(tool).into_boxed_str())
}

/// `[a,b,...]` from compact JSON items, in one allocation.
pub(crate) fn json_array<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    wrapped_json_array("", items, "")
}

/// `prefix[a,b,...]suffix`, in one allocation (a `tools/list` result is
/// the array inside `{"tools":...}`).
pub(crate) fn wrapped_json_array<S: AsRef<str>>(
    prefix: &str,
    items: impl IntoIterator<Item = S>,
    suffix: &str,
) -> String {
    let items: Vec<S> = items.into_iter().collect();
    let len = items
        .iter()
        .map(|item| item.as_ref().len() + 1)
        .sum::<usize>()
        + 2
        + prefix.len()
        + suffix.len();
    let mut out = String::with_capacity(len);
    out.push_str(prefix);
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item.as_ref());
    }
    out.push(']');
    out.push_str(suffix);
    out
}

/// The items one after another, in one allocation.
pub(crate) fn concat<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let items: Vec<S> = items.into_iter().collect();
    let mut out = String::with_capacity(items.iter().map(|item| item.as_ref().len()).sum());
    for item in &items {
        out.push_str(item.as_ref());
    }
    out
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::declare::builder::ToolBuilder;
    use crate::declare::output::ToolOutput;
    use crate::input::handle::RENDER_SLOTS;
    use crate::text::to_canonical_string;
    use serde_json::{Value, json};

    fn tool(name: &str) -> ToolHandle {
        ToolBuilder::new(name, "A tool.")
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{err}"))
    }

    #[test]
    fn every_kind_has_its_own_slot() {
        let kinds = [
            Fragment::Anthropic,
            Fragment::OpenAiChat,
            Fragment::OpenAiResponses,
            Fragment::Mcp,
            Fragment::Prompt,
            Fragment::InputSchema,
            Fragment::StrictSchema,
            Fragment::TypeScript,
        ];
        let mut slots: Vec<usize> = kinds.iter().map(|k| k.slot()).collect();
        slots.sort_unstable();
        slots.dedup();
        assert_eq!(slots, (0..RENDER_SLOTS).collect::<Vec<_>>());
    }

    #[test]
    fn a_fragment_is_rendered_once_per_tool_and_kind() {
        let a = tool("a");
        let renders = Cell::new(0);
        let render = |t: &ToolHandle| {
            renders.set(renders.get() + 1);
            t.name().to_owned()
        };
        assert_eq!(fragment(&a, Fragment::Mcp, render), "a");
        assert_eq!(fragment(&a, Fragment::Mcp, render), "a");
        assert_eq!(renders.get(), 1);
        // Another kind has its own slot; a clone of the handle shares them.
        assert_eq!(fragment(&a, Fragment::Prompt, |_| "p".into()), "p");
        assert_eq!(fragment(&a.clone(), Fragment::Mcp, render), "a");
        assert_eq!(renders.get(), 1);
        // Another tool is rendered for itself.
        assert_eq!(fragment(&tool("b"), Fragment::Mcp, render), "b");
        assert_eq!(renders.get(), 2);
    }

    #[test]
    fn a_new_pool_renders_the_same_bytes_and_the_breakpoint_is_never_cached() {
        use crate::catalog::BaseTools;
        use crate::permission::PermissionContext;
        use crate::pool::ToolRegistry;
        use crate::render::AnthropicOptions;

        let base = BaseTools::__from_handles(vec![tool("a"), tool("b")]).expect("built-ins");
        let registry = ToolRegistry::new(base);
        registry
            .plugins()
            .register("p", tool("c"))
            .expect("plugin")
            .detach();
        let pool = || registry.assemble_tool_pool(&PermissionContext::new());

        let with = AnthropicOptions::new().with_cache_control(true);
        let first = pool();
        let marked = first.render_anthropic(with);
        let plain = first.render_anthropic(AnthropicOptions::new());
        let (mcp, chat, prompt) = (
            first.render_mcp_tools_list(),
            first.render_openai_chat(),
            first.render_prompt_catalog(),
        );
        assert_eq!(marked.matches("cache_control").count(), 1);
        assert!(!plain.contains("cache_control"));

        // A second pool over the same tools reads their fragments: the
        // same bytes, the breakpoint still only where the options ask.
        let second = pool();
        assert_eq!(second.render_anthropic(AnthropicOptions::new()), plain);
        assert_eq!(second.render_anthropic(with), marked);
        assert_eq!(second.render_mcp_tools_list(), mcp);
        assert_eq!(second.render_openai_chat(), chat);
        assert_eq!(second.render_prompt_catalog(), prompt);
        // Each fragment is the tool's own definition, canonically written.
        for tool in second.iter() {
            let own = to_canonical_string(&crate::render::anthropic_tool(tool));
            assert_eq!(fragment(tool, Fragment::Anthropic, |_| unreachable!()), own);
        }
    }

    #[test]
    fn joined_fragments_are_the_canonical_array() {
        let values = [
            json!({"b": 1, "a": [true, {"d": null, "c": "x"}]}),
            json!("s"),
            json!({}),
        ];
        for n in 0..=values.len() {
            let items = &values[..n];
            let whole = to_canonical_string(&Value::Array(items.to_vec()));
            assert_eq!(json_array(items.iter().map(to_canonical_string)), whole);
        }
        assert_eq!(concat(["a", "", "bc"]), "abc");
        assert_eq!(concat(Vec::<String>::new()), "");
    }
}
