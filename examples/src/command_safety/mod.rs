//! Classifying a shell command before it runs: the per-input posture of
//! `run_command`.
//!
//! [`classify`] reads the command text only; it never runs anything and
//! never touches the filesystem. It answers two independent questions,
//! and fails closed on both: whatever it does not understand is *not*
//! read-only and *is* destructive.
//!
//! # How the text is read
//!
//! The text is tokenized with the POSIX shell's rules (quotes, backslashes,
//! line continuations, comments, operators, redirections glued to words)
//! and parsed into a flat list of simple commands joined by `|`, `&&`,
//! `||`, `;`, `&` and newlines. That flat grammar is all that is modelled.
//! Function definitions, subshells and groups, compound commands (`if`,
//! `for`, `while`, `case`, `{ }`), command, arithmetic and process
//! substitutions, here-documents, bash's `|&`, `&>` and `$'...'`, and
//! unterminated quotes are *not understood*: such a command is neither
//! read-only nor concurrency-safe, and counts as destructive, so the
//! default policy asks before running it. A hand-written tokenizer is used
//! rather than a parser crate because only this flat subset needs to be
//! recognized, and a single pass with no recursion keeps the cost linear
//! in the length with no nesting to overflow the stack.
//!
//! Cost is bounded: tokenizing and parsing are one pass each; a command
//! longer than [`MAX_COMMAND_BYTES`] gets the strict answers without being
//! read at all; nested command strings (`sh -c`, `eval`, `env -S`) are
//! followed at most [`MAX_NESTING`] levels deep, through a work list rather
//! than recursion.
//!
//! # Read-only: an allow-list
//!
//! A command is read-only only when the whole text parses, it has at least
//! one command, and every command
//!
//! - is joined to the next by `|`, `&&`, `||`, `;` or a newline (not `&`:
//!   a background job outlives the call);
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
//!   (not `--output`, `--ext-diff`, `--textconv`, `--show-signature`, and
//!   no global option but `--no-pager`, `-P`, `--no-optional-locks`,
//!   `--literal-pathspecs` and `--no-replace-objects`: `-c` and
//!   `--exec-path` can run programs, `-C`, `--git-dir` and `--work-tree`
//!   would read a repository whose configuration `run_command` did not
//!   vet).
//!
//! Options are read as getopt reads them: short clusters are split
//! (`-uo out` is `-u -o out`), option arguments are consumed (`-k -o` is
//! `-k` with the value `-o`), long options are resolved by unambiguous
//! prefix against the program's complete option table (`--out` is
//! `--output`); for git, whose option list is too long to carry, only exact
//! spellings are accepted.
//!
//! Read-only git commands still read the repository's configuration, and
//! `git status` refreshes the index file unless told not to; `run_command`
//! runs read-only commands with a hardened configuration and
//! `GIT_OPTIONAL_LOCKS=0` (see
//! [`HARDENED_GIT_CONFIG`](crate::tools::run_command::HARDENED_GIT_CONFIG)).
//! Code that runs commands this module calls read-only should do the same.
//!
//! What read-only does not promise: that the command is cheap (`tail -f`
//! runs until its timeout, `grep -r` reads everything), that it stays in
//! the workspace (`cat /etc/hostname` reads outside it), or that it reads
//! nothing secret. It promises that the command writes nothing, deletes
//! nothing and starts no program beyond the listed ones.
//!
//! # Destructive: a deny-list on top
//!
//! [`is_destructive_command`] looks for the usual ways a command destroys
//! data: deleting, moving over, copying over, truncating, shredding or
//! re-permissioning files (`rm`, `mv`, `cp`, `dd`, `tee`, `chmod`, ...),
//! truncating redirections (`>`, `>|`, bash's `>&file`; not `>>`, not
//! into `/dev/null`), output-file forms of reading programs (`sort -o`,
//! `uniq IN OUT`, `git diff --output`, `find -delete`/`-fprint`),
//! discarding git work (`reset --hard` and its abbreviations, `clean`,
//! `checkout -f`/`--`/paths, `branch -D` in any cluster, `push --force`,
//! ...), and `sed -i`. It sees through wrappers (`env` including
//! `-S`, `nice`, `timeout`, `command`, `builtin`, `exec`, `eval`, `xargs`,
//! `sudo`, `doas`, `nohup`, `stdbuf`, `time`, `ionice`, `chrt`, `setsid`,
//! `busybox`, `watch`, `flock`, `sh -c` and other shells' `-c`), git's
//! global options (`git -C . clean`), and finds the program behind leading
//! or interleaved redirections and assignments. It over-approximates where
//! it cannot see: a program named by an expansion, an assignment that
//! changes which program runs (`PATH=. ls`, `LD_PRELOAD=...`, `GIT_*`,
//! `BASH_ENV`, also as an operand of `env` or `sudo`), an expansion among the
//! arguments of `find`, `git`, `sed`, `sort` or `uniq`, a shell reading its
//! script from standard input (`curl ... | sh`), an unknown wrapper option,
//! `git -c` with a key that is not a display setting, an unknown git
//! subcommand (it may be an alias) all count as destructive.
//!
//! What it cannot see: the contents of scripts and programs (`python
//! x.py`, `make`, `cargo run`), which is why such commands are never
//! read-only either.
//!
//! # Access: what a read-only command reads
//!
//! [`command_access`] turns the same reading into the resource access
//! `run_command` declares, so a read-only command can share a batch with
//! edits of files it does not read: the paths its words name, read
//! everything when they do not say (`git`, symlink-following options),
//! and everything written for any command that is not read-only.

mod destructive;
mod lex;
mod options;
mod parse;
mod read_only;
mod targets;

#[cfg(test)]
mod tests;

pub use destructive::MAX_NESTING;
pub use targets::command_access;

use lex::{Op, Redirect, RedirectKind};
use parse::{Script, parse};

/// Commands longer than this (in bytes) are not parsed: they are classified
/// not read-only and destructive outright.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;

/// What [`classify`] concluded about one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Classification {
    /// The command only reads (allow-listed, see the module docs). A
    /// read-only command is also safe to run concurrently with other calls.
    pub read_only: bool,
    /// The command may destroy data (deny-listed, or not understood).
    pub destructive: bool,
    /// The text parsed into the modelled grammar. When `false` the other
    /// two answers are the strict ones.
    pub understood: bool,
}

impl Classification {
    const STRICT: Classification = Classification {
        read_only: false,
        destructive: true,
        understood: false,
    };
}

/// Classifies `command`; see the module docs for exactly what is allowed.
///
/// ```
/// use registry_examples::command_safety::classify;
///
/// let c = classify("ls -la | grep rs && git status");
/// assert!(c.read_only && !c.destructive);
/// let c = classify("sort --out=result.txt input.txt");
/// assert!(!c.read_only && c.destructive);
/// let c = classify("ls () (rm -f victim); ls");
/// assert!(!c.understood && !c.read_only && c.destructive);
/// ```
pub fn classify(command: &str) -> Classification {
    if command.len() > MAX_COMMAND_BYTES {
        return Classification::STRICT;
    }
    let Ok(script) = parse(command) else {
        return Classification::STRICT;
    };
    let read_only = is_read_only_script(&script);
    let destructive = destructive::is_destructive_script(script);
    Classification {
        read_only: read_only && !destructive,
        destructive,
        understood: true,
    }
}

/// Does `command` only read? `true` only when every part of it is an
/// allow-listed program used in a reading way (see the module docs).
/// Empty is `false`.
///
/// ```
/// use registry_examples::command_safety::is_read_only_command;
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
/// seen through wrappers, and for anything not understood (see the module
/// docs).
///
/// ```
/// use registry_examples::command_safety::is_destructive_command;
///
/// assert!(is_destructive_command("ls; rm -rf x"));
/// assert!(is_destructive_command("2>/dev/null rm -f f"));
/// assert!(is_destructive_command("git -C . reset --har"));
/// assert!(is_destructive_command("echo $(date)"));
/// assert!(is_destructive_command("cat a > b"));
/// assert!(!is_destructive_command("echo a >> log"));
/// assert!(!is_destructive_command("grep rm notes.txt"));
/// ```
pub fn is_destructive_command(command: &str) -> bool {
    classify(command).destructive
}

fn is_read_only_script(script: &Script) -> bool {
    !script.commands.is_empty()
        && script.commands.iter().all(|(command, op)| {
            !matches!(op, Some(Op::Background))
                && command.assignments.is_empty()
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
        RedirectKind::ReadWrite => false,
    }
}
