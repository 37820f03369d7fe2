//! The syntax tree: what the parser read, before anything is concluded
//! from it.

/// A word as the program will receive it, with what the shell may still
/// change about it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    /// The text after quote removal. For a [`dynamic`](Self::dynamic)
    /// word this is only an approximation: expansions are kept as
    /// written.
    pub text: String,
    /// The shell, not the text, decides the final value: a parameter
    /// expansion, a substitution, an unquoted glob (`*`, `?`, `[`) or
    /// brace, a leading tilde, or a quoting sh and bash read differently
    /// (`$'...'`). Such a word may become zero, one or many words, or an
    /// option.
    pub dynamic: bool,
    /// Every character was an unquoted literal outside any expansion:
    /// only such a word can be a reserved word (`if`, `{`, `!`).
    pub plain: bool,
    /// The word is an assignment `NAME=value` (an unquoted valid name
    /// before the first unquoted `=`).
    pub assignment: bool,
    /// The shell evaluates a value as code while expanding this word:
    /// bash's arithmetic (`$((x))`, `${s:x}`, `${a[x]}`) reads a
    /// variable's value as an expression, and `a[$(cmd)]` in that value
    /// runs `cmd`; `${x@P}` expands a value as a prompt.
    pub evaluates: bool,
    /// Command lists the shell runs to expand this word: `$(...)`,
    /// `` `...` ``, `<(...)`, `>(...)`, and those inside `${...}` and
    /// `$((...))`.
    pub substitutions: Vec<Script>,
}

impl Word {
    /// A word the shell hands over as is.
    pub fn literal(text: &str) -> Word {
        Word {
            text: text.to_owned(),
            plain: true,
            ..Word::default()
        }
    }

    /// The word is exactly `text`, with no expansion.
    pub fn is(&self, text: &str) -> bool {
        !self.dynamic && self.text == text
    }
}

/// What a redirection does to its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// `<`: opens the target for reading.
    Read,
    /// `>` or `>|`: creates or truncates the target.
    Truncate,
    /// `>>`: creates the target or appends to it.
    Append,
    /// `<>`: opens the target for reading and writing, creating it; what
    /// the command writes to that descriptor overwrites the file in
    /// place.
    ReadWrite,
    /// `<&` or `>&`: duplicates or closes a descriptor; with a target that
    /// is not a number or `-`, bash opens (for `>&`: truncates) a file of
    /// that name instead.
    Duplicate,
    /// bash's `&>` and `&>>`: standard output and error to a file. dash
    /// reads `cmd &>f` as `cmd &` then `>f`: either way the file is
    /// truncated (or appended to, for `&>>`).
    OutputAndError {
        /// `&>>`.
        append: bool,
    },
    /// `<<` or `<<-`: a here-document; the target is the delimiter, the
    /// body is in [`Script::heredocs`].
    HereDoc,
    /// bash's `<<<`: a here-string.
    HereString,
}

/// One redirection: `[n]op target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The descriptor number written before the operator, if any.
    pub fd: Option<u32>,
    /// What it does.
    pub kind: RedirectKind,
    /// Its target word (for a here-document: its delimiter).
    pub target: Word,
}

/// One simple command: assignments, words and redirections.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// `NAME=value` words before the program.
    pub assignments: Vec<Word>,
    /// The program and its arguments.
    pub words: Vec<Word>,
    /// Redirections, wherever they appeared (before, between or after the
    /// words).
    pub redirects: Vec<Redirect>,
}

/// A command of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A simple command.
    Simple(SimpleCommand),
    /// A compound command with the redirections that follow it.
    Compound(Compound, Vec<Redirect>),
    /// A function definition: `name() body` or bash's `function name`.
    Function {
        /// The function's name.
        name: Word,
        /// Its body (a compound command).
        body: Box<Command>,
    },
}

/// The compound commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compound {
    /// `{ list; }`
    Group(Script),
    /// `( list )`.
    Subshell(Script),
    /// `((...))`: bash's arithmetic command, which evaluates values as
    /// code; dash reads the same text as two nested subshells, and that
    /// reading (a [`Compound::Subshell`] inside) is kept, so every command
    /// either shell could run is in it.
    Arithmetic(Script),
    /// `if list; then list; [elif list; then list;]... [else list;] fi`:
    /// every list in order.
    If(Vec<Script>),
    /// `while list; do list; done` and `until ...`.
    Loop {
        /// The condition.
        condition: Script,
        /// The body.
        body: Script,
    },
    /// `for name [in words]; do list; done` (and bash's `select`).
    For {
        /// The loop variable, assigned before every pass.
        name: Word,
        /// The words after `in` (`None`: the positional parameters).
        words: Option<Vec<Word>>,
        /// The body.
        body: Script,
    },
    /// `case word in (pattern | pattern) list ;; ... esac`.
    Case {
        /// The word matched.
        word: Word,
        /// Each arm: its patterns and its list.
        arms: Vec<(Vec<Word>, Script)>,
    },
    /// bash's `[[ ... ]]`: its words (operators left out).
    Conditional(Vec<Word>),
}

/// A pipeline: commands joined by `|` (or bash's `|&`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    /// `!` in front.
    pub negated: bool,
    /// The commands, in order.
    pub commands: Vec<Command>,
}

/// How two pipelines of an and-or list are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connector {
    /// `&&`
    And,
    /// `||`
    Or,
}

/// Pipelines joined by `&&` and `||`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AndOr {
    /// The first pipeline.
    pub first: Pipeline,
    /// The rest, each with the connector before it.
    pub rest: Vec<(Connector, Pipeline)>,
}

impl AndOr {
    /// Every pipeline, in order.
    pub fn pipelines(&self) -> impl Iterator<Item = &Pipeline> {
        std::iter::once(&self.first).chain(self.rest.iter().map(|(_, p)| p))
    }
}

/// One element of a command list, with how it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListItem {
    /// The and-or list.
    pub and_or: AndOr,
    /// Ended by `&`: runs in the background.
    pub background: bool,
}

/// A command list: what a command line, a subshell, a group, a
/// substitution or a compound command's part holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    /// The and-or lists, in order.
    pub items: Vec<ListItem>,
    /// The bodies of the here-documents whose line ended while this list
    /// was read, as words (a body with an unquoted delimiter is expanded:
    /// its substitutions run).
    pub heredocs: Vec<Word>,
}

impl Script {
    /// Whether the list holds no command at all.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}
