//! What a reading says a command runs: each simple command as a [`Run`],
//! with the [`Invocation`]s it starts (its own program and each one a
//! wrapper runs) and the [`Context`] it stands in.
//!
//! Plain data: the [`flat`](super::flat) walk finds the commands and
//! [`peel`](super::peel) the programs each one starts.

use crate::syntax::{Redirect, Word};

/// One program a command starts: the command's own program, or one a
/// wrapper in front of it runs (`nice -n 5 rm x` starts `nice`, which
/// starts `rm`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The program word, as the shell hands it over (`/bin/rm`, `rm`).
    pub program: Word,
    /// The arguments the program receives. For a wrapper: its own, up to
    /// the program it runs, which is the next layer (the words it receives
    /// are [`Run::words_from`] that layer).
    pub args: Vec<Word>,
    /// The program gets arguments the text does not show: `xargs`
    /// appends words read from its input, `find -exec` substitutes `{}`.
    pub unseen_args: bool,
    /// For a wrapper: an option of its own that writes a file (`time -o
    /// FILE`, `sudo -e`), whatever it runs.
    pub writes: bool,
    /// For `env` and `sudo`: the `NAME=value` operands they set for the
    /// program they run.
    pub assignments: Vec<Word>,
}

impl Invocation {
    /// The program's name as the shell looks it up: the last component of
    /// a path (`/bin/rm` is `rm`).
    pub fn name(&self) -> &str {
        basename(&self.program.text)
    }

    /// Whether the program is named by a path (`/bin/rm`, `./rm`).
    pub fn by_path(&self) -> bool {
        self.program.text.contains('/')
    }
}

/// `/bin/rm` is `rm`.
pub fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// Where a command stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Context {
    /// It runs in the background (`&`).
    pub background: bool,
    /// It is in a function body: it runs whenever the function is called.
    pub in_function: bool,
    /// It runs to expand a word (`$(...)`, `` `...` ``, `<(...)`, a
    /// here-document body).
    pub in_substitution: bool,
    /// How many command strings deep (`sh -c`, `eval`) it was found.
    pub nested: usize,
}

/// One simple command as it will run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// `NAME=value` words before the program (also the variable of a
    /// `for` loop, which is assigned before every pass).
    pub assignments: Vec<Word>,
    /// Its redirections.
    pub redirects: Vec<Redirect>,
    /// The programs it starts, the command's own first and each wrapped
    /// one after; empty when the command has no words (`X=1`, `>f`).
    pub layers: Vec<Invocation>,
    /// Where it stands.
    pub context: Context,
}

impl Run {
    /// The program at the core, once every wrapper is peeled.
    pub fn core(&self) -> Option<&Invocation> {
        self.layers.last()
    }

    /// The words layer `layer` receives as a command line, its program
    /// first: for the outermost layer, the command's words (`nice -n 5 rm
    /// x`); for the core, its program and arguments (`rm x`).
    pub fn words_from(&self, layer: usize) -> impl Iterator<Item = &Word> {
        self.layers
            .get(layer..)
            .unwrap_or_default()
            .iter()
            .flat_map(|l| std::iter::once(&l.program).chain(&l.args))
    }
}
