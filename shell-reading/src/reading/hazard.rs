//! [`Hazard`]: why a reading cannot vouch that its runs are every program
//! a command line may start, with the words they get, and how each reason
//! reads to a user.
//!
//! What a hazard is, only: where one is found, and which few a reading
//! keeps, is the business of the [`flat`](super::flat) walk.

use std::fmt;

use super::MAX_COMMAND_BYTES;
use crate::syntax::Unreadable;

/// A reason the reading cannot vouch that its
/// [runs](crate::Reading::runs) are every program the command line may
/// start, with their words: a rule cannot be checked against such a
/// command, and a classifier must take the strict answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Hazard {
    /// The text does not parse, or parses differently in sh and bash.
    Unreadable(Unreadable),
    /// The text is longer than [`MAX_COMMAND_BYTES`].
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// A program named by an expansion, a substitution or a glob
    /// (`$cmd`, `$(which rm)`, `/bin/r?`).
    DynamicProgram(String),
    /// A function definition: its body runs under whatever name it was
    /// given, `ls` included.
    FunctionDefinition(String),
    /// `alias`, `hash` or `enable`: a later name runs something else.
    RenamesPrograms(String),
    /// A shell reading its commands from its input (`... | sh`).
    ShellReadsInput(String),
    /// A script file run by a shell or sourced (`sh x.sh`, `. ./env`).
    ScriptFile(String),
    /// A command string only the shell knows (`eval "$x"`, `sh -c "$x"`).
    DynamicCommandString(String),
    /// A wrapper option this reader does not know, so where the wrapped
    /// program starts is unknown (`nice --frobnicate rm`).
    UnknownWrapperOption(String),
    /// A program that runs a command given in its arguments in ways the
    /// reader does not model (`strace`, `chroot`, `ssh`, `watch`).
    OpaqueRunner(String),
    /// bash's arithmetic or a transformation evaluates a value as code
    /// (`$((x))` with `x='a[$(rm f)]'`).
    Evaluates,
    /// Command strings nested deeper than [`MAX_NESTING`](crate::MAX_NESTING), or
    /// wrappers deeper than [`MAX_LAYERS`](crate::MAX_LAYERS).
    TooDeep,
    /// A program runs what its configuration names: a git alias (an
    /// unknown git subcommand) or `git -c` with a key that names a
    /// program.
    ConfiguredProgram(String),
    /// A variable is set that changes which program runs or the
    /// configuration a program reads (`PATH`, `BASH_ENV`, `HOME`,
    /// `GIT_*`, `PS4`, ...; see [`names_what_runs`](crate::names_what_runs)).
    ChangesWhatRuns(String),
}

impl fmt::Display for Hazard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let short = |s: &str| -> String {
            if s.chars().count() > 40 {
                format!("{}...", s.chars().take(40).collect::<String>())
            } else {
                s.to_owned()
            }
        };
        match self {
            Hazard::Unreadable(why) => write!(f, "it cannot be read: {why}"),
            Hazard::TooLong { len } => write!(
                f,
                "it is {len} bytes long, over the {MAX_COMMAND_BYTES} bytes the reader reads"
            ),
            Hazard::DynamicProgram(p) => {
                write!(
                    f,
                    "its program `{}` is only known when the shell expands it",
                    short(p)
                )
            }
            Hazard::FunctionDefinition(name) => write!(
                f,
                "it defines a function `{}`, whose body runs under that name",
                short(name)
            ),
            Hazard::RenamesPrograms(p) => {
                write!(f, "`{p}` makes a later name run another program")
            }
            Hazard::ShellReadsInput(p) => {
                write!(f, "`{p}` runs commands read from its input")
            }
            Hazard::ScriptFile(p) => write!(f, "it runs the script file `{}`", short(p)),
            Hazard::DynamicCommandString(p) => {
                write!(f, "`{p}` runs a command string only the shell knows")
            }
            Hazard::UnknownWrapperOption(p) => write!(
                f,
                "`{p}` has an option this reader does not know, so what it runs is unknown"
            ),
            Hazard::OpaqueRunner(p) => {
                write!(f, "`{p}` runs a command this reader does not follow")
            }
            Hazard::Evaluates => {
                write!(f, "the shell evaluates a value as code while expanding it")
            }
            Hazard::TooDeep => write!(
                f,
                "command strings or wrappers nest deeper than the reader follows"
            ),
            Hazard::ConfiguredProgram(what) => {
                write!(f, "{what} runs a program its configuration names")
            }
            Hazard::ChangesWhatRuns(name) => write!(
                f,
                "it sets `{}`, which changes which program runs or what a program reads on start",
                short(name)
            ),
        }
    }
}
