//! Running one command under the call's rules, through
//! [`registry_sandbox::SandboxedCommand`].
//!
//! The sandbox follows every process the command starts (ptrace), so
//! nothing escapes it the way a process group or an environment marker
//! can be escaped (`setsid`, `env -i`): when the shell exits, when the
//! timeout expires and when the call's future is dropped, every process
//! of the command is killed. A normal exit therefore also ends background
//! jobs (`sleep 1000 &`); a command that wants their output waits for them
//! (`wait`). Every process still carries [`RUN_MARKER_VAR`] (unique per
//! call), so a test can look for leftovers under `/proc`.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use registry_sandbox::{Output, Policy, SandboxedCommand};

use super::{MAX_CAPTURE_BYTES, RunCommandError};

/// The environment variable that marks every process one `run_command`
/// call starts. Its value is unique per call.
pub const RUN_MARKER_VAR: &str = "REGISTRY_RUN_COMMAND_ID";

/// Environment changes for one run.
#[derive(Debug, Default, Clone)]
pub(super) struct Environment {
    pub set: Vec<(String, String)>,
    pub remove: Vec<String>,
}

/// Runs `shell -c command` in `root` with `env` under `policy`, for at
/// most `limit`.
pub(super) async fn run(
    root: &Path,
    shell: super::Shell,
    command: &str,
    limit: Duration,
    env: &Environment,
    policy: Policy,
) -> Result<Output, RunCommandError> {
    let mut cmd = SandboxedCommand::new(shell.program())
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .env(RUN_MARKER_VAR, next_marker())
        .max_capture(MAX_CAPTURE_BYTES);
    for name in &env.remove {
        cmd = cmd.env_remove(name);
    }
    for (name, value) in &env.set {
        cmd = cmd.env(name, value);
    }
    // Dropping the output future (here, at the timeout) ends every
    // process of the command.
    match tokio::time::timeout(limit, cmd.output(policy)).await {
        Ok(output) => Ok(output?),
        Err(_elapsed) => Err(RunCommandError::TimedOut {
            seconds: limit.as_secs(),
        }),
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
