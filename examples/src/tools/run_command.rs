//! `run_command`: run a shell command in the workspace.
//!
//! # Posture: decided per call
//!
//! One shell tool can `ls` or `rm -rf`, so no fixed answer would be right.
//! Each posture is computed on the parsed command by
//! [`command_safety`](crate::command_safety):
//!
//! - `read_only = is_read_only_command`: an allowlist that fails closed.
//! - `concurrency_safe = is_read_only_command`: only commands known to
//!   only read may run alongside other calls; anything else runs alone.
//! - `destructive = is_destructive_command`: flags `rm`, `mv`, `dd`,
//!   truncating `>` and friends, so a runtime can ask before them.
//! - `classifier_input = the command`: a runtime's safety classifier sees
//!   exactly the text that will run.
//!
//! # Permission
//!
//! `Deny` without a sandbox (there would be no working directory to run
//! in), `Ask` for a destructive command (a person confirms), and otherwise
//! [`PermissionDecision::Delegate`]. It never says `Allow`: the command runs
//! with the sandbox root as its working directory, but nothing stops it
//! from naming paths outside it (`cat /etc/hostname` is read-only *and*
//! outside). The sandbox is not a jail for this tool; the general policy
//! and the classifier decide.
//!
//! # Timeout
//!
//! The command runs in its own process group (on Unix); when it times out
//! the whole group is killed, so no background child is left running.

use std::io;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use registry_core::{PermissionDecision, Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::command_safety::{is_destructive_command, is_read_only_command};
use crate::sandbox::{Sandbox, SandboxError};

/// Seconds a command may run when the call does not say.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// The longest timeout a call may ask for.
pub const MAX_TIMEOUT_SECS: u64 = 600;

/// Bytes of each stream kept; the rest is counted and dropped.
pub const MAX_CAPTURE_BYTES: usize = 1024 * 1024;

/// Run a shell command (`sh -c`) with the workspace root as the working
/// directory, and return its exit code, standard output and standard
/// error.
///
/// Arguments:
/// - `command`: the command line, e.g. `ls -la`, `cargo test 2>&1 | tail`.
/// - `timeout_secs` (optional): seconds before the command is killed;
///   default 30, at most 600.
///
/// Standard input is empty. A non-zero exit code is reported, not treated
/// as a failure of the tool. Prefer `read_file`, `list_dir`, `glob` and
/// `grep` for reading and searching: they are faster to approve. Commands
/// that delete or overwrite files may require confirmation.
#[tool(
    name = "run_command",
    concurrency_safe = |i: &RunCommandInput| is_read_only_command(&i.command),
    read_only = |i: &RunCommandInput| is_read_only_command(&i.command),
    destructive = |i: &RunCommandInput| is_destructive_command(&i.command),
    classifier_input = |i: &RunCommandInput| i.command.clone(),
    search_hint = "shell bash terminal execute exec program",
)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RunCommand;

/// The arguments of `run_command`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunCommandInput {
    /// The shell command to run with `sh -c`, in the workspace root.
    pub command: String,
    /// Seconds before the command is killed. Defaults to 30; at most 600.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
}

fn default_timeout() -> u64 {
    DEFAULT_TIMEOUT_SECS
}

/// Why `run_command` failed. A command that runs and exits non-zero is not
/// an error: its exit code is part of the result.
#[derive(Debug, thiserror::Error)]
pub enum RunCommandError {
    /// There is no sandbox to run in.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The command is empty or blank.
    #[error("`command` is empty; give the shell command to run")]
    EmptyCommand,
    /// `timeout_secs` is out of range.
    #[error("`timeout_secs` is {given}; it must be between 1 and {MAX_TIMEOUT_SECS}")]
    BadTimeout {
        /// The value given.
        given: u64,
    },
    /// `sh` could not be started.
    #[error("could not start `sh`: {source}")]
    Spawn {
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// Waiting for the command or reading its output failed.
    #[error("lost track of the command: {source}")]
    Wait {
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The command ran longer than its timeout and was killed.
    #[error(
        "the command did not finish within {seconds} s and was killed; raise `timeout_secs` or run something shorter"
    )]
    TimedOut {
        /// The timeout that expired.
        seconds: u64,
    },
}

impl RunCommandInput {
    fn check(&self) -> Result<(), RunCommandError> {
        if self.command.trim().is_empty() {
            return Err(RunCommandError::EmptyCommand);
        }
        if !(1..=MAX_TIMEOUT_SECS).contains(&self.timeout_secs) {
            return Err(RunCommandError::BadTimeout {
                given: self.timeout_secs,
            });
        }
        Ok(())
    }
}

impl Tool for RunCommand {
    type Input = RunCommandInput;
    type Output = String;
    type Error = RunCommandError;

    async fn call(
        &self,
        input: RunCommandInput,
        cx: &ToolContext,
    ) -> Result<String, RunCommandError> {
        input.check()?;
        let sandbox = Sandbox::from_context(cx)?;
        let finished = execute(sandbox.root(), &input.command, input.timeout_secs).await?;
        Ok(finished.render())
    }

    fn validate_input(
        &self,
        input: &RunCommandInput,
        _cx: &ToolContext,
    ) -> Result<(), Self::Error> {
        input.check()
    }

    fn check_permissions(&self, input: &RunCommandInput, cx: &ToolContext) -> PermissionDecision {
        if let Err(err) = Sandbox::from_context(cx) {
            return PermissionDecision::Deny {
                reason: err.to_string(),
            };
        }
        if is_destructive_command(&input.command) {
            return PermissionDecision::Ask {
                reason: format!("`{}` can delete or overwrite data", input.command),
            };
        }
        PermissionDecision::Delegate
    }

    /// The command line, so rules like `run_command(npm test:*)` apply.
    fn permission_content(
        &self,
        input: &RunCommandInput,
    ) -> Option<registry_core::PermissionContent> {
        Some(registry_core::PermissionContent::command(
            input.command.clone(),
        ))
    }
}

/// One captured output stream.
struct Captured {
    kept: Vec<u8>,
    total: usize,
}

/// A command that ran to the end.
struct Finished {
    status: ExitStatus,
    stdout: Captured,
    stderr: Captured,
}

impl Finished {
    fn render(&self) -> String {
        let exit = match self.status.code() {
            Some(code) => format!("exit code: {code}"),
            None => "exit code: none (killed by a signal)".to_owned(),
        };
        format!(
            "{exit}\n--- stdout ---\n{}--- stderr ---\n{}",
            render_stream("stdout", &self.stdout),
            render_stream("stderr", &self.stderr)
        )
    }
}

fn render_stream(name: &str, captured: &Captured) -> String {
    if captured.total == 0 {
        return "(empty)\n".to_owned();
    }
    let mut text = String::from_utf8_lossy(&captured.kept).into_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if captured.total > captured.kept.len() {
        text.push_str(&format!(
            "[{name} cut: kept {} of {} bytes]\n",
            captured.kept.len(),
            captured.total
        ));
    }
    text
}

async fn execute(root: &Path, command: &str, seconds: u64) -> Result<Finished, RunCommandError> {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|source| RunCommandError::Spawn { source })?;
    // The group id is the shell's pid (`process_group(0)`). Taken now:
    // once the shell has been waited for, `child.id()` is `None`, yet a
    // background child of it may still be running (and holding a pipe).
    let group = child.id();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();

    // Waiting and reading happen together, under one timeout: a background
    // child that keeps a pipe open cannot hold the call past its limit.
    let run = async {
        let (status, stdout, stderr) = tokio::join!(child.wait(), capture(stdout), capture(stderr));
        Ok::<_, io::Error>(Finished {
            status: status?,
            stdout: stdout?,
            stderr: stderr?,
        })
    };
    match tokio::time::timeout(Duration::from_secs(seconds), run).await {
        Ok(finished) => finished.map_err(|source| RunCommandError::Wait { source }),
        Err(_elapsed) => {
            kill_group(group, &mut child).await;
            Err(RunCommandError::TimedOut { seconds })
        }
    }
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

/// Kills the command's process group (everything it started), then the
/// shell itself, and reaps it. Best effort: failures leave nothing worse
/// than `kill_on_drop` would.
async fn kill_group(group: Option<u32>, child: &mut tokio::process::Child) {
    #[cfg(unix)]
    if let Some(pid) = group {
        // `kill` is a shell builtin, so this needs nothing beyond the `sh`
        // we run.
        let _ = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(format!("kill -s KILL -- -{pid}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await;
    }
    let _ = child.kill().await;
}
