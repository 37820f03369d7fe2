//! Permission rule strings: `Tool`, `Tool(content)`, `Tool()`, `Tool(*)`,
//! `mcp__server`, `mcp__server__*`.
//!
//! Parsing is strict: a malformed rule is an error naming the rule and the
//! byte position, never silently read as something broader or narrower.

use std::fmt;

/// What a rule applies to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleTarget {
    /// One tool, by name or alias.
    Tool(String),
    /// Every tool of one MCP server (`mcp__server`, `mcp__server__*`).
    McpServer(String),
}

/// A parsed permission rule.
///
/// ```
/// use registry_core::permission::PermissionRule;
///
/// let rule: PermissionRule = r"run_command(git commit -m \(wip\))".parse().unwrap();
/// assert_eq!(rule.to_string(), r"run_command(git commit -m \(wip\))");
/// assert_eq!(rule.content(), Some("git commit -m (wip)"));
/// assert!(!rule.is_whole_tool());
///
/// // Every tool of one MCP server.
/// let server: PermissionRule = "mcp__github__*".parse().unwrap();
/// assert_eq!(server.to_string(), "mcp__github"); // its canonical spelling
/// assert!(server.is_whole_tool());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PermissionRule {
    target: RuleTarget,
    content: Option<String>,
}

/// A rule string that could not be parsed, or a rule that could not be
/// written as one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid permission rule `{}` at byte {position}: {problem}",
    crate::text::cap_error_text(.rule)
)]
pub struct RuleError {
    /// The rule as written.
    pub rule: String,
    /// Byte offset of the problem.
    pub position: usize,
    /// What is wrong.
    pub problem: String,
}

const MCP_PREFIX: &str = "mcp__";

impl fmt::Display for RuleTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleTarget::Tool(tool) => write!(f, "tool `{}`", crate::text::cap_error_text(tool)),
            RuleTarget::McpServer(server) => write!(
                f,
                "every tool of MCP server `{}`",
                crate::text::cap_error_text(server)
            ),
        }
    }
}

impl PermissionRule {
    /// A rule covering a whole tool.
    ///
    /// Fails when `name` is not a tool name a rule string can hold, or
    /// would read back as something else (`mcp__server` is a whole-server
    /// rule: use [`mcp_server`](Self::mcp_server)).
    pub fn tool(name: impl Into<String>) -> Result<Self, RuleError> {
        PermissionRule {
            target: RuleTarget::Tool(name.into()),
            content: None,
        }
        .checked()
    }

    /// A rule covering every tool of an MCP server.
    ///
    /// Fails when `server` is empty, holds characters a rule cannot, or
    /// holds `__` (which would make `mcp__a__b` the rule for tool `b` of
    /// server `a`).
    pub fn mcp_server(server: impl Into<String>) -> Result<Self, RuleError> {
        PermissionRule {
            target: RuleTarget::McpServer(server.into()),
            content: None,
        }
        .checked()
    }

    /// A rule covering calls of `tool` whose content matches `content`.
    /// An empty content or `*` covers the whole tool, as `Tool()` and
    /// `Tool(*)` do. Any content is allowed: parentheses and backslashes
    /// are escaped when the rule is written out.
    pub fn with_content(
        tool: impl Into<String>,
        content: impl Into<String>,
    ) -> Result<Self, RuleError> {
        let content = content.into();
        PermissionRule {
            target: RuleTarget::Tool(tool.into()),
            content: (!content.is_empty() && content != "*").then_some(content),
        }
        .checked()
    }

    /// `self`, if its text parses back to it: the constructors promise that
    /// every rule can be written to settings and read back unchanged.
    fn checked(self) -> Result<Self, RuleError> {
        let text = self.to_string();
        let parsed: PermissionRule = text.parse()?;
        if parsed == self {
            Ok(self)
        } else {
            Err(RuleError {
                problem: format!(
                    "this would read back as a rule for {}, not for {}",
                    parsed.target, self.target
                ),
                rule: text,
                position: 0,
            })
        }
    }

    /// What the rule applies to.
    #[cfg(test)]
    pub(crate) fn target(&self) -> &RuleTarget {
        &self.target
    }

    /// The content pattern, `None` for a whole-tool rule.
    pub fn content(&self) -> Option<&str> {
        self.content.as_deref()
    }

    /// Whether the rule covers every call of its target (and so can remove
    /// the target from the pool, not only refuse some calls).
    pub fn is_whole_tool(&self) -> bool {
        self.content.is_none()
    }

    /// Whether the rule's target is this tool: by primary name, by one of
    /// its aliases, or (for server rules) by its `mcp__server__` prefix.
    pub fn targets(&self, name: &str, aliases: &[String]) -> bool {
        match &self.target {
            RuleTarget::Tool(tool) => tool == name || aliases.iter().any(|a| a == tool),
            // The tool's server is read the way the parser reads a rule:
            // up to the first `__` after the prefix.
            RuleTarget::McpServer(server) => name
                .strip_prefix(MCP_PREFIX)
                .and_then(|rest| rest.find("__").map(|end| &rest[..end]))
                .is_some_and(|tool_server| tool_server == server),
        }
    }
}

impl std::str::FromStr for PermissionRule {
    type Err = RuleError;

    fn from_str(rule: &str) -> Result<Self, RuleError> {
        let fail = |position: usize, problem: &str| RuleError {
            rule: rule.to_owned(),
            position,
            problem: problem.to_owned(),
        };
        let (tool, content) = match rule.find('(') {
            None => {
                if let Some(position) = rule.find(')') {
                    return Err(fail(position, "`)` without a matching `(`"));
                }
                (rule, None)
            }
            Some(open) => {
                if !rule.ends_with(')') {
                    return Err(fail(rule.len(), "expected `)` at the end of the rule"));
                }
                let inner = &rule[open + 1..rule.len() - 1];
                (
                    &rule[..open],
                    Some(unescape(inner, open + 1).map_err(|(p, m)| fail(p, m))?),
                )
            }
        };
        if tool.is_empty() {
            return Err(fail(0, "the rule names no tool"));
        }
        if let Some((position, _)) = tool
            .char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-' || *c == '*'))
        {
            return Err(fail(
                position,
                "tool names may only hold ASCII letters, digits, `_` and `-`",
            ));
        }
        // `Tool()` and `Tool(*)` mean the whole tool.
        let content = content.filter(|c| !c.is_empty() && c != "*");

        if let Some(rest) = tool.strip_prefix(MCP_PREFIX) {
            let (server, tail) = match rest.find("__") {
                Some(split) => (&rest[..split], Some(&rest[split + 2..])),
                None => (rest, None),
            };
            if server.is_empty() || server.contains('*') {
                return Err(fail(
                    MCP_PREFIX.len(),
                    "expected a server name after `mcp__`",
                ));
            }
            if server.starts_with('_') || server.ends_with('_') {
                // `mcp__a_` would also read `mcp__a___x` (server `a`, tool
                // `_x`) as one of its tools.
                return Err(fail(
                    MCP_PREFIX.len(),
                    "an MCP server name cannot start or end with `_`: the `__` separators would be ambiguous",
                ));
            }
            match tail {
                None | Some("*") => {
                    if content.is_some() {
                        return Err(fail(
                            tool.len(),
                            "a whole-server rule cannot carry content; name one tool: `mcp__server__tool(...)`",
                        ));
                    }
                    return Ok(PermissionRule {
                        target: RuleTarget::McpServer(server.to_owned()),
                        content: None,
                    });
                }
                Some("") => return Err(fail(tool.len(), "expected a tool name or `*` after `__`")),
                Some(_) => {}
            }
        }
        if let Some(position) = tool.find('*') {
            return Err(fail(
                position,
                "`*` is only allowed as `Tool(*)` or `mcp__server__*`",
            ));
        }
        Ok(PermissionRule {
            target: RuleTarget::Tool(tool.to_owned()),
            content,
        })
    }
}

/// Resolves `\(`, `\)` and `\\`; rejects other escapes and bare parentheses.
fn unescape(inner: &str, offset: usize) -> Result<String, (usize, &'static str)> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, e @ ('(' | ')' | '\\'))) => out.push(e),
                Some((j, _)) => {
                    return Err((offset + j, "only `\\(`, `\\)` and `\\\\` may be escaped"));
                }
                None => {
                    return Err((
                        offset + i,
                        "this `\\` escapes the closing `)`; write `\\\\` for a backslash",
                    ));
                }
            },
            '(' | ')' => {
                return Err((
                    offset + i,
                    "parentheses inside content must be escaped as `\\(` and `\\)`",
                ));
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

impl fmt::Display for PermissionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.target {
            RuleTarget::McpServer(server) => write!(f, "{MCP_PREFIX}{server}"),
            RuleTarget::Tool(tool) => {
                f.write_str(tool)?;
                if let Some(content) = &self.content {
                    f.write_str("(")?;
                    for c in content.chars() {
                        if matches!(c, '(' | ')' | '\\') {
                            f.write_str("\\")?;
                        }
                        write!(f, "{c}")?;
                    }
                    f.write_str(")")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(rule: &str) -> Result<PermissionRule, RuleError> {
        rule.parse()
    }

    #[test]
    fn every_rule_form_parses_to_what_it_means() {
        assert_eq!(parse("read_file"), PermissionRule::tool("read_file"));
        assert_eq!(parse("read_file()"), PermissionRule::tool("read_file"));
        assert_eq!(parse("read_file(*)"), PermissionRule::tool("read_file"));
        assert_eq!(
            parse("run_command(npm test)"),
            PermissionRule::with_content("run_command", "npm test")
        );
        assert_eq!(
            parse(r"run_command(echo \(hi\) \\ done)"),
            PermissionRule::with_content("run_command", r"echo (hi) \ done")
        );
        assert_eq!(parse("mcp__github"), PermissionRule::mcp_server("github"));
        assert_eq!(
            parse("mcp__github__*"),
            PermissionRule::mcp_server("github")
        );
        assert_eq!(
            parse("mcp__github__create_issue"),
            PermissionRule::tool("mcp__github__create_issue")
        );
    }

    #[test]
    fn programmatic_whole_tool_content_means_the_whole_tool() {
        assert!(
            PermissionRule::with_content("t", "")
                .unwrap()
                .is_whole_tool()
        );
        assert!(
            PermissionRule::with_content("t", "*")
                .unwrap()
                .is_whole_tool()
        );
        assert!(
            !PermissionRule::with_content("t", "x")
                .unwrap()
                .is_whole_tool()
        );
    }

    #[test]
    fn constructors_refuse_rules_that_would_read_back_differently() {
        let refused = [
            PermissionRule::tool(""),
            PermissionRule::tool("bad name"),
            PermissionRule::tool("star*"),
            PermissionRule::tool("paren("),
            PermissionRule::tool("mcp__github"),
            PermissionRule::tool("mcp__github__*"),
            PermissionRule::with_content("mcp__github", "x"),
            PermissionRule::with_content("", "x"),
            PermissionRule::mcp_server(""),
            PermissionRule::mcp_server("a__b"),
            PermissionRule::mcp_server("git hub"),
            PermissionRule::mcp_server("*"),
        ];
        for result in refused {
            let err = result.expect_err("refused");
            assert!(
                err.to_string().starts_with("invalid permission rule"),
                "{err}"
            );
        }
        let err = PermissionRule::tool("mcp__github").unwrap_err();
        assert_eq!(
            err.problem,
            "this would read back as a rule for every tool of MCP server `github`, not for tool `mcp__github`"
        );
        // Content is free: it is escaped on the way out.
        let rule = PermissionRule::with_content("run", r"a(b)\c)(").unwrap();
        assert_eq!(rule.to_string(), r"run(a\(b\)\\c\)\()");
    }

    #[test]
    fn display_round_trips() {
        for rule in [
            "read_file",
            r"run_command(echo \(hi\) \\)",
            "mcp__github",
            "mcp__github__create_issue(x)",
        ] {
            let parsed = parse(rule).unwrap();
            assert_eq!(parse(&parsed.to_string()), Ok(parsed));
        }
    }

    #[test]
    fn malformed_rules_name_the_position() {
        let cases = [
            ("", 0, "names no tool"),
            ("(x)", 0, "names no tool"),
            ("read_file(x", 11, "expected `)`"),
            ("read_file)x", 9, "without a matching"),
            ("read_file(a(b))", 11, "must be escaped"),
            (r"read_file(a\nb)", 12, "may be escaped"),
            (r"read_file(a\)", 11, "escapes the closing"),
            ("read file", 4, "ASCII letters"),
            ("mcp__", 5, "server name"),
            ("mcp____x", 5, "server name"),
            ("mcp__github__", 13, "after `__`"),
            ("mcp__github(x)", 11, "whole-server"),
            ("read_*", 5, "only allowed"),
        ];
        for (rule, position, problem) in cases {
            let err = parse(rule).expect_err(rule);
            assert_eq!(err.position, position, "{rule}: {err}");
            assert!(err.problem.contains(problem), "{rule}: {err}");
            assert!(err.to_string().contains(&format!("`{rule}`")), "{err}");
        }
    }

    #[test]
    fn targets_match_names_aliases_and_servers() {
        let aliases = ["cat".to_owned()];
        assert!(
            PermissionRule::tool("cat")
                .unwrap()
                .targets("read_file", &aliases)
        );
        assert!(
            PermissionRule::tool("read_file")
                .unwrap()
                .targets("read_file", &aliases)
        );
        assert!(
            !PermissionRule::tool("read")
                .unwrap()
                .targets("read_file", &aliases)
        );
        let server = PermissionRule::mcp_server("git").unwrap();
        assert!(server.targets("mcp__git__log", &[]));
        assert!(
            !server.targets("mcp__github__log", &[]),
            "prefix of another server"
        );
        assert!(!server.targets("git_log", &[]));
    }

    #[test]
    fn a_server_rule_covers_exactly_that_servers_tools() {
        let rule = parse("mcp__git").unwrap();
        assert!(rule.targets("mcp__git__status", &[]));
        assert!(!rule.targets("mcp__github__status", &[]));
        assert!(!rule.targets("mcp__git", &[]));
        // `mcp__a___x` is server `a`, tool `_x`, for the rule parser and
        // for `targets` alike; a server name with an edge `_` is refused.
        assert!(parse("mcp__a").unwrap().targets("mcp__a___x", &[]));
        for ambiguous in ["mcp__a_", "mcp___a", "mcp__a___x"] {
            let err = ambiguous.parse::<PermissionRule>();
            if ambiguous == "mcp__a___x" {
                // A tool rule: server `a`, tool `_x`.
                assert_eq!(err.unwrap(), PermissionRule::tool("mcp__a___x").unwrap());
            } else {
                assert!(err.is_err(), "{ambiguous}");
            }
        }
        assert!(PermissionRule::mcp_server("a_").is_err());
    }
}
