//! Why a tool ranked where it did: the words of the query it matched
//! (where, how, and what each was worth) and how close its meaning was,
//! for reading a miss and for tuning a tool's `search_hint`
//! ([`ToolSearchIndex::explain`](super::ToolSearchIndex::explain)).

use std::fmt;

/// One query word's match in a tool's text.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WordMatch {
    /// The query's word as the index read it (lower case, stemmed).
    pub query_word: String,
    /// The tool's word it matched, as indexed.
    pub matched: String,
    /// Where in the tool: `"name"`, `"server"`, `"hint"` (its
    /// `search_hint`) or `"description"`.
    pub field: &'static str,
    /// How: `"exact"`; `"prefix"` (one word begins the other: `repo`,
    /// `repository`); `"related"` (a word near in meaning in the index's
    /// lexicon of everyday words: `bug`, `issue`).
    pub how: &'static str,
    /// What the match added to the words score, before the factor for
    /// naming the tool's whole name.
    pub score: f32,
}

/// Why one tool ranked where it did for one query.
///
/// ```standalone_crate
/// use registry_core::search::ToolSearchIndex;
/// use registry_core::{Flags, ToolBuilder, ToolOutput, ToolRegistry, catalog::BaseTools};
///
/// let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).unwrap());
/// let tool = |name: &str, text: &str| {
///     ToolBuilder::new(name, text).build(|_, _| async { Ok(ToolOutput::text("")) }).unwrap()
/// };
/// let _a = registry.plugins().register("github", tool("mcp__github__create_issue", "Create a new issue in a GitHub repository.")).unwrap();
/// let _b = registry.plugins().register("github", tool("mcp__github__list_issues", "List issues in a GitHub repository.")).unwrap();
/// let index = ToolSearchIndex::new(&registry);
///
/// let why = index.explain("create an issue", 2).unwrap();
/// assert_eq!(why[0].tool, "mcp__github__create_issue");
/// // Words as the index reads them: lower case, stemmed.
/// assert!(why[0].matches.iter().any(|m| m.query_word == "creat" && m.field == "name"));
/// println!("{}", why[0]); // 1. mcp__github__create_issue: score ..., words ...: creat→creat (name, exact, ...)
///
/// // A tool that did not make the list: where it ranked, and why.
/// let miss = index.explain_tool("create an issue", "mcp__github__list_issues").unwrap().unwrap();
/// assert_eq!(miss.rank, 2);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Explanation {
    /// The tool's name.
    pub tool: String,
    /// Its place in the ranking, from 1.
    pub rank: usize,
    /// The score it was ranked by (the fused score with a semantic
    /// ranking, the words score without).
    pub score: f32,
    /// Its words score (BM25F over name, server, hint and description,
    /// times the name-coverage factor); `None` when no word matched, and
    /// with a semantic ranking also when the tool was not among the words'
    /// best candidates (its `matches` still say what it matched).
    pub words: Option<f32>,
    /// Its closeness in meaning (cosine similarity, plus the server name's
    /// weighted similarity); `None` without a semantic ranking or a
    /// vector for the tool.
    pub meaning: Option<f32>,
    /// The query words it matched, in query order.
    pub matches: Vec<WordMatch>,
}

impl fmt::Display for Explanation {
    /// One line: `3. name: score S, words W, meaning M: word→match (field,
    /// how, score), ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}. {}: score {:.3}", self.rank, self.tool, self.score)?;
        match self.words {
            Some(w) => write!(f, ", words {w:.3}")?,
            None => f.write_str(", no word matched")?,
        }
        if let Some(m) = self.meaning {
            write!(f, ", meaning {m:.3}")?;
        }
        for (i, m) in self.matches.iter().enumerate() {
            f.write_str(if i == 0 { ": " } else { ", " })?;
            write!(
                f,
                "{}→{} ({}, {}, {:.2})",
                m.query_word, m.matched, m.field, m.how, m.score
            )?;
        }
        Ok(())
    }
}
