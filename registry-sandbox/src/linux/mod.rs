//! The Linux guards: `child` sets the sandbox up between fork and exec,
//! `identity` names a program start, `tracer` follows the process tree.

mod child;
mod identity;
mod tracer;

use std::ffi::OsString;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use tokio::io::AsyncReadExt;

use self::child::{ChildSetup, Layout};
use self::identity::Known;
use self::tracer::{Shared, Traced};
use crate::command::{Output, SandboxError, SandboxedCommand};
use crate::policy::Policy;
use crate::probe::{FsMechanism, Guarantees, NetMechanism};

fn landlock_abi() -> i32 {
    // LANDLOCK_CREATE_RULESET_VERSION: the ABI version, or an error.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    i32::try_from(version).unwrap_or(0).max(0)
}

/// Starts `true` with `setup` in the child, on this thread, and waits for
/// it; `traced` expects the exec stop of `PTRACE_TRACEME`.
fn try_child(
    setup: impl FnMut() -> io::Result<()> + Send + Sync + 'static,
    traced: bool,
) -> Result<(), String> {
    let mut command = Command::new("true");
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    unsafe { command.pre_exec(setup) };
    let child = command.spawn().map_err(|e| e.to_string())?;
    let pid = Pid::from_raw(child.id() as i32);
    loop {
        match waitpid(pid, Some(WaitPidFlag::__WALL)) {
            Ok(WaitStatus::Stopped(_, Signal::SIGTRAP)) if traced => {
                let _ = kill(pid, Signal::SIGKILL);
            }
            Ok(WaitStatus::Exited(_, 0)) => return Ok(()),
            Ok(WaitStatus::Signaled(_, Signal::SIGKILL, _)) if traced => return Ok(()),
            Ok(WaitStatus::Exited(_, code)) => return Err(format!("the probe exited with {code}")),
            Ok(other) if !traced => return Err(format!("the probe ended as {other:?}")),
            Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
            Err(errno) => return Err(errno.to_string()),
        }
    }
}

/// Tries each mechanism in a child of its own.
pub(crate) fn probe() -> Guarantees {
    let landlock_abi = landlock_abi();
    // Each probe spawns and waits on one thread of its own, as the guard
    // itself does.
    let on_thread = |f: fn() -> Result<(), String>| {
        std::thread::spawn(f)
            .join()
            .unwrap_or_else(|_| Err("the probe panicked".to_owned()))
    };
    let exec_guard = on_thread(|| {
        let dir = std::env::temp_dir();
        let layout = Layout {
            root: &dir,
            tmp: &dir,
            writable: &[],
            guards: &[],
            network: &[crate::NetworkAllow::new("probe", 1)],
            mount_namespace: false,
            landlock_abi: 0,
            traced: true,
            net_namespace: false,
            user_namespace: false,
        };
        let mut setup = ChildSetup::new(&layout).map_err(|e| e.to_string())?;
        try_child(move || setup.apply(), true)
            .map_err(|why| format!("ptrace or seccomp is not available: {why}"))
    });
    // Root makes the namespaces directly; anyone else inside a user
    // namespace of their own (where the kernel allows that).
    let user_namespace = unsafe { libc::geteuid() } != 0;
    let with_user = |flags: nix::sched::CloneFlags| {
        let maps = child::IdMaps::own();
        move || {
            let user = if unsafe { libc::geteuid() } != 0 {
                nix::sched::CloneFlags::CLONE_NEWUSER
            } else {
                nix::sched::CloneFlags::empty()
            };
            nix::sched::unshare(flags | user)?;
            if !user.is_empty() {
                maps.apply()?;
            }
            Ok(())
        }
    };
    let mount = std::thread::spawn(move || {
        try_child(with_user(nix::sched::CloneFlags::CLONE_NEWNS), false)
    })
    .join()
    .unwrap_or_else(|_| Err("the probe panicked".to_owned()));
    let fs_guard = match (mount, landlock_abi) {
        (Ok(()), _) => Ok(FsMechanism::MountNamespace),
        (Err(_), abi) if abi >= 1 => Ok(FsMechanism::LandlockOnly),
        (Err(why), _) => Err(format!("no mount namespace ({why}) and no Landlock")),
    };
    let network = std::thread::spawn(move || {
        try_child(with_user(nix::sched::CloneFlags::CLONE_NEWNET), false)
    })
    .join()
    .unwrap_or_else(|_| Err("the probe panicked".to_owned()))
    .map(|()| NetMechanism::Namespace)
    .map_err(|why| format!("no network namespace: {why}"));
    Guarantees {
        exec_guard,
        fs_guard,
        network,
        landlock_abi,
        user_namespace,
    }
}

/// Kills the command's shell when the caller stops waiting; the tracer
/// then ends the rest of the tree.
struct KillOnDrop {
    shared: Arc<Shared>,
    pidfd: Option<OwnedFd>,
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        self.shared.kill.store(true, Ordering::Release);
        if let Some(fd) = &self.pidfd {
            // A pidfd names this process and no other: never a reused pid.
            let _ = rustix::process::pidfd_send_signal(fd, rustix::process::Signal::KILL);
        }
    }
}

struct Started {
    stdout: OwnedFd,
    stderr: OwnedFd,
    pidfd: Option<OwnedFd>,
}

pub(crate) async fn run(
    command: &SandboxedCommand,
    policy: Policy,
) -> Result<Output, SandboxError> {
    let cwd = command.cwd.clone().ok_or(SandboxError::NoWorkingDir)?;
    let root = std::fs::canonicalize(&cwd).map_err(|source| SandboxError::Spawn { source })?;
    let tmp = tempfile::Builder::new()
        .prefix("registry-sandbox-")
        .tempdir()
        .map_err(|source| SandboxError::Spawn { source })?;
    let machine = crate::probe();
    // Traced even with nothing to stop (`bypass`, no deny rule): the tracer
    // is also what finds every process of the command to end it, where a
    // process group is escaped by `setsid`.
    // Where the machine lacks a guard (a person accepted that, see
    // `Policy::accept_missing`), the others still apply.
    let traced = policy.enforce && machine.exec_guard.is_ok();
    let setup = if policy.enforce {
        let layout = Layout {
            root: &root,
            tmp: tmp.path(),
            writable: &policy.writable,
            guards: &policy.guards,
            network: &policy.network,
            mount_namespace: machine.fs_guard == Ok(FsMechanism::MountNamespace),
            landlock_abi: machine.landlock_abi,
            traced,
            net_namespace: machine.network.is_ok(),
            user_namespace: machine.user_namespace,
        };
        Some(ChildSetup::new(&layout).map_err(|source| SandboxError::Spawn { source })?)
    } else {
        None
    };
    let path = command
        .env_set
        .iter()
        .rev()
        .find(|(name, _)| name == "PATH")
        .map(|(_, value)| value.clone())
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_else(|| OsString::from("/usr/bin:/bin"));
    let known = Known::new(
        policy
            .rules
            .named_programs()
            .map(str::to_owned)
            .collect::<Vec<_>>(),
        policy
            .prediction
            .names
            .iter()
            .chain(&policy.prediction.paths)
            .cloned()
            .collect::<Vec<_>>(),
        policy.prediction.wrappers.clone(),
        path,
        root.clone(),
    );

    let mut std_command = Command::new(&command.program);
    std_command
        .args(&command.args)
        .current_dir(&root)
        // With the mount namespace the private directory is `/tmp` itself.
        .env(
            "TMPDIR",
            if policy.enforce && machine.fs_guard == Ok(FsMechanism::MountNamespace) {
                Path::new("/tmp")
            } else {
                tmp.path()
            },
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for name in &command.env_remove {
        std_command.env_remove(name);
    }
    for (name, value) in &command.env_set {
        std_command.env(name, value);
    }
    if !traced {
        // What ends the command's processes when the tracer cannot.
        std_command.process_group(0);
    }
    if let Some(mut setup) = setup {
        unsafe { std_command.pre_exec(move || setup.apply()) };
    }

    let shared = Arc::new(Shared::default());
    let (started_tx, started_rx) = tokio::sync::oneshot::channel::<io::Result<Started>>();
    let (done_tx, done_rx) = tokio::sync::oneshot::channel::<io::Result<Traced>>();
    let rules = policy.rules;
    let thread_shared = Arc::clone(&shared);
    let spawned = std::thread::Builder::new()
        .name("registry-sandbox-guard".to_owned())
        .spawn(move || {
            let mut known = known;
            let mut child = match std_command.spawn() {
                Ok(child) => child,
                Err(err) => {
                    let _ = started_tx.send(Err(err));
                    return;
                }
            };
            let pid = Pid::from_raw(child.id() as i32);
            let pidfd = rustix::process::Pid::from_raw(pid.as_raw()).and_then(|p| {
                rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()).ok()
            });
            let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
                let _ = kill(pid, Signal::SIGKILL);
                let _ = started_tx.send(Err(io::Error::other("no pipes")));
                return;
            };
            let _ = started_tx.send(Ok(Started {
                stdout: stdout.into(),
                stderr: stderr.into(),
                pidfd,
            }));
            let outcome = if traced {
                tracer::trace(pid, &rules, &mut known, &thread_shared)
            } else {
                untraced_wait(pid)
            };
            let _ = done_tx.send(outcome);
        });
    if let Err(source) = spawned {
        return Err(SandboxError::Spawn { source });
    }
    let started = started_rx
        .await
        .map_err(|_| SandboxError::Spawn {
            source: io::Error::other("the guard thread ended"),
        })?
        .map_err(|source| SandboxError::Spawn { source })?;
    let _kill = KillOnDrop {
        shared: Arc::clone(&shared),
        pidfd: started.pidfd,
    };
    let limit = command.max_capture;
    let (out, err, traced) = tokio::join!(
        capture(started.stdout, limit),
        capture(started.stderr, limit),
        done_rx
    );
    let traced = traced
        .map_err(|_| SandboxError::Trace {
            source: io::Error::other("the guard thread ended"),
        })?
        .map_err(|source| SandboxError::Trace { source })?;
    let (stdout, stdout_total) = out.map_err(|source| SandboxError::Trace { source })?;
    let (stderr, stderr_total) = err.map_err(|source| SandboxError::Trace { source })?;
    drop(tmp);
    Ok(Output {
        code: traced.code,
        signal: traced.signal,
        stdout,
        stdout_total,
        stderr,
        stderr_total,
        stopped: traced.stopped,
    })
}

/// Without the guards: wait for the shell, then end its process group.
fn untraced_wait(pid: Pid) -> io::Result<Traced> {
    let mut traced = Traced::default();
    loop {
        match waitpid(pid, None) {
            Ok(WaitStatus::Exited(_, code)) => {
                traced.code = Some(code);
                break;
            }
            Ok(WaitStatus::Signaled(_, signal, _)) => {
                traced.signal = Some(signal as i32);
                break;
            }
            Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
            Err(errno) => return Err(errno.into()),
        }
    }
    let _ = nix::sys::signal::killpg(pid, Signal::SIGKILL);
    Ok(traced)
}

/// Reads a pipe to its end, keeping the first `limit` bytes.
async fn capture(fd: OwnedFd, limit: usize) -> io::Result<(Vec<u8>, usize)> {
    let mut pipe = tokio::net::unix::pipe::Receiver::from_owned_fd(fd)?;
    let mut kept = Vec::new();
    let mut total = 0usize;
    let mut buffer = [0u8; 8192];
    loop {
        let n = pipe.read(&mut buffer).await?;
        if n == 0 {
            return Ok((kept, total));
        }
        total += n;
        let room = limit.saturating_sub(kept.len());
        kept.extend_from_slice(&buffer[..n.min(room)]);
    }
}
