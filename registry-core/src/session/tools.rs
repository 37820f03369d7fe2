//! A pool as one session sends it: which tools go with their schema,
//! which are deferred, and in what order, so that every render's prefix
//! stays byte-stable while tools are discovered.
//!
//! - Anthropic (has deferred loading): every tool in pool order, deferred
//!   ones with `"defer_loading": true`; discovery changes nothing here
//!   (the `tool_reference` results load them).
//! - OpenAI Responses (has deferred loading): every tool in pool order,
//!   deferred ones with `"defer_loading": true`, each MCP server's tools
//!   in one `namespace` tool (where its first tool stood, under their
//!   short names), and `tool_search` as the client-executed
//!   `{"type": "tool_search", "execution": "client"}` tool; discovery
//!   changes nothing here (the `tool_search_output` items load them, see
//!   [`Provider::OpenAiResponses`](crate::provider::Provider::OpenAiResponses)).
//!   Without the client tool search: flat, as Chat sends it.
//! - OpenAI Chat, MCP `tools/list` (no deferred loading): the tools the
//!   session loads, in pool order, then the discovered deferred tools in
//!   the order they were discovered; undiscovered deferred tools are left
//!   out.
//! - Prompt catalog: loaded tools with their description; deferred tools
//!   by name with their search hint, so the model knows what to search
//!   for.
//!
//! `tool_search` is left out of every render while the session defers
//! nothing.

use std::borrow::Cow;

use super::Session;
use super::deferral::TOOL_SEARCH_NAME;
use crate::input::handle::ToolHandle;
use crate::pool::{Partition, ToolPool};
use crate::render::cache::json_array;
use crate::render::{
    ANTHROPIC_PROGRAM_TOOL, AnthropicOptions, Grouped, OPENAI_PROGRAM_TOOL, anthropic_fragment,
    anthropic_tool_json, group_by_namespace, is_deferred, openai_chat_fragment,
    openai_namespace_json, openai_responses_fragment, openai_responses_json,
    openai_responses_json_named, openai_responses_tool_search_json, program_tool,
    prompt_catalog_entry, split_namespaced, tools_list_json, typescript_api_deferring,
};

/// A pool seen through one session's deferral and discoveries; see
/// [`ToolPool::for_session`].
#[derive(Debug, Clone, Copy)]
pub struct SessionTools<'a> {
    pool: &'a ToolPool,
    session: &'a Session,
}

impl ToolPool {
    /// This pool as `session` sends it (its deferral decision, or the
    /// declarations before one is made, and its discoveries).
    ///
    /// ```standalone_crate
    /// use registry_core::{render::ProviderFormat, session::DeferralPolicy};
    /// use registry_core::{
    ///     Flags, PermissionContext, ToolBuilder, ToolOutput, ToolRegistry,
    ///     catalog::BaseTools, declare::RemoteOrigin, session::Session,
    /// };
    ///
    /// let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).unwrap());
    /// // Imported tools, as an MCP import registers them.
    /// let tool = |name: &str| ToolBuilder::new(name, "A tool.")
    ///     .remote_origin(RemoteOrigin::new("srv", &name["mcp__srv__".len()..]))
    ///     .build(|_, _| async { Ok(ToolOutput::text("")) })
    ///     .unwrap();
    /// let _a = registry.plugins().register("srv", tool("mcp__srv__alpha")).unwrap();
    /// let _b = registry.plugins().register("srv", tool("mcp__srv__beta")).unwrap();
    /// let pool = registry.assemble_tool_pool(&PermissionContext::new());
    ///
    /// let session = Session::new();
    /// session.decide_deferral(&pool, DeferralPolicy::Always, ProviderFormat::OpenAiChat);
    /// let view = pool.for_session(&session);
    /// assert_eq!(view.render_openai_chat(), "[]"); // both deferred, none discovered
    /// session.discover("mcp__srv__beta");
    /// assert!(pool.for_session(&session).render_openai_chat().contains("mcp__srv__beta"));
    /// assert!(pool.for_session(&session).render_prompt_catalog().contains("- mcp__srv__alpha (deferred)\n"));
    /// ```
    pub fn for_session<'a>(&'a self, session: &'a Session) -> SessionTools<'a> {
        SessionTools {
            pool: self,
            session,
        }
    }
}

impl<'a> SessionTools<'a> {
    fn defers_anything(&self) -> bool {
        match self.session.deferral() {
            Some(deferral) => deferral.defers_anything(),
            None => self.pool.iter().any(|tool| self.session.is_deferred(tool)),
        }
    }

    /// Every tool the session offers, in pool order (deferred included,
    /// `tool_search` only while something is deferred).
    fn offered(&self) -> impl Iterator<Item = (usize, &'a ToolHandle)> + '_ {
        let search = self.defers_anything();
        self.pool
            .iter()
            .enumerate()
            .filter(move |(_, tool)| search || tool.name() != TOOL_SEARCH_NAME)
    }

    /// The tools sent with their schema in formats without deferral: the
    /// loaded ones in pool order (the stable prefix), then the discovered
    /// deferred ones in discovery order.
    pub fn loaded(&self) -> Vec<&'a ToolHandle> {
        let mut tools: Vec<&ToolHandle> = self
            .offered()
            .map(|(_, tool)| tool)
            .filter(|tool| !self.session.is_deferred(tool))
            .collect();
        for name in self.session.discovered() {
            if let Some(tool) = self.pool.get(&name)
                && self.session.is_deferred(tool)
            {
                tools.push(tool);
            }
        }
        tools
    }

    /// The names of the deferred tools not yet discovered, pool order.
    pub fn pending(&self) -> Vec<&'a str> {
        self.offered()
            .map(|(_, tool)| tool)
            .filter(|tool| {
                self.session.is_deferred(tool) && !self.session.is_discovered(tool.name())
            })
            .map(ToolHandle::name)
            .collect()
    }

    /// The Anthropic `tools` array: every offered tool in pool order,
    /// deferred ones with `"defer_loading": true`; with
    /// [`AnthropicOptions::cache_control`], a breakpoint on the last
    /// built-in that is not deferred.
    pub fn render_anthropic(&self, options: AnthropicOptions) -> String {
        let tools: Vec<(usize, &ToolHandle, bool)> = self
            .offered()
            .map(|(i, tool)| (i, tool, self.session.is_deferred(tool)))
            .collect();
        let breakpoint = options
            .cache_control
            .then(|| {
                tools.iter().rposition(|(i, _, deferred)| {
                    !deferred && self.pool.entries()[*i].partition() == &Partition::Base
                })
            })
            .flatten();
        let program = program_tool(
            tools.iter().map(|(_, tool, _)| *tool),
            ANTHROPIC_PROGRAM_TOOL,
        );
        json_array(
            tools
                .iter()
                .enumerate()
                .map(|(at, (_, tool, deferred))| {
                    let breakpoint = breakpoint == Some(at);
                    if !breakpoint && *deferred == is_deferred(tool) {
                        // As declared: the tool's cached definition.
                        return Cow::Borrowed(anthropic_fragment(tool));
                    }
                    Cow::Owned(anthropic_tool_json(tool, *deferred, breakpoint))
                })
                .chain(program.map(Cow::Borrowed)),
        )
    }

    /// The OpenAI Chat Completions `tools` array of [`loaded`](Self::loaded).
    pub fn render_openai_chat(&self) -> String {
        json_array(self.loaded().into_iter().map(openai_chat_fragment))
    }

    /// The OpenAI Responses API `tools` array: every offered tool in pool
    /// order, deferred ones with `"defer_loading": true`, `tool_search` as
    /// the client tool search (`{"type": "tool_search", "execution":
    /// "client", "description", "parameters"}`), and each MCP server's
    /// tools in one namespace. Byte-identical while tools are discovered.
    ///
    /// The tools of MCP server `<server>` (named `mcp__<server>__<tool>`)
    /// go into one `{"type": "namespace", "name": "<server>",
    /// "description": "Tools of the MCP server \"<server>\".", "tools":
    /// [...]}`, each as the function it would be flat (description,
    /// parameters, `strict`, `defer_loading`, `allowed_callers`) under its
    /// short name `<tool>`; the namespace stands where its first tool
    /// would (pool order: built-ins, then plugins, each sorted by name).
    /// Native tools stay flat. The model then calls `{"namespace":
    /// "<server>", "name": "<tool>"}`, which
    /// [`Provider::OpenAiResponses`](crate::provider::Provider::OpenAiResponses)
    /// resolves to `mcp__<server>__<tool>`, and a `tool_search_output`
    /// loads found tools into the same namespaces.
    ///
    /// Namespaces are always on here, not an option: this render is for
    /// models with the client tool search (`gpt-5.4` and later), which
    /// OpenAI trains to search namespaces and whose deferred namespaces
    /// cost only their name and description until searched. The client
    /// tool search is new in the Responses API: for a model without it,
    /// send
    /// [`render_openai_responses_without_tool_search`](Self::render_openai_responses_without_tool_search),
    /// which stays flat (flat names are resolved too).
    ///
    /// ```standalone_crate
    /// use registry_core::{Flags, PermissionContext, ToolBuilder, ToolOutput, ToolRegistry};
    /// use registry_core::{catalog::BaseTools, declare::RemoteOrigin, session::Session};
    ///
    /// let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).unwrap());
    /// let search = ToolBuilder::new("mcp__notes__search", "Find notes by text.")
    ///     .remote_origin(RemoteOrigin::new("notes", "search"))
    ///     .build(|_, _| async { Ok(ToolOutput::text("")) })
    ///     .unwrap();
    /// let _guard = registry.plugins().register("notes", search).unwrap();
    /// let pool = registry.assemble_tool_pool(&PermissionContext::new());
    ///
    /// let session = Session::new();
    /// let tools = pool.for_session(&session).render_openai_responses();
    /// assert_eq!(
    ///     tools,
    ///     r#"[{"description":"Tools of the MCP server \"notes\".","name":"notes","tools":[{"description":"Find notes by text.","name":"search","parameters":{"type":"object"},"strict":false,"type":"function"}],"type":"namespace"}]"#
    /// );
    /// ```
    pub fn render_openai_responses(&self) -> String {
        let program = program_tool(self.offered().map(|(_, tool)| tool), OPENAI_PROGRAM_TOOL);
        let tools = self.offered().map(|(_, tool)| {
            let split = (tool.name() != TOOL_SEARCH_NAME)
                .then(|| split_namespaced(tool.name()))
                .flatten();
            (split, tool)
        });
        json_array(
            group_by_namespace(tools)
                .into_iter()
                .map(|entry| match entry {
                    Grouped::Flat(tool) => self.openai_responses_flat(tool),
                    Grouped::Namespace { name, members } => Cow::Owned(openai_namespace_json(
                        name,
                        members.into_iter().map(|(short, tool)| {
                            openai_responses_json_named(tool, self.session.is_deferred(tool), short)
                        }),
                    )),
                })
                .chain(program.map(Cow::Borrowed)),
        )
    }

    /// One tool of [`render_openai_responses`](Self::render_openai_responses)
    /// outside every namespace.
    fn openai_responses_flat(&self, tool: &'a ToolHandle) -> Cow<'a, str> {
        if tool.name() == TOOL_SEARCH_NAME {
            Cow::Owned(openai_responses_tool_search_json(tool))
        } else if self.session.is_deferred(tool) {
            Cow::Owned(openai_responses_json(tool, true))
        } else {
            Cow::Borrowed(openai_responses_fragment(tool))
        }
    }

    /// The OpenAI Responses `tools` array for a model without the client
    /// tool search: [`loaded`](Self::loaded), as Chat sends it (the
    /// prefix stays byte-stable and discovered tools are appended);
    /// `tool_search` is then an ordinary function, answered with a
    /// `function_call_output`.
    pub fn render_openai_responses_without_tool_search(&self) -> String {
        let loaded = self.loaded();
        let program = program_tool(loaded.iter().copied(), OPENAI_PROGRAM_TOOL);
        json_array(
            loaded
                .into_iter()
                .map(openai_responses_fragment)
                .chain(program),
        )
    }

    /// The MCP `tools/list` result of [`loaded`](Self::loaded).
    pub fn render_mcp_tools_list(&self) -> String {
        tools_list_json(self.loaded())
    }

    /// The TypeScript API a program of this session calls: the
    /// [`loaded`](Self::loaded) tools as methods (the stable prefix, then
    /// the discovered deferred tools in discovery order), and a closing
    /// comment naming the [`pending`](Self::pending) ones with their
    /// search hints, to be found with `tool_search` first. See
    /// [`ToolPool::render_typescript`].
    pub fn render_typescript(&self) -> String {
        let pending = self.pending().into_iter().map(|name| {
            let hint = self.pool.get(name).and_then(|tool| {
                tool.spec()
                    .search_hint()
                    .map(str::trim)
                    .filter(|h| !h.is_empty())
            });
            (name, hint)
        });
        typescript_api_deferring(self.loaded(), pending)
    }

    /// The plain-text catalog: every offered tool in pool order; a loaded
    /// one as `- name: description` (further lines of the description
    /// indented by two spaces), a deferred one as `- name (deferred): hint`
    /// (or `- name (deferred)` without a hint).
    /// Discovery does not change it: the discovered tools' definitions
    /// reach the model through the tools array.
    pub fn render_prompt_catalog(&self) -> String {
        self.offered()
            .map(|(_, tool)| {
                if !self.session.is_deferred(tool) {
                    return prompt_catalog_entry(tool);
                }
                match tool
                    .spec()
                    .search_hint()
                    .map(str::trim)
                    .filter(|h| !h.is_empty())
                {
                    Some(hint) => format!("- {} (deferred): {}\n", tool.name(), one_line(hint)),
                    None => format!("- {} (deferred)\n", tool.name()),
                }
            })
            .collect()
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
