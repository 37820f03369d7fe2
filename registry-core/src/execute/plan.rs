//! The planner: a pure function from classified calls to batches.
//!
//! Which calls may share a batch is a [`ConflictRule`], so a richer rule
//! (declared resource accesses) replaces the default without touching the
//! runner, which only ever reads a [`Plan`].

use std::fmt;
use std::num::NonZeroUsize;

use super::classify::CallClass;
use crate::handle::ToolHandle;

/// One call as the planner sees it.
#[derive(Debug, Clone)]
pub struct PlanItem {
    /// Position in the turn.
    pub index: usize,
    /// The tool that runs it.
    pub tool: ToolHandle,
    /// Its class.
    pub class: CallClass,
}

/// Decides which calls may run at the same time.
pub trait ConflictRule: Send + Sync {
    /// Whether `call` may run concurrently with anything at all. A call
    /// that may not forms a serial batch of its own.
    fn may_share(&self, call: &PlanItem) -> bool;

    /// Whether `next` may join `batch` (the calls of the open concurrent
    /// batch, in call order, each of which `may_share`), running at the
    /// same time as every one of them.
    fn may_join(&self, batch: &[PlanItem], next: &PlanItem) -> bool;
}

/// The default rule: concurrency-safe calls never conflict with one
/// another; any other call runs alone.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConcurrencySafeRule;

impl ConflictRule for ConcurrencySafeRule {
    fn may_share(&self, call: &PlanItem) -> bool {
        call.class.concurrency_safe
    }

    fn may_join(&self, _batch: &[PlanItem], next: &PlanItem) -> bool {
        next.class.concurrency_safe
    }
}

/// How a batch runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchMode {
    /// Its calls run at the same time (bounded by the plan's limit).
    Concurrent,
    /// One call, alone.
    Serial,
}

/// Calls that run together; batches run one after another.
#[derive(Debug, Clone)]
pub struct Batch {
    /// Concurrent or serial.
    pub mode: BatchMode,
    /// The calls, in call order.
    pub calls: Vec<PlanItem>,
}

/// A turn's batches, in the order they run.
///
/// ```text
/// batch 0: concurrent, at most 10 at once: #0 read_file, #1 grep
/// batch 1: serial: #2 write_file
/// ```
#[derive(Debug, Clone)]
pub struct Plan {
    /// The batches.
    pub batches: Vec<Batch>,
    /// How many calls of a concurrent batch may run at once.
    pub max_concurrency: NonZeroUsize,
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
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, batch) in self.batches.iter().enumerate() {
            match batch.mode {
                BatchMode::Concurrent => write!(
                    f,
                    "batch {n}: concurrent, at most {} at once:",
                    self.max_concurrency
                )?,
                BatchMode::Serial => write!(f, "batch {n}: serial:")?,
            }
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

/// Groups classified calls (in call order) into batches: a call the rule
/// lets share joins the open concurrent batch when the rule allows it, or
/// opens a new one; any other call is a serial batch of its own.
pub fn plan(
    calls: impl IntoIterator<Item = PlanItem>,
    rule: &dyn ConflictRule,
    max_concurrency: NonZeroUsize,
) -> Plan {
    let mut batches: Vec<Batch> = Vec::new();
    let mut open: Option<Batch> = None;
    for call in calls {
        if !rule.may_share(&call) {
            batches.extend(open.take());
            batches.push(Batch {
                mode: BatchMode::Serial,
                calls: vec![call],
            });
            continue;
        }
        match &mut open {
            Some(batch) if rule.may_join(&batch.calls, &call) => batch.calls.push(call),
            _ => {
                batches.extend(open.take());
                open = Some(Batch {
                    mode: BatchMode::Concurrent,
                    calls: vec![call],
                });
            }
        }
    }
    batches.extend(open);
    Plan {
        batches,
        max_concurrency,
    }
}
