//! The `tool_search` query language, parsed once into a [`Query`].
//!
//! | form | meaning |
//! |---|---|
//! | `select:a,b` | exactly these tools, by name or alias, in this order |
//! | `create_issue` | a tool's exact name (or alias): that tool alone |
//! | `mcp__github` | only that MCP server's tools (more words rank within) |
//! | `+term` | every result must match `term` |
//! | anything else | free text, ranked |

use super::fields::MCP_PREFIX;
use super::tokenize::{Reading, for_each_term};

/// The most words a query may have: a model pasting a paragraph gets a
/// clear error rather than a slow search.
pub(crate) const MAX_QUERY_TERMS: usize = 32;

/// A parsed search query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Query {
    raw: String,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Select(Vec<String>),
    Text {
        servers: Vec<String>,
        required: Vec<String>,
        optional: Vec<String>,
    },
}

/// A `tool_search` query that cannot be searched, with what is wrong:
/// the error the model reads, and what
/// [`ToolSearchIndex::explain`](super::ToolSearchIndex::explain) returns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// Nothing but white space.
    #[error("the search query is empty; say what the tool should do, or `select:<name>`")]
    Empty,
    /// `select:` without names.
    #[error("`select:` names no tool; write `select:name_a,name_b`")]
    EmptySelect,
    /// A `+` with no word after it, at this word position.
    #[error("`+` at word {position} has no term after it; write `+term`")]
    EmptyRequired {
        /// The 1-based position of the word.
        position: usize,
    },
    /// A server prefix with no server name, at this word position.
    #[error("`{word}` at word {position} names no server; write `mcp__<server>`")]
    EmptyServer {
        /// The word as written.
        word: String,
        /// The 1-based position of the word.
        position: usize,
    },
    /// Too many words.
    #[error("the search query has {terms} terms; at most {max} are searched")]
    TooLong {
        /// How many terms the query has.
        terms: usize,
        /// The most a query may have.
        max: usize,
    },
}

impl std::str::FromStr for Query {
    type Err = QueryError;

    fn from_str(text: &str) -> Result<Self, QueryError> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(QueryError::Empty);
        }
        let raw = trimmed.to_owned();
        if let Some(rest) = strip_prefix_ignore_case(trimmed, "select:") {
            let names: Vec<String> = rest
                .split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_owned)
                .collect();
            if names.is_empty() {
                return Err(QueryError::EmptySelect);
            }
            if names.len() > MAX_QUERY_TERMS {
                return Err(QueryError::TooLong {
                    terms: names.len(),
                    max: MAX_QUERY_TERMS,
                });
            }
            return Ok(Query {
                raw,
                kind: Kind::Select(names),
            });
        }
        let (mut servers, mut required, mut optional) = (Vec::new(), Vec::new(), Vec::new());
        for (i, word) in trimmed.split_whitespace().enumerate() {
            let position = i + 1;
            if let Some(rest) = strip_prefix_ignore_case(word, MCP_PREFIX) {
                // `mcp__server`, `mcp__server__`, or `mcp__server__words`.
                let (server, tail) = rest.split_once("__").unwrap_or((rest, ""));
                if server.is_empty() {
                    return Err(QueryError::EmptyServer {
                        word: word.to_owned(),
                        position,
                    });
                }
                let server = server.to_lowercase();
                if !servers.contains(&server) {
                    servers.push(server);
                }
                for_each_term(tail, Reading::Identifier, |t| optional.push(t.to_owned()));
            } else if let Some(rest) = word.strip_prefix('+') {
                let before = required.len();
                for_each_term(rest, Reading::Prose, |t| required.push(t.to_owned()));
                if required.len() == before {
                    return Err(QueryError::EmptyRequired { position });
                }
            } else {
                for_each_term(word, Reading::Prose, |t| optional.push(t.to_owned()));
            }
        }
        dedup_in_order(&mut required);
        dedup_in_order(&mut optional);
        optional.retain(|t| !required.contains(t));
        let terms = required.len() + optional.len();
        if terms > MAX_QUERY_TERMS {
            return Err(QueryError::TooLong {
                terms,
                max: MAX_QUERY_TERMS,
            });
        }
        Ok(Query {
            raw,
            kind: Kind::Text {
                servers,
                required,
                optional,
            },
        })
    }
}

impl Query {
    /// The query as written, trimmed.
    pub(crate) fn as_str(&self) -> &str {
        &self.raw
    }

    /// The names of a `select:` query, in order; `None` for other queries.
    pub(crate) fn selected(&self) -> Option<&[String]> {
        match &self.kind {
            Kind::Select(names) => Some(names),
            Kind::Text { .. } => None,
        }
    }

    /// The servers of `mcp__<server>` words (lower case), in order.
    pub(crate) fn servers(&self) -> &[String] {
        match &self.kind {
            Kind::Text { servers, .. } => servers,
            Kind::Select(_) => &[],
        }
    }

    /// The terms every result must match (`+term`), stemmed.
    pub(crate) fn required_terms(&self) -> &[String] {
        match &self.kind {
            Kind::Text { required, .. } => required,
            Kind::Select(_) => &[],
        }
    }

    /// The other ranked terms, stemmed, stop words dropped.
    pub(crate) fn optional_terms(&self) -> &[String] {
        match &self.kind {
            Kind::Text { optional, .. } => optional,
            Kind::Select(_) => &[],
        }
    }

    /// The query as one tool's exact name, when it is a single word that
    /// is not an operator: the form that selects a tool by name.
    pub(crate) fn as_exact_name(&self) -> Option<&str> {
        match &self.kind {
            Kind::Text { .. } if !self.raw.contains(char::is_whitespace) => Some(&self.raw),
            _ => None,
        }
    }
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

fn dedup_in_order(terms: &mut Vec<String>) {
    let mut seen = std::collections::BTreeSet::new();
    terms.retain(|t| seen.insert(t.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Query, QueryError> {
        text.parse()
    }

    #[test]
    fn every_form_parses() {
        let q = parse("mcp__github +issue open").unwrap();
        assert_eq!(q.servers(), ["github"]);
        assert_eq!(q.required_terms(), ["issu"]);
        assert_eq!(q.optional_terms(), ["open"]);

        let q = parse("select:read_file, cat").unwrap();
        assert_eq!(
            q.selected(),
            Some(&["read_file".to_owned(), "cat".to_owned()][..])
        );

        let q = parse("  SELECT:a, b ,,c ").unwrap();
        assert_eq!(q.selected().unwrap(), ["a", "b", "c"]);

        let q = parse("mcp__github__issues +Pull_Requests open").unwrap();
        assert_eq!(q.servers(), ["github"]);
        assert_eq!(q.required_terms(), ["pull", "request"]);
        assert_eq!(q.optional_terms(), ["issu", "open"]);
        assert_eq!(q.as_exact_name(), None);

        let q = parse("mcp__Slack__").unwrap();
        assert_eq!(q.servers(), ["slack"]);
        assert!(q.optional_terms().is_empty());

        let q = parse("create_issue").unwrap();
        assert_eq!(q.as_exact_name(), Some("create_issue"));
        assert_eq!(q.optional_terms(), ["creat", "issu"]);
    }

    #[test]
    fn a_required_term_is_not_also_optional() {
        let q = parse("issue +issues issue").unwrap();
        assert_eq!(q.required_terms(), ["issu"]);
        assert!(q.optional_terms().is_empty());
    }

    #[test]
    fn bad_queries_say_what_is_wrong() {
        assert_eq!(parse(" \t"), Err(QueryError::Empty));
        assert_eq!(parse("select: , "), Err(QueryError::EmptySelect));
        assert_eq!(
            parse("pull +"),
            Err(QueryError::EmptyRequired { position: 2 })
        );
        // A `+` before only stop words requires nothing either.
        assert_eq!(
            parse("+the"),
            Err(QueryError::EmptyRequired { position: 1 })
        );
        assert_eq!(
            parse("files mcp____x"),
            Err(QueryError::EmptyServer {
                word: "mcp____x".into(),
                position: 2
            })
        );
        let long: Vec<String> = (0..40u8)
            .map(|i| {
                format!(
                    "q{}{}",
                    char::from(b'a' + i / 26),
                    char::from(b'a' + i % 26)
                )
            })
            .collect();
        assert_eq!(
            parse(&long.join(" ")),
            Err(QueryError::TooLong {
                terms: 40,
                max: MAX_QUERY_TERMS
            })
        );
        assert_eq!(
            QueryError::EmptyRequired { position: 2 }.to_string(),
            "`+` at word 2 has no term after it; write `+term`"
        );
    }
}
