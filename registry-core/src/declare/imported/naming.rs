//! Names and descriptions of imported tools: `mcp__<server>__<tool>` made
//! safe for every provider, and descriptions cut to a bound.
//!
//! Both inputs are untrusted (a server picks its tool names and
//! descriptions; a configuration picks server names), so the rules fix
//! whole classes: any character outside `[a-zA-Z0-9_-]` (unicode,
//! spaces, dots, control characters) is replaced; a name changed that way,
//! or one too long, gets a short hash of the original so two different
//! originals never normalise to the same name; the hash is SHA-256, so the
//! name is the same in every process and on every machine (never a
//! randomly seeded hasher).

use sha2::{Digest, Sha256};

use crate::declare::naming::MAX_NAME_LEN;

/// The longest server segment kept before it is shortened with a hash, so
/// a long server name still leaves room for its tools' names.
const MAX_SERVER_SEGMENT: usize = 24;

/// Hex digits of the hash suffix (32 bits: collisions among one server's
/// tools are still caught, by the importer's check that each name is
/// taken once).
const HASH_HEX: usize = 8;

/// The longest description an imported tool keeps, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 2048;

/// `-` and the first [`HASH_HEX`] hex digits of SHA-256 over `parts`,
/// each part followed by a NUL so `("ab", "c")` and `("a", "bc")` differ.
fn hash_suffix(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    let digest = hasher.finalize();
    let mut out = String::with_capacity(HASH_HEX + 1);
    out.push('-');
    for byte in digest.iter().take(HASH_HEX / 2) {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// Every character outside `[a-zA-Z0-9_-]` becomes `_` (one per
/// character, not per byte).
fn replace_invalid(raw: &str) -> String {
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Cuts an ASCII string to `max` bytes and appends `suffix`, keeping the
/// whole within `max + suffix.len()`.
fn cut_with(mut s: String, max: usize, suffix: &str) -> String {
    s.truncate(max);
    s.push_str(suffix);
    s
}

/// The server's segment of an imported name, also the plugin owner of its
/// tools and the name deny rules use (`mcp__<segment>`).
///
/// It never contains `__` and never starts or ends with `_`, so the first
/// `__` after `mcp__` always ends it: `mcp__a__b__c` is unambiguously
/// server `a`, tool `b__c`. A name changed to get there, or longer than
/// 24 characters, is shortened and carries a hash of the original.
///
/// ```
/// use registry_core::declare::imported::server_segment;
///
/// assert_eq!(server_segment("github"), "github");
/// let dotted = server_segment("docs.example.com");
/// assert!(dotted.starts_with("docs_example_co-") && dotted.len() <= 24, "{dotted}");
/// assert_ne!(dotted, server_segment("docs_example.com"));
/// ```
pub fn server_segment(server: &str) -> String {
    let replaced = replace_invalid(server);
    let mut collapsed = String::with_capacity(replaced.len());
    for c in replaced.chars() {
        if c == '_' && collapsed.ends_with('_') {
            continue;
        }
        collapsed.push(c);
    }
    let trimmed = collapsed.trim_matches('_').to_owned();
    let lossy = trimmed != server;
    if !lossy && trimmed.len() <= MAX_SERVER_SEGMENT {
        return trimmed;
    }
    let suffix = hash_suffix(&[server]);
    let base = if trimmed.is_empty() {
        "server".to_owned()
    } else {
        trimmed
    };
    cut_with(base, MAX_SERVER_SEGMENT - suffix.len(), &suffix)
}

/// The model-facing name of tool `tool` of server `server`:
/// `mcp__<server segment>__<tool>`, with the tool part's invalid
/// characters replaced and, when anything was replaced or the whole would
/// pass 64 characters, a hash of the original server and tool names
/// appended (the name is cut to make room). The result always satisfies
/// the name rules of [`NameError`](crate::declare::NameError), and two different originals
/// never share a result unless their 32-bit hashes collide, which import
/// then reports instead of registering a second tool under one name.
///
/// ```
/// use registry_core::declare::imported::imported_tool_name;
///
/// assert_eq!(imported_tool_name("notes", "search"), "mcp__notes__search");
/// let a = imported_tool_name("notes", "find note");
/// let b = imported_tool_name("notes", "find/note");
/// assert!(a.starts_with("mcp__notes__find_note-") && b.starts_with("mcp__notes__find_note-"));
/// assert_ne!(a, b);
/// assert!(imported_tool_name("notes", &"x".repeat(300)).len() <= 64);
/// ```
pub fn imported_tool_name(server: &str, tool: &str) -> String {
    let segment = server_segment(server);
    let replaced = replace_invalid(tool);
    let lossy = replaced != tool || tool.is_empty();
    let full = format!("mcp__{segment}__{replaced}");
    if !lossy && full.len() <= MAX_NAME_LEN {
        return full;
    }
    let suffix = hash_suffix(&[server, tool]);
    cut_with(full, MAX_NAME_LEN - suffix.len(), &suffix)
}

/// A description of at most [`MAX_DESCRIPTION_CHARS`] characters: a
/// longer one is cut on a character boundary and ends with a marker
/// saying how much was kept, so the model knows it is not reading all of
/// it. An empty one says so, rather than leaving the model nothing.
pub fn imported_description(server: &str, tool: &str, description: &str) -> String {
    if description.trim().is_empty() {
        return format!("Tool `{tool}` of MCP server `{server}` (the server gave no description).");
    }
    bounded_description(description).into_owned()
}

/// `description` as an import keeps it: whole when it has at most
/// [`MAX_DESCRIPTION_CHARS`] characters, else cut on a character boundary
/// to exactly that many, the last ones a marker saying how much was kept.
///
/// The cut is idempotent (a cut description is within the bound, so it
/// is kept as it is), which is why a definition can be stored cut
/// (`mcp::McpImport::definition`, a manifest) and imported again into
/// the same tool.
pub(crate) fn bounded_description(description: &str) -> std::borrow::Cow<'_, str> {
    // Counting stops one past the bound: a 10 MB description is not
    // walked whole just to learn that it is long.
    if description.chars().nth(MAX_DESCRIPTION_CHARS).is_none() {
        return std::borrow::Cow::Borrowed(description);
    }
    let total = description.chars().count();
    let marker = |kept: usize| format!("\n[description cut: {kept} of {total} characters shown]");
    // Sized first for the widest count, then for the count itself (no
    // wider), so the text plus its marker fills the bound exactly.
    let kept = MAX_DESCRIPTION_CHARS - marker(MAX_DESCRIPTION_CHARS).chars().count();
    let kept = MAX_DESCRIPTION_CHARS - marker(kept).chars().count();
    let mut out: String = description.chars().take(kept).collect();
    out.push_str(&marker(kept));
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::naming::validate_name;

    #[test]
    fn hostile_names_always_validate_and_never_collide() {
        let tools = [
            "search",
            "search ",
            "search\u{0}",
            "séarch",
            "search\u{202e}",
            "🔍",
            "🔎",
            "",
            "_",
            "__",
            "a__b",
            "a.b",
            "a b",
            "a/b",
            "a_b",
            "-",
            &"x".repeat(64),
            &"x".repeat(65),
            &"x".repeat(10_000),
            &format!("{}y", "x".repeat(200)),
            &format!("{}z", "x".repeat(200)),
        ];
        let servers = [
            "srv",
            "my.server",
            "über",
            "",
            "__",
            "a__b",
            "a",
            &"s".repeat(100),
        ];
        let mut seen = std::collections::BTreeMap::new();
        for server in servers {
            for tool in tools {
                let name = imported_tool_name(server, tool);
                validate_name(&name).unwrap_or_else(|err| panic!("{server:?}/{tool:?}: {err}"));
                let segment = server_segment(server);
                assert!(name.starts_with(&format!("mcp__{segment}__")), "{name}");
                assert!(
                    !segment.contains("__") && !segment.starts_with('_') && !segment.ends_with('_')
                );
                if let Some(prev) = seen.insert(name.clone(), (server, tool)) {
                    panic!("{name} for both {prev:?} and {:?}", (server, tool));
                }
                // Deterministic: a fixed hash, not a seeded one.
                assert_eq!(name, imported_tool_name(server, tool));
            }
        }
    }

    #[test]
    fn the_hash_is_pinned_across_processes() {
        // Pinned (= `printf 'srv\0a b\0' | sha256sum`): a change here
        // renames every imported tool everywhere.
        assert_eq!(imported_tool_name("srv", "a b"), "mcp__srv__a_b-bbd654ac");
    }

    #[test]
    fn descriptions_are_bounded_exactly() {
        for len in [2047, 2048, 2049, 2100, 10_000] {
            for ch in ["a", "é", "😀"] {
                let text = ch.repeat(len);
                let out = imported_description("s", "t", &text);
                let n = out.chars().count();
                if len <= MAX_DESCRIPTION_CHARS {
                    assert_eq!(out, text);
                } else {
                    assert_eq!(n, MAX_DESCRIPTION_CHARS, "{len} {ch}");
                    assert!(out.contains("[description cut: "), "{out}");
                    assert!(out.ends_with(&format!("of {len} characters shown]")));
                }
            }
        }
        assert!(imported_description("s", "t", "  ").contains("no description"));
    }

    #[test]
    fn a_cut_description_is_kept_as_it_is() {
        let cut = bounded_description(&"é".repeat(10_000)).into_owned();
        assert_eq!(cut.chars().count(), MAX_DESCRIPTION_CHARS);
        assert_eq!(bounded_description(&cut), cut);
        assert!(matches!(
            bounded_description("short"),
            std::borrow::Cow::Borrowed("short")
        ));
        assert_eq!(bounded_description(""), "");
    }
}

/// The examples that were this module's doc tests, kept as tests now
/// that the items they show are crate-private.
#[cfg(test)]
mod examples {
    use super::{MAX_DESCRIPTION_CHARS, imported_description};

    #[test]
    fn descriptions_are_cut_with_a_marker() {
        let cut = imported_description("notes", "search", &"é".repeat(5000));
        assert_eq!(cut.chars().count(), MAX_DESCRIPTION_CHARS);
        assert!(
            cut.ends_with("[description cut: 1999 of 5000 characters shown]"),
            "{cut}"
        );
        assert_eq!(
            imported_description("notes", "search", "Find notes."),
            "Find notes."
        );
    }
}
