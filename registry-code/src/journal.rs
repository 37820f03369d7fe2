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
//! results, the journal can go.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

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
    programs: Mutex<BTreeMap<String, Recorded>>,
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

    /// How many calls the program of `call_id` made that finished, as
    /// recorded.
    pub fn finished_calls(&self, call_id: &str) -> usize {
        self.programs().get(call_id).map_or(0, |recorded| {
            recorded
                .batches
                .iter()
                .map(|batch| batch.replies.len())
                .sum()
        })
    }

    /// Forgets the program of `call_id` (its turn is over).
    pub fn forget(&self, call_id: &str) {
        self.programs().remove(call_id);
    }

    fn programs(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Recorded>> {
        self.programs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The program of `call_id` as recorded, or a new record with the
    /// clock read now and a fresh seed.
    pub(crate) fn start(&self, call_id: &str) -> Recorded {
        self.programs()
            .entry(call_id.to_owned())
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
            .clone()
    }

    /// Records batch number `index` of the program of `call_id`, dropping
    /// any recorded after it (a replay that diverged there).
    pub(crate) fn record(
        &self,
        call_id: &str,
        index: usize,
        requests: Vec<Request>,
        replies: Vec<Reply>,
    ) {
        if let Some(recorded) = self.programs().get_mut(call_id) {
            recorded.batches.truncate(index);
            recorded.batches.push(Batch { requests, replies });
        }
    }
}

/// A seed from the standard library's per-process random keys and the
/// clock: no dependency for a number that only has to differ per program.
fn fresh_seed(nanos: u32) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(nanos);
    hasher.finish()
}
