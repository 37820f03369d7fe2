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
use crate::declare::context::ToolContext;
use crate::declare::{IntoToolOutput, ToolOutput};
use crate::execute::ToolCallResult;
use crate::input::handle::ToolHandle;
use crate::pool::{ToolPool, ToolRegistry};
use crate::render::ProviderFormat;
use crate::render::anthropic_tool_references;
use crate::session::Session;
use crate::session::conversation::CallSession;
#[cfg(not(test))]
use registry_macros::tool;

/// The runtime flag that puts `tool_search` in the list
/// ([`Flags::with`](crate::catalog::Flags::with)).
pub const TOOL_SEARCH_FLAG: &str = "tool_search";
/// `max_results` when the model does not say.
pub(crate) const DEFAULT_MAX_RESULTS: usize = 5;
/// The largest `max_results` accepted.
pub(crate) const MAX_RESULTS: usize = 50;

/// The input of `tool_search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolSearchInput {
    /// What the tool should do, in a few words ("create a pull request");
    /// or `select:name_a,name_b` to load tools by exact name; or a tool's
    /// exact name; or `mcp__<server>` for one server's tools (more words
    /// rank within it). Prefix a word with `+` to require it.
    pub(crate) query: String,
    /// How many tools to return, 1 to 50.
    #[serde(default = "default_max_results")]
    #[schemars(range(min = 1, max = 50))]
    pub(crate) max_results: usize,
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
    max_result_chars = 100_000,
    // It returns definitions of tools the pool already holds: nothing a
    // call of its own did not bring.
    rule_of_two = []
)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ToolSearch;

/// The unit-test build's `tool_search` (the declaration above is left out
/// of it): the same name, text, posture, input and answer, built at run
/// time, so an index in a unit test reads the words the real one does and
/// an executor runs it as it runs the real one. Its text follows the doc
/// comment above.
#[cfg(test)]
pub(crate) fn stand_in() -> ToolHandle {
    use std::num::NonZeroUsize;

    use crate::declare::ToolBuilder;
    use crate::declare::posture::{Loading, ResultCap};
    let schema =
        serde_json::to_value(schemars::schema_for!(ToolSearchInput)).expect("a schema is JSON");
    ToolBuilder::new(
        super::TOOL_SEARCH_NAME,
        "Search for deferred tools by what they do, and load them. Deferred\n\
         tools are listed by name but cannot be called until they are loaded;\n\
         the tools this returns can be called right away.\n\
         \n\
         Query forms: free text (\"list open pull requests\"), `select:a,b` for\n\
         exact names, a tool's exact name, `mcp__<server>` for one server's\n\
         tools, and `+word` to require a word.",
    )
    .input_schema(schema)
    .read_only(true)
    .concurrency_safe(true)
    .loading(Loading::AlwaysLoad)
    .search_hint("find discover load deferred tools")
    .rule_of_two([])
    .max_result_chars(ResultCap::Chars(
        NonZeroUsize::new(100_000).expect("not zero"),
    ))
    .build(|args, cx| async move {
        let input: ToolSearchInput = serde_json::from_value(args)?;
        Ok(answer(&input, &cx)?.into_tool_output()?)
    })
    .expect("the stand-in builds")
}

// Not offered as the example when a user's `#[tool]` struct lacks its
// `impl Tool`: rustc would otherwise name this, the one visible impl.
#[cfg(not(test))]
#[diagnostic::do_not_recommend]
impl Tool for ToolSearch {
    type Input = ToolSearchInput;
    type Output = ToolSearchOutcome;
    type Error = ToolSearchError;

    async fn call(
        &self,
        input: ToolSearchInput,
        cx: &ToolContext,
    ) -> Result<ToolSearchOutcome, ToolSearchError> {
        answer(&input, cx)
    }
}

/// What `tool_search` answers: a search of the scope in the call's
/// context, what it finds discovered in the executor's session.
fn answer(input: &ToolSearchInput, cx: &ToolContext) -> Result<ToolSearchOutcome, ToolSearchError> {
    let scope = cx
        .get::<ToolSearchScope>()
        .ok_or(ToolSearchError::NoScope)?;
    let CallSession(session) = cx.get::<CallSession>().ok_or(ToolSearchError::NoSession)?;
    scope.search(session, &input.query, input.max_results)
}

/// Why `tool_search` could not search.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ToolSearchError {
    /// The runtime put no [`ToolSearchScope`] in the call's context.
    #[error(
        "tool search is not set up in this session: the runtime must build the executor with `ExecutorBuilder::tool_search`"
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
pub(crate) enum ResultShape {
    /// Anthropic `tool_reference` blocks: the API expands each into the
    /// tool's definition (sent with `defer_loading: true`).
    ToolReferences,
    /// Full definitions in a provider format, for providers without
    /// references; the session render appends the tools too.
    Definitions(ProviderFormat),
}

/// What `tool_search` searches, in every call's context of an executor
/// built with [`ExecutorBuilder::tool_search`](crate::execute::ExecutorBuilder::tool_search)
/// (or of an MCP server with deferral). What it finds is discovered in the
/// executor's own session, the one its turns run in.
#[derive(Debug, Clone)]
pub(crate) struct ToolSearchScope {
    index: Arc<ToolSearchIndex>,
    members: Arc<Membership>,
    pool: Arc<BTreeMap<String, ToolHandle>>,
    shape: ResultShape,
}

impl ToolSearchScope {
    /// A scope over `pool` (only its tools can be found: never a denied or
    /// filtered one).
    pub(crate) fn new(
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
    pub(crate) fn search(
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
        let found: Vec<ToolHandle> = results
            .hits
            .iter()
            .filter_map(|hit| self.pool.get(&hit.name).cloned())
            .collect();
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
            unknown: results.unknown,
            shape: self.shape,
        })
    }
}

/// The tools one search found (now discovered), in rank order:
/// `tool_search`'s typed result. [`render`](Self::render) is the text the
/// model reads; the result carries the outcome itself as well
/// ([`of`](Self::of)), so a provider adapter answers in its own form
/// from the hits, never by parsing the text back.
#[derive(Debug, Clone)]
pub(crate) struct ToolSearchOutcome {
    query: String,
    found: Vec<ToolHandle>,
    unknown: Vec<String>,
    shape: ResultShape,
}

impl ToolSearchOutcome {
    /// The found tools' names, best first.
    pub(crate) fn names(&self) -> Vec<&str> {
        self.found.iter().map(ToolHandle::name).collect()
    }

    /// The outcome a `tool_search` result was rendered from, while its
    /// text is as rendered: `None` for an error, any other tool's result,
    /// and a result the executor cut or spilled.
    pub(crate) fn of(result: &ToolCallResult) -> Option<&ToolSearchOutcome> {
        result.output().source::<ToolSearchOutcome>()
    }

    /// Names of a `select:` query that no tool of the pool answers to.
    pub(crate) fn unknown(&self) -> &[String] {
        &self.unknown
    }

    /// The Anthropic `tool_result` content: one
    /// `{"type": "tool_reference", "tool_name": ...}` block per tool.
    pub(crate) fn tool_references(&self) -> Value {
        anthropic_tool_references(self.names())
    }

    /// The found tools' full definitions in `format`, as a JSON array.
    pub(crate) fn definitions(&self, format: ProviderFormat) -> Value {
        Value::Array(
            self.found
                .iter()
                .map(|tool| format.definition(tool))
                .collect(),
        )
    }

    /// What was found in the scope's shape (`tool_reference` blocks or
    /// full definitions), best first; `None` when nothing matched.
    pub(crate) fn items(&self) -> Option<Value> {
        if self.found.is_empty() {
            return None;
        }
        Some(match self.shape {
            ResultShape::ToolReferences => self.tool_references(),
            ResultShape::Definitions(format) => self.definitions(format),
        })
    }

    /// What the model reads: the [`items`](Self::items) as compact JSON,
    /// or a sentence when nothing matched; names a `select:` could not
    /// find are listed after.
    pub(crate) fn render(&self) -> String {
        let mut out = match self.items() {
            Some(items) => crate::text::to_canonical_string(&items),
            None => format!(
                "No tools matched `{}`.",
                crate::text::cap_error_text(&self.query)
            ),
        };
        if !self.unknown.is_empty() {
            out.push_str("\nNo tool is named: ");
            out.push_str(&crate::text::cap_error_text(&self.unknown.join(", ")));
        }
        out
    }
}

/// The text the model reads ([`render`](ToolSearchOutcome::render)),
/// carrying the outcome it was rendered from.
impl IntoToolOutput for ToolSearchOutcome {
    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error> {
        Ok(ToolOutput::text(self.render()).with_source(self))
    }
}
