//! The hardened environment read-only commands run with: git's
//! configuration, and the variables a shell reads before the command.
//!
//! `git status`, `log`, `diff` and `show` only read, but git's
//! configuration can make them run programs: `core.fsmonitor` runs on
//! every `status`, `diff.external` and `diff.<driver>.textconv` on every
//! diff, `filter.<driver>.clean` when the index is refreshed. A model that
//! once got a write into `.git/config` (or a repository unpacked from
//! elsewhere) would turn the next "read-only" call into code execution.
//! So a command classified read-only runs with:
//!
//! - no system or global configuration ([`HARDENED_GIT_VARS`]);
//! - fixed values for the keys that name programs git may run during a
//!   read ([`HARDENED_GIT_CONFIG`], passed as `GIT_CONFIG_COUNT` /
//!   `GIT_CONFIG_KEY_n` / `GIT_CONFIG_VALUE_n`, which outrank every
//!   configuration file);
//! - every other key of the workspace repository's configuration that
//!   names a program (arbitrary driver names such as
//!   `diff.anything.textconv`, which no fixed list can cover) found by a
//!   `git config --get-regexp` run first, and overridden with an empty
//!   value: git then fails with "cannot run" instead of running it;
//! - no environment variables that name programs or redirect git
//!   ([`REMOVED_GIT_VARS`]), `GIT_OPTIONAL_LOCKS=0` so `status` does not
//!   rewrite the index, and no lazy fetches from promisor remotes.
//!
//! `PATH` keeps only its absolute entries, so `ls` cannot resolve to an
//! `./ls` the model wrote. The shell gets no `BASH_ENV`/`ENV` file to source, no `SHELLOPTS`,
//! `BASHOPTS` or `PS4` (with `xtrace`, bash expands `PS4`, substitutions
//! included) and no exported `BASH_FUNC_*` functions that could shadow an
//! allow-listed program ([`REMOVED_SHELL_VARS`]); this matters when `sh`
//! is bash.
//!
//! Whether git may run is read from the command's reading (any program
//! the shell will start, through quoting and paths: `g''it diff` is git),
//! never from its text. When it may, the repository's configuration is
//! scanned, and a repository with submodules (a `.gitmodules` file in its
//! work tree, or a `modules` directory in its git directory) is refused:
//! a submodule's own configuration names programs too, and git reads it
//! whenever a submodule is looked into.
//!
//! Every other variable that points a program on the read-only list at
//! other configuration ([`shell_reading::names_what_runs`]: `XDG_CONFIG_*`,
//! `LESSOPEN`, `GREP_OPTIONS`, `LD_*`, ...) is removed as well; `HOME` is
//! kept, since git reads no file under it once `GIT_CONFIG_GLOBAL` is
//! `/dev/null`.
//!
//! Read-only git commands may not use `-C`, `--git-dir` or `--work-tree`
//! (see [`command_safety`](crate::command_safety)), so the repository
//! vetted here is the one they read.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use shell_reading::{Reading, names_what_runs};

use super::RunCommandError;
use super::process::Environment;

/// Environment variables set for read-only commands.
pub const HARDENED_GIT_VARS: &[(&str, &str)] = &[
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_NO_LAZY_FETCH", "1"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
];

/// Environment variables removed for read-only commands: each names a
/// program git would run, or points git at other files.
pub const REMOVED_GIT_VARS: &[&str] = &[
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_EXEC_PATH",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG",
    "GIT_CONFIG_SYSTEM",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_PROXY_COMMAND",
    "GIT_ATTR_SOURCE",
    "GIT_TRACE",
    "GIT_TRACE2",
    "GIT_TRACE2_EVENT",
    "GIT_TRACE2_PERF",
    "GIT_TRACE_PACKET",
    "GIT_TRACE_PERFORMANCE",
    "GIT_TRACE_SETUP",
];

/// Environment variables removed for read-only commands because the shell
/// itself acts on them. Exported functions (`BASH_FUNC_name%%`) are removed
/// too, by prefix.
pub const REMOVED_SHELL_VARS: &[&str] = &["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4"];

/// Configuration values forced for read-only commands.
pub const HARDENED_GIT_CONFIG: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.sshCommand", "false"),
    ("core.attributesFile", "/dev/null"),
    ("credential.helper", ""),
    ("gpg.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
    ("log.showSignature", "false"),
    ("diff.ignoreSubmodules", "all"),
    ("status.submoduleSummary", "false"),
    ("submodule.recurse", "false"),
    ("protocol.allow", "never"),
];

/// Keys (lower-cased as `git config` prints them; subsections as
/// written) that name a program git may run, matched by
/// `git config --get-regexp`.
const PROGRAM_KEYS: &str = concat!(
    "^(core\\.(fsmonitor|hookspath|pager|editor|sshcommand|askpass|gitproxy|alternaterefscommand)",
    "|diff\\.external|sequence\\.editor|gpg\\.program|gpg\\..*\\.program",
    "|credential\\.helper|credential\\..*\\.helper|pager\\..*|alias\\..*",
    "|diff\\..*\\.(command|textconv)|filter\\..*\\.(clean|smudge|process)|merge\\..*\\.driver",
    "|uploadpack\\.packobjectshook|remote\\..*\\.(uploadpack|receivepack|vcs))$",
);

/// How long the configuration scan may take.
const SCAN_LIMIT: Duration = Duration::from_secs(5);

/// The environment for a read-only command run in `root`: the fixed
/// hardening, plus empty overrides for every program-naming key the
/// repository's configuration has.
pub(super) async fn hardened_environment(
    root: &Path,
    reading: &Reading,
) -> Result<Environment, RunCommandError> {
    let mut config: Vec<(String, String)> = HARDENED_GIT_CONFIG
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    // Only worth a process when git may run at all, as the shell reads it.
    if reading.may_run("git") {
        if let Some(marker) = submodules(root).await? {
            return Err(RunCommandError::Submodules { marker });
        }
        for key in program_keys(root).await? {
            if !config.iter().any(|(k, _)| k.eq_ignore_ascii_case(&key)) {
                config.push((key, String::new()));
            }
        }
    }
    let mut set: Vec<(String, String)> = HARDENED_GIT_VARS
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    set.push(("GIT_CONFIG_COUNT".to_owned(), config.len().to_string()));
    for (i, (key, value)) in config.into_iter().enumerate() {
        set.push((format!("GIT_CONFIG_KEY_{i}"), key));
        set.push((format!("GIT_CONFIG_VALUE_{i}"), value));
    }
    // An allow-listed name must find the system's program, not one the
    // model wrote into the workspace: relative and empty `PATH` entries
    // (which mean the working directory) are dropped.
    if let Some(path) = std::env::var_os("PATH") {
        let absolute: Vec<_> = std::env::split_paths(&path)
            .filter(|dir| dir.is_absolute())
            .collect();
        if let Ok(path) = std::env::join_paths(absolute) {
            set.push(("PATH".to_owned(), path.to_string_lossy().into_owned()));
        }
    }
    let mut remove: Vec<String> = REMOVED_GIT_VARS
        .iter()
        .chain(REMOVED_SHELL_VARS)
        .map(|name| (*name).to_owned())
        .collect();
    // Every variable that points a program at other configuration (the
    // ones set above are set again after the removal).
    remove.extend(
        std::env::vars_os()
            .filter_map(|(name, _)| name.into_string().ok())
            .filter(|name| name != "HOME" && names_what_runs(name)),
    );
    Ok(Environment { set, remove })
}

/// What shows that the repository `root` is in has submodules: a
/// `.gitmodules` file at the top of its work tree, or a `modules`
/// directory in its git directory. `None` when it has none, or `root` is
/// not in a repository (or git is not installed).
async fn submodules(root: &Path) -> Result<Option<String>, RunCommandError> {
    let Some(output) =
        git_output(root, &["rev-parse", "--show-toplevel", "--git-common-dir"]).await?
    else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&output);
    let mut lines = text.lines();
    let (Some(top), Some(git_dir)) = (lines.next(), lines.next()) else {
        return Ok(None);
    };
    let top = PathBuf::from(top);
    let git_dir = root.join(git_dir);
    let gitmodules = top.join(".gitmodules");
    if std::fs::symlink_metadata(&gitmodules).is_ok() {
        return Ok(Some(gitmodules.display().to_string()));
    }
    let modules = git_dir.join("modules");
    if std::fs::symlink_metadata(&modules).is_ok() {
        return Ok(Some(modules.display().to_string()));
    }
    Ok(None)
}

/// Runs `git args...` in `root` with the hardened variables, bounded by
/// [`SCAN_LIMIT`]: its standard output when it succeeds, `None` when git is
/// not installed or fails (`root` is not a repository).
async fn git_output(root: &Path, args: &[&str]) -> Result<Option<Vec<u8>>, RunCommandError> {
    let mut cmd = tokio::process::Command::new("git");
    cmd.args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    for name in REMOVED_GIT_VARS {
        cmd.env_remove(name);
    }
    for (name, value) in HARDENED_GIT_VARS {
        cmd.env(name, value);
    }
    match tokio::time::timeout(SCAN_LIMIT, cmd.output()).await {
        Ok(Ok(output)) if output.status.success() => Ok(Some(output.stdout)),
        Ok(Ok(_)) => Ok(None),
        Ok(Err(err)) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Ok(Err(source)) => Err(RunCommandError::GitConfigScan { source }),
        Err(_elapsed) => Err(RunCommandError::GitConfigScan {
            source: std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("`git` did not answer within {} s", SCAN_LIMIT.as_secs()),
            ),
        }),
    }
}

/// The program-naming keys the repository at `root` configures (local,
/// worktree and included files; system and global are off). Empty when git
/// is not installed (then no git command can run) or nothing matches
/// (including when `root` is not a repository). A scan that cannot finish
/// is an error: the command is not run unvetted.
async fn program_keys(root: &Path) -> Result<Vec<String>, RunCommandError> {
    // `git config --get-regexp` fails when nothing matches: no keys.
    let args = ["config", "--name-only", "--get-regexp", PROGRAM_KEYS];
    let Some(stdout) = git_output(root, &args).await? else {
        return Ok(Vec::new());
    };
    let mut keys: Vec<String> = String::from_utf8_lossy(&stdout)
        .lines()
        .filter(|k| !k.is_empty())
        .map(str::to_owned)
        .collect();
    keys.sort();
    keys.dedup();
    Ok(keys)
}
