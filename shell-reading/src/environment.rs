//! Environment variables that change what a command runs, or where a
//! program reads the configuration that may name programs to run.
//!
//! One list, read by the destructive classifier (an assignment of one of
//! these in front of a command, as an operand of `env` or `sudo`, through
//! `export`, `read` or a `for` loop makes the command's effect unknowable
//! from its text) and by runners that start read-only commands with a
//! cleaned environment.

/// Variables, by exact name, whose value decides which program runs,
/// injects code into one, or points a program on the read-only list (or
/// the shell itself) at other configuration.
pub const CHANGES_WHAT_RUNS: &[&str] = &[
    // Which program a name finds, and the shell's own start-up.
    "PATH",
    "CDPATH",
    "BASH_ENV",
    "ENV",
    "IFS",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "SHELL",
    "ZDOTDIR",
    // bash's program table and aliases (`BASH_CMDS[ls]=/bin/rm`).
    "BASH_CMDS",
    "BASH_ALIASES",
    "BASH_LOADABLES_PATH",
    "INPUTRC",
    // Where configuration files are looked for: git reads
    // `$HOME/.gitconfig` and `$XDG_CONFIG_HOME/git/config`, whose keys
    // name programs (`HOME=. git diff` runs `./.gitconfig`'s
    // `diff.external`).
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
    // Programs run on a program's behalf.
    "PAGER",
    "MANPAGER",
    "MANOPT",
    "EDITOR",
    "VISUAL",
    "BROWSER",
    "LESS",
    "LESSOPEN",
    "LESSCLOSE",
    "LESSKEY",
    "LESSKEYIN",
    // Options read from the environment.
    "GREP_OPTIONS",
    "TAR_OPTIONS",
    // Interpreters' start-up code.
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "NODE_OPTIONS",
    "NODE_PATH",
];

/// Prefixes of such variables: the dynamic loader's (`LD_PRELOAD`,
/// `DYLD_INSERT_LIBRARIES`), every git variable (`GIT_EXTERNAL_DIFF`,
/// `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_COUNT`/`_KEY_n`/`_VALUE_n`,
/// `GIT_SSH_COMMAND`, `GIT_DIR`), ssh's (`SSH_ASKPASS`), exported bash
/// functions (`BASH_FUNC_ls%%`).
pub const CHANGES_WHAT_RUNS_PREFIXES: &[&str] = &["LD_", "DYLD_", "GIT_", "SSH_", "BASH_FUNC_"];

/// Whether a variable of this name can change which program runs or the
/// configuration a program reads.
///
/// ```
/// use shell_reading::names_what_runs;
///
/// assert!(names_what_runs("HOME"));
/// assert!(names_what_runs("GIT_CONFIG_GLOBAL"));
/// assert!(names_what_runs("LD_PRELOAD"));
/// assert!(!names_what_runs("RUST_LOG"));
/// ```
pub fn names_what_runs(name: &str) -> bool {
    CHANGES_WHAT_RUNS.contains(&name)
        || CHANGES_WHAT_RUNS_PREFIXES
            .iter()
            .any(|prefix| name.starts_with(prefix))
}
