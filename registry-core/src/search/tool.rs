//! The `tool_search` built-in: what the model calls to find and load
//! deferred tools, and the per-session scope it searches.
//!
//! It joins a list only under the runtime flag [`TOOL_SEARCH_FLAG`], so
//! a runtime that never defers never shows it. Session renders
//! ([`ToolPool::for_session`]) leave it out while the session defers
//! nothing, and it is never deferred itself (`always_load`).

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::index::Membership;
use super::query::{Query, QueryError};
use super::shared::ToolSearchIndex;
#[cfg(not(test))]
use crate::declare::Tool;
#[cfg(not(test))]
use crate::declare::context::ToolContext;
use crate::input::handle::ToolHandle;
use crate::pool::{ToolPool, ToolRegistry};
use crate::render::ProviderFormat;
use crate::render::anthropic_tool_references;
use crate::session::Session;
#[cfg(not(test))]
use crate::session::conversation::CallSession;
#[cfg(not(test))]
use registry_macros::tool;

/// The runtime flag that puts `tool_search` in the list
/// ([`Flags::with`](crate::catalog::Flags::with)).
pub const TOOL_SEARCH_FLAG: &str = "tool_search";
/// `max_results` when the model does not say.
pub const DEFAULT_MAX_RESULTS: usize = 5;
/// The largest `max_results` accepted.
pub const MAX_RESULTS: usize = 50;

/// The input of `tool_search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSearchInput {
    /// What the tool should do, in a few words ("create a pull request");
    /// or `select:name_a,name_b` to load tools by exact name; or a tool's
    /// exact name; or `mcp__<server>` for one server's tools (more words
    /// rank within it). Prefix a word with `+` to require it.
    pub query: String,
    /// How many tools to return, 1 to 50.
    #[serde(default = "default_max_results")]
    #[schemars(range(min = 1, max = 50))]
    pub max_results: usize,
}

fn default_max_results() -> usize {
    DEFAULT_MAX_RESULTS
}

/// Search for deferred tools by what they do, and load them. Deferred
/// tools are listed by name but cannot be called until they are loaded;
/// the tools this returns can be called right away.
///
/// Query forms: free text ("list open pull requests"), `select:a,b` for
/// exact names, a tool's exact name, `mcp__<server>` for one server's
/// tools, and `+word` to require a word.
// Not in the crate's own unit-test build: that binary links this crate
// twice (itself under test, and as its own dev-dependency), and the
// declaration's link-time name marker would clash with itself.
#[cfg(not(test))]
#[tool(
    name = "tool_search",
    read_only = true,
    concurrency_safe = true,
    always_load,
    flag = "tool_search",
    search_hint = "find discover load deferred tools",
    max_result_chars = 100_000
)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ToolSearch;

// Not offered as the example when a user's `#[tool]` struct lacks its
// `impl Tool`: rustc would otherwise name this, the one visible impl.
#[cfg(not(test))]
#[diagnostic::do_not_recommend]
impl Tool for ToolSearch {
    type Input = ToolSearchInput;
    type Output = String;
    type Error = ToolSearchError;

    async fn call(
        &self,
        input: ToolSearchInput,
        cx: &ToolContext,
    ) -> Result<String, ToolSearchError> {
        let scope = cx
            .get::<ToolSearchScope>()
            .ok_or(ToolSearchError::NoScope)?;
        let CallSession(session) = cx.get::<CallSession>().ok_or(ToolSearchError::NoSession)?;
        Ok(scope
            .search(session, &input.query, input.max_results)?
            .render())
    }
}

/// Why `tool_search` could not search.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolSearchError {
    /// The runtime put no [`ToolSearchScope`] in the call's context.
    #[error(
        "tool search is not set up in this session: the runtime must add a ToolSearchScope to the executor's context"
    )]
    NoScope,
    /// The call runs outside an executor, so there is no session to
    /// record what it finds in.
    #[error(
        "tool search runs under an executor: what it finds is loaded into the executor's session"
    )]
    NoSession,
    /// The query does not parse.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// `max_results` is out of range.
    #[error("max_results must be from 1 to {MAX_RESULTS}, not {given}")]
    MaxResults {
        /// The value given.
        given: usize,
    },
}

/// How `tool_search` returns what it found, by provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultShape {
    /// Anthropic `tool_reference` blocks: the API expands each into the
    /// tool's definition (sent with `defer_loading: true`).
    ToolReferences,
    /// Full definitions in a provider format, for providers without
    /// references; the session render appends the tools too.
    Definitions(ProviderFormat),
}

/// What `tool_search` searches: put it in the executor's context
/// ([`ExecutorBuilder::context`](crate::execute::ExecutorBuilder::context)).
/// What it finds is discovered in the executor's own session, the one
/// its turns run in.
#[derive(Debug, Clone)]
pub struct ToolSearchScope {
    index: Arc<ToolSearchIndex>,
    members: Arc<Membership>,
    pool: Arc<BTreeMap<String, ToolHandle>>,
    shape: ResultShape,
}

impl ToolSearchScope {
    /// A scope over `pool` (only its tools can be found: never a denied or
    /// filtered one).
    pub fn new(
        index: Arc<ToolSearchIndex>,
        registry: &ToolRegistry,
        pool: &ToolPool,
        shape: ResultShape,
    ) -> Self {
        let members = Arc::new(index.scope(registry, pool));
        let pool = Arc::new(
            pool.iter()
                .map(|tool| (tool.name().to_owned(), tool.clone()))
                .collect(),
        );
        ToolSearchScope {
            index,
            members,
            pool,
            shape,
        }
    }

    /// Searches, marks every tool found as discovered in `session`, and
    /// returns the result in this scope's shape. (`tool_search` passes the
    /// session of the executor running it.)
    pub fn search(
        &self,
        session: &Session,
        query: &str,
        max_results: usize,
    ) -> Result<ToolSearchOutcome, ToolSearchError> {
        if !(1..=MAX_RESULTS).contains(&max_results) {
            return Err(ToolSearchError::MaxResults { given: max_results });
        }
        let parsed: Query = query.parse()?;
        let results = self.index.search(&parsed, max_results, &self.members);
        let (found, scores): (Vec<ToolHandle>, Vec<f32>) = results
            .hits
            .iter()
            .filter_map(|hit| Some((self.pool.get(&hit.name).cloned()?, hit.score)))
            .unzip();
        for tool in &found {
            session.discover(tool.name());
        }
        tracing::debug!(
            query,
            found = found.len(),
            unknown = results.unknown.len(),
            "tool search"
        );
        Ok(ToolSearchOutcome {
            query: parsed.as_str().to_owned(),
            found,
            scores,
            unknown: results.unknown,
            shape: self.shape,
        })
    }
}

/// The tools one search found (now discovered), in rank order.
///
/// Typed for the runtime ([`hits`](Self::hits), [`tools`](Self::tools));
/// [`render`](Self::render) is what the model reads.
#[derive(Debug, Clone)]
pub struct ToolSearchOutcome {
    query: String,
    found: Vec<ToolHandle>,
    scores: Vec<f32>,
    unknown: Vec<String>,
    shape: ResultShape,
}

/// One tool a search found, with its score.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolSearchHit {
    /// The tool's name.
    pub name: String,
    /// Its ranking score, higher is better: comparable within one search
    /// only. `0.0` for tools picked by name (`select:`, an exact name, a
    /// server prefix alone).
    pub score: f32,
}

impl ToolSearchOutcome {
    /// The found tools' names, best first.
    pub fn names(&self) -> Vec<&str> {
        self.found.iter().map(ToolHandle::name).collect()
    }

    /// The found tools with their scores, best first.
    pub fn hits(&self) -> Vec<ToolSearchHit> {
        self.found
            .iter()
            .zip(&self.scores)
            .map(|(tool, score)| ToolSearchHit {
                name: tool.name().to_owned(),
                score: *score,
            })
            .collect()
    }

    /// The found tools, best first.
    pub fn tools(&self) -> &[ToolHandle] {
        &self.found
    }

    /// The query as the model wrote it, trimmed.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// Names of a `select:` query that no tool of the pool answers to.
    pub fn unknown(&self) -> &[String] {
        &self.unknown
    }

    /// The Anthropic `tool_result` content: one
    /// `{"type": "tool_reference", "tool_name": ...}` block per tool.
    pub fn tool_references(&self) -> Value {
        anthropic_tool_references(self.names())
    }

    /// The found tools' full definitions in `format`, as a JSON array.
    pub fn definitions(&self, format: ProviderFormat) -> Value {
        Value::Array(
            self.found
                .iter()
                .map(|tool| format.definition(tool))
                .collect(),
        )
    }

    /// What the model reads: the result in the scope's shape (compact
    /// JSON), or a sentence when nothing matched; names a `select:` could
    /// not find are listed after.
    pub fn render(&self) -> String {
        let mut out = if self.found.is_empty() {
            format!(
                "No tools matched `{}`.",
                crate::text::cap_error_text(&self.query)
            )
        } else {
            let value = match self.shape {
                ResultShape::ToolReferences => self.tool_references(),
                ResultShape::Definitions(format) => self.definitions(format),
            };
            crate::text::to_canonical_string(&value)
        };
        if !self.unknown.is_empty() {
            out.push_str("\nNo tool is named: ");
            out.push_str(&crate::text::cap_error_text(&self.unknown.join(", ")));
        }
        out
    }
}
