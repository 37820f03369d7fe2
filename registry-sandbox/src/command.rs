//! The sandboxed command: a builder shaped like `tokio::process::Command`
//! and what running it returns.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::PathBuf;

use registry_core::__private::enforce::GuardError;

use crate::policy::Policy;

/// A command to run under a [`Policy`].
///
/// ```no_run
/// # async fn demo(cx: &registry_core::ToolContext) -> Result<(), registry_sandbox::SandboxError> {
/// use registry_sandbox::{Policy, Prediction, SandboxedCommand};
///
/// let root = std::path::Path::new("/work/project");
/// let policy = Policy::for_call(cx, root, Prediction::none())?;
/// let out = SandboxedCommand::new("ls").arg("-la").current_dir(root).output(policy).await?;
/// println!("{}", String::from_utf8_lossy(&out.stdout));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct SandboxedCommand {
    pub(crate) program: OsString,
    pub(crate) args: Vec<OsString>,
    pub(crate) cwd: Option<PathBuf>,
    pub(crate) env_set: Vec<(OsString, OsString)>,
    pub(crate) env_remove: Vec<OsString>,
    pub(crate) max_capture: usize,
}

impl SandboxedCommand {
    /// A command running `program` (looked up in `PATH`).
    pub fn new(program: impl Into<OsString>) -> Self {
        SandboxedCommand {
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env_set: Vec::new(),
            env_remove: Vec::new(),
            max_capture: 1024 * 1024,
        }
    }

    /// Adds an argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// The working directory: writable, with the private temporary
    /// directory, when the filesystem guard is on. Required.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets an environment variable.
    pub fn env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env_set.push((name.into(), value.into()));
        self
    }

    /// Removes an environment variable.
    pub fn env_remove(mut self, name: impl Into<OsString>) -> Self {
        self.env_remove.push(name.into());
        self
    }

    /// Bytes of each output stream kept (the rest is counted). Default
    /// 1 MiB.
    pub fn max_capture(mut self, bytes: usize) -> Self {
        self.max_capture = bytes;
        self
    }

    /// Runs the command to its end under `policy`, standard input empty,
    /// and returns its output. Dropping the future ends every process the
    /// command started.
    pub async fn output(&self, policy: Policy) -> Result<Output, SandboxError> {
        if self.cwd.is_none() {
            return Err(SandboxError::NoWorkingDir);
        }
        let missing = policy.missing(crate::probe());
        if !missing.is_empty() {
            return Err(SandboxError::Uncheckable { missing });
        }
        run(self, policy).await
    }
}

#[cfg(target_os = "linux")]
async fn run(command: &SandboxedCommand, policy: Policy) -> Result<Output, SandboxError> {
    crate::linux::run(command, policy).await
}

#[cfg(not(target_os = "linux"))]
async fn run(_command: &SandboxedCommand, _policy: Policy) -> Result<Output, SandboxError> {
    Err(SandboxError::Uncheckable {
        missing: vec!["anything (only Linux is supported)".to_owned()],
    })
}

/// What a command did.
#[derive(Debug, Clone, Default)]
pub struct Output {
    /// Its exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Standard output (kept bytes).
    pub stdout: Vec<u8>,
    /// Bytes of standard output in all.
    pub stdout_total: usize,
    /// Standard error (kept bytes).
    pub stderr: Vec<u8>,
    /// Bytes of standard error in all.
    pub stderr_total: usize,
    /// The program start the exec guard refused, when it refused one: the
    /// command's processes were ended there.
    pub stopped: Option<Stopped>,
}

/// A program start the exec guard refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped {
    /// The program file the kernel was about to run.
    pub program: PathBuf,
    /// Its argument vector, as the kernel holds it.
    pub argv: Vec<String>,
    /// Why, phrased to follow "stopped because".
    pub reason: String,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MAX: usize = 300;
        let mut line = self.argv.join(" ");
        if line.len() > MAX {
            let mut end = MAX;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            line.truncate(end);
            line.push_str("...");
        }
        write!(
            f,
            "the command was stopped when it started `{}` (`{line}`), before that program ran: {}; every process of the command was ended",
            self.program.display(),
            self.reason
        )
    }
}

/// Why a sandboxed command could not run as asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// The call needs a guarantee this machine cannot give.
    #[error("this machine cannot enforce {}; the command was not run", missing.join("; nor "))]
    Uncheckable {
        /// What is missing, each phrased to follow "cannot enforce".
        missing: Vec<String>,
    },
    /// A path rule cannot be turned into guards.
    #[error(transparent)]
    Guard(#[from] GuardError),
    /// No working directory was set.
    #[error("a sandboxed command needs a working directory")]
    NoWorkingDir,
    /// The command or its sandbox could not be started.
    #[error("could not start the sandboxed command: {source}")]
    Spawn {
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The guard lost track of the command's processes (they were ended).
    #[error("the exec guard lost track of the command ({source}); its processes were ended")]
    Trace {
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
}
