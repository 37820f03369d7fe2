//! One reading of a shell command line, as `sh` (dash) and bash will run
//! it, for every security decision made about it.
//!
//! A permission rule for `rm`, a read-only answer and an access key are
//! each only as good as their reading of the command. When each decision
//! reads the text its own way, an attacker picks the spelling where one
//! of them disagrees with the shell: `'rm' -f x`, `/bin/rm -f x`,
//! `nice rm -f x`, `2>/dev/null rm -f x`, `c=rm; $c -f x`, `echo rm -f x |
//! sh`, `f() { rm -f x; }; f`. This crate reads a command line once into
//! what the shell will run, and every decision reads that:
//!
//! 1. [`syntax`] parses the text: quoting and line continuations removed
//!    as the shell removes them, compound commands, functions,
//!    substitutions and here-documents parsed as the lists they run. What
//!    sh and bash would read as different programs is
//!    [`Unreadable`](syntax::Unreadable).
//! 2. [`read`] flattens the tree into [`Run`]s, every simple command that
//!    may run (in substitutions, function bodies and `sh -c` strings
//!    too), and peels each one's wrappers (`env`, `nice`, `sudo`,
//!    `timeout`, `xargs`, `busybox`, ...) into the [`Invocation`]s they
//!    start. Whatever keeps the reading from naming every program with
//!    literal words is a [`Hazard`]: a program in a variable, a command
//!    string only the shell knows, a shell reading its input, a function
//!    definition, an unknown wrapper option, text over
//!    [`MAX_COMMAND_BYTES`].
//! 3. [`classify`](classify()) answers from the reading whether a command
//!    only reads and whether it can destroy data, and [`read_paths`]
//!    which paths a read-only command reads.
//!
//! ```
//! use shell_reading::{classify, read};
//!
//! // Every spelling of one program is one program.
//! for spelling in ["'rm' -f x", "/bin/rm -f x", "nice -n 5 rm -f x", "2>/dev/null rm -f x",
//!                  "sh -c 'rm -f x'", "ls && { rm -f x; }", "echo $(rm -f x)"] {
//!     let reading = read(spelling);
//!     assert!(reading.runs().iter().any(|run| run.core().is_some_and(|p| p.name() == "rm")),
//!             "{spelling}");
//! }
//! // What the text cannot show is said, not guessed.
//! assert!(!read("c=rm; $c -f x").is_checkable());
//! assert!(!read("echo rm -f x | sh").is_checkable());
//! assert!(classify("echo rm -f x | sh").destructive);
//! ```
//!
//! The reader is linear in the length of the text, bounded in depth
//! ([`MAX_DEPTH`](syntax::MAX_DEPTH) for syntax, [`MAX_NESTING`] for
//! command strings), and never panics.

#![forbid(unsafe_code)]

pub mod classify;
mod environment;
mod options;
mod reading;
pub mod syntax;
mod wrappers;

pub use classify::{
    Classification, GitInvocation, ReadPaths, classify, classify_reading, git_invocation,
    is_destructive_command, is_read_only_command, read_paths,
};
pub use environment::{CHANGES_WHAT_RUNS, CHANGES_WHAT_RUNS_PREFIXES, names_what_runs};
pub use reading::{
    CommandLine, Context, Hazard, Invocation, MAX_COMMAND_BYTES, MAX_LAYERS, MAX_NESTING, Reading,
    Run, assignment_changes_what_runs, basename, read,
};
