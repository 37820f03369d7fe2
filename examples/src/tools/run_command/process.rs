//! Running one command and making sure nothing it started outlives the
//! call.
//!
//! The shell runs in a new process group (its pid is the group id), and a
//! [`Containment`] guard owns that group: when the shell exits normally,
//! when the timeout expires, and when the call's future is dropped
//! mid-run, the whole group gets `SIGKILL`. A normal exit therefore also
//! ends background jobs (`sleep 1000 &`); a command that wants their
//! output waits for them (`wait`).
//!
//! What escapes a process group: `setsid` (a new session), a shell with
//! job control (`set -m` gives each job its own group) and any program
//! that calls `setpgid`/`setsid` itself. On Linux those are still caught
//! when they keep the marker: every process the call starts inherits
//! [`RUN_MARKER_VAR`] in its environment, and the guard also kills every
//! process of the same user whose initial environment carries this call's
//! marker (found under `/proc`). What escapes that too: a process started
//! with a cleared environment (`setsid env -i sleep 1000 &`), and anything
//! handed to another service (`systemd-run`, `at`, a container runtime).
//! Containing those needs a cgroup or a PID namespace, which a library
//! cannot set up for its caller.

use std::io;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};

use super::{MAX_CAPTURE_BYTES, RunCommandError};

/// The environment variable that marks every process one `run_command`
/// call starts, so stray ones can be found and killed (Linux only). Its
/// value is unique per call.
pub const RUN_MARKER_VAR: &str = "REGISTRY_RUN_COMMAND_ID";

/// Environment changes for one run.
#[derive(Debug, Default, Clone)]
pub(super) struct Environment {
    pub set: Vec<(String, String)>,
    pub remove: Vec<String>,
}

/// One captured output stream.
pub(super) struct Captured {
    pub kept: Vec<u8>,
    pub total: usize,
}

/// A command that ran to the end.
pub(super) struct Finished {
    pub status: ExitStatus,
    pub stdout: Captured,
    pub stderr: Captured,
}

/// Runs `shell -c command` in `root` with `env`, for at most `limit`.
pub(super) async fn run(
    root: &Path,
    shell: super::Shell,
    command: &str,
    limit: Duration,
    env: &Environment,
) -> Result<Finished, RunCommandError> {
    let marker = next_marker();
    let mut cmd = tokio::process::Command::new(shell.program());
    cmd.arg("-c")
        .arg(command)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env(RUN_MARKER_VAR, &marker)
        .kill_on_drop(true);
    for name in &env.remove {
        cmd.env_remove(name);
    }
    for (name, value) in &env.set {
        cmd.env(name, value);
    }
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|source| RunCommandError::Spawn { source })?;
    // From here on, dropping this future (or returning) kills the group.
    let mut containment = Containment::new(child.id(), marker);
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();

    // Waiting and reading happen together, under one timeout: a background
    // child that keeps a pipe open cannot hold the call past its limit.
    let run = async {
        let wait = async {
            let status = child.wait().await;
            // The shell is gone: end whatever it left behind, which also
            // closes the pipes those processes held.
            containment.kill_all();
            status
        };
        let (status, stdout, stderr) = tokio::join!(wait, capture(stdout), capture(stderr));
        Ok::<_, io::Error>(Finished {
            status: status?,
            stdout: stdout?,
            stderr: stderr?,
        })
    };
    let outcome = tokio::time::timeout(limit, run).await;
    match outcome {
        Ok(finished) => finished.map_err(|source| RunCommandError::Wait { source }),
        Err(_elapsed) => {
            containment.kill_all();
            // Reap the shell (already killed with its group).
            let _ = child.kill().await;
            Err(RunCommandError::TimedOut {
                seconds: limit.as_secs(),
            })
        }
    }
}

/// A value for [`RUN_MARKER_VAR`] no other call of this process uses, and
/// no other process (the pid is part of it).
fn next_marker() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Reads a stream to its end, keeping the first [`MAX_CAPTURE_BYTES`].
async fn capture(stream: Option<impl AsyncRead + Unpin>) -> io::Result<Captured> {
    let mut captured = Captured {
        kept: Vec::new(),
        total: 0,
    };
    let Some(mut stream) = stream else {
        return Ok(captured);
    };
    let mut buffer = [0u8; 8192];
    loop {
        let n = stream.read(&mut buffer).await?;
        if n == 0 {
            return Ok(captured);
        }
        captured.total += n;
        let room = MAX_CAPTURE_BYTES.saturating_sub(captured.kept.len());
        captured.kept.extend_from_slice(&buffer[..n.min(room)]);
    }
}

/// Owns everything one call started: its process group and, on Linux, the
/// processes carrying its marker. Killing happens once, at the first of:
/// the shell's exit, the timeout, or drop.
pub(super) struct Containment {
    group: Option<u32>,
    marker: String,
    done: bool,
}

impl Containment {
    fn new(group: Option<u32>, marker: String) -> Containment {
        Containment {
            group,
            marker,
            done: false,
        }
    }

    /// `SIGKILL` to the group, then to marked strays. Idempotent: once the
    /// group is gone its id may be reused by an unrelated process group,
    /// so it is signalled only once.
    fn kill_all(&mut self) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        #[cfg(unix)]
        if let Some(pid) = self
            .group
            .and_then(|g| i32::try_from(g).ok())
            .and_then(rustix::process::Pid::from_raw)
        {
            // ESRCH (the group already ended) is the common, fine case.
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        #[cfg(target_os = "linux")]
        sweep_marked(&self.marker);
        #[cfg(not(target_os = "linux"))]
        let _ = &self.marker;
    }
}

impl Drop for Containment {
    fn drop(&mut self) {
        self.kill_all();
    }
}

/// Kills every process whose initial environment holds
/// `RUN_MARKER_VAR=marker`. A few rounds, so children forked while the
/// first round ran are caught too; bounded, so a fork bomb cannot hold the
/// caller.
#[cfg(target_os = "linux")]
fn sweep_marked(marker: &str) {
    const ROUNDS: usize = 3;
    let needle = format!("{RUN_MARKER_VAR}={marker}").into_bytes();
    for _ in 0..ROUNDS {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return;
        };
        let mut found = false;
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<i32>().ok())
                .and_then(rustix::process::Pid::from_raw)
            else {
                continue;
            };
            // Other users' processes are unreadable: they cannot be ours.
            let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
                continue;
            };
            if environ
                .split(|b| *b == 0)
                .any(|var| var == needle.as_slice())
            {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                found = true;
            }
        }
        if !found {
            return;
        }
    }
}
