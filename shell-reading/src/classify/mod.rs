//! Classifying a command from its [`Reading`]: does it only read, can it
//! destroy data, and which paths does it read.
//!
//! Both questions fail closed: a reading that is not
//! [checkable](Reading::is_checkable) is not read-only and is
//! destructive.
//!
//! # Read-only: an allow-list
//!
//! A command is read-only only when its reading is checkable, it has at
//! least one command, and every command
//!
//! - is a simple command joined to the next by `|`, `&&`, `||`, `;` or a
//!   newline (not `&`: a background job outlives the call; no subshell,
//!   group, compound command, function or substitution);
//! - has no `NAME=value` assignment in front (`PATH=.`, `GIT_DIR=...`,
//!   `LD_PRELOAD=...` change what runs);
//! - has no word whose text only the shell knows: no `$` expansion, no
//!   unquoted glob (`*`, `?`, `[`), brace or leading `~` (a file named
//!   `-delete` matches `-d*`);
//! - names no device (a word or redirection target containing `/dev/`,
//!   apart from `/dev/null`: opening a device can act);
//! - redirects only input from a named file, output to `/dev/null`, or
//!   between descriptors (`2>&1`, `>&-`);
//! - runs a program on the allow-list, named as such (not by path), with
//!   every option on that program's list: `echo`, `true`, `false`, `pwd`,
//!   `ls`, `cat`, `head`, `tail`, `wc`, `grep`, `sort` (not `-o`,
//!   `--compress-program`, `-T`), `uniq` (at most one operand: the second
//!   is an output file), `stat`, `du`, `find` (tests and printing to
//!   standard output only: not `-delete`, `-exec`, `-execdir`, `-ok`,
//!   `-okdir`, `-fprint*`, `-fls`), and `git status`, `git log`,
//!   `git diff`, `git show` with a listed set of options spelled in full
//!   (not `--output`, `--ext-diff`, `--textconv`, `--show-signature`,
//!   `--submodule`, `--ignore-submodules` other than `=all`, and no global
//!   option but `--no-pager`, `-P`, `--no-optional-locks`,
//!   `--literal-pathspecs` and `--no-replace-objects`: `-c` and
//!   `--exec-path` can run programs, `-C`, `--git-dir` and `--work-tree`
//!   would read a repository whose configuration the runner did not
//!   vet).
//!
//! Options are read as getopt reads them: short clusters are split
//! (`-uo out` is `-u -o out`), option arguments are consumed (`-k -o` is
//! `-k` with the value `-o`), long options are resolved by unambiguous
//! prefix against the program's complete option table (`--out` is
//! `--output`); for git, whose option list is too long to carry, only exact
//! spellings are accepted.
//!
//! Read-only git commands still read the repository's configuration,
//! whose keys can name programs (`core.fsmonitor`, `diff.external`, a
//! textconv or clean filter), and a submodule's configuration. Code that
//! runs a command this module calls read-only must run git with a
//! configuration that overrides every such key, and must not run it in a
//! repository with submodules (the examples' `run_command` does both).
//!
//! What read-only does not promise: that the command is cheap (`tail -f`
//! runs until its timeout, `grep -r` reads everything), that it stays in
//! the workspace (`cat /etc/hostname` reads outside it), or that it reads
//! nothing secret. It promises that the command writes nothing, deletes
//! nothing and starts no program beyond the listed ones.
//!
//! # Destructive: a deny-list on top
//!
//! [`is_destructive_command`] looks, in every run of the reading
//! (compound commands, substitutions and `sh -c` strings included, every
//! wrapper peeled), for the usual ways a command destroys data: deleting,
//! moving over, copying over, truncating, shredding or re-permissioning
//! files (`rm`, `mv`, `cp`, `dd`, `tee`, `chmod`, ...), truncating and
//! overwriting redirections (`>`, `>|`, `<>`, bash's `>&file` and `&>`;
//! not `>>`, not into `/dev/null`), output-file forms of reading programs
//! (`sort -o`, `uniq IN OUT`, `git diff --output`, `find -delete`/`-fprint`),
//! scripts that write or run (`sed`'s `w`, `W`, `e` and `s///w`, `s///e`;
//! `sed -i`), `tar` in a writing mode or with an option that runs a
//! program, discarding git work (`reset --hard` and its abbreviations,
//! `clean`, `checkout -f`/`--`/paths, `branch -D` in any cluster, `push
//! --force`, `mv -f`, `bundle create`, `merge-file`, ...), and
//! assignments of variables that change what runs or where configuration
//! is read (`PATH`, `HOME`, `GIT_*`, `LD_*`, ... in front of a command, as
//! `env` or `sudo` operands, through `export`, `read` or a `for` loop).
//!
//! What it cannot see: the contents of scripts and programs (`python
//! x.py`, `make`, `cargo run`), which is why such commands are never
//! read-only either.

mod destructive;
mod git;
mod programs;
mod read_only;
mod runners;
mod sed;
mod targets;

#[cfg(test)]
mod tests;

pub use git::{GitInvocation, git_invocation};
pub use runners::runs_commands_from_args;
pub use targets::{ReadPaths, read_paths};

use crate::reading::{Reading, read};
use crate::syntax::{Command, Redirect, RedirectKind, Script, SimpleCommand};

/// What [`classify`] concluded about one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Classification {
    /// The command only reads (allow-listed, see the module docs). A
    /// read-only command is also safe to run concurrently with other calls.
    pub read_only: bool,
    /// The command may destroy data (deny-listed, or not checkable).
    pub destructive: bool,
    /// The reading is checkable. When `false` the other two answers are
    /// the strict ones.
    pub understood: bool,
}

impl Classification {
    /// The answers for a command nothing is known about.
    pub const STRICT: Classification = Classification {
        read_only: false,
        destructive: true,
        understood: false,
    };
}

/// Classifies `command`; see the module docs for exactly what is allowed.
///
/// ```
/// use shell_reading::classify;
///
/// let c = classify("ls -la | grep rs && git status");
/// assert!(c.read_only && !c.destructive);
/// let c = classify("sort --out=result.txt input.txt");
/// assert!(!c.read_only && c.destructive);
/// let c = classify("ls () (rm -f victim); ls");
/// assert!(!c.understood && !c.read_only && c.destructive);
/// ```
pub fn classify(command: &str) -> Classification {
    classify_reading(&read(command))
}

/// [`classify`] for a command already read.
pub fn classify_reading(reading: &Reading) -> Classification {
    let destructive = destructive::is_destructive(reading);
    Classification {
        read_only: !destructive && is_read_only(reading),
        destructive,
        understood: reading.is_checkable(),
    }
}

/// Does `command` only read? `true` only when every part of it is an
/// allow-listed program used in a reading way (see the module docs).
/// Empty is `false`.
///
/// ```
/// use shell_reading::is_read_only_command;
///
/// assert!(is_read_only_command("ls -la | grep rs && git status"));
/// assert!(!is_read_only_command("ls; rm -rf x"));
/// assert!(!is_read_only_command("cat a > b"));
/// assert!(!is_read_only_command("find . \\\n -delete"));
/// assert!(!is_read_only_command(""));
/// ```
pub fn is_read_only_command(command: &str) -> bool {
    classify(command).read_only
}

/// Can `command` destroy data? `true` for the deny-listed ways to lose data,
/// seen through wrappers, and for anything not checkable (see the module
/// docs).
///
/// ```
/// use shell_reading::is_destructive_command;
///
/// assert!(is_destructive_command("ls; rm -rf x"));
/// assert!(is_destructive_command("2>/dev/null rm -f f"));
/// assert!(is_destructive_command("git -C . reset --har"));
/// assert!(is_destructive_command("echo $(rm x)"));
/// assert!(is_destructive_command("cat a > b"));
/// assert!(!is_destructive_command("echo a >> log"));
/// assert!(!is_destructive_command("grep rm notes.txt"));
/// ```
pub fn is_destructive_command(command: &str) -> bool {
    classify(command).destructive
}

/// The simple commands of a script made only of simple commands joined
/// by `|`, `&&`, `||`, `;` and newlines (a leading `!` allowed); `None`
/// for anything else (a background job, a compound command, a function,
/// a here-document).
pub(crate) fn flat_commands(script: &Script) -> Option<Vec<&SimpleCommand>> {
    if !script.heredocs.is_empty() {
        return None;
    }
    let mut commands = Vec::new();
    for item in &script.items {
        if item.background {
            return None;
        }
        for pipeline in item.and_or.pipelines() {
            for command in &pipeline.commands {
                match command {
                    Command::Simple(simple) => commands.push(simple),
                    _ => return None,
                }
            }
        }
    }
    Some(commands)
}

fn is_read_only(reading: &Reading) -> bool {
    if !reading.is_checkable() {
        return false;
    }
    let Some(commands) = reading.script().and_then(flat_commands) else {
        return false;
    };
    !commands.is_empty()
        && commands.iter().all(|command| {
            command.assignments.is_empty()
                && command
                    .words
                    .iter()
                    .all(|w| !w.dynamic && !names_a_device(&w.text))
                && command.redirects.iter().all(redirect_reads_only)
                && command.words.split_first().is_some_and(|(program, args)| {
                    read_only::is_read_only_invocation(&program.text, args)
                })
        })
}

/// Opening a device can act (a tape rewinds when closed, a terminal
/// blocks, bash opens `/dev/tcp/...` itself): only `/dev/null` is read.
fn names_a_device(text: &str) -> bool {
    text != "/dev/null" && text.contains("/dev/")
}

fn redirect_reads_only(redirect: &Redirect) -> bool {
    let target = &redirect.target;
    if target.dynamic {
        return false;
    }
    match redirect.kind {
        RedirectKind::Read => !names_a_device(&target.text),
        RedirectKind::Truncate | RedirectKind::Append => target.text == "/dev/null",
        RedirectKind::Duplicate => {
            target.text == "-"
                || (!target.text.is_empty() && target.text.chars().all(|c| c.is_ascii_digit()))
        }
        RedirectKind::ReadWrite
        | RedirectKind::OutputAndError { .. }
        | RedirectKind::HereDoc
        | RedirectKind::HereString => false,
    }
}
