//! A [`Reading`]: every command a command line may run, each with the
//! programs it starts through its wrappers, and every reason the reading
//! cannot vouch for that list.

// One module a job: `run` holds what a reading says a command runs,
// `hazard` why it may not be all, `flat` walks the syntax tree into runs,
// `peel` peels each command's wrappers, and `runners`, `git` and
// `variables` note what the program at the core runs or changes.
mod flat;
mod git;
mod hazard;
mod peel;
mod run;
mod runners;
mod variables;

use std::sync::Arc;

use crate::syntax::{Script, parse};
use flat::Flat;

pub use hazard::Hazard;
pub(crate) use peel::has;
pub use run::{Context, Invocation, Run, basename};
pub use variables::assignment_changes_what_runs;

/// Commands longer than this (in bytes) are not read: their reading is
/// [`Hazard::TooLong`].
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;

/// How deep command strings may nest (`sh -c "eval 'env -S ...'"`)
/// before the reading gives up on them ([`Hazard::TooDeep`]).
pub const MAX_NESTING: usize = 8;

/// How many distinct hazards a reading keeps (one makes it uncheckable).
const MAX_HAZARDS: usize = 8;

/// How many wrappers deep one command's programs are followed (`nice nice
/// ... ls`) before the reading gives up ([`Hazard::TooDeep`]).
pub const MAX_LAYERS: usize = 64;

/// What the shell will run for one command line.
///
/// ```
/// use shell_reading::read;
///
/// let reading = read("2>/dev/null nice -n 5 '/bin/rm' -f victim.txt && ls");
/// assert!(reading.is_checkable());
/// let cores: Vec<&str> = reading.runs().iter().filter_map(|r| r.core()).map(|i| i.name()).collect();
/// assert_eq!(cores, ["rm", "ls"]);
///
/// let opaque = read("c=rm; $c -f victim.txt");
/// assert!(!opaque.is_checkable());
/// assert_eq!(opaque.hazards()[0].to_string(), "its program `$c` is only known when the shell expands it");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    script: Option<Script>,
    runs: Vec<Run>,
    hazards: Vec<Hazard>,
}

/// Reads `text` as sh and bash will run it. Never fails: what cannot be
/// read is a [`Hazard`]. Linear in the length; text over
/// [`MAX_COMMAND_BYTES`] is not read at all.
pub fn read(text: &str) -> Reading {
    if text.len() > MAX_COMMAND_BYTES {
        return Reading {
            script: None,
            runs: Vec::new(),
            hazards: vec![Hazard::TooLong { len: text.len() }],
        };
    }
    match parse(text) {
        Ok(script) => {
            let mut flat = Flat::default();
            flat.script(&script, Context::default());
            flat.drain();
            Reading {
                script: Some(script),
                runs: flat.runs,
                hazards: flat.hazards,
            }
        }
        Err(why) => Reading {
            script: None,
            runs: Vec::new(),
            hazards: vec![Hazard::Unreadable(why)],
        },
    }
}

impl Reading {
    /// The syntax tree of the top level, when the text parsed.
    pub fn script(&self) -> Option<&Script> {
        self.script.as_ref()
    }

    /// Every simple command that may run: at the top level, in compound
    /// commands, function bodies, substitutions, here-document bodies and
    /// command strings (`sh -c`, `eval`) with literal text.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// Why [`runs`](Self::runs) may not be the whole story; empty when
    /// it is.
    pub fn hazards(&self) -> &[Hazard] {
        &self.hazards
    }

    /// Whether every program the command line may start is in
    /// [`runs`](Self::runs), named by literal words.
    pub fn is_checkable(&self) -> bool {
        self.hazards.is_empty()
    }

    /// Whether the text parsed (a [`Hazard::Unreadable`] or
    /// [`Hazard::TooLong`] reading did not).
    pub fn parsed(&self) -> bool {
        self.script.is_some()
    }

    /// Whether some command may start a program of this name, directly
    /// or through a wrapper. A reading that is not checkable may start
    /// anything: then `true`.
    pub fn may_run(&self, name: &str) -> bool {
        !self.is_checkable()
            || self
                .runs
                .iter()
                .any(|run| run.layers.iter().any(|layer| layer.name() == name))
    }
}

/// A command line with its reading: the text that will run and what the
/// shell will run for it, made together so they cannot disagree.
///
/// ```
/// use shell_reading::CommandLine;
///
/// let line = CommandLine::new("git status && ls");
/// assert_eq!(line.text(), "git status && ls");
/// assert_eq!(line.reading().runs().len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    text: Arc<str>,
    reading: Reading,
}

impl CommandLine {
    /// Reads `text` (see [`read`]).
    pub fn new(text: impl Into<String>) -> CommandLine {
        CommandLine::shared(Arc::from(text.into()))
    }

    /// Reads `text` and keeps it without a copy: for a caller that holds
    /// the command itself too (a tool's parsed input), so a long command
    /// is in memory once however many hold it.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use shell_reading::CommandLine;
    ///
    /// let text: Arc<str> = Arc::from("ls -la");
    /// let line = CommandLine::shared(Arc::clone(&text));
    /// assert!(std::ptr::eq(line.text(), &*text));
    /// ```
    pub fn shared(text: Arc<str>) -> CommandLine {
        let reading = read(&text);
        CommandLine { text, reading }
    }

    /// The text, as it will be handed to the shell.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// What the shell will run for it.
    pub fn reading(&self) -> &Reading {
        &self.reading
    }
}
