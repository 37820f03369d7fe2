//! The exec guard's loop: one thread that started the command follows
//! every process of it through ptrace and judges every program start at
//! its exec stop.
//!
//! Why this point is race-free: at `PTRACE_EVENT_EXEC` the new image is
//! in place, has exactly one thread (exec ended the others) and has not
//! run an instruction; nobody else can write its memory (the seccomp
//! filter refuses `ptrace` and `process_vm_writev`, Landlock refuses
//! writing `/proc/PID/mem`), so the file and argument vector read now are
//! the ones that would run.

use std::collections::{HashMap, HashSet};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use nix::errno::Errno;
use nix::sys::ptrace::{self, Event, Options};
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use registry_core::__private::enforce::{Lineage, ProgramRules, ProgramStart, ProgramVerdict};

use super::identity::{self, Known};
use crate::command::Stopped;

/// What the async side and the tracer share.
#[derive(Debug, Default)]
pub(super) struct Shared {
    /// Set when the caller gave up on the command (timeout, drop).
    pub kill: AtomicBool,
}

/// How the command ended.
#[derive(Debug, Default)]
pub(super) struct Traced {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stopped: Option<Stopped>,
}

struct Tree {
    lineage: HashMap<Pid, Lineage>,
    /// Fork event seen, the child's first stop not yet.
    awaiting: HashSet<Pid>,
    /// First stop seen before the parent's fork event.
    early: HashSet<Pid>,
    killing: bool,
}

impl Tree {
    fn kill_all(&mut self) {
        self.killing = true;
        for pid in self.lineage.keys().chain(&self.early) {
            let _ = kill(*pid, Signal::SIGKILL);
        }
    }

    fn forget(&mut self, pid: Pid) {
        self.lineage.remove(&pid);
        self.awaiting.remove(&pid);
        self.early.remove(&pid);
    }
}

const OPTIONS: Options = Options::PTRACE_O_EXITKILL
    .union(Options::PTRACE_O_TRACEEXEC)
    .union(Options::PTRACE_O_TRACEFORK)
    .union(Options::PTRACE_O_TRACEVFORK)
    .union(Options::PTRACE_O_TRACECLONE);

/// Follows the command started as `root` (stopped at its first exec by
/// `PTRACE_TRACEME`) to its end. Must run on the thread that spawned it.
pub(super) fn trace(
    root: Pid,
    rules: &ProgramRules,
    known: &mut Known,
    shared: &Shared,
) -> io::Result<Traced> {
    let mut traced = Traced::default();
    // The shell's own exec: the tool's machinery, not the model's choice.
    loop {
        match waitpid(root, Some(WaitPidFlag::__WALL)) {
            Ok(WaitStatus::Stopped(_, Signal::SIGTRAP)) => break,
            Ok(WaitStatus::Exited(_, code)) => {
                traced.code = Some(code);
                return Ok(traced);
            }
            Ok(WaitStatus::Signaled(_, signal, _)) => {
                traced.signal = Some(signal as i32);
                return Ok(traced);
            }
            Ok(_) | Err(Errno::EINTR) => continue,
            Err(errno) => {
                let _ = kill(root, Signal::SIGKILL);
                return Err(errno.into());
            }
        }
    }
    if let Err(errno) = ptrace::setoptions(root, OPTIONS) {
        let _ = kill(root, Signal::SIGKILL);
        return Err(errno.into());
    }
    let mut tree = Tree {
        lineage: HashMap::from([(root, Lineage::Shell)]),
        awaiting: HashSet::new(),
        early: HashSet::new(),
        killing: false,
    };
    let _ = ptrace::cont(root, None);
    loop {
        let status = match waitpid(None, Some(WaitPidFlag::__WALL | WaitPidFlag::__WNOTHREAD)) {
            Ok(status) => status,
            Err(Errno::EINTR) => continue,
            Err(Errno::ECHILD) => break,
            Err(errno) => {
                tree.kill_all();
                return Err(errno.into());
            }
        };
        if shared.kill.load(Ordering::Acquire) && !tree.killing {
            tree.kill_all();
        }
        match status {
            WaitStatus::PtraceEvent(pid, _, event)
                if event == Event::PTRACE_EVENT_FORK as i32
                    || event == Event::PTRACE_EVENT_VFORK as i32
                    || event == Event::PTRACE_EVENT_CLONE as i32 =>
            {
                if let Ok(raw) = ptrace::getevent(pid) {
                    let child = Pid::from_raw(raw as i32);
                    let lineage = tree.lineage.get(&pid).copied().unwrap_or(Lineage::Shell);
                    tree.lineage.insert(child, lineage);
                    if tree.killing {
                        let _ = kill(child, Signal::SIGKILL);
                    }
                    if tree.early.remove(&child) {
                        let _ = ptrace::cont(child, None);
                    } else {
                        tree.awaiting.insert(child);
                    }
                }
                let _ = ptrace::cont(pid, None);
            }
            WaitStatus::PtraceEvent(pid, _, event) if event == Event::PTRACE_EVENT_EXEC as i32 => {
                // A thread other than the leader may have called exec: its
                // lineage is the former thread's.
                let former = ptrace::getevent(pid)
                    .ok()
                    .map(|raw| Pid::from_raw(raw as i32))
                    .filter(|former| *former != pid);
                let lineage = former
                    .and_then(|f| tree.lineage.remove(&f))
                    .or_else(|| tree.lineage.get(&pid).copied())
                    .unwrap_or(Lineage::Shell);
                match judge(pid, lineage, rules, known) {
                    Ok(next) => {
                        tree.lineage.insert(pid, next);
                        let _ = ptrace::cont(pid, None);
                    }
                    Err(stopped) => {
                        tracing::warn!(
                            program = %stopped.program.display(),
                            reason = %stopped.reason,
                            "exec guard stopped a program"
                        );
                        traced.stopped.get_or_insert(stopped);
                        tree.lineage.insert(pid, lineage);
                        tree.kill_all();
                    }
                }
            }
            WaitStatus::PtraceEvent(pid, _, _) => {
                let _ = ptrace::cont(pid, None);
            }
            WaitStatus::Stopped(pid, signal) => {
                if !tree.lineage.contains_key(&pid) {
                    // A new child's first stop, before its parent's fork
                    // event: held until its lineage is known.
                    tree.early.insert(pid);
                    if tree.killing {
                        let _ = kill(pid, Signal::SIGKILL);
                    }
                } else if signal == Signal::SIGSTOP && tree.awaiting.remove(&pid) {
                    let _ = ptrace::cont(pid, None);
                } else if matches!(
                    signal,
                    Signal::SIGSTOP | Signal::SIGTSTP | Signal::SIGTTIN | Signal::SIGTTOU
                ) && ptrace::getsiginfo(pid) == Err(Errno::EINVAL)
                {
                    // A group-stop, not a signal to deliver (only the
                    // stopping signals can cause one).
                    let _ = ptrace::cont(pid, None);
                } else {
                    let _ = ptrace::cont(pid, Some(signal));
                }
            }
            WaitStatus::Exited(pid, code) => {
                tree.forget(pid);
                if pid == root {
                    traced.code = Some(code);
                    // The shell is gone: so is everything it left behind.
                    tree.kill_all();
                }
            }
            WaitStatus::Signaled(pid, signal, _) => {
                tree.forget(pid);
                if pid == root {
                    traced.signal = Some(signal as i32);
                    tree.kill_all();
                }
            }
            _ => {}
        }
    }
    Ok(traced)
}

/// Judges the program `pid` is about to run: `Ok(lineage)` of the new
/// program, or why it was stopped. A start whose program cannot be read
/// is stopped: what cannot be read cannot be vouched for.
fn judge(
    pid: Pid,
    lineage: Lineage,
    rules: &ProgramRules,
    known: &mut Known,
) -> Result<Lineage, Stopped> {
    let start = match identity::read_start(pid.as_raw()) {
        Ok(start) => start,
        Err(err) => {
            return Err(Stopped {
                program: format!("/proc/{pid}/exe").into(),
                argv: Vec::new(),
                reason: format!("its program could not be read ({err})"),
            });
        }
    };
    let named = identity::name(&start, known);
    let names: Vec<&str> = named.names.iter().map(String::as_str).collect();
    let verified: Vec<&str> = named.verified.iter().map(String::as_str).collect();
    let verdict = rules.judge(&ProgramStart {
        names: &names,
        verified_names: &verified,
        args: &named.args,
        lineage,
        predicted: named.predicted,
    });
    match verdict {
        ProgramVerdict::Run { .. } if lineage == Lineage::Program || !named.transparent => {
            Ok(Lineage::Program)
        }
        ProgramVerdict::Run { .. } => Ok(Lineage::Shell),
        ProgramVerdict::Stop { reason } => Err(Stopped {
            program: start.exe,
            argv: start.argv,
            reason,
        }),
    }
}
