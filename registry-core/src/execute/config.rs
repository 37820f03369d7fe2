//! The executor's knobs: concurrency limit, timeouts, which tools cancel
//! their siblings on failure, spilling, the per-turn budget and the byte
//! limit of binary results.

use std::collections::{BTreeMap, BTreeSet};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Duration;

/// How the executor runs a turn. Everything has a default; see each
/// setter.
///
/// Per-tool settings are keyed by the tool's primary name, here rather
/// than in the declaration, because they are deployment choices (how long
/// a shell may run on this machine, whether a failed build should stop the
/// tests running beside it), not facts about the tool.
#[derive(Debug, Clone)]
pub struct ExecutorConfig {
    pub(crate) max_concurrency: NonZeroUsize,
    pub(crate) timeout: Option<Duration>,
    pub(crate) tool_timeouts: BTreeMap<String, Duration>,
    pub(crate) cancel_siblings: BTreeSet<String>,
    pub(crate) spill_dir: Option<PathBuf>,
    pub(crate) preview_chars: NonZeroUsize,
    pub(crate) turn_budget: Option<usize>,
    pub(crate) max_result_bytes: Option<usize>,
    pub(crate) permission_timeout: Option<Duration>,
}

/// The default limit of calls running at once in a concurrent batch.
pub(crate) const DEFAULT_MAX_CONCURRENCY: usize = 10;
/// The default per-turn output budget, in characters.
pub(crate) const DEFAULT_TURN_BUDGET_CHARS: usize = 200_000;
/// The default limit of one result's binary content (images, audio,
/// embedded resources), in bytes: 10 MiB.
pub(crate) const DEFAULT_MAX_RESULT_BYTES: usize = 10 * 1024 * 1024;
/// The default size of a spilled result's preview, in characters.
pub(crate) const DEFAULT_PREVIEW_CHARS: usize = 2_000;

// Checked at compile time.
const MAX_CONCURRENCY: NonZeroUsize = NonZeroUsize::new(DEFAULT_MAX_CONCURRENCY).unwrap();
const PREVIEW_CHARS: NonZeroUsize = NonZeroUsize::new(DEFAULT_PREVIEW_CHARS).unwrap();

impl Default for ExecutorConfig {
    fn default() -> Self {
        ExecutorConfig {
            max_concurrency: MAX_CONCURRENCY,
            timeout: None,
            tool_timeouts: BTreeMap::new(),
            cancel_siblings: BTreeSet::new(),
            spill_dir: None,
            preview_chars: PREVIEW_CHARS,
            turn_budget: Some(DEFAULT_TURN_BUDGET_CHARS),
            max_result_bytes: Some(DEFAULT_MAX_RESULT_BYTES),
            permission_timeout: None,
        }
    }
}

impl ExecutorConfig {
    /// The defaults: 10 at once, no timeout, no spill directory (results
    /// over their cap are cut), a 200,000-character turn budget, 10 MiB
    /// of binary content per result.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many calls of a concurrent batch may run at once.
    pub fn max_concurrency(mut self, limit: NonZeroUsize) -> Self {
        self.max_concurrency = limit;
        self
    }

    /// A timeout for every call's body (not its permission check: a person
    /// may take a while to answer). Needs a tokio runtime with time
    /// enabled.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// A timeout for one tool, overriding the global one.
    pub fn tool_timeout(mut self, tool: impl Into<String>, timeout: Duration) -> Self {
        self.tool_timeouts.insert(tool.into(), timeout);
        self
    }

    /// When a call of `tool` fails in a concurrent batch, cancel the
    /// batch's other calls (those still running or waiting) with an error
    /// result each. Only a failure of the call's body counts (an error, a
    /// panic, a timeout): a call refused by validation or permission never
    /// ran, and cancels nothing. Off for every tool by default.
    pub fn cancel_siblings_on_failure(mut self, tool: impl Into<String>) -> Self {
        self.cancel_siblings.insert(tool.into());
        self
    }

    /// Spill results over their cap (or the turn budget) to files in
    /// `dir`, created if needed, instead of cutting them. Each spill
    /// creates a new file (never following or overwriting an existing
    /// one, readable by the owner only on unix) whose name is unique to
    /// the process and the spill, so turns never overwrite each other.
    pub fn spill_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.spill_dir = Some(dir.into());
        self
    }

    /// How many characters of a spilled result the model sees.
    pub fn preview_chars(mut self, chars: NonZeroUsize) -> Self {
        self.preview_chars = chars;
        self
    }

    /// The per-turn budget across all results, in characters; `None`
    /// turns it off.
    pub fn turn_budget(mut self, chars: Option<usize>) -> Self {
        self.turn_budget = chars;
        self
    }

    /// The limit of one result's binary content (the bytes of its images,
    /// audio and embedded resources, in order), apart from the character
    /// cap on its text; `None` turns it off. A block past the limit is
    /// written to the spill directory when there is one, and replaced by a
    /// text notice saying what it was, how large, and where it went.
    pub fn max_result_bytes(mut self, bytes: Option<usize>) -> Self {
        self.max_result_bytes = bytes;
        self
    }

    /// How long one call's permission decision may take, approver and
    /// safety classifier included; past it the call is denied, saying so.
    /// Off by default: a person may take a while to answer, and a call's
    /// own [`timeout`](Self::timeout) covers only its body.
    pub fn permission_timeout(mut self, timeout: Duration) -> Self {
        self.permission_timeout = Some(timeout);
        self
    }

    pub(crate) fn timeout_for(&self, tool: &str) -> Option<Duration> {
        if self.tool_timeouts.is_empty() {
            return self.timeout;
        }
        self.tool_timeouts.get(tool).copied().or(self.timeout)
    }
}
