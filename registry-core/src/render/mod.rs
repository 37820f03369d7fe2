//! Provider renderers: what a [`ToolPool`](crate::pool::ToolPool) looks like to Anthropic's
//! Messages API, OpenAI's Chat Completions and Responses APIs, an MCP
//! client (`tools/list`), and a system prompt.
//!
//! # Byte stability
//!
//! Every render is a pure function of the pool: JSON goes through the
//! canonical writer ([`to_canonical_string`](crate::text::to_canonical_string)), so object keys are in byte
//! order at every depth whatever map type `serde_json` was built with, and
//! nothing rendered iterates a hash map. Tools come in pool order: built-ins
//! sorted by name, then plugins sorted by name. The same pool renders to the
//! same bytes in every run and every process, and adding, removing or
//! renaming a plugin never changes the bytes of the built-in prefix.
//!
//! Each `ToolPool::render_*` method caches its result in the pool
//! (`ToolPool::render_cached`): rendering an unchanged pool again returns
//! the same [`Arc`](std::sync::Arc) and does no work. A new pool (after the
//! plugin generation moved) renders afresh, but each tool's definition is
//! rendered once per format and kept by its handle (`render::cache`), so a
//! new pool over known tools mostly concatenates bytes; input schemas
//! themselves are generated once per tool and cached by
//! [`ToolHandle::input_schema`](crate::ToolHandle::input_schema).
//!
//! One tool's definition in any format is
//! [`ProviderFormat::definition`], for callers (a catalog lock, a tool
//! search result) that need one definition rather than a pool's array.
//!
//! # Input schemas
//!
//! Every format starts from the provider input schema: the tool's
//! [`ToolHandle::input_schema`](crate::ToolHandle::input_schema) (schemars,
//! JSON Schema 2020-12) with two top-level keys removed:
//!
//! - `$schema`: every provider assumes its own dialect; the key only costs
//!   tokens (and OpenAI's strict subset does not list it);
//! - `title`: schemars writes the Rust type's name there (`ReadFileInput`),
//!   which tells the model nothing and would make renaming a Rust struct
//!   change the rendered bytes (and miss the prompt cache).
//!
//! Nothing else is removed: nested `title`s were written by the author,
//! `description`s are what the model reads, `$defs`/`$ref` are understood by
//! all three providers. Every provider requires `{"type": "object", ...}`
//! at the root; the list and [`ToolBuilder`](crate::declare::ToolBuilder) refuse
//! any other input schema (one that is not an object schema), so only a handle made by hand with [`ToolHandle::new`](crate::ToolHandle::new) could carry one,
//! and it is rendered unchanged.
//!
//! # Anthropic
//!
//! `{"name", "description", "input_schema"}` per tool, plus
//! `"defer_loading": true` for [`Loading::Deferred`](crate::declare::Loading) tools
//! (their schema is still sent: the API keeps it out of the prompt until
//! tool search finds it). With [`AnthropicOptions::with_cache_control`],
//! `"cache_control": {"type": "ephemeral"}` goes on the last built-in that
//! is not deferred: deferred tools are not part of the cached prompt
//! prefix, so that is the end of the built-in prefix the model sees, and
//! plugins (always after it) can come and go without invalidating it. A
//! pool without such a built-in gets no breakpoint.
//!
//! # OpenAI
//!
//! Chat Completions: `{"type": "function", "function": {"name",
//! "description", "parameters", "strict"}}`; Responses: the same fields
//! flat, `{"type": "function", "name", "description", "parameters",
//! "strict"}`. Deferred tools are rendered like any other.
//!
//! A pool's Responses render lists every tool flat. A session's
//! ([`SessionTools::render_openai_responses`](crate::session::SessionTools::render_openai_responses))
//! puts each MCP server's tools into one `{"type": "namespace", "name":
//! "<server>", "description", "tools": [...]}` under their short names
//! (the `namespace` module says which tools, in what order, and how a
//! namespaced call finds its tool again).
//!
//! `strict` is `true` only when the schema can be transformed into
//! OpenAI's strict subset; the transformed schema is then sent.
//! Otherwise the original schema goes out with `strict: false`. A strict
//! schema that the API would reject is never produced. The transform:
//!
//! - the root must be a plain `{"type": "object"}` (no union, no `$ref`);
//! - every object gets `"additionalProperties": false` and lists all its
//!   properties in `required` (byte order); an object that admits unlisted
//!   keys (a map: `additionalProperties` `true` or a schema; or an object
//!   with no `properties`) cannot be closed without changing its meaning,
//!   so the tool is not strict;
//! - a property that was not required is made nullable: `"type": "T"`
//!   becomes `["T", "null"]`; anything else (an `enum`, a `$ref`, a union)
//!   is wrapped as `{"anyOf": [schema, {"type": "null"}]}` with its
//!   `description` hoisted. A property that already admits `null`
//!   (`Option<T>` in schemars) is left as it is. Note that `null` then
//!   reaches the tool for an omitted field: `Option<T>` fields take it,
//!   a `#[serde(default)]` field of a non-`Option` type does not and the
//!   call fails to parse with an error naming the field;
//! - `oneOf` becomes `anyOf` (it admits a superset; the tool's parser still
//!   decides), `const` becomes a one-value `enum`, an `enum` without `type`
//!   gets the type of its values;
//! - `$ref` must be `#` or `#/$defs/<name>`; recursion through them is
//!   kept. A `$ref` with sibling keywords (schemars writes
//!   `{"$ref", "description"}` for a documented field) is replaced by the
//!   definition merged with the siblings, as OpenAI's own SDK does, since the
//!   API takes no siblings next to `$ref`; a cycle of such inlining is
//!   refused;
//! - kept, because OpenAI documents them for strict mode: `description`,
//!   `title`, `enum`, `minimum`, `maximum`, `exclusiveMinimum`,
//!   `exclusiveMaximum`, `multipleOf` (numbers), `minItems`, `maxItems`
//!   (arrays), and `format` when it is one of `date-time`, `time`, `date`,
//!   `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid` on a string;
//! - dropped (validation the subset does not document, or annotations; the
//!   tool's own parsing and `validate_input` still apply): `$schema`,
//!   `$comment`, `default`, `examples`, `deprecated`, `readOnly`,
//!   `writeOnly`, `pattern` (regular expression dialects differ),
//!   `minLength`, `maxLength`, `uniqueItems`, `minProperties`,
//!   `maxProperties`, `contentEncoding`, `contentMediaType`, any other
//!   `format` (schemars' `uint32`, `double`, ...), and constraints on the
//!   wrong type;
//! - refused (the tool is then not strict): every other keyword (`allOf`,
//!   `not`, `if`/`then`/`else`, `prefixItems` (tuples),
//!   `patternProperties`, `propertyNames`, `dependentSchemas`,
//!   `unevaluatedProperties`, nested `$defs`, extension keys, ...), `true`
//!   or an annotation-only schema (any value), more than one non-null type,
//!   an array without `items`, a union next to `type`, and OpenAI's size
//!   limits: 10 levels of object nesting (counted as written), 5,000
//!   properties, 1,000 enum values, 120,000 characters of names and enum
//!   strings.
//!
//! # MCP `tools/list`
//!
//! `{"tools": [...]}`, each `{"name", "title"?, "description",
//! "inputSchema", "annotations"?}`. `title` (top level and in
//! `annotations`) is the tool's `user_facing_name` when one was declared.
//!
//! The hints fail closed. MCP's own defaults, `readOnlyHint: false` and
//! `destructiveHint: true` (meaningful only when not read-only), are this
//! crate's defaults too (unsaid `destructive` means "not read-only"), so
//! only what is looser than them needs saying, and only when it holds for
//! every call (a fixed boolean, declared or following from `read_only`):
//! `"readOnlyHint": true` for a tool that is read-only and not
//! destructive, `"destructiveHint": false` for one that writes but never
//! destroys. Anything else (a per-input posture, or a contradictory
//! `read_only = true, destructive = true`) is omitted, so the client
//! assumes the worst. `idempotentHint` and
//! `openWorldHint` are never emitted: nothing declares them. An empty
//! `annotations` object is left out.
//!
//! # Prompt catalog
//!
//! One entry per tool, in pool order: `- name: description`, where the
//! description's further lines are indented by two spaces (blank lines stay
//! empty, trailing whitespace is trimmed) and every entry ends with a
//! newline. A deferred tool is marked in place, `- name (deferred):
//! description`, rather than listed in a section of its own, so the
//! built-ins stay one contiguous byte prefix of the catalog whatever the
//! plugins are; the runtime's system prompt says what "deferred" means
//! (search before use). Aliases are not listed: the model should use the
//! primary name.
//!
//! # TypeScript (code mode)
//!
//! `declare const tools: { ... };`, one method per tool in pool order:
//! the description as its doc comment, `input` typed from the input
//! schema, the result `Promise<T>` of the output schema's type or
//! `Promise<string>` (the result's text). How each schema keyword reads,
//! and the bounds on what a hostile schema can make it write: the
//! `typescript` module's docs. Aliases are not listed.
//!
//! # What this module never does
//!
//! Never does: decide which tools a model sees (the pool and the session
//! do), cache anything that depends on more than one tool's definition in
//! a tool's handle (position, options and session state are rendered by
//! the caller), or iterate a hash map into rendered bytes.

mod anthropic;
pub(crate) mod cache;
mod callers;
mod format;
mod json;
mod mcp;
mod namespace;
mod openai;
mod prompt;
mod schema;
mod strict;
mod typescript;

pub use anthropic::AnthropicOptions;
pub(crate) use anthropic::{
    anthropic_fragment, anthropic_tool, anthropic_tool_json, anthropic_tool_references, is_deferred,
};
pub(crate) use callers::{ANTHROPIC_PROGRAM_TOOL, OPENAI_PROGRAM_TOOL, program_tool};
pub use format::ProviderFormat;
#[cfg(feature = "mcp")]
pub(crate) use mcp::{mcp_fragment, mcp_output_schema};
pub(crate) use mcp::{mcp_tool, tools_list_json};
pub(crate) use namespace::{
    Grouped, group_by_namespace, namespace_definitions, namespaced_tool_name,
    openai_namespace_json, split_namespaced,
};
pub(crate) use openai::{
    openai_chat_fragment, openai_chat_tool, openai_responses_fragment, openai_responses_json,
    openai_responses_json_named, openai_responses_tool, openai_responses_tool_search_json,
};
pub(crate) use prompt::prompt_catalog_entry;
pub(crate) use strict::openai_strict_schema;
pub(crate) use typescript::typescript_api_deferring;

/// Prefix of every render cache key this module uses.
const CACHE_KEY_PREFIX: &str = "render/";
