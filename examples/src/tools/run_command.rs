//! `run_command`: run a shell command in the workspace.
//!
//! # Posture: decided per call
//!
//! One shell tool can `ls` or `rm -rf`, so no fixed answer would be right.
//! Each posture is computed on the command's one reading
//! ([`shell_reading`], through the [`command_safety`](crate::command_safety)
//! adapter), made once per call and shared by every decision below and by
//! the permission rules (`run_command(rm:*)`, through
//! [`RunCommandInput::line`]):
//!
//! - `read_only = i.classification().read_only`: an allow-list that
//!   fails closed. Only simple commands joined by `|`, `&&`, `||`, `;`
//!   qualify, each an allow-listed program (`ls`, `cat`, `head`, `tail`,
//!   `wc`, `grep`, `sort`, `uniq`, `stat`, `du`, `find`, `echo`, `pwd`,
//!   `true`, `false`, `git status|log|diff|show`) with allow-listed
//!   options, no expansions, no assignments, and no redirection but input
//!   from a file, output to `/dev/null` and descriptor duplication.
//! - `concurrency_safe`: the same answer; only commands known to only
//!   read may run alongside other calls; anything else runs alone.
//! - `access = reading_access(...)`: what decides batching. A read-only
//!   command whose words name what it reads (`cat a.rs`, `grep -rn x src`,
//!   `ls`) reads those paths, relative to the workspace root it runs in,
//!   so it shares a batch with edits of other files; a read-only command
//!   whose words do not say (`git log`) reads everything; any other
//!   command writes everything and runs alone.
//! - `destructive = i.classification().destructive`: a deny-list (`rm`,
//!   `mv`, `dd`, truncating `>`, `git reset --hard`, `sort -o`, sed
//!   scripts that write, ...) applied to every program the reading finds
//!   (through wrappers, compound commands, substitutions and `sh -c`
//!   strings), plus everything the reading cannot vouch for (a program in
//!   a variable, text piped into a shell, a function definition, ...), so
//!   a runtime asks before them.
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
//! # Git configuration
//!
//! A command classified read-only runs with a hardened git configuration
//! (no system or global files, every key that names a program overridden;
//! see [`HARDENED_GIT_CONFIG`] and the `hardened_env` module; the shell
//! variables bash would act on and every variable that points a program at
//! other configuration are removed too), so a hostile `.git/config` cannot
//! make `git status` run a program. Whether git runs is decided from the
//! reading (the program as the shell resolves it, `g''it` included), never
//! from the text. A read-only git command is not run at all in a
//! repository with submodules: their own configuration can name programs
//! too. Other commands run with the caller's environment: they were
//! approved as writers.
//!
//! # Enforcement
//!
//! The reading above is the *prediction*: the answer before the run (the
//! posture, the ask, the rules' verdict). The rules are also *enforced*
//! while the command runs, by [`registry_sandbox`]: every program any of
//! its processes starts is checked at its exec stop against the call's
//! rules with its real program file and argument vector (a deny rule such
//! as `run_command(rm:*)` stops `rm` however it is reached: an array
//! subscript, an interpreter, a Makefile, a git hook), and outside
//! `bypass` the shell may start only what the reading predicted or allow
//! rules cover. Path rules written for the file tools reach the command
//! through the filesystem: `read_file(**/.env)` hides those files from
//! every process of the command, `edit_file(victim.txt)` and
//! `write_file(...)` make them read-only; nothing outside the workspace
//! and a private temporary directory can be written; the network is off
//! unless the context holds a [`NetworkAllowList`](registry_sandbox::NetworkAllowList).
//! A refused start ends the command with an error naming the program,
//! its arguments and the rule. Where this machine cannot enforce what the
//! call needs ([`registry_sandbox::probe`]), the call asks (naming what is
//! missing) and is refused unless a person approved it.
//!
//! # Processes
//!
//! Every process the command starts is followed by the sandbox: when the
//! shell exits, when the timeout expires, and when the call's future is
//! dropped, all of them are killed (`setsid`, `env -i` and double forks
//! included), so no background child outlives the call.

mod hardened_env;
mod process;

use std::io;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::command_safety::{Classification, classify_reading, reading_access};
use registry_core::permission::CallRules;
use registry_core::{PermissionDecision, Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use shell_reading::CommandLine;

use crate::sandbox::{Sandbox, SandboxError};
pub use hardened_env::{
    HARDENED_GIT_CONFIG, HARDENED_GIT_VARS, REMOVED_GIT_VARS, REMOVED_SHELL_VARS,
};
use process::Environment;
pub use process::RUN_MARKER_VAR;
use registry_sandbox::{Output, Policy, Prediction};

/// The shell `run_command` hands commands to: `sh` unless the runtime puts
/// another into the tool context. Only the two shells the command reader
/// reads as they run ([`shell_reading`]: dash's `sh` and bash) can be
/// chosen; where they read a text as different programs, the reader calls
/// it unreadable.
///
/// ```
/// use registry_examples::Sandbox;
/// use registry_examples::tools::run_command::Shell;
///
/// let dir = tempfile::tempdir().unwrap();
/// let cx = Sandbox::new(dir.path()).unwrap().context().with(Shell::Bash);
/// # let _ = cx;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Shell {
    /// `sh -c` (dash on Debian, bash in POSIX mode elsewhere).
    #[default]
    Sh,
    /// `bash -c`.
    Bash,
}

impl Shell {
    /// The program run.
    pub fn program(self) -> &'static str {
        match self {
            Shell::Sh => "sh",
            Shell::Bash => "bash",
        }
    }
}

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
/// as a failure of the tool. Background jobs are killed when the shell
/// exits; add `wait` to keep them. Prefer `read_file`, `list_dir`, `glob`
/// and `grep` for reading and searching: they are faster to approve.
///
/// The command runs sandboxed: it can write only inside the workspace and
/// `/tmp`, has no network access, cannot read or change files the
/// permission rules protect, and a program the rules deny is stopped when
/// it starts (the result names it and the rule).
///
/// Read-only (no approval under the default policy, and may run alongside
/// other calls): only simple commands joined by `|`, `&&`, `||` or `;`,
/// each one of `ls`, `cat`, `head`, `tail`, `wc`, `grep`, `sort`, `uniq`,
/// `stat`, `du`, `find`, `echo`, `pwd`, `git status|log|diff|show` with
/// ordinary reading options, and no `$` expansions, globs, assignments or
/// redirections other than input from a file, output to `/dev/null` and
/// `2>&1`. Anything else may need approval. Commands that delete or
/// overwrite files, and anything with `$(...)`, subshells, functions or
/// here-documents, are flagged as destructive.
// No `rule_of_two`: a shell line may read anything and fetch anything, so
// the strict reading holds (untrusted input and private data always, an
// external effect when the line is not read-only). A runtime that runs it
// in `bypass` mode names it with `RuleOfTwo::allow_unattended`.
#[tool(
    name = "run_command",
    concurrency_safe = |i: &RunCommandInput| i.classification().read_only,
    read_only = |i: &RunCommandInput| i.classification().read_only,
    destructive = |i: &RunCommandInput| i.classification().destructive,
    access = |i: &RunCommandInput| reading_access(i.line().reading()),
    classifier_input = |i: &RunCommandInput| i.command.to_string(),
    search_hint = "shell bash terminal execute exec program",
    // A build or a test suite runs for minutes: an MCP client that
    // negotiates the Tasks extension polls for it instead of holding a
    // request open.
    long_running,
)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RunCommand;

/// The arguments of `run_command`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunCommandInput {
    /// The shell command to run with `sh -c`, in the workspace root.
    // Shared with its reading (and through it with the permission content
    // an approver sees), so a long command is held once. (A `//` comment:
    // the doc comment above is the schema's description, which the model
    // reads.)
    #[serde(deserialize_with = "shared_str")]
    #[schemars(with = "String")]
    pub command: Arc<str>,
    /// Seconds before the command is killed. Defaults to 30; at most 600.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// The command's one reading, made on first use.
    #[serde(skip)]
    #[schemars(skip)]
    read: OnceLock<Read>,
}

/// A command read once, with what it was classified as.
#[derive(Debug, Clone)]
struct Read {
    line: Arc<CommandLine>,
    class: Classification,
}

impl RunCommandInput {
    /// The arguments for running `command` with the default timeout.
    pub fn new(command: impl Into<String>) -> Self {
        RunCommandInput {
            command: Arc::from(command.into()),
            timeout_secs: DEFAULT_TIMEOUT_SECS,
            read: OnceLock::new(),
        }
    }

    fn read(&self) -> &Read {
        self.read.get_or_init(|| {
            let line = Arc::new(CommandLine::shared(Arc::clone(&self.command)));
            let class = classify_reading(line.reading());
            Read { line, class }
        })
    }

    /// The command with its reading: what the permission rules, the posture
    /// and the git hardening all decide on.
    pub fn line(&self) -> &Arc<CommandLine> {
        &self.read().line
    }

    /// What the command was classified as.
    pub fn classification(&self) -> Classification {
        self.read().class
    }
}

fn default_timeout() -> u64 {
    DEFAULT_TIMEOUT_SECS
}

/// A string argument into an `Arc<str>` with one copy of the text (serde's
/// own `Arc<str>` goes through a `Box<str>` first, two).
fn shared_str<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Arc<str>, D::Error> {
    struct Shared;
    impl serde::de::Visitor<'_> for Shared {
        type Value = Arc<str>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Arc<str>, E> {
            Ok(Arc::from(text))
        }
    }
    deserializer.deserialize_str(Shared)
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
    /// The command could not be run under the call's rules: this machine
    /// cannot enforce something they need, a path rule cannot be turned
    /// into guards, or the sandbox could not start.
    #[error(transparent)]
    Enforcement(#[from] registry_sandbox::SandboxError),
    /// The exec guard stopped a program the rules refuse; every process of
    /// the command was ended there.
    #[error("{stopped}\n{output}")]
    Stopped {
        /// Which program, with which arguments, and why.
        stopped: registry_sandbox::Stopped,
        /// What the command printed before it was stopped.
        output: String,
    },
    /// A read-only command runs git in a repository with submodules, whose
    /// own configuration nothing vets; it was not run.
    #[error(
        "this read-only command runs git in a repository with submodules (`{marker}`), whose own configuration can make git run a program, so it was not run; ask the user to run it"
    )]
    Submodules {
        /// What shows the repository has submodules.
        marker: String,
    },
    /// The workspace repository's git configuration could not be read
    /// before a read-only command, so it was not run.
    #[error(
        "could not vet the repository's git configuration before a read-only command: {source}"
    )]
    GitConfigScan {
        /// What went wrong.
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
        let env = if input.classification().read_only {
            hardened_env::hardened_environment(sandbox.root(), input.line().reading()).await?
        } else {
            Environment::default()
        };
        let limit = Duration::from_secs(input.timeout_secs);
        let shell = cx.get::<Shell>().copied().unwrap_or_default();
        let prediction = Prediction::from_reading(input.line().reading());
        let mut policy = Policy::for_call(cx, sandbox.root(), prediction)?;
        let missing = policy.missing(registry_sandbox::probe());
        if !missing.is_empty() {
            // Only a person who was told what is missing (the ask of
            // `check_permissions`) can accept it; an allow rule or a mode
            // never does.
            let told = missing_guarantees(sandbox.root());
            let approved = CallRules::of(cx).is_some_and(|r| r.approved_by_person());
            if !(approved && told == missing) {
                return Err(registry_sandbox::SandboxError::Uncheckable { missing }.into());
            }
            policy = policy.accept_missing();
        }
        let output =
            process::run(sandbox.root(), shell, &input.command, limit, &env, policy).await?;
        match output.stopped.clone() {
            Some(stopped) => Err(RunCommandError::Stopped {
                stopped,
                output: render(&output),
            }),
            None => Ok(render(&output)),
        }
    }

    fn validate_input(
        &self,
        input: &RunCommandInput,
        _cx: &ToolContext,
    ) -> Result<(), Self::Error> {
        input.check()
    }

    fn check_permissions(&self, input: &RunCommandInput, cx: &ToolContext) -> PermissionDecision {
        let root = match Sandbox::from_context(cx) {
            Ok(sandbox) => sandbox.root().to_path_buf(),
            Err(err) => {
                return PermissionDecision::Deny {
                    reason: err.to_string(),
                };
            }
        };
        let missing = missing_guarantees(&root);
        if !missing.is_empty() {
            return PermissionDecision::Ask {
                reason: format!(
                    "this machine cannot enforce {}, so the rules hold for this command only as far as its reading predicts",
                    missing.join("; nor ")
                ),
            };
        }
        let verdict = input.classification();
        if verdict.destructive {
            let command = excerpt(&input.command);
            let reason = if verdict.understood {
                format!("`{command}` can delete or overwrite data")
            } else {
                let why = input
                    .line()
                    .reading()
                    .hazards()
                    .first()
                    .map_or_else(String::new, |hazard| format!(": {hazard}"));
                format!(
                    "`{command}` cannot be fully read before it runs{why}; so it may delete or overwrite data"
                )
            };
            return PermissionDecision::Ask { reason };
        }
        PermissionDecision::Delegate
    }

    /// The command line, so rules like `run_command(npm test:*)` apply.
    fn permission_content(
        &self,
        input: &RunCommandInput,
    ) -> Option<registry_core::PermissionContent> {
        Some(registry_core::PermissionContent::from_command_line(
            Arc::clone(input.line()),
        ))
    }
}

/// The longest stretch of a command quoted back in a permission reason.
const EXCERPT_CHARS: usize = 200;

/// `command` as quoted in a reason: whole when short, else its start and a
/// count of what was left out (a 64 KiB command must not become a 64 KiB
/// prompt).
fn excerpt(command: &str) -> String {
    match command.char_indices().nth(EXCERPT_CHARS) {
        None => command.to_owned(),
        Some((end, _)) => format!(
            "{}... ({} more bytes)",
            &command[..end],
            command.len() - end
        ),
    }
}

/// What this machine cannot enforce for a command in `root` under the
/// strictest policy (no rule known yet): what `check_permissions` asks a
/// person about.
fn missing_guarantees(root: &std::path::Path) -> Vec<String> {
    Policy::for_call(&ToolContext::new(), root, Prediction::none())
        .map(|policy| policy.missing(registry_sandbox::probe()))
        .unwrap_or_else(|err| vec![err.to_string()])
}

fn render(output: &Output) -> String {
    let exit = match (output.code, output.signal) {
        (Some(code), _) => format!("exit code: {code}"),
        (None, Some(signal)) => format!("exit code: none (killed by signal {signal})"),
        (None, None) => "exit code: none".to_owned(),
    };
    format!(
        "{exit}\n--- stdout ---\n{}--- stderr ---\n{}",
        render_stream("stdout", &output.stdout, output.stdout_total),
        render_stream("stderr", &output.stderr, output.stderr_total)
    )
}

fn render_stream(name: &str, kept: &[u8], total: usize) -> String {
    if total == 0 {
        return "(empty)\n".to_owned();
    }
    let mut text = String::from_utf8_lossy(kept).into_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if total > kept.len() {
        text.push_str(&format!(
            "[{name} cut: kept {} of {total} bytes]\n",
            kept.len()
        ));
    }
    text
}
