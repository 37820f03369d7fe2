//! A conversation's allow-always grants: what a person approved "always"
//! (a tool with one call's exact content), each with the moment it lapses.
//!
//! The set belongs to the conversation: a [`Session`](crate::session::Session)
//! owns one, and its record carries it to a store and back. The
//! [`PermissionPolicy`](super::PermissionPolicy) only reads it (step 8 of
//! its pipeline) and adds to it when the approver answers "always". It
//! lives in this stage, not in `session`, because the policy that reads it
//! comes first.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{PoisonError, RwLock, RwLockReadGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::pattern::ContentPattern;
use super::rule::{PermissionRule, RuleError};
use crate::declare::PermissionContent;

/// One conversation's allow-always grants: what a person approved
/// "always" (a tool with one call's exact content), each with the moment
/// it lapses. A [`Session`](crate::session::Session) owns one; the
/// [`PermissionPolicy`](super::PermissionPolicy) reads it (step 8 of its
/// pipeline) and adds to it when the approver answers "always".
#[derive(Default)]
pub struct Grants {
    /// Each grant with the moment it lapses (`None`: with the session).
    held: RwLock<BTreeMap<Grant, Option<SystemTime>>>,
}

/// An allow-always grant: a tool (primary name), and the exact content it
/// was granted for, if the call had one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Grant {
    tool: String,
    content: Option<String>,
}

impl Grant {
    /// A grant made for a call without content covers only calls without
    /// content: for a tool with no content hook that is every call, but an
    /// "always" given to `run_command` with an empty command must not cover
    /// the next, non-empty one.
    fn covers(&self, tool: &str, content: Option<&PermissionContent>) -> bool {
        self.tool == tool
            && match &self.content {
                None => content.is_none(),
                Some(granted) => content.is_some_and(|c| c.as_str() == granted),
            }
    }

    /// The grant as a rule: `Tool` or `Tool(<exact content, escaped>)`.
    fn rule(&self) -> Result<PermissionRule, RuleError> {
        match &self.content {
            None => PermissionRule::tool(self.tool.clone()),
            Some(content) => {
                PermissionRule::with_content(self.tool.clone(), ContentPattern::escape(content))
            }
        }
    }

    /// The rule text, or a description when no rule can say it.
    fn text(&self) -> String {
        self.rule().map_or_else(
            |_| format!("{} (granted this session)", self.tool),
            |rule| rule.to_string(),
        )
    }
}

/// An allow-always grant as a session store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GrantRecord {
    /// The tool's primary name.
    pub tool: String,
    /// The exact content granted (`None`: calls without content).
    pub content: Option<String>,
    /// When the grant lapses, in milliseconds since the Unix epoch
    /// (`None`: it lasts as long as the session).
    pub lapses_at_unix_ms: Option<u64>,
}

/// Whether a grant lapsing at `lapses` still answers at `now`.
fn is_live(lapses: Option<SystemTime>, now: SystemTime) -> bool {
    lapses.is_none_or(|at| now < at)
}

fn unix_ms(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH).map_or(0, |since| {
        u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
    })
}

impl fmt::Debug for Grants {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Grants")
            .field("held", &self.read().len())
            .finish()
    }
}

impl Grants {
    /// The grants still live, as rules a runtime may persist (and later
    /// add to its [`PermissionContext`](super::PermissionContext) as allow
    /// rules), sorted.
    pub fn rules(&self) -> Vec<PermissionRule> {
        let now = SystemTime::now();
        self.read()
            .iter()
            .filter(|(_, lapses)| is_live(**lapses, now))
            .filter_map(|(grant, _)| grant.rule().ok())
            .collect()
    }

    /// The grants still live at `now`, to be stored with the session
    /// (see [`SessionRecord`](crate::session::SessionRecord)), sorted.
    pub(crate) fn records(&self, now: SystemTime) -> Vec<GrantRecord> {
        self.read()
            .iter()
            .filter(|(_, lapses)| is_live(**lapses, now))
            .map(|(grant, lapses)| GrantRecord {
                tool: grant.tool.clone(),
                content: grant.content.clone(),
                lapses_at_unix_ms: lapses.map(unix_ms),
            })
            .collect()
    }

    /// Adds stored grants, leaving out any that lapsed by `now` (so a
    /// restored grant never outlives its expiry). A grant already held
    /// keeps the later of its two lapse times.
    pub(crate) fn restore(&self, records: impl IntoIterator<Item = GrantRecord>, now: SystemTime) {
        let mut held = self.held.write().unwrap_or_else(PoisonError::into_inner);
        for record in records {
            let lapses = record
                .lapses_at_unix_ms
                .map(|ms| UNIX_EPOCH + Duration::from_millis(ms));
            if !is_live(lapses, now) {
                continue;
            }
            let grant = Grant {
                tool: record.tool,
                content: record.content,
            };
            let kept = held.entry(grant).or_insert(lapses);
            *kept = match (*kept, lapses) {
                (None, _) | (_, None) => None,
                (Some(a), Some(b)) => Some(a.max(b)),
            };
        }
    }

    /// The text of a live grant covering this call, if one does.
    pub(crate) fn covering(
        &self,
        tool: &str,
        content: Option<&PermissionContent>,
        now: SystemTime,
    ) -> Option<String> {
        self.read()
            .iter()
            .find(|(grant, lapses)| is_live(**lapses, now) && grant.covers(tool, content))
            .map(|(grant, _)| grant.text())
    }

    /// Grants `tool` with `content` (an approver's "always"), for
    /// `lifetime` from now (`None`: the session).
    pub(crate) fn grant(
        &self,
        tool: &str,
        content: Option<&PermissionContent>,
        lifetime: Option<Duration>,
    ) {
        let grant = Grant {
            tool: tool.to_owned(),
            content: content.map(|c| c.as_str().to_owned()),
        };
        let lapses = lifetime.and_then(|lifetime| SystemTime::now().checked_add(lifetime));
        self.held
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(grant, lapses);
    }

    fn read(&self) -> RwLockReadGuard<'_, BTreeMap<Grant, Option<SystemTime>>> {
        // Nothing panics while holding the lock; a poisoned set is intact.
        self.held.read().unwrap_or_else(PoisonError::into_inner)
    }
}
