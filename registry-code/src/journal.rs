//! Durable by replay: a program's only effects are its tool calls, so a
//! turn that a restart interrupted resumes by running the program again,
//! answering the calls that had already finished from a journal instead
//! of running them twice.
//!
//! The journal keeps, per `code` call id, the clock and the random seed
//! the program was given and every batch of calls it made with the
//! replies they got. A run of a call id the journal knows gets the same
//! clock and seed, so a deterministic program makes the same calls: each
//! batch that matches the journal's (the same names and inputs, in order)
//! is answered from it; from the first batch that does not match (the
//! program changed, or the batch was still running at the restart) the
//! calls run through the executor again, and the journal is rewritten from
//! there. A call that was in flight when the process stopped may have run
//! (its effect is done, its reply lost): it runs again, so such tools
//! should be idempotent.
//!
//! The runtime persists the journal with its turn ([`Journal`] is
//! `Serialize`), restores it after a restart, puts it in the context
//! ([`CodeMode::journal`](crate::CodeMode::journal)) and runs the turn's
//! `code` call again with the same call id; once the model has the turn's
//! results, the journal can go ([`forget`](Journal::forget)).
//!
//! A journal belongs to one conversation, as its answers do. An entry is
//! keyed by the call id and the program's SHA-256, so a different program
//! under a reused id (an MCP client picks its own request ids) never gets
//! another's answers; and a journal serves the first session that uses it
//! in this process (a restored one binds anew): a call of any other
//! session runs live and records nothing, and a warning says the journal
//! was shared.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{SystemTime, UNIX_EPOCH};

use registry_core::ToolContext;
use registry_core::session::Session;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::engine::{Reply, Request};

/// The finished calls of the programs of a turn, by `code` call id.
///
/// ```
/// use registry_code::Journal;
///
/// let journal = Journal::new();
/// let saved = serde_json::to_string(&journal).unwrap();
/// let restored: Journal = serde_json::from_str(&saved).unwrap();
/// assert!(restored.is_empty());
/// ```
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Journal {
    /// By `<call id> <program's SHA-256>`.
    programs: Mutex<BTreeMap<String, Recorded>>,
    /// The session it serves in this process: bound on first use, never
    /// saved (a restored journal binds to the session it is restored for).
    #[serde(skip)]
    owner: Mutex<Option<Weak<Session>>>,
}

/// One program's journal.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Recorded {
    /// What `Date.now()` answered.
    pub(crate) clock_ms: f64,
    /// The seed of `Math.random()`.
    pub(crate) seed: u64,
    /// Its batches of calls, in order, each with its replies.
    pub(crate) batches: Vec<Batch>,
}

/// A batch of calls a program had in flight together, and their replies.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Batch {
    pub(crate) requests: Vec<Request>,
    pub(crate) replies: Vec<Reply>,
}

impl Journal {
    /// An empty journal.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether it records no program.
    pub fn is_empty(&self) -> bool {
        self.programs().is_empty()
    }

    /// How many calls the programs of `call_id` made that finished, as
    /// recorded.
    pub fn finished_calls(&self, call_id: &str) -> usize {
        self.programs()
            .iter()
            .filter(|(key, _)| call_of(key) == call_id)
            .map(|(_, recorded)| {
                recorded
                    .batches
                    .iter()
                    .map(|batch| batch.replies.len())
                    .sum::<usize>()
            })
            .sum()
    }

    /// Forgets the programs of `call_id` (its turn is over).
    pub fn forget(&self, call_id: &str) {
        self.programs().retain(|key, _| call_of(key) != call_id);
    }

    /// Whether this journal serves the session of `cx`: it binds to the
    /// first session that asks, and serves no other while that one lives.
    pub(crate) fn serves(&self, cx: &ToolContext) -> bool {
        let Some(session) = Session::of(cx) else {
            return true;
        };
        let mut owner = self.owner.lock().unwrap_or_else(PoisonError::into_inner);
        match owner.as_ref().and_then(Weak::upgrade) {
            Some(bound) if Arc::ptr_eq(&bound, session) => true,
            Some(_) => {
                tracing::warn!(
                    "a code-mode journal is shared by two conversations; this call runs without it"
                );
                false
            }
            None => {
                *owner = Some(Arc::downgrade(session));
                true
            }
        }
    }

    fn programs(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Recorded>> {
        self.programs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The program of `call_id` as recorded, or a new record with the
    /// clock read now and a fresh seed.
    pub(crate) fn start(&self, call_id: &str, source: &str) -> (String, Recorded) {
        let key = key(call_id, source);
        let recorded = self
            .programs()
            .entry(key.clone())
            .or_insert_with(|| {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default();
                Recorded {
                    clock_ms: now.as_millis() as f64,
                    seed: fresh_seed(now.subsec_nanos()),
                    batches: Vec::new(),
                }
            })
            .clone();
        (key, recorded)
    }

    /// Records batch number `index` of the program under `key`, dropping
    /// any recorded after it (a replay that diverged there).
    pub(crate) fn record(
        &self,
        key: &str,
        index: usize,
        requests: Vec<Request>,
        replies: Vec<Reply>,
    ) {
        if let Some(recorded) = self.programs().get_mut(key) {
            recorded.batches.truncate(index);
            recorded.batches.push(Batch { requests, replies });
        }
    }
}

/// An entry's key: the call id, a space, the program's SHA-256 in hex.
fn key(call_id: &str, source: &str) -> String {
    let digest = Sha256::digest(source.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("{call_id} {hex}")
}

/// The call id of an entry's key.
fn call_of(key: &str) -> &str {
    key.rsplit_once(' ').map_or(key, |(call, _)| call)
}

/// A seed from the standard library's per-process random keys and the
/// clock: no dependency for a number that only has to differ per program.
fn fresh_seed(nanos: u32) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(nanos);
    hasher.finish()
}
