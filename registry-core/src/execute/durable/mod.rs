//! Turns that wait for a person across restarts (documented on
//! [`SuspendedTurn`]).

mod record;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::call::{ToolCall, ToolCallResult};
use super::runner::Runner;
use crate::permission::pipeline::PENDING;
use crate::permission::{
    Approval, ApprovalRequest, Approver, JudgeFuture, PermissionPolicy, RefusedBy,
};
use record::{PendingRecord, RecordedCall, RecordedResult, TurnRecord, call_digest};

/// How a durable turn ended.
#[derive(Debug)]
#[must_use]
pub enum TurnOutcome {
    /// Every call has its result, in call order.
    Finished(Vec<ToolCallResult>),
    /// Some call waits for a person: keep the turn, ask, and resume it.
    Suspended(SuspendedTurn),
}

/// A turn waiting for a person's answers.
///
/// Turns that wait for a person across restarts.
///
/// [`Executor::run_turn_durable`](super::Executor::run_turn_durable) runs
/// a turn as [`run_turn`](super::Executor::run_turn) does, except at an
/// ask nobody answers now (no approver, or one that answers
/// [`Approval::Later`]): that call waits, nothing starts after it, and the
/// turn ends [`TurnOutcome::Suspended`]. The [`SuspendedTurn`] holds the
/// calls, the results of those that finished (every block), and the
/// pending approvals with what the person must read; sealed
/// ([`SuspendedTurn::seal`]) it is bytes any store can hold (a
/// [`SessionStore`](crate::session::SessionStore): memory, Redis) and any
/// process can open with the same key.
///
/// [`Executor::resume`](super::Executor::resume) takes the turn back with
/// the person's [`Answer`]s and finishes it, in the same process or
/// another: the pending calls and those that never started run (through
/// the whole permission pipeline again, so a deny rule added meanwhile
/// holds; the answer stands where the approver would), the finished ones
/// are not run again, and the results come back in call order. An ask
/// that comes up while resuming suspends the turn again.
///
/// Refused, each with its [`DurableError`]: a record this build did not
/// write (`Format`), a changed one (`Tampered`: the seal is HMAC-SHA-256
/// under the runtime's key), one whose session no longer waits for it
/// (`Stale`: it was resumed already, or another turn ran since; the
/// session names its waiting turn, [`Session::pending_turn`](crate::session::Session::pending_turn),
/// and keeps it in its record), and an answer that does not fit its call
/// (`Mismatch`: another call id, tool or arguments). An answer applies
/// once, to the question it answered (the same call, arguments as they
/// will run, and reason); a call asked anew for another reason waits
/// again. Any other turn of the session makes a waiting turn stale;
/// [`abandon`](Self::abandon) then gives the model a result for each call.
///
/// No call runs twice: a finished call is never in what a resume runs, and
/// a session resumes a turn once (a record restored afterwards does not
/// bring it back). Across processes that may resume the same turn at once,
/// claim the stored bytes with the store's compare-and-set first
/// ([`SessionStore::save`](crate::session::SessionStore::save) over the
/// revision you loaded): the process whose claim lands resumes.
///
/// Calls a program makes (code mode) are not suspended one by one: the
/// program's nested turn refuses an ask nobody answers, as before.
///
/// ```
/// use registry_core::execute::{SuspendedTurn, TurnOutcome};
/// use registry_core::permission::Approval;
/// use registry_core::{ToolBuilder, ToolCall, ToolOutput, ToolRegistry};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let deploy = ToolBuilder::new("deploy", "Deploy the site.")
///     .build(|_, _| async { Ok(ToolOutput::text("deployed")) })
///     .unwrap();
/// let registry = ToolRegistry::linked(&Default::default()).unwrap();
/// let _deploy = registry.plugins().register("ops", deploy).unwrap();
/// let executor = registry.executor().build(); // no approver: asks wait
///
/// let call = ToolCall::new("c1", "deploy", serde_json::json!({}));
/// let TurnOutcome::Suspended(turn) = executor.run_turn_durable(vec![call]).await else {
///     unreachable!("`deploy` asks, and nobody answers now")
/// };
/// let key = b"32 secret bytes, one per runtime"; // the same in every process
/// let bytes = turn.seal(key).unwrap(); // keep them in a store; ask the person
///
/// // Later, perhaps in another process (with the session restored):
/// let turn = SuspendedTurn::open(&bytes, key).unwrap();
/// let answer = turn.pending()[0].answer(Approval::AllowOnce);
/// let TurnOutcome::Finished(results) = executor.resume(turn, vec![answer]).await.unwrap() else {
///     unreachable!("every waiting call has its answer")
/// };
/// assert_eq!(results[0].content(), "deployed");
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SuspendedTurn {
    record: TurnRecord,
}

/// One call waiting for a person: what to show them.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingApproval {
    /// The call's id.
    pub call_id: String,
    /// The tool (its primary name).
    pub tool: String,
    /// The call's arguments, as the model wrote them.
    pub input: Value,
    /// Why a person must decide.
    pub reason: String,
}

/// A person's answer to one [`PendingApproval`], bound to its call id,
/// tool and arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    call_id: String,
    tool: String,
    digest: String,
    approval: Approval,
}

/// Why a suspended turn could not be sealed, opened or resumed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DurableError {
    /// The sealing key is too short to mean anything.
    #[error(
        "a durable turn's key must be at least 16 bytes (32 random bytes is right); this one has {len}"
    )]
    WeakKey {
        /// Its length.
        len: usize,
    },
    /// The record's seal does not hold: it was changed, or sealed with
    /// another key.
    #[error("the suspended turn's record was changed or sealed with another key; it is refused")]
    Tampered,
    /// A record of another format.
    #[error("the suspended turn's record is format {found}; this build reads format {supported}")]
    Format {
        /// The record's.
        found: u32,
        /// This build's.
        supported: u32,
    },
    /// The record cannot be read (its seal held: a bug, or a build that
    /// wrote what this one cannot read).
    #[error("the suspended turn's record cannot be read: {0}")]
    Corrupt(String),
    /// The session does not wait for this turn: it was resumed already,
    /// or another turn ran since.
    #[error("turn `{turn}` is not the one its session waits for ({}); it was resumed already or replaced, and is not run again", .waiting.as_deref().map_or("it waits for none".to_owned(), |w| format!("it waits for `{w}`")))]
    Stale {
        /// The record's turn.
        turn: String,
        /// The turn the session waits for, if any.
        waiting: Option<String>,
    },
    /// An answer that does not fit the call it names.
    #[error("the answer for call `{call_id}` does not fit: {why}")]
    Mismatch {
        /// The call id the answer names.
        call_id: String,
        /// What does not fit.
        why: String,
    },
}

impl PendingApproval {
    /// The person's answer to this call.
    pub fn answer(&self, approval: Approval) -> Answer {
        Answer::new(&self.call_id, &self.tool, &self.input, approval)
    }
}

impl Answer {
    /// An answer to the call `call_id` of `tool` with `input`, for a UI
    /// that shows pending approvals from its own copy: it applies only
    /// when all three are the pending call's.
    pub fn new(call_id: &str, tool: &str, input: &Value, approval: Approval) -> Self {
        Answer {
            call_id: call_id.to_owned(),
            tool: tool.to_owned(),
            digest: call_digest(tool, input),
            approval,
        }
    }
}

impl SuspendedTurn {
    /// The turn's id (the one its session waits for).
    pub fn id(&self) -> &str {
        &self.record.id
    }

    /// The calls that wait for a person, in call order.
    pub fn pending(&self) -> Vec<PendingApproval> {
        self.record
            .pending
            .iter()
            .map(|p| PendingApproval {
                call_id: self.record.calls[p.index].id.clone(),
                tool: p.tool.clone(),
                input: p.input.clone(),
                reason: p.reason.clone(),
            })
            .collect()
    }

    /// Gives the turn up (its session moved on, or nobody will answer):
    /// a result for every call in call order, for the model to read: the
    /// finished calls' own, and for the others an error saying they were
    /// not run. Nothing runs.
    pub fn abandon(self) -> Vec<ToolCallResult> {
        let mut results: Vec<Option<ToolCallResult>> = vec![None; self.record.calls.len()];
        for (index, recorded) in &self.record.finished {
            if let (Some(slot), Ok(result)) = (results.get_mut(*index), recorded.to_result()) {
                *slot = Some(result);
            }
        }
        self.record
            .calls
            .iter()
            .zip(results)
            .map(|(call, result)| {
                result.unwrap_or_else(|| {
                    ToolCallResult::new(
                        call.id.clone(),
                        format!(
                            "tool `{}` was not run: the turn waited for a person's answer and was given up",
                            call.name
                        ),
                        true,
                    )
                })
            })
            .collect()
    }

    /// The turn as bytes, sealed with `key` (at least 16 bytes; keep it
    /// secret, the same in every process that resumes turns).
    pub fn seal(&self, key: &[u8]) -> Result<Vec<u8>, DurableError> {
        check_key(key)?;
        let json = serde_json::to_vec(&self.record)
            .map_err(|err| DurableError::Corrupt(err.to_string()))?;
        let mut sealed = record::hex(&record::hmac(key, &json)).into_bytes();
        sealed.push(b' ');
        sealed.extend_from_slice(&json);
        Ok(sealed)
    }

    /// Opens bytes [`seal`](Self::seal) made with the same `key`.
    pub fn open(sealed: &[u8], key: &[u8]) -> Result<Self, DurableError> {
        check_key(key)?;
        let (mac, json) = match sealed.get(64) {
            Some(b' ') => (&sealed[..64], &sealed[65..]),
            _ => return Err(DurableError::Tampered),
        };
        let expected = record::hex(&record::hmac(key, json));
        if !record::same_mac(mac, expected.as_bytes()) {
            return Err(DurableError::Tampered);
        }
        #[derive(serde::Deserialize)]
        struct Header {
            format: u32,
        }
        let header: Header =
            serde_json::from_slice(json).map_err(|err| DurableError::Corrupt(err.to_string()))?;
        if header.format != record::FORMAT {
            return Err(DurableError::Format {
                found: header.format,
                supported: record::FORMAT,
            });
        }
        let record: TurnRecord =
            serde_json::from_slice(json).map_err(|err| DurableError::Corrupt(err.to_string()))?;
        // Indices name calls of the turn (a record the key's holder wrote
        // wrongly is refused, not indexed out of range).
        let calls = record.calls.len();
        let indices = record
            .finished
            .iter()
            .map(|(index, _)| *index)
            .chain(record.pending.iter().map(|p| p.index))
            .chain(record.not_started.iter().copied());
        let mut seen = vec![false; calls];
        for index in indices {
            match seen.get_mut(index) {
                Some(seen) if !*seen => *seen = true,
                _ => {
                    return Err(DurableError::Corrupt(format!(
                        "call index {index} is out of range or named twice ({calls} calls)"
                    )));
                }
            }
        }
        Ok(SuspendedTurn { record })
    }
}

fn check_key(key: &[u8]) -> Result<(), DurableError> {
    if key.len() < 16 {
        return Err(DurableError::WeakKey { len: key.len() });
    }
    Ok(())
}

/// The approver of a durable turn: the person's answers first, each used
/// once and only for the question it answered (the same call id, tool,
/// arguments as the pipeline will run them, and reason), then the
/// executor's approver; with neither, the call waits, and what it waits
/// for is kept for the record.
struct Answered {
    answers: Mutex<HashMap<String, Given>>,
    fallback: Option<Arc<dyn Approver>>,
    asked: Arc<Mutex<Vec<Asked>>>,
}

/// An answer as a resume hands it to the pipeline.
struct Given {
    tool: String,
    digest: String,
    reason: String,
    approval: Approval,
}

/// A question nobody answered now: what the record keeps of a waiting
/// call.
struct Asked {
    call_id: String,
    tool: String,
    input: Value,
    reason: String,
}

impl Answered {
    fn asked_later(&self, request: &ApprovalRequest) {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Asked {
                call_id: request.call_id.clone(),
                tool: request.tool.clone(),
                input: (*request.input).clone(),
                reason: request.reason.clone(),
            });
    }
}

impl Approver for Answered {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> JudgeFuture<'a, Approval> {
        let given = {
            let mut answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
            let fits = answers.get(&request.call_id).is_some_and(|given| {
                given.tool == request.tool
                    && given.reason == request.reason
                    && given.digest == call_digest(&request.tool, &request.input)
            });
            if fits {
                answers.remove(&request.call_id)
            } else {
                None
            }
        };
        if let Some(given) = given {
            return Box::pin(async move { given.approval });
        }
        match &self.fallback {
            Some(approver) => {
                let answer = approver.approve(request);
                Box::pin(async move {
                    let answer = answer.await;
                    if answer == Approval::Later {
                        self.asked_later(request);
                    }
                    answer
                })
            }
            None => {
                self.asked_later(request);
                Box::pin(async { Approval::Later })
            }
        }
    }
}

/// The executor's policy with the person's answers first, and where the
/// questions left for later are collected.
fn durable_policy(
    policy: &PermissionPolicy,
    answers: HashMap<String, Given>,
) -> (PermissionPolicy, Arc<Mutex<Vec<Asked>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let approver = Answered {
        answers: Mutex::new(answers),
        fallback: policy.approver().cloned(),
        asked: Arc::clone(&asked),
    };
    (policy.clone().with_approver(Arc::new(approver)), asked)
}

/// What one run of a durable turn's calls left: `results` are those of
/// the calls at `indices` (into the turn's calls), `not_started` indexes
/// `results`, `asked` holds the questions nobody answered, in order.
struct Ran<'a> {
    indices: &'a [usize],
    results: Vec<ToolCallResult>,
    not_started: &'a [usize],
    asked: Vec<Asked>,
}

fn take(asked: &Mutex<Vec<Asked>>) -> Vec<Asked> {
    std::mem::take(&mut *asked.lock().unwrap_or_else(PoisonError::into_inner))
}

/// A fresh turn id: unique per suspension in this process and across
/// processes (the clock and a counter, hashed with the calls).
fn turn_id(calls: &[RecordedCall]) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hash = Sha256::new();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hash.update(nanos.to_le_bytes());
    hash.update(COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    hash.update(std::process::id().to_le_bytes());
    for call in calls {
        hash.update(call.id.as_bytes());
        hash.update([0]);
    }
    record::hex(&hash.finalize()[..16])
}

impl Runner {
    /// Runs `calls` as a durable turn (see [`SuspendedTurn`]).
    pub(super) async fn run_durable(&self, calls: Vec<ToolCall>) -> TurnOutcome {
        let _turn = self.session().turn.lock().await;
        // Any turn of the conversation makes a turn that waited stale.
        self.session().set_pending_turn(None);
        let recorded: Vec<RecordedCall> = calls.iter().map(RecordedCall::of).collect();
        let (policy, asked) = durable_policy(self.policy(), HashMap::new());
        let done = self.run_turn(calls, None, 0, Some(policy)).await;
        let indices: Vec<usize> = (0..recorded.len()).collect();
        let ran = Ran {
            indices: &indices,
            results: done.results,
            not_started: &done.not_started,
            asked: take(&asked),
        };
        self.settle(recorded, Vec::new(), ran)
    }

    /// Resumes a suspended turn with the person's answers.
    pub(super) async fn resume(
        &self,
        turn: SuspendedTurn,
        answers: Vec<Answer>,
    ) -> Result<TurnOutcome, DurableError> {
        let _turn = self.session().turn.lock().await;
        let record = turn.record;
        let waiting = self.session().pending_turn();
        if waiting.as_deref() != Some(record.id.as_str()) {
            return Err(DurableError::Stale {
                turn: record.id,
                waiting,
            });
        }
        let answers = match_answers(&record, answers)?;
        let mut finished = Vec::with_capacity(record.finished.len());
        for (index, result) in &record.finished {
            let result = result.to_result().map_err(DurableError::Corrupt)?;
            finished.push((*index, result));
        }
        // Claimed: a second resume of this record is stale from here on,
        // whatever happens below, and a record restored later that still
        // names it does not bring it back.
        self.session().claim_pending_turn(&record.id);
        let mut indices: Vec<usize> = record
            .pending
            .iter()
            .map(|p| p.index)
            .chain(record.not_started.iter().copied())
            .collect();
        indices.sort_unstable();
        indices.dedup();
        let calls: Vec<ToolCall> = indices.iter().map(|&i| record.calls[i].to_call()).collect();
        let (policy, asked) = durable_policy(self.policy(), answers);
        let done = self.run_turn(calls, None, 0, Some(policy)).await;
        let ran = Ran {
            indices: &indices,
            results: done.results,
            not_started: &done.not_started,
            asked: take(&asked),
        };
        Ok(self.settle(record.calls, finished, ran))
    }

    /// The outcome of a durable turn's run, with the calls that finished
    /// before it.
    fn settle(
        &self,
        calls: Vec<RecordedCall>,
        mut finished: Vec<(usize, ToolCallResult)>,
        ran: Ran<'_>,
    ) -> TurnOutcome {
        let Ran {
            indices,
            results,
            not_started,
            mut asked,
        } = ran;
        let mut pending = Vec::new();
        let mut waiting = Vec::new();
        for (j, result) in results.into_iter().enumerate() {
            let index = indices[j];
            if not_started.contains(&j) {
                waiting.push(index);
            } else if let Some(refusal) = result.refusal().filter(|r| r.by == RefusedBy::Pending) {
                // What the pipeline asked (the input as it will run, the
                // reason as the person must read it), in the order asked.
                let question = asked
                    .iter()
                    .position(|q| q.call_id == calls[index].id)
                    .map(|at| asked.remove(at));
                pending.push(match question {
                    Some(q) => PendingRecord {
                        index,
                        tool: q.tool,
                        input: q.input,
                        reason: q.reason,
                    },
                    None => PendingRecord {
                        index,
                        tool: result.tool().unwrap_or(&calls[index].name).to_owned(),
                        input: calls[index].input.clone(),
                        reason: refusal
                            .reason
                            .strip_suffix(PENDING)
                            .unwrap_or(&refusal.reason)
                            .to_owned(),
                    },
                });
            } else {
                finished.push((index, result));
            }
        }
        finished.sort_by_key(|(index, _)| *index);
        if pending.is_empty() && waiting.is_empty() {
            return TurnOutcome::Finished(finished.into_iter().map(|(_, r)| r).collect());
        }
        let record = TurnRecord {
            format: record::FORMAT,
            id: turn_id(&calls),
            finished: finished
                .iter()
                .map(|(index, result)| (*index, RecordedResult::of(result)))
                .collect(),
            calls,
            pending,
            not_started: waiting,
        };
        self.session().set_pending_turn(Some(record.id.clone()));
        TurnOutcome::Suspended(SuspendedTurn { record })
    }
}

/// The answers by call id, each checked against its pending call.
fn match_answers(
    record: &TurnRecord,
    answers: Vec<Answer>,
) -> Result<HashMap<String, Given>, DurableError> {
    let mut by_id = HashMap::new();
    for answer in answers {
        let mismatch = |why: String| DurableError::Mismatch {
            call_id: answer.call_id.clone(),
            why,
        };
        let Some(pending) = record
            .pending
            .iter()
            .find(|p| record.calls[p.index].id == answer.call_id)
        else {
            return Err(mismatch("no call of the turn waits for it".to_owned()));
        };
        if pending.tool != answer.tool {
            return Err(mismatch(format!(
                "it answers a call of `{}`, but the call waiting is of `{}`",
                answer.tool, pending.tool
            )));
        }
        if call_digest(&pending.tool, &pending.input) != answer.digest {
            return Err(mismatch(
                "it was given for other arguments than the call's".to_owned(),
            ));
        }
        let given = Given {
            tool: pending.tool.clone(),
            digest: answer.digest.clone(),
            reason: pending.reason.clone(),
            approval: answer.approval,
        };
        if by_id.insert(answer.call_id.clone(), given).is_some() {
            return Err(mismatch("it is answered twice".to_owned()));
        }
    }
    Ok(by_id)
}
