//! A [`Reading`]: every command a command line may run, each with the
//! programs it starts through its wrappers, and every reason the reading
//! cannot vouch for that list.

use std::fmt;
use std::sync::Arc;

use crate::environment::names_what_runs;
use crate::options::{Item, Table};
use crate::syntax::{Command, Compound, Redirect, Script, SimpleCommand, Unreadable, Word, parse};
use crate::wrappers::{
    CHRT, COMMAND, DOAS, ENV, EXEC, IONICE, NICE, NOHUP, OPAQUE_RUNNERS, SETSID, SHELLS, STDBUF,
    SUDO, TIME, TIMEOUT, XARGS,
};

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

/// A reason the reading cannot vouch that its [runs](Reading::runs) are
/// every program the command line may start, with their words: a rule
/// cannot be checked against such a command, and a classifier must take
/// the strict answer.
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
    /// Command strings nested deeper than [`MAX_NESTING`], or wrappers
    /// deeper than [`MAX_LAYERS`].
    TooDeep,
    /// A program runs what its configuration names: a git alias (an
    /// unknown git subcommand) or `git -c` with a key that names a
    /// program.
    ConfiguredProgram(String),
    /// A variable is set that changes which program runs or the
    /// configuration a program reads (`PATH`, `BASH_ENV`, `HOME`,
    /// `GIT_*`, `PS4`, ...; see [`names_what_runs`]).
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

/// Work still to flatten: nested scripts found in words, command strings.
enum Work {
    Script(Script, Context),
    Text(String, Context),
    Words(Vec<Word>, Context),
}

#[derive(Default)]
struct Flat {
    runs: Vec<Run>,
    hazards: Vec<Hazard>,
    work: Vec<Work>,
}

impl Flat {
    /// Notes a hazard. One is enough to make a reading uncheckable; the
    /// first few are kept for the reasons a user reads, so the cost stays
    /// linear however many there are.
    fn hazard(&mut self, hazard: Hazard) {
        if self.hazards.len() < MAX_HAZARDS && !self.hazards.contains(&hazard) {
            self.hazards.push(hazard);
        }
    }

    fn drain(&mut self) {
        while let Some(work) = self.work.pop() {
            match work {
                Work::Script(script, cx) => self.script(&script, cx),
                Work::Text(text, cx) => match parse(&text) {
                    Ok(script) => self.script(&script, cx),
                    Err(why) => self.hazard(Hazard::Unreadable(why)),
                },
                Work::Words(words, cx) => {
                    let layers = self.peel(&words, cx, true);
                    self.runs.push(Run {
                        assignments: Vec::new(),
                        redirects: Vec::new(),
                        layers,
                        context: cx,
                    });
                }
            }
        }
    }

    /// Queues the substitutions of a word, and notes what it evaluates.
    fn word(&mut self, word: &Word, cx: Context) {
        if word.evaluates {
            self.hazard(Hazard::Evaluates);
        }
        for script in &word.substitutions {
            let inner = Context {
                in_substitution: true,
                ..cx
            };
            self.work.push(Work::Script(script.clone(), inner));
        }
    }

    fn redirects(&mut self, redirects: &[Redirect], cx: Context) {
        for redirect in redirects {
            self.word(&redirect.target, cx);
        }
    }

    fn script(&mut self, script: &Script, cx: Context) {
        for body in &script.heredocs {
            self.word(body, cx);
        }
        for item in &script.items {
            let cx = Context {
                background: cx.background || item.background,
                ..cx
            };
            for pipeline in item.and_or.pipelines() {
                for command in &pipeline.commands {
                    self.command(command, cx);
                }
            }
        }
    }

    fn command(&mut self, command: &Command, cx: Context) {
        match command {
            Command::Simple(simple) => self.simple(simple, cx),
            Command::Function { name, body } => {
                self.hazard(Hazard::FunctionDefinition(name.text.clone()));
                self.command(
                    body,
                    Context {
                        in_function: true,
                        ..cx
                    },
                );
            }
            Command::Compound(compound, redirects) => {
                self.redirects(redirects, cx);
                match compound {
                    Compound::Group(s) | Compound::Subshell(s) => self.script(s, cx),
                    Compound::Arithmetic(s) => {
                        self.hazard(Hazard::Evaluates);
                        self.script(s, cx);
                    }
                    Compound::If(parts) => {
                        for part in parts {
                            self.script(part, cx);
                        }
                    }
                    Compound::Loop { condition, body } => {
                        self.script(condition, cx);
                        self.script(body, cx);
                    }
                    Compound::For { name, words, body } => {
                        for word in words.iter().flatten() {
                            self.word(word, cx);
                        }
                        // The loop assigns its variable before every pass.
                        if names_what_runs(&name.text) {
                            self.hazard(Hazard::ChangesWhatRuns(name.text.clone()));
                        }
                        self.runs.push(Run {
                            assignments: vec![Word {
                                text: format!("{}=", name.text),
                                assignment: true,
                                dynamic: true,
                                ..Word::default()
                            }],
                            redirects: Vec::new(),
                            layers: Vec::new(),
                            context: cx,
                        });
                        self.script(body, cx);
                    }
                    Compound::Case { word, arms } => {
                        self.word(word, cx);
                        for (patterns, list) in arms {
                            for pattern in patterns {
                                self.word(pattern, cx);
                            }
                            self.script(list, cx);
                        }
                    }
                    Compound::Conditional(words) => {
                        for word in words {
                            self.word(word, cx);
                        }
                    }
                }
            }
        }
    }

    fn simple(&mut self, simple: &SimpleCommand, cx: Context) {
        for word in simple.assignments.iter().chain(&simple.words) {
            self.word(word, cx);
        }
        self.redirects(&simple.redirects, cx);
        for assignment in &simple.assignments {
            self.assignment(assignment);
        }
        let layers = self.peel(&simple.words, cx, false);
        self.git_internals(simple, &layers);
        self.runs.push(Run {
            assignments: simple.assignments.clone(),
            redirects: simple.redirects.clone(),
            layers,
            context: cx,
        });
    }

    /// Writing git's hooks or configuration makes a later `git` run what
    /// was written (`echo 'rm x' > .git/hooks/pre-commit; git commit`):
    /// a command that writes there, or names those files for a program
    /// that is not a plain reader, cannot be checked.
    fn git_internals(&mut self, simple: &SimpleCommand, layers: &[Invocation]) {
        const INTERNALS: [&str; 4] = [".git/hooks", ".git/config", ".git/info", ".git/modules"];
        let names_internals = |text: &str| INTERNALS.iter().any(|p| text.contains(p));
        let writes = simple.redirects.iter().any(|r| {
            !matches!(
                r.kind,
                crate::syntax::RedirectKind::Read
                    | crate::syntax::RedirectKind::HereDoc
                    | crate::syntax::RedirectKind::HereString
            ) && r.target.text.contains(".git/")
        });
        let reader = layers.last().is_some_and(|core| {
            matches!(
                core.name(),
                "cat"
                    | "ls"
                    | "head"
                    | "tail"
                    | "grep"
                    | "wc"
                    | "stat"
                    | "du"
                    | "find"
                    | "less"
                    | "more"
                    | "file"
                    | "echo"
                    | "test"
                    | "["
            )
        });
        let named = !reader
            && layers
                .iter()
                .flat_map(|l| &l.args)
                .any(|w| names_internals(&w.text));
        if writes || named {
            self.hazard(Hazard::ConfiguredProgram(
                "writing git's hooks or configuration (which a later `git` runs)".into(),
            ));
        }
    }

    /// An assignment (in front of a command, an `env` or `sudo` operand, a
    /// builtin's argument, a `for` variable) that changes what runs.
    fn assignment(&mut self, word: &Word) {
        if assignment_changes_what_runs(word) {
            let name = word.text.split('=').next().unwrap_or_default();
            self.hazard(Hazard::ChangesWhatRuns(name.to_owned()));
        }
    }

    /// A command string to read as a list of its own.
    fn nested_text(&mut self, text: String, cx: Context) {
        if cx.nested >= MAX_NESTING {
            self.hazard(Hazard::TooDeep);
            return;
        }
        if text.len() > MAX_COMMAND_BYTES {
            self.hazard(Hazard::TooLong { len: text.len() });
            return;
        }
        let inner = Context {
            nested: cx.nested + 1,
            ..cx
        };
        self.work.push(Work::Text(text, inner));
    }

    /// The programs `words` start: the first word's, then each wrapped
    /// one's, until a program that is not a wrapper. Command strings and
    /// `find -exec` commands go on the work list.
    fn peel(&mut self, words: &[Word], cx: Context, unseen: bool) -> Vec<Invocation> {
        let mut layers = Vec::new();
        let mut words: Vec<Word> = words.to_vec();
        let mut start = 0;
        let mut unseen_args = unseen;
        // `env -S` splices a string into the words; bounded like nesting.
        let mut splices = 0;
        loop {
            let Some(program) = words.get(start).cloned() else {
                // `xargs env`: the program comes from xargs' input.
                if unseen_args && !layers.is_empty() {
                    self.hazard(Hazard::DynamicProgram(
                        "(the words xargs reads from its input)".into(),
                    ));
                }
                return layers;
            };
            if layers.len() >= MAX_LAYERS {
                self.hazard(Hazard::TooDeep);
                return layers;
            }
            // What `xargs -I R` replaces in the words after it.
            let mut replaced: Option<String> = None;
            let args: &[Word] = &words[start + 1..];
            let mut layer = Invocation {
                program: program.clone(),
                args: Vec::new(),
                unseen_args,
                writes: false,
                assignments: Vec::new(),
            };
            if program.dynamic {
                self.hazard(Hazard::DynamicProgram(program.text.clone()));
                layer.args = args.to_vec();
                layers.push(layer);
                return layers;
            }
            if let Some(why) = unknown_file(&program.text) {
                self.hazard(Hazard::ScriptFile(why));
            }
            let name = basename(&program.text).to_owned();
            let rest = |table: &Table| -> Option<usize> {
                table.parse(args).ok().map(|(_, rest)| start + 1 + rest)
            };
            let next = match name.as_str() {
                "nice" => rest(&NICE),
                "nohup" | "builtin" => rest(&NOHUP),
                "stdbuf" => rest(&STDBUF),
                "setsid" => rest(&SETSID),
                "ionice" => rest(&IONICE),
                "command" => rest(&COMMAND),
                "exec" => rest(&EXEC),
                "doas" => rest(&DOAS),
                "coproc" => Some(start + 1),
                // The duration is one word, which must be literal: `$x`
                // could be `5 rm`.
                "timeout" => rest(&TIMEOUT).map(|at| {
                    if words.get(at).is_some_and(|w| w.dynamic) {
                        self.hazard(Hazard::UnknownWrapperOption("timeout".into()));
                    }
                    at + 1
                }),
                "chrt" => rest(&CHRT).map(|at| {
                    let priority = words
                        .get(at)
                        .is_some_and(|w| !w.dynamic && w.text.chars().all(|c| c.is_ascii_digit()));
                    at + usize::from(priority)
                }),
                // GNU `time`, or bash's `time` keyword (`time ! cmd` runs
                // `cmd` negated): the `!` is skipped for bash's reading.
                "time" => match TIME.parse(args) {
                    Ok((items, rest)) => {
                        layer.writes = has(&TIME, &items, "output");
                        let mut at = start + 1 + rest;
                        while words.get(at).is_some_and(|w| w.is("!")) {
                            at += 1;
                        }
                        Some(at)
                    }
                    Err(_) => None,
                },
                "sudo" => match SUDO.parse(args) {
                    Ok((items, rest)) => {
                        layer.writes = has(&SUDO, &items, "edit");
                        let from = start + 1 + rest;
                        let mut to = from;
                        // sudo, not the shell, reads its `VAR=value`
                        // operands: quoting is gone by then, so `'A=b'`
                        // is one as much as `A=b` (as for `env` below).
                        while words
                            .get(to)
                            .is_some_and(|w| !w.dynamic && w.text.contains('='))
                        {
                            to += 1;
                        }
                        layer.assignments = words[from..to].to_vec();
                        for assignment in &layer.assignments {
                            self.assignment(assignment);
                        }
                        Some(to)
                    }
                    Err(_) => None,
                },
                "env" => match ENV.parse(args) {
                    Ok((items, rest)) => {
                        let split = items.iter().find_map(|item| match item {
                            Item::Opt { opt, value } if ENV.is(*opt, "split-string") => {
                                value.clone()
                            }
                            _ => None,
                        });
                        let at = start + 1 + rest;
                        match split {
                            Some(split) => {
                                splices += 1;
                                let spliced = (splices <= MAX_NESTING)
                                    .then(|| split_words(&split))
                                    .flatten();
                                let Some(mut spliced) = spliced else {
                                    self.hazard(Hazard::DynamicCommandString("env -S".into()));
                                    layer.args = args.to_vec();
                                    layers.push(layer);
                                    return layers;
                                };
                                // `env -S` re-reads options from the split
                                // words, so they go back in after `env`.
                                spliced.insert(0, program.clone());
                                spliced.extend_from_slice(&words[at..]);
                                words = spliced;
                                start = 0;
                                continue;
                            }
                            None => {
                                let mut to = at;
                                while words.get(to).is_some_and(|w| {
                                    !w.dynamic && (w.text == "-" || w.text.contains('='))
                                }) {
                                    to += 1;
                                }
                                // `env` takes assignments as operands.
                                layer.assignments = words[at..to].to_vec();
                                for assignment in &layer.assignments {
                                    self.assignment(assignment);
                                }
                                Some(to)
                            }
                        }
                    }
                    Err(_) => None,
                },
                "xargs" => match XARGS.parse(args) {
                    Ok((items, rest)) => {
                        unseen_args = true;
                        // `-I R`, `-i[R]`, `--replace[=R]`: every word that
                        // holds R is replaced by what xargs reads.
                        let replace = items.iter().find_map(|item| match item {
                            Item::Opt { opt, value } if XARGS.is(*opt, "I") => value.clone(),
                            Item::Opt { opt, value } if XARGS.is(*opt, "replace") => {
                                Some(value.clone().unwrap_or_else(|| "{}".to_owned()))
                            }
                            _ => None,
                        });
                        replaced = replace.filter(|r| !r.is_empty());
                        Some(start + 1 + rest)
                    }
                    Err(_) => None,
                },
                "busybox" | "toybox" => match args.first() {
                    Some(applet) if !applet.text.starts_with('-') => Some(start + 1),
                    Some(_) => None,
                    None => Some(start + 1),
                },
                "eval" => {
                    // bash's `eval` takes `--`.
                    let text = match args.first() {
                        Some(first) if first.is("--") => &args[1..],
                        _ => args,
                    };
                    if unseen_args || text.iter().any(|w| w.dynamic) {
                        self.hazard(Hazard::DynamicCommandString("eval".into()));
                    } else {
                        self.nested_text(join(text), cx);
                    }
                    layer.args = args.to_vec();
                    layers.push(layer);
                    return layers;
                }
                "." | "source" => {
                    let what = args.first().map_or_else(String::new, |w| w.text.clone());
                    self.hazard(Hazard::ScriptFile(what));
                    layer.args = args.to_vec();
                    layers.push(layer);
                    return layers;
                }
                "trap" => {
                    // `trap [-lp] [--] ACTION SIGNAL...`: the action is a
                    // command line, whatever it starts with after `--`.
                    let mut at = 0;
                    while args.get(at).is_some_and(|w| w.is("-l") || w.is("-p")) {
                        at += 1;
                    }
                    if args.get(at).is_some_and(|w| w.is("--")) {
                        at += 1;
                    }
                    match args.get(at) {
                        Some(action) if action.dynamic || unseen_args => {
                            self.hazard(Hazard::DynamicCommandString("trap".into()));
                        }
                        Some(action) if !action.is("-") => {
                            self.nested_text(action.text.clone(), cx);
                        }
                        _ => {}
                    }
                    layer.args = args.to_vec();
                    layers.push(layer);
                    return layers;
                }
                "alias" | "hash" | "enable" => {
                    self.hazard(Hazard::RenamesPrograms(name.clone()));
                    layer.args = args.to_vec();
                    layers.push(layer);
                    return layers;
                }
                "find" => {
                    self.find_actions(args, cx);
                    layer.args = args.to_vec();
                    layers.push(layer);
                    return layers;
                }
                "git" => {
                    self.git(args);
                    layer.args = args.to_vec();
                    layers.push(layer);
                    return layers;
                }
                name if SHELLS.contains(&name) => {
                    self.shell(name, args, unseen_args, cx);
                    layer.args = args.to_vec();
                    layers.push(layer);
                    return layers;
                }
                name if OPAQUE_RUNNERS.contains(&name) || is_dynamic_loader(name) => {
                    self.hazard(Hazard::OpaqueRunner(name.to_owned()));
                    layer.args = args.to_vec();
                    layers.push(layer);
                    return layers;
                }
                name => {
                    self.builtin(name, args);
                    if let Some(what) = crate::classify::runs_commands_from_args(name, args) {
                        self.hazard(Hazard::OpaqueRunner(what));
                    }
                    layer.args = args.to_vec();
                    layers.push(layer);
                    return layers;
                }
            };
            match next {
                Some(next) => {
                    // A wrapper keeps its own words; the program it runs
                    // is the next layer.
                    layer.args = words[start + 1..next.min(words.len())].to_vec();
                    layers.push(layer);
                    start = next;
                    if let Some(replace) = replaced {
                        for word in words.iter_mut().skip(start) {
                            if word.text.contains(replace.as_str()) {
                                word.dynamic = true;
                            }
                        }
                    }
                }
                None => {
                    layer.args = args.to_vec();
                    layers.push(layer);
                    self.hazard(Hazard::UnknownWrapperOption(name));
                    return layers;
                }
            }
        }
    }

    /// bash builtins that set variables, evaluate values as code, or run
    /// command strings from their options.
    fn builtin(&mut self, name: &str, args: &[Word]) {
        let sets_variables = matches!(
            name,
            "export"
                | "declare"
                | "typeset"
                | "local"
                | "readonly"
                | "read"
                | "getopts"
                | "mapfile"
                | "readarray"
                | "unset"
                | "printf"
                | "test"
                | "["
                | "wait"
        );
        if !sets_variables {
            if name == "let" {
                self.hazard(Hazard::Evaluates);
            }
            if name == "jobs" && args.iter().any(|w| w.text.starts_with("-x")) {
                self.hazard(Hazard::OpaqueRunner("jobs -x".into()));
            }
            return;
        }
        for arg in args {
            // `a[$(cmd)]` as a variable name: bash evaluates the subscript.
            if arg.text.contains('[') && name != "test" && name != "[" || arg.evaluates {
                self.hazard(Hazard::Evaluates);
            }
            if (name == "test" || name == "[") && arg.text.contains('[') && arg.text.contains('$') {
                self.hazard(Hazard::Evaluates);
            }
            let is_option = arg.text.starts_with('-') && !arg.text.contains('=');
            if matches!(name, "declare" | "typeset" | "local")
                && is_option
                && (arg.text.contains('i') || arg.text.contains('n'))
            {
                // Integer and name-reference variables evaluate what is
                // assigned to them.
                self.hazard(Hazard::Evaluates);
            }
            if !is_option && !matches!(name, "printf" | "test" | "[" | "wait") {
                self.assignment(&Word {
                    text: if arg.text.contains('=') {
                        arg.text.clone()
                    } else {
                        format!("{}=", arg.text)
                    },
                    dynamic: arg.dynamic,
                    assignment: !arg.dynamic,
                    ..Word::default()
                });
            }
        }
        if name == "printf" {
            // `printf -v NAME ...`
            for pair in args.windows(2) {
                if pair[0].is("-v") {
                    self.assignment(&Word {
                        text: format!("{}=", pair[1].text),
                        dynamic: pair[1].dynamic,
                        assignment: !pair[1].dynamic,
                        ..Word::default()
                    });
                }
            }
        }
    }

    /// `sh [options] -c STRING [name [args]]`, `sh FILE`, or `sh` reading
    /// its commands from its input.
    fn shell(&mut self, name: &str, args: &[Word], unseen_args: bool, cx: Context) {
        if unseen_args {
            self.hazard(Hazard::DynamicCommandString(name.to_owned()));
            return;
        }
        let mut command_string = false;
        let mut i = 0;
        while let Some(word) = args.get(i) {
            if word.dynamic {
                self.hazard(Hazard::DynamicCommandString(name.to_owned()));
                return;
            }
            let text = word.text.as_str();
            if text == "--" || text == "-" {
                i += 1;
                break;
            }
            if let Some(long) = text.strip_prefix("--") {
                match long {
                    "norc" | "noprofile" | "posix" | "restricted" | "verbose" | "noediting" => {
                        i += 1;
                    }
                    // A login shell reads the profile, `--rcfile` a file of
                    // commands.
                    "login" | "rcfile" | "init-file" => {
                        self.hazard(Hazard::ScriptFile(format!("{name}'s start-up files")));
                        return;
                    }
                    _ => {
                        self.hazard(Hazard::UnknownWrapperOption(name.to_owned()));
                        return;
                    }
                }
                continue;
            }
            let Some(flags) = text.strip_prefix('-').or_else(|| text.strip_prefix('+')) else {
                break;
            };
            if flags.contains('s') {
                self.hazard(Hazard::ShellReadsInput(name.to_owned()));
                return;
            }
            // An interactive shell reads `~/.bashrc` or `$ENV`, a login
            // shell its profile: commands the text does not show.
            if text.starts_with('-') && (flags.contains('i') || flags.contains('l')) {
                self.hazard(Hazard::ScriptFile(format!("{name}'s start-up files")));
                return;
            }
            command_string |= text.starts_with('-') && flags.contains('c');
            i += 1;
            // `-o option`, `+o option`, bash's `-O shopt_option`.
            if flags.contains('o') || flags.contains('O') {
                i += 1;
            }
        }
        match args.get(i) {
            Some(string) if command_string => self.nested_text(string.text.clone(), cx),
            None if command_string => {}
            Some(script) => self.hazard(Hazard::ScriptFile(script.text.clone())),
            None => self.hazard(Hazard::ShellReadsInput(name.to_owned())),
        }
    }

    /// The commands `find -exec`, `-execdir`, `-ok` and `-okdir` run, with
    /// `{}` standing for what find substitutes.
    fn find_actions(&mut self, args: &[Word], cx: Context) {
        let mut i = 0;
        while let Some(word) = args.get(i) {
            i += 1;
            if matches!(word.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                let end = args[i..]
                    .iter()
                    .position(|w| w.text == ";" || w.text == "+")
                    .map_or(args.len(), |n| i + n);
                if end > i {
                    if cx.nested >= MAX_NESTING {
                        self.hazard(Hazard::TooDeep);
                        return;
                    }
                    let inner = Context {
                        nested: cx.nested + 1,
                        ..cx
                    };
                    // find puts the file name wherever `{}` stands, the
                    // program's place included.
                    let mut words = args[i..end].to_vec();
                    for word in &mut words {
                        if word.text.contains("{}") {
                            word.dynamic = true;
                        }
                    }
                    self.work.push(Work::Words(words, inner));
                }
                i = end + 1;
            }
        }
    }

    /// git runs what its configuration names: an alias (any subcommand git
    /// does not have) may be a shell command, and `-c` may set a key that
    /// names a program.
    fn git(&mut self, args: &[Word]) {
        if let Some(what) = crate::classify::runs_commands_from_args("git", args) {
            self.hazard(Hazard::OpaqueRunner(what));
        }
        match crate::classify::git_invocation(args) {
            crate::classify::GitInvocation::Known => {}
            crate::classify::GitInvocation::ConfiguresProgram(key) => {
                self.hazard(Hazard::ConfiguredProgram(format!("`git -c {key}`")));
            }
            crate::classify::GitInvocation::Unknown(sub) => {
                self.hazard(Hazard::ConfiguredProgram(format!(
                    "`git {sub}` (not a git command, so maybe an alias)"
                )));
            }
            crate::classify::GitInvocation::Unreadable => {
                self.hazard(Hazard::UnknownWrapperOption("git".into()));
            }
        }
    }
}

/// The directories programs named by an absolute path are expected in:
/// elsewhere (a copy of `rm` in `/tmp`), the name says nothing.
const SYSTEM_BIN_DIRS: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
];

/// Why a program named by a path is a file whose contents nobody read: a
/// relative path (`./x.sh`, a copy or a link the model made) or an
/// absolute one outside the system's program directories.
fn unknown_file(program: &str) -> Option<String> {
    let (dir, _) = program.rsplit_once('/')?;
    if !program.starts_with('/') {
        return Some(format!("{program} (a file in the working directory)"));
    }
    let dir = if dir.is_empty() { "/" } else { dir };
    let normal = dir.trim_end_matches('/');
    let normal = normal.replace("//", "/");
    (!SYSTEM_BIN_DIRS.contains(&normal.as_str()))
        .then(|| format!("{program} (not in a system program directory)"))
}

/// The dynamic loader, which runs the program named in its arguments.
fn is_dynamic_loader(name: &str) -> bool {
    name.starts_with("ld-linux") || name.starts_with("ld.so") || name.starts_with("ld-musl")
}

/// Whether `name` names an option in the parsed items.
pub(crate) fn has(table: &Table, items: &[Item<'_>], name: &str) -> bool {
    items
        .iter()
        .any(|item| matches!(item, Item::Opt { opt, .. } if table.is(*opt, name)))
}

fn join(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of an `env -S` string, read with the shell's quoting (a close
/// enough model of env's own, after its `\_` separator and `\c` end);
/// `None` if it holds anything but plain words.
fn split_words(text: &str) -> Option<Vec<Word>> {
    let text = text
        .split("\\c")
        .next()
        .unwrap_or_default()
        .replace("\\_", " ");
    let script = parse(&text).ok()?;
    match script.items.as_slice() {
        [] => Some(Vec::new()),
        [item] if !item.background && item.and_or.rest.is_empty() => {
            match item.and_or.first.commands.as_slice() {
                [Command::Simple(simple)]
                    if simple.assignments.is_empty()
                        && simple.redirects.is_empty()
                        && !item.and_or.first.negated
                        && simple.words.iter().all(|w| w.substitutions.is_empty()) =>
                {
                    Some(simple.words.clone())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether an assignment can change which program runs or how it reads
/// its configuration (see [`names_what_runs`]). A dynamic name counts.
pub fn assignment_changes_what_runs(word: &Word) -> bool {
    if word.dynamic && !word.assignment {
        return true;
    }
    let name = word.text.split('=').next().unwrap_or_default();
    names_what_runs(name)
}
