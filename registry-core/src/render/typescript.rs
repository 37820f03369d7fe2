//! The pool as a TypeScript API, for programs that call tools (code
//! mode): one method of a `tools` object per tool, its input and result
//! types written from the tool's cached schemas, its description as the
//! method's doc comment.
//!
//! ```text
//! declare const tools: {
//!   /** Read a text file. */
//!   read_file(input: {
//!     /** The file, relative to the workspace. */
//!     path: string;
//!     offset?: number | null;
//!   }): Promise<string>;
//! };
//! ```
//!
//! - A tool with an output schema (a [`Json`](crate::declare::Json)
//!   result) resolves to that type; any other tool to its result's text,
//!   `string`.
//! - Schemas map the way they read: `string`, `number` (`integer` too),
//!   `boolean`, `null`, arrays as `T[]`, objects with their properties
//!   (optional unless `required`, each property's `description` as its
//!   doc comment), maps as `Record<string, T>`, `enum` and `const` as
//!   literal unions, `anyOf`/`oneOf` as `|`, `allOf` as `&`, a list of
//!   types as their union. `$ref`s to `$defs` are written in place; a
//!   reference back into a definition being written (a recursive type) is
//!   `unknown`, and so is anything nested deeper than 12 levels or past
//!   4,000 schema nodes in one tool (inlining can multiply a schema), so a
//!   hostile server's schema cannot make the render large. Validation
//!   keywords (`minimum`, `pattern`, `format`, ...) are left out: the
//!   tool's own parsing still applies them, and its error says which
//!   failed.
//! - A tool name or property that is not a JavaScript identifier
//!   (`my-tool`) is quoted; the program calls it as `tools["my-tool"]`.
//! - Aliases are not listed (as in the prompt catalog): a program should
//!   use the primary name, though an alias still resolves.
//! - A tool that allows only direct calls (`allowed_callers = ["direct"]`,
//!   see [`Callers`](crate::declare::Callers)) is left out: a program
//!   could not call it.
//! - `*/` inside a description is written `*\/`, so no description can
//!   end its comment and write code into the declarations.
//!
//! The pool's render ([`ToolPool::render_typescript`]) lists every tool in
//! pool order, so the built-ins are a byte prefix plugins never change; a
//! session's render ([`SessionTools::render_typescript`]) lists the tools
//! the session loads and names the deferred ones still to be found with
//! `tool_search`. Each tool's method is rendered once and kept by its
//! handle.
//!
//! [`SessionTools::render_typescript`]: crate::session::SessionTools::render_typescript

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::CACHE_KEY_PREFIX;
use super::cache::{self, Fragment};
use crate::input::handle::ToolHandle;
use crate::pool::ToolPool;

const KEY: &str = "typescript";

/// What every render starts with.
const OPEN: &str = "declare const tools: {\n";
/// What every render ends with.
const CLOSE: &str = "};\n";

/// Levels of nesting written before a type is `unknown`.
const MAX_DEPTH: usize = 12;
/// Schema nodes written per type before the rest is `unknown`.
const MAX_NODES: usize = 4_000;

/// One tool as a method of the `tools` object: its doc comment and its
/// signature, indented by two spaces, ending with a newline.
pub(crate) fn typescript_method(tool: &ToolHandle) -> String {
    let spec = tool.spec();
    let mut out = String::with_capacity(256);
    doc_comment(&mut out, spec.description(), 1);
    indent(&mut out, 1);
    out.push_str(&member_name(spec.name()));
    out.push_str("(input: ");
    TypeWriter::new(tool.input_schema()).write(&mut out, tool.input_schema(), 1);
    out.push_str("): Promise<");
    match spec.output_schema() {
        Some(schema) => TypeWriter::new(schema).write(&mut out, schema, 1),
        None => out.push_str("string"),
    }
    out.push_str(">;\n");
    out
}

/// The declarations of `tools`, in the order given.
pub(crate) fn typescript_api<'a>(tools: impl IntoIterator<Item = &'a ToolHandle>) -> String {
    typescript_api_deferring(tools, std::iter::empty())
}

/// The declarations of `tools`, then a comment naming the deferred tools
/// not loaded yet (`(name, search hint)`), which a program finds with
/// `tool_search` before it calls them.
pub(crate) fn typescript_api_deferring<'a, 'b>(
    tools: impl IntoIterator<Item = &'a ToolHandle>,
    deferred: impl IntoIterator<Item = (&'b str, Option<&'b str>)>,
) -> String {
    let mut out = String::from(OPEN);
    // The API is what a program may call: a tool for direct calls only
    // (the `code` tool itself, a result for the model's own eyes) is not
    // in it.
    let callable = |tool: &&ToolHandle| {
        tool.spec()
            .allowed_callers()
            .is_none_or(crate::declare::Callers::allows_program)
    };
    for tool in tools.into_iter().filter(callable) {
        out.push_str(cache::fragment(
            tool,
            Fragment::TypeScript,
            typescript_method,
        ));
    }
    let mut deferred = deferred.into_iter().peekable();
    if deferred.peek().is_some() {
        out.push_str("  // Deferred: load with tools.tool_search, then call by name.\n");
        for (name, hint) in deferred {
            out.push_str("  // - ");
            out.push_str(name);
            if let Some(hint) = hint {
                // One line: a hint's line break would end the comment.
                out.push_str(": ");
                out.push_str(&hint.split_whitespace().collect::<Vec<_>>().join(" "));
            }
            out.push('\n');
        }
    }
    out.push_str(CLOSE);
    out
}

impl ToolPool {
    /// The pool as a TypeScript API for programs that call tools:
    /// `declare const tools: { ... };`, one method per tool in pool order
    /// (see [`render`](crate::render)'s module docs for how schemas are
    /// written). Byte-stable, and the built-ins are a prefix that plugins
    /// never change. Cached.
    ///
    /// ```
    /// use registry_core::{
    ///     Flags, PermissionContext, ToolBuilder, ToolOutput, ToolRegistry, catalog::BaseTools,
    /// };
    /// use serde_json::json;
    ///
    /// let registry = ToolRegistry::new(BaseTools::linked(&Flags::new())?);
    /// let tool = ToolBuilder::new("greet", "Say hello.")
    ///     .input_schema(json!({
    ///         "type": "object",
    ///         "properties": { "name": { "type": "string", "description": "Who to greet." } },
    ///         "required": ["name"],
    ///     }))
    ///     .build(|_, _| async { Ok(ToolOutput::text("hello")) })?;
    /// let _plugin = registry.plugins().register("demo", tool)?;
    /// let api = registry.assemble_tool_pool(&PermissionContext::new()).render_typescript();
    /// assert!(api.contains(
    ///     "  /** Say hello. */\n  greet(input: {\n    /** Who to greet. */\n    name: string;\n  }): Promise<string>;\n"
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn render_typescript(&self) -> Arc<str> {
        self.render_cached(&format!("{CACHE_KEY_PREFIX}{KEY}"), |pool| {
            typescript_api(pool.iter())
        })
    }
}

/// Writes schemas as TypeScript types, `$ref`s resolved against one root
/// schema, within the depth and node bounds.
struct TypeWriter<'a> {
    root: &'a Value,
    /// The `$defs` being written, innermost last (a reference to one of
    /// them is recursion).
    expanding: Vec<&'a str>,
    nodes: usize,
    /// Types being written, outermost first (arrays and unions nest
    /// without indenting, so this is not the indentation level).
    depth: usize,
}

impl<'a> TypeWriter<'a> {
    fn new(root: &'a Value) -> Self {
        TypeWriter {
            root,
            expanding: Vec::new(),
            nodes: 0,
            depth: 0,
        }
    }

    /// `schema` as a type, its lines (for an object) indented from
    /// `level`.
    fn write(&mut self, out: &mut String, schema: &'a Value, level: usize) {
        self.nodes += 1;
        self.depth += 1;
        if self.nodes > MAX_NODES || self.depth > MAX_DEPTH {
            out.push_str("unknown");
        } else {
            self.write_within_bounds(out, schema, level);
        }
        self.depth -= 1;
    }

    fn write_within_bounds(&mut self, out: &mut String, schema: &'a Value, level: usize) {
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(false) => return out.push_str("never"),
            _ => return out.push_str("unknown"),
        };
        if let Some(Value::String(reference)) = map.get("$ref") {
            return self.reference(out, reference, level);
        }
        if let Some(value) = map.get("const") {
            return out.push_str(&literal(value));
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            return self.union(out, values.iter().map(|v| Part::Literal(literal(v))), " | ");
        }
        for (key, separator) in [("anyOf", " | "), ("oneOf", " | "), ("allOf", " & ")] {
            if let Some(Value::Array(parts)) = map.get(key) {
                let parts = parts.iter().map(|p| Part::Schema(p, level));
                return self.union(out, parts, separator);
            }
        }
        match map.get("type") {
            Some(Value::String(kind)) => self.typed(out, kind, map, level),
            Some(Value::Array(kinds)) => {
                let kinds = kinds
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|k| Part::Typed(k, map, level));
                self.union(out, kinds, " | ");
            }
            _ if map.contains_key("properties") => self.typed(out, "object", map, level),
            _ => out.push_str("unknown"),
        }
    }

    /// The parts joined by `separator`, each in parentheses when it is
    /// itself a union or an intersection; `never` for no parts.
    fn union(&mut self, out: &mut String, parts: impl Iterator<Item = Part<'a>>, separator: &str) {
        let mut written = 0;
        for part in parts {
            let mut text = String::new();
            match part {
                Part::Literal(literal) => text = literal,
                Part::Schema(schema, level) => self.write(&mut text, schema, level),
                Part::Typed(kind, map, level) => self.typed(&mut text, kind, map, level),
            }
            if written > 0 {
                out.push_str(separator);
            }
            let place = if separator == " & " {
                Operand::Intersection
            } else {
                Operand::Union
            };
            push_operand(out, &text, place);
            written += 1;
        }
        if written == 0 {
            out.push_str("never");
        }
    }

    fn typed(&mut self, out: &mut String, kind: &str, map: &'a Map<String, Value>, level: usize) {
        match kind {
            "string" => out.push_str("string"),
            "integer" | "number" => out.push_str("number"),
            "boolean" => out.push_str("boolean"),
            "null" => out.push_str("null"),
            "array" => match map.get("items") {
                Some(items) => {
                    let mut item = String::new();
                    self.write(&mut item, items, level);
                    push_operand(out, &item, Operand::Array);
                    out.push_str("[]");
                }
                None => out.push_str("unknown[]"),
            },
            "object" => self.object(out, map, level),
            _ => out.push_str("unknown"),
        }
    }

    fn object(&mut self, out: &mut String, map: &'a Map<String, Value>, level: usize) {
        let extra = map.get("additionalProperties");
        let properties = map
            .get("properties")
            .and_then(Value::as_object)
            .filter(|p| !p.is_empty());
        let Some(properties) = properties else {
            return match extra {
                Some(Value::Bool(false)) => out.push_str("Record<string, never>"),
                Some(schema @ Value::Object(_)) => {
                    out.push_str("Record<string, ");
                    self.write(out, schema, level);
                    out.push('>');
                }
                _ => out.push_str("Record<string, unknown>"),
            };
        };
        let required: BTreeSet<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        // Byte order, as every render writes keys, whatever map type
        // serde_json was built with.
        let mut properties: Vec<(&String, &'a Value)> = properties.iter().collect();
        properties.sort_unstable_by(|a, b| a.0.cmp(b.0));
        out.push_str("{\n");
        for (name, property) in properties {
            if let Some(description) = property.get("description").and_then(Value::as_str) {
                doc_comment(out, description, level + 1);
            }
            indent(out, level + 1);
            out.push_str(&member_name(name));
            if !required.contains(name.as_str()) {
                out.push('?');
            }
            out.push_str(": ");
            self.write(out, property, level + 1);
            out.push_str(";\n");
        }
        // Keys beyond the listed ones: their type must admit every
        // property's, so it is `unknown`.
        if extra.is_some_and(|e| !matches!(e, Value::Bool(false))) {
            indent(out, level + 1);
            out.push_str("[key: string]: unknown;\n");
        }
        indent(out, level);
        out.push('}');
    }

    fn reference(&mut self, out: &mut String, reference: &'a str, level: usize) {
        let name = reference
            .strip_prefix("#/$defs/")
            .or_else(|| reference.strip_prefix("#/definitions/"));
        let definition = name.and_then(|name| {
            let key = name.replace("~1", "/").replace("~0", "~");
            ["$defs", "definitions"]
                .iter()
                .find_map(|defs| self.root.get(defs)?.get(&key))
        });
        match (name, definition) {
            (Some(name), Some(definition)) if !self.expanding.contains(&name) => {
                self.expanding.push(name);
                self.write(out, definition, level);
                self.expanding.pop();
            }
            // Recursion, the root itself (`#`), or a reference that
            // names nothing.
            _ => out.push_str("unknown"),
        }
    }
}

/// What a union is made of, written in turn.
enum Part<'a> {
    Literal(String),
    Schema(&'a Value, usize),
    Typed(&'a str, &'a Map<String, Value>, usize),
}

/// Where a type is written as an operand.
#[derive(Clone, Copy)]
enum Operand {
    /// Of `|`: anything goes (`&` binds tighter; unions flatten).
    Union,
    /// Of `&`: a union needs parentheses.
    Intersection,
    /// Of `[]`: a union or an intersection needs parentheses.
    Array,
}

/// `text` as an operand, in parentheses where its own top-level operator
/// binds looser than the place it goes.
fn push_operand(out: &mut String, text: &str, place: Operand) {
    let compound = match place {
        Operand::Union => false,
        Operand::Intersection => top_level_operator(text, '|'),
        Operand::Array => top_level_operator(text, '|') || top_level_operator(text, '&'),
    };
    if compound {
        out.push('(');
    }
    out.push_str(text);
    if compound {
        out.push(')');
    }
}

/// Whether ` op ` occurs in `text` outside brackets and string literals
/// (a union inside an object's property does not make the object one).
fn top_level_operator(text: &str, op: char) -> bool {
    let (mut depth, mut quoted, mut escaped) = (0usize, false, false);
    let mut previous = ' ';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => quoted = false,
                _ => {}
            }
        } else {
            match c {
                '"' => quoted = true,
                '{' | '(' | '[' | '<' => depth += 1,
                '}' | ')' | ']' | '>' => depth = depth.saturating_sub(1),
                _ if c == op && depth == 0 && previous == ' ' && chars.peek() == Some(&' ') => {
                    return true;
                }
                _ => {}
            }
        }
        previous = c;
    }
    false
}

/// A JSON scalar as a TypeScript literal type; `unknown` for an object or
/// an array (not a type in TypeScript's syntax).
fn literal(value: &Value) -> String {
    match value {
        Value::Object(_) | Value::Array(_) => "unknown".to_owned(),
        // A scalar's JSON text is its TypeScript literal.
        scalar => scalar.to_string(),
    }
}

/// `name` as a member of an object type: as it is when it is an
/// identifier, else quoted (a JSON string is a TypeScript string).
fn member_name(name: &str) -> String {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        name.to_owned()
    } else {
        Value::String(name.to_owned()).to_string()
    }
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// `/** text */` on one line, or a block for a text of several lines,
/// indented to `level`; nothing for an empty text.
fn doc_comment(out: &mut String, text: &str, level: usize) {
    let text = text.trim().replace("*/", "*\\/");
    if text.is_empty() {
        return;
    }
    let mut lines = text.lines().map(str::trim_end);
    if text.lines().nth(1).is_none() {
        indent(out, level);
        out.push_str("/** ");
        out.push_str(lines.next().unwrap_or_default());
        out.push_str(" */\n");
        return;
    }
    indent(out, level);
    out.push_str("/**\n");
    for line in lines {
        indent(out, level);
        out.push_str(" *");
        if !line.is_empty() {
            out.push(' ');
            out.push_str(line);
        }
        out.push('\n');
    }
    indent(out, level);
    out.push_str(" */\n");
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::declare::builder::ToolBuilder;
    use crate::declare::output::ToolOutput;

    fn tool(name: &str, description: &str, schema: Value) -> ToolHandle {
        ToolBuilder::new(name, description)
            .input_schema(schema)
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{err}"))
    }

    fn type_of(schema: Value) -> String {
        let mut out = String::new();
        TypeWriter::new(&schema).write(&mut out, &schema, 0);
        out
    }

    #[test]
    fn a_method_has_its_description_input_and_result() {
        let read = tool(
            "read_file",
            "Read a text file.\n\nLines are numbered.",
            json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string", "description": "The file." },
                    "offset": { "type": ["integer", "null"], "minimum": 0 },
                },
                "required": ["path"],
            }),
        );
        assert_eq!(
            typescript_method(&read),
            "  /**\n   * Read a text file.\n   *\n   * Lines are numbered.\n   */\n  \
             read_file(input: {\n    offset?: number | null;\n    /** The file. */\n    \
             path: string;\n  }): Promise<string>;\n"
        );
    }

    #[test]
    fn schemas_read_as_types() {
        let cases = [
            (json!({ "type": "boolean" }), "boolean"),
            (
                json!({ "type": "array", "items": { "type": "string" } }),
                "string[]",
            ),
            (
                json!({ "type": "array", "items": { "type": ["string", "null"] } }),
                "(string | null)[]",
            ),
            (json!({ "type": "array" }), "unknown[]"),
            (
                json!({ "enum": ["a", "b\"c", 1, null] }),
                "\"a\" | \"b\\\"c\" | 1 | null",
            ),
            (json!({ "const": "x" }), "\"x\""),
            (json!({ "enum": [] }), "never"),
            (
                json!({ "anyOf": [{ "type": "string" }, { "type": "array", "items": { "type": "number" } }] }),
                "string | number[]",
            ),
            (
                json!({ "allOf": [{ "anyOf": [{ "type": "string" }, { "type": "null" }] }, { "type": "string" }] }),
                "(string | null) & string",
            ),
            (json!({ "type": "object" }), "Record<string, unknown>"),
            (
                json!({ "type": "object", "additionalProperties": { "type": "integer" } }),
                "Record<string, number>",
            ),
            (
                json!({ "anyOf": [{ "type": "object", "properties": { "a": { "enum": ["x", "y"] } }, "required": ["a"] }, { "type": "null" }] }),
                "{\n  a: \"x\" | \"y\";\n} | null",
            ),
            (
                json!({ "type": "array", "items": { "type": "object", "properties": { "a": { "enum": ["x", "y"] } }, "required": ["a"] } }),
                "{\n  a: \"x\" | \"y\";\n}[]",
            ),
            (
                json!({ "type": "array", "items": { "anyOf": [{ "enum": ["a | b"] }, { "type": "string" }] } }),
                "(\"a | b\" | string)[]",
            ),
            (
                json!({ "type": "array", "items": { "enum": ["a | b"] } }),
                "\"a | b\"[]",
            ),
            (json!(true), "unknown"),
            (json!(false), "never"),
            (json!({}), "unknown"),
            (
                json!({ "type": "object", "properties": { "a-b": { "type": "string" } }, "required": ["a-b"] }),
                "{\n  \"a-b\": string;\n}",
            ),
            (
                json!({ "type": "object", "properties": { "a": {} }, "additionalProperties": true }),
                "{\n  a?: unknown;\n  [key: string]: unknown;\n}",
            ),
        ];
        for (schema, want) in cases {
            assert_eq!(type_of(schema.clone()), want, "{schema}");
        }
    }

    #[test]
    fn definitions_are_written_in_place_and_recursion_is_unknown() {
        let schema = json!({
            "type": "object",
            "properties": {
                "mode": { "$ref": "#/$defs/Mode", "description": "How." },
                "tree": { "$ref": "#/$defs/Tree" },
                "missing": { "$ref": "#/$defs/Nothing" },
            },
            "required": ["mode", "tree", "missing"],
            "$defs": {
                "Mode": { "type": "string", "enum": ["fast", "slow"] },
                "Tree": {
                    "type": "object",
                    "properties": { "children": { "type": "array", "items": { "$ref": "#/$defs/Tree" } } },
                    "required": ["children"],
                },
            },
        });
        assert_eq!(
            type_of(schema),
            "{\n  missing: unknown;\n  /** How. */\n  mode: \"fast\" | \"slow\";\n  \
             tree: {\n    children: unknown[];\n  };\n}"
        );
    }

    #[test]
    fn a_hostile_schema_stays_small() {
        // Each level references the next twice: written in place, 2^40
        // copies, unless the node bound holds.
        let mut defs = serde_json::Map::new();
        for k in 0..40 {
            let next = json!({ "$ref": format!("#/$defs/D{}", k + 1) });
            defs.insert(
                format!("D{k}"),
                json!({ "type": "object", "properties": { "a": next, "b": next } }),
            );
        }
        let schema = json!({ "$ref": "#/$defs/D0", "$defs": defs });
        let text = type_of(schema);
        assert!(text.len() < 400_000, "{} bytes", text.len());
        // And deep nesting stops at the depth bound.
        let mut deep = json!({ "type": "string" });
        for _ in 0..100 {
            deep = json!({ "type": "array", "items": deep });
        }
        assert!(type_of(deep).starts_with("unknown[][]"));
    }

    #[test]
    fn a_description_cannot_close_its_comment() {
        let evil = tool(
            "evil",
            "Harmless. */ const x = steal(); /*",
            json!({ "type": "object", "properties": {} }),
        );
        let method = typescript_method(&evil);
        assert_eq!(method.matches("*/").count(), 1, "{method}");
        assert!(method.contains("Harmless. *\\/ const x"), "{method}");
    }

    #[test]
    fn names_that_are_not_identifiers_are_quoted() {
        assert_eq!(member_name("read_file"), "read_file");
        assert_eq!(member_name("$x"), "$x");
        assert_eq!(member_name("my-tool"), "\"my-tool\"");
        assert_eq!(member_name("1st"), "\"1st\"");
    }

    #[test]
    fn deferred_tools_are_named_with_their_hints_on_one_line() {
        let a = tool("a", "A.", json!({ "type": "object", "properties": {} }));
        let api = typescript_api_deferring(
            [&a],
            [
                ("mcp__x__b", Some("find\nnotes  by tag")),
                ("mcp__x__c", None),
            ],
        );
        assert_eq!(
            api,
            "declare const tools: {\n  /** A. */\n  a(input: Record<string, unknown>): Promise<string>;\n  \
             // Deferred: load with tools.tool_search, then call by name.\n  \
             // - mcp__x__b: find notes by tag\n  // - mcp__x__c\n};\n"
        );
    }

    #[test]
    fn the_api_wraps_the_methods_in_order() {
        let empty = json!({ "type": "object", "properties": {} });
        let a = tool("a", "A.", empty.clone());
        let b = tool("b", "B.", empty);
        assert_eq!(
            typescript_api([&a, &b]),
            "declare const tools: {\n  /** A. */\n  a(input: Record<string, unknown>): Promise<string>;\n  \
             /** B. */\n  b(input: Record<string, unknown>): Promise<string>;\n};\n"
        );
    }

    #[test]
    fn a_tool_only_the_model_may_call_is_not_in_the_api() {
        let empty = json!({ "type": "object", "properties": {} });
        let a = tool("a", "A.", empty.clone());
        let direct = ToolBuilder::new("shot", "For the model's eyes.")
            .input_schema(empty.clone())
            .allowed_callers(crate::declare::Callers::Direct)
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{err}"));
        let programs = ToolBuilder::new("b", "B.")
            .input_schema(empty)
            .allowed_callers(crate::declare::Callers::Program)
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap_or_else(|err| panic!("{err}"));
        let api = typescript_api([&a, &direct, &programs]);
        assert!(!api.contains("shot"), "{api}");
        assert!(api.contains("  b(input"), "{api}");
    }
}
