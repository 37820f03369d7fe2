//! The planner: a pure function from classified calls to batches, each
//! with the reason it starts.
//!
//! Which calls may share a batch is a [`ConflictRule`]. The default,
//! [`AccessRule`], compares what calls read and write: a call joins the
//! open batch when its access conflicts with none already in it. Tools
//! that declare no access get theirs from `concurrency_safe` (read
//! everything or write everything), so for them it is exactly the boolean
//! rule of [`ConcurrencySafeRule`]. The runner only ever reads a [`Plan`].

use std::fmt;
use std::num::NonZeroUsize;

use super::classify::CallClass;
use crate::access::{Access, Conflict, Footprint};
use crate::input::handle::ToolHandle;

/// One call as the planner sees it.
#[derive(Debug, Clone)]
pub(crate) struct PlanItem {
    /// Position in the turn.
    pub(crate) index: usize,
    /// The tool that runs it.
    pub(crate) tool: ToolHandle,
    /// Its class.
    pub(crate) class: CallClass,
    /// What it reads and writes: declared (paths anchored and
    /// canonicalised) or, undeclared, [`CallClass::undeclared_access`].
    pub(crate) access: Access,
}

/// Decides which calls may run at the same time.
///
/// Planning walks the calls in order. A call the rule makes
/// [`runs_alone`](Self::runs_alone) is a serial batch of its own;
/// any other joins the open concurrent batch when that batch's record
/// [admits](OpenBatch::admit) it, and otherwise opens the next one. So
/// calls that conflict always keep the model's order.
pub(crate) trait ConflictRule: Send + Sync {
    /// Whether `call` may run beside nothing at all.
    fn runs_alone(&self, call: &PlanItem) -> bool;

    /// An empty concurrent batch, which the planner then offers calls to.
    fn open_batch(&self) -> Box<dyn OpenBatch + '_>;
}

/// The record a [`ConflictRule`] keeps of one open concurrent batch.
pub(crate) trait OpenBatch {
    /// Adds `call` to the batch, or says which earlier call of the batch
    /// it conflicts with (and leaves the batch as it was). The first call
    /// offered to an empty batch always joins, whatever this answers.
    fn admit(&mut self, call: &PlanItem) -> Result<(), Box<Conflict>>;
}

/// The boolean rule: concurrency-safe calls never conflict with one
/// another; any other call runs alone. Declared accesses are ignored.
/// Kept for tests, which compare it with [`AccessRule`].
#[cfg(test)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ConcurrencySafeRule;

#[cfg(test)]
impl ConflictRule for ConcurrencySafeRule {
    fn runs_alone(&self, call: &PlanItem) -> bool {
        !call.class.concurrency_safe
    }

    fn open_batch(&self) -> Box<dyn OpenBatch + '_> {
        Box::new(AdmitAll)
    }
}

/// The open batch of [`ConcurrencySafeRule`]: everything offered is safe.
#[cfg(test)]
struct AdmitAll;

#[cfg(test)]
impl OpenBatch for AdmitAll {
    fn admit(&mut self, _call: &PlanItem) -> Result<(), Box<Conflict>> {
        Ok(())
    }
}

/// The default rule: calls share a batch when their accesses do not
/// conflict (reads share a key; a write excludes every other access to
/// it, and to every key it covers or is covered by); a call that writes
/// everything runs alone.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AccessRule;

impl ConflictRule for AccessRule {
    fn runs_alone(&self, call: &PlanItem) -> bool {
        call.access.writes_everything()
    }

    fn open_batch(&self) -> Box<dyn OpenBatch + '_> {
        Box::new(Footprint::new())
    }
}

impl OpenBatch for Footprint {
    fn admit(&mut self, call: &PlanItem) -> Result<(), Box<Conflict>> {
        Footprint::admit(self, call.index, &call.access)
    }
}

/// How a batch runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BatchMode {
    /// Its calls run at the same time (bounded by the plan's limit).
    Concurrent,
    /// One call, alone.
    Serial,
}

/// Why a batch starts where it does: why its first call could not join
/// the batch before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BatchReason {
    /// The turn's first batch.
    First,
    /// Its call runs alone (under [`AccessRule`]: it writes everything).
    RunsAlone,
    /// The batch before ran this call alone; nothing may run beside it.
    AfterAlone {
        /// The call that ran alone.
        earlier: usize,
    },
    /// The first call conflicts with an earlier call of the batch before.
    Conflict(Conflict),
}

impl fmt::Display for BatchReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchReason::First => f.write_str("first batch"),
            BatchReason::RunsAlone => f.write_str("runs alone"),
            BatchReason::AfterAlone { earlier } => write!(f, "after #{earlier}, which ran alone"),
            BatchReason::Conflict(conflict) => write!(f, "{conflict}"),
        }
    }
}

/// Calls that run together; batches run one after another.
#[derive(Debug, Clone)]
pub(crate) struct Batch {
    /// Concurrent or serial.
    pub(crate) mode: BatchMode,
    /// The calls, in call order.
    pub(crate) calls: Vec<PlanItem>,
    /// Why the batch starts here.
    pub(crate) reason: BatchReason,
}

/// A turn's batches, in the order they run.
///
/// ```text
/// batch 0: concurrent, at most 10 at once: #0 read_file (read-only), #1 grep (read-only)
/// batch 1: serial: #2 write_file (writes, destructive)
/// ```
///
/// [`explain`](Self::explain) adds each batch's `BatchReason` and each
/// call's access.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The batches.
    pub(crate) batches: Vec<Batch>,
    /// How many calls of a concurrent batch may run at once.
    pub(crate) max_concurrency: NonZeroUsize,
}

impl Plan {
    /// How many calls the plan runs.
    pub fn len(&self) -> usize {
        self.batches.iter().map(|b| b.calls.len()).sum()
    }

    /// Whether the plan runs nothing.
    pub fn is_empty(&self) -> bool {
        self.batches.is_empty()
    }

    /// How many batches run, one after another.
    pub fn batch_count(&self) -> usize {
        self.batches.len()
    }

    /// How many calls each batch holds, in the order the batches run.
    pub fn batch_sizes(&self) -> Vec<usize> {
        self.batches.iter().map(|b| b.calls.len()).collect()
    }

    /// Why batch `batch` starts where it does (`runs alone`, `after #5,
    /// which ran alone`, or the conflict that split it from the batch
    /// before), as [`explain`](Self::explain) words it.
    pub fn batch_reason(&self, batch: usize) -> Option<impl fmt::Display + '_> {
        self.batches.get(batch).map(|b| &b.reason)
    }

    /// What the call at position `index` of the turn reads and writes, as
    /// the planner compared it (paths anchored and canonicalised).
    pub fn access_of(&self, index: usize) -> Option<&Access> {
        self.batches
            .iter()
            .flat_map(|b| &b.calls)
            .find(|c| c.index == index)
            .map(|c| &c.access)
    }

    /// The plan with why each batch starts and what each call touches,
    /// one line per batch and per call, for UIs and logs:
    ///
    /// ```text
    /// batch 0: concurrent, at most 10 at once (first batch)
    ///   #0 edit_file: writes path /w/a.rs
    ///   #1 edit_file: writes path /w/b.rs
    /// batch 1: concurrent, at most 10 at once (reads path /w/a.rs, which #0 writes path /w/a.rs)
    ///   #2 read_file: reads path /w/a.rs
    /// ```
    pub fn explain(&self) -> impl fmt::Display + '_ {
        Explained(self)
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, batch) in self.batches.iter().enumerate() {
            write_heading(f, self, n, batch)?;
            f.write_str(":")?;
            for (i, call) in batch.calls.iter().enumerate() {
                let sep = if i == 0 { " " } else { ", " };
                write!(
                    f,
                    "{sep}#{} {} ({})",
                    call.index,
                    call.tool.name(),
                    call.class
                )?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

fn write_heading(f: &mut fmt::Formatter<'_>, plan: &Plan, n: usize, batch: &Batch) -> fmt::Result {
    match batch.mode {
        BatchMode::Concurrent => write!(
            f,
            "batch {n}: concurrent, at most {} at once",
            plan.max_concurrency
        ),
        BatchMode::Serial => write!(f, "batch {n}: serial"),
    }
}

struct Explained<'a>(&'a Plan);

impl fmt::Display for Explained<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plan = self.0;
        for (n, batch) in plan.batches.iter().enumerate() {
            write_heading(f, plan, n, batch)?;
            writeln!(f, " ({})", batch.reason)?;
            for call in &batch.calls {
                writeln!(f, "  #{} {}: {}", call.index, call.tool.name(), call.access)?;
            }
        }
        Ok(())
    }
}

/// Groups classified calls (in call order) into batches: a call the rule
/// runs alone is a serial batch of its own; any other joins the open
/// concurrent batch when the rule admits it, or opens a new one. Each
/// batch records why it starts.
///
/// `max_concurrency` bounds how many calls of a batch run at once, not how
/// many a batch holds: every call of a batch is free of conflict with
/// every other, so any of them may run together.
pub(crate) fn plan(
    calls: impl IntoIterator<Item = PlanItem>,
    rule: &dyn ConflictRule,
    max_concurrency: NonZeroUsize,
) -> Plan {
    let mut batches: Vec<Batch> = Vec::new();
    // The open batch, and the rule's record of it, made only when a second
    // call is offered: an empty batch takes any call, so a batch of one
    // (every one-call turn) never builds an index.
    let mut open: Option<(Batch, Option<Box<dyn OpenBatch + '_>>)> = None;
    for call in calls {
        if rule.runs_alone(&call) {
            let reason = if batches.is_empty() && open.is_none() {
                BatchReason::First
            } else {
                BatchReason::RunsAlone
            };
            batches.extend(open.take().map(|(batch, _)| batch));
            batches.push(Batch {
                mode: BatchMode::Serial,
                calls: vec![call],
                reason,
            });
            continue;
        }
        let reason = match &mut open {
            Some((batch, record)) => {
                let record = record.get_or_insert_with(|| {
                    let mut record = rule.open_batch();
                    // An empty batch takes any call; what it answers is moot.
                    let _ = record.admit(&batch.calls[0]);
                    record
                });
                match record.admit(&call) {
                    Ok(()) => {
                        batch.calls.push(call);
                        continue;
                    }
                    Err(conflict) => BatchReason::Conflict(*conflict),
                }
            }
            None => match batches.last().and_then(|b| b.calls.last()) {
                Some(alone) => BatchReason::AfterAlone {
                    earlier: alone.index,
                },
                None => BatchReason::First,
            },
        };
        batches.extend(open.take().map(|(batch, _)| batch));
        open = Some((
            Batch {
                mode: BatchMode::Concurrent,
                calls: vec![call],
                reason,
            },
            None,
        ));
    }
    batches.extend(open.map(|(batch, _)| batch));
    Plan {
        batches,
        max_concurrency,
    }
}
