//! OpenAI Responses namespaces: the tools of one MCP server grouped under
//! one `{"type": "namespace"}` tool, and the way back from a namespaced
//! call to the tool it names.
//!
//! A tool belongs to a namespace when its name reads
//! `mcp__<server>__<tool>`, split at the first `__` after `mcp__`: the
//! form every imported tool's name has (`declare::imported`, whose server
//! segment never holds `__`), and the way permission rules read a tool's
//! server (`mcp__server`). The namespace is `<server>`, the function
//! inside it is called `<tool>`. The rule reads the name alone, not the
//! tool's `RemoteOrigin`, on purpose: the same rule then groups the
//! session's `tools` array, the definitions a `tool_search_output` loads
//! (which are JSON by then), and resolves a `function_call` back
//! ([`namespaced_tool_name`] is its exact inverse), so the three can never
//! disagree about which tool a namespace and a short name mean.
//!
//! Order: a namespace stands where the first of its tools stood, and holds
//! its tools in the order they came (pool order: built-ins then plugins,
//! each sorted by name, so an imported server's tools are together and the
//! built-in prefix is untouched). Nothing here iterates a hash map; the
//! same tools give the same bytes in every run.
//!
//! Never does: decide whether a render is namespaced (the session render
//! does), look a namespace up in a pool, or cache a namespaced definition
//! in a tool's handle (its short name depends on the grouping).

use std::collections::BTreeMap;

use serde_json::Value;

use super::cache::json_array;
use super::json::{ObjectWriter, into_string};

/// The prefix of an imported tool's name.
const MCP_PREFIX: &str = "mcp__";

/// The namespace and the short name of a tool named
/// `mcp__<namespace>__<short>`; `None` for any other name (a native tool).
pub(crate) fn split_namespaced(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix(MCP_PREFIX)?;
    let (namespace, short) = rest.split_once("__")?;
    (!namespace.is_empty() && !short.is_empty()).then_some((namespace, short))
}

/// The tool a call of `short` in `namespace` names: `mcp__<namespace>__<short>`,
/// when that name splits back into exactly this pair; `None` when no tool
/// of this crate could be rendered that way (an empty part, or a
/// namespace holding `__` or ending with `_`, which would split elsewhere).
pub(crate) fn namespaced_tool_name(namespace: &str, short: &str) -> Option<String> {
    let name = format!("{MCP_PREFIX}{namespace}__{short}");
    (split_namespaced(&name) == Some((namespace, short))).then_some(name)
}

/// What the model reads about a namespace: which server's tools it holds.
/// Made from the namespace alone, so the session render and a
/// `tool_search_output` describe it with the same bytes.
pub(crate) fn namespace_description(namespace: &str) -> String {
    format!("Tools of the MCP server \"{namespace}\".")
}

/// One entry of a Responses `tools` array once grouped.
#[derive(Debug, PartialEq)]
pub(crate) enum Grouped<'n, T> {
    /// A tool outside every namespace, as it came.
    Flat(T),
    /// A namespace and its members (short name, item), in the order they
    /// came.
    Namespace {
        /// The namespace's name (the server segment).
        name: &'n str,
        /// Each member's short name and item.
        members: Vec<(&'n str, T)>,
    },
}

/// `items` grouped by namespace: an item with `Some((namespace, short))`
/// joins its namespace, which stands where its first item stood; the rest
/// stay where they are. Deterministic: order follows `items` alone.
pub(crate) fn group_by_namespace<'n, T>(
    items: impl IntoIterator<Item = (Option<(&'n str, &'n str)>, T)>,
) -> Vec<Grouped<'n, T>> {
    let mut out: Vec<Grouped<'n, T>> = Vec::new();
    // Namespace -> its entry's index in `out` (a BTreeMap: nothing here
    // depends on hash order, though only lookups use it).
    let mut at: BTreeMap<&'n str, usize> = BTreeMap::new();
    for (split, item) in items {
        let Some((namespace, short)) = split else {
            out.push(Grouped::Flat(item));
            continue;
        };
        match at.get(namespace) {
            Some(&i) => {
                if let Some(Grouped::Namespace { members, .. }) = out.get_mut(i) {
                    members.push((short, item));
                }
            }
            None => {
                at.insert(namespace, out.len());
                out.push(Grouped::Namespace {
                    name: namespace,
                    members: vec![(short, item)],
                });
            }
        }
    }
    out
}

/// A namespace tool as canonical JSON: `{"description", "name", "tools",
/// "type": "namespace"}`, `functions` being its members' canonical JSON.
pub(crate) fn openai_namespace_json<S: AsRef<str>>(
    name: &str,
    functions: impl IntoIterator<Item = S>,
) -> String {
    let mut out = Vec::with_capacity(256);
    let mut object = ObjectWriter::canonical(&mut out);
    object
        .string("description", &namespace_description(name))
        .string("name", name)
        .raw("tools", &json_array(functions))
        .string("type", "namespace");
    object.close();
    into_string(out)
}

/// Function definitions (`{"type": "function", "name", ...}`, as a
/// `tool_search_output` lists them) with each imported tool moved into its
/// namespace under its short name, grouped as the session render groups
/// them; a definition without a string `name` stays as it is.
pub(crate) fn namespace_definitions(definitions: Vec<Value>) -> Vec<Value> {
    let names: Vec<Option<(String, String)>> = definitions
        .iter()
        .map(|definition| {
            let name = definition.get("name").and_then(Value::as_str)?;
            let (namespace, short) = split_namespaced(name)?;
            Some((namespace.to_owned(), short.to_owned()))
        })
        .collect();
    let items = names
        .iter()
        .map(|split| split.as_ref().map(|(n, s)| (n.as_str(), s.as_str())))
        .zip(definitions);
    group_by_namespace(items)
        .into_iter()
        .map(|entry| match entry {
            Grouped::Flat(definition) => definition,
            Grouped::Namespace { name, members } => {
                let tools = members
                    .into_iter()
                    .map(|(short, mut definition)| {
                        if let Value::Object(fields) = &mut definition {
                            fields.insert("name".into(), short.into());
                        }
                        definition
                    })
                    .collect();
                serde_json::json!({
                    "type": "namespace",
                    "name": name,
                    "description": namespace_description(name),
                    "tools": Value::Array(tools),
                })
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_split_at_the_first_double_underscore_and_join_back_exactly() {
        assert_eq!(
            split_namespaced("mcp__github__create_issue"),
            Some(("github", "create_issue"))
        );
        assert_eq!(split_namespaced("mcp__a__b__c"), Some(("a", "b__c")));
        assert_eq!(split_namespaced("mcp__a___-1f"), Some(("a", "_-1f")));
        for native in [
            "read_file",
            "mcp__github",
            "mcp____x",
            "mcp__x__",
            "mcp_x__y",
        ] {
            assert_eq!(split_namespaced(native), None, "{native}");
        }
        for name in ["mcp__github__create_issue", "mcp__a__b__c", "mcp__a___-1f"] {
            let (namespace, short) = split_namespaced(name).unwrap();
            assert_eq!(
                namespaced_tool_name(namespace, short).as_deref(),
                Some(name)
            );
        }
        // Pairs no tool of ours renders as: refused, never resolved to
        // some other tool.
        for (namespace, short) in [("", "x"), ("a", ""), ("a__b", "c"), ("a_", "b")] {
            assert_eq!(
                namespaced_tool_name(namespace, short),
                None,
                "{namespace:?} {short:?}"
            );
        }
    }

    #[test]
    fn a_namespace_stands_where_its_first_tool_stood() {
        let items = ["a", "mcp__x__one", "b", "mcp__y__one", "mcp__x__two"]
            .map(|name| (split_namespaced(name), name));
        let grouped = group_by_namespace(items);
        assert_eq!(
            grouped,
            [
                Grouped::Flat("a"),
                Grouped::Namespace {
                    name: "x",
                    members: vec![("one", "mcp__x__one"), ("two", "mcp__x__two")]
                },
                Grouped::Flat("b"),
                Grouped::Namespace {
                    name: "y",
                    members: vec![("one", "mcp__y__one")]
                },
            ]
        );
    }

    #[test]
    fn namespace_json_is_canonical() {
        let text = openai_namespace_json("notes", [r#"{"name":"find","type":"function"}"#]);
        assert_eq!(
            text,
            r#"{"description":"Tools of the MCP server \"notes\".","name":"notes","tools":[{"name":"find","type":"function"}],"type":"namespace"}"#
        );
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(crate::text::to_canonical_string(&value), text);
    }

    #[test]
    fn found_definitions_move_into_their_namespaces() {
        let found = vec![
            json!({ "type": "function", "name": "mcp__gh__merge", "strict": false }),
            json!({ "type": "function", "name": "deploy" }),
            json!({ "type": "function", "name": "mcp__gh__close" }),
        ];
        assert_eq!(
            namespace_definitions(found),
            [
                json!({
                    "type": "namespace",
                    "name": "gh",
                    "description": "Tools of the MCP server \"gh\".",
                    "tools": [
                        { "type": "function", "name": "merge", "strict": false },
                        { "type": "function", "name": "close" },
                    ],
                }),
                json!({ "type": "function", "name": "deploy" }),
            ]
        );
    }
}
