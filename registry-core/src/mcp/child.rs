//! A server run as a child process, as its configuration says: working
//! directory, environment, where its standard error goes; and what it
//! said and how it ended, for the errors a user reads.
//!
//! The child is started here rather than by rmcp, so that its process
//! handle stays with the import: the exit status of a child that died
//! during the handshake can be reported, and its standard error is never
//! left to mix into the host's own output.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{ChildStdin, ChildStdout};

use super::McpError;

/// Where a child-process server's standard error goes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum StderrTo {
    /// Each line to `tracing` (target `registry_core::mcp::child`, level
    /// `info`, with the server's name): the default.
    #[default]
    Tracing,
    /// Appended to this file.
    File(PathBuf),
    /// Dropped (the last few KiB are still kept for error messages).
    Discard,
}

/// How a child-process server ended, and the end of what it wrote to
/// standard error: carried by the errors of a child that did not come up
/// ([`ConnectError`](super::ConnectError)).
///
/// Its `Display` is a phrase that follows a semicolon: "the child exited
/// (exit status: 3); its standard error ended with: ...".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildReport {
    /// How the child ended, or that it had not.
    status: ChildStatus,
    /// See [`ChildReport::stderr_tail`].
    stderr_tail: String,
}

impl ChildReport {
    /// The status the child exited with; `None` when it had not exited
    /// ([`still_running`](Self::still_running)) or its status could not
    /// be read (the `Display` then says why).
    pub fn exit_status(&self) -> Option<std::process::ExitStatus> {
        match self.status {
            ChildStatus::Exited(status) => Some(status),
            ChildStatus::Running | ChildStatus::Unknown(_) => None,
        }
    }

    /// Whether the child was still running when it was given up on (it
    /// is then killed).
    pub fn still_running(&self) -> bool {
        self.status == ChildStatus::Running
    }

    /// The last few KiB (4 KiB at most) the child wrote to standard
    /// error, as text with trailing whitespace removed; empty when it
    /// wrote nothing. Kept whatever [`StderrTo`] says.
    pub fn stderr_tail(&self) -> &str {
        &self.stderr_tail
    }
}

/// How a child-process server stood when it was given up on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChildStatus {
    /// It exited with this status.
    Exited(std::process::ExitStatus),
    /// It was still running (it is then killed).
    Running,
    /// Its status could not be read.
    Unknown(std::io::ErrorKind),
}

impl std::fmt::Display for ChildStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChildStatus::Exited(status) => write!(f, "the child exited ({status})"),
            ChildStatus::Running => f.write_str("the child is still running"),
            ChildStatus::Unknown(kind) => write!(f, "the child's status is unknown ({kind})"),
        }
    }
}

impl std::fmt::Display for ChildReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.stderr_tail.is_empty() {
            write!(f, "{}; it wrote nothing to standard error", self.status)
        } else {
            write!(
                f,
                "{}; its standard error ended with:\n{}",
                self.status, self.stderr_tail
            )
        }
    }
}

/// How a child-process server is started.
#[derive(Debug, Clone)]
pub(crate) struct ChildConfig {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) inherit_env: bool,
    pub(crate) current_dir: Option<PathBuf>,
    pub(crate) stderr: StderrTo,
}

/// How much of a child's standard error is kept for error messages.
const TAIL_BYTES: usize = 4096;

/// The longest stderr line forwarded to `tracing` as one event.
const MAX_LINE_BYTES: usize = 4096;

/// A running child: the process (killed when dropped) and the tail of its
/// standard error.
pub(crate) struct Child {
    process: tokio::process::Child,
    tail: Arc<Mutex<VecDeque<u8>>>,
    reader: Option<tokio::task::JoinHandle<()>>,
}

impl Child {
    /// Starts the child; its stdout and stdin carry MCP.
    pub(crate) fn spawn(
        server: &str,
        config: &ChildConfig,
    ) -> Result<(Child, ChildStdout, ChildStdin), McpError> {
        let mut command = tokio::process::Command::new(&config.program);
        command.args(&config.args);
        if !config.inherit_env {
            command.env_clear();
        }
        command.envs(config.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &config.current_dir {
            command.current_dir(dir);
        }
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut process = command.spawn().map_err(|source| McpError::Spawn {
            server: server.to_owned(),
            program: config.program.display().to_string(),
            source,
        })?;
        let (Some(stdout), Some(stdin), Some(stderr)) = (
            process.stdout.take(),
            process.stdin.take(),
            process.stderr.take(),
        ) else {
            return Err(McpError::Spawn {
                server: server.to_owned(),
                program: config.program.display().to_string(),
                source: std::io::Error::other("the child's standard streams were not piped"),
            });
        };
        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(TAIL_BYTES)));
        let reader = tokio::spawn(read_stderr(
            server.to_owned(),
            stderr,
            config.stderr.clone(),
            Arc::clone(&tail),
        ));
        Ok((
            Child {
                process,
                tail,
                reader: Some(reader),
            },
            stdout,
            stdin,
        ))
    }

    /// How the child ended (waiting up to `grace` for it to), and the end
    /// of what it wrote to standard error: what a user needs when a server
    /// did not come up or went away.
    pub(crate) async fn report(&mut self, grace: Duration) -> ChildReport {
        let status = match tokio::time::timeout(grace, self.process.wait()).await {
            Ok(Ok(status)) => ChildStatus::Exited(status),
            Ok(Err(err)) => ChildStatus::Unknown(err.kind()),
            Err(_) => ChildStatus::Running,
        };
        // Once it exited, its stderr reaches its end soon: read all of it.
        if let Some(reader) = self.reader.take() {
            let _ = tokio::time::timeout(grace, reader).await;
        }
        ChildReport {
            status,
            stderr_tail: self.stderr_tail(),
        }
    }

    /// The last few KiB the child wrote to standard error, as text.
    fn stderr_tail(&self) -> String {
        let tail = self.tail.lock().unwrap_or_else(PoisonError::into_inner);
        let (a, b) = tail.as_slices();
        let mut bytes = a.to_vec();
        bytes.extend_from_slice(b);
        String::from_utf8_lossy(&bytes).trim_end().to_owned()
    }

    /// Kills the child (and waits for it, so no zombie is left).
    pub(crate) async fn kill(&mut self) {
        let _ = self.process.kill().await;
    }
}

/// Reads the child's standard error to its end: into the tail, and to
/// where the configuration says. Bounded: lines are cut at
/// [`MAX_LINE_BYTES`], and only [`TAIL_BYTES`] are kept.
async fn read_stderr(
    server: String,
    mut stderr: tokio::process::ChildStderr,
    to: StderrTo,
    tail: Arc<Mutex<VecDeque<u8>>>,
) {
    let mut file = match &to {
        StderrTo::File(path) => match tokio::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .await
        {
            Ok(file) => Some(file),
            Err(err) => {
                tracing::warn!(%server, path = %path.display(), %err, "cannot open the MCP server's stderr file; its output goes to tracing");
                None
            }
        },
        _ => None,
    };
    let mut line = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        {
            let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
            tail.extend(chunk);
            let excess = tail.len().saturating_sub(TAIL_BYTES);
            tail.drain(..excess);
        }
        if let Some(out) = &mut file {
            // tokio's file writes in the background: flush, so what the
            // child said is in the file once it has said it.
            if out.write_all(chunk).await.is_ok() && out.flush().await.is_ok() {
                continue;
            }
            file_failed(&server);
            file = None;
            continue;
        }
        if to == StderrTo::Discard {
            continue;
        }
        for &byte in chunk {
            if byte == b'\n' {
                emit(&server, &line);
                line.clear();
            } else if line.len() < MAX_LINE_BYTES {
                line.push(byte);
            }
        }
    }
    if !line.is_empty() && to == StderrTo::Tracing {
        emit(&server, &line);
    }
}

fn emit(server: &str, line: &[u8]) {
    tracing::info!(
        target: "registry_core::mcp::child",
        server,
        "{}",
        String::from_utf8_lossy(line).trim_end()
    );
}

fn file_failed(server: &str) {
    tracing::warn!(%server, "writing the MCP server's stderr file failed");
}
