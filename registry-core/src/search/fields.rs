//! What of a tool is searched, and how each part is weighted.

/// The searched parts of a tool, in the order the ranking weighs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    /// The tool's own name parts (`list_pull_requests`), server prefix
    /// removed.
    Name = 0,
    /// The MCP server of an `mcp__<server>__<tool>` name.
    Server = 1,
    /// The declared `search_hint`.
    Hint = 2,
    /// The description.
    Description = 3,
}

/// How many fields there are.
pub(crate) const FIELDS: usize = 4;

/// Per-field weight and length normalisation (BM25F: fields are weighted,
/// added, then saturated together). The name says what a tool *is*, so a
/// name part outweighs a hint word, which outweighs a description word;
/// names are short and uniform, so their length matters little, while a
/// long description's words each say less. How much the name counts
/// comes mostly from the name-coverage factor in the ranking, which
/// rewards a query naming *all* of a tool's name words.
pub(crate) const WEIGHT: [f32; FIELDS] = [1.5, 1.5, 1.25, 1.0];
pub(crate) const LENGTH_NORM: [f32; FIELDS] = [0.3, 0.0, 0.5, 0.75];
/// BM25's term-frequency saturation.
pub(crate) const K1: f32 = 1.2;

/// The prefix of an imported MCP tool's name: `mcp__<server>__<tool>`.
pub(crate) const MCP_PREFIX: &str = "mcp__";

/// Splits an imported MCP tool's name into its server and its own name;
/// `None` for any other name.
///
/// ```text
/// mcp__github__create_issue  ->  ("github", "create_issue")
/// ```
pub(crate) fn split_mcp_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix(MCP_PREFIX)?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_names_split_at_the_first_double_underscore() {
        assert_eq!(
            split_mcp_name("mcp__github__create_issue"),
            Some(("github", "create_issue"))
        );
        assert_eq!(split_mcp_name("mcp__a__b__c"), Some(("a", "b__c")));
        assert_eq!(split_mcp_name("mcp__github"), None);
        assert_eq!(split_mcp_name("mcp____x"), None);
        assert_eq!(split_mcp_name("read_file"), None);
    }
}
