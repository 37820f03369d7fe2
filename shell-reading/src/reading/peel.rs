//! Peeling a command's wrappers: from its first word, each program that
//! runs another named in its arguments (`nice`, `env`, `sudo`, `timeout`,
//! `xargs`, `busybox`, ...) is a layer, up to the first program that is
//! not a wrapper, the core.
//!
//! Where a wrapped program starts is read with the wrapper's option table
//! ([`crate::wrappers`]); an option the table does not know ends the
//! peeling with a hazard, never a guess at where the program starts. What
//! the core itself runs or changes is left to [`runners`](super::runners),
//! [`git`](super::git) and [`variables`](super::variables).

use super::flat::Flat;
use super::{Context, Hazard, Invocation, MAX_LAYERS, MAX_NESTING, basename};
use crate::options::{Item, Table};
use crate::syntax::{Command, Word, parse};
use crate::wrappers::{
    CHRT, COMMAND, DOAS, ENV, EXEC, IONICE, NICE, NOHUP, OPAQUE_RUNNERS, SETSID, SHELLS, STDBUF,
    SUDO, TIME, TIMEOUT, XARGS,
};

/// One command's words while their wrappers are peeled.
struct Peeling {
    /// The programs found so far, the command's own first.
    layers: Vec<Invocation>,
    /// The words, as `env -S` left them.
    words: Vec<Word>,
    /// Where the program of the layer being read is.
    start: usize,
    /// The programs from here on get arguments the text does not show.
    unseen_args: bool,
    /// `env -S` splices a string into the words; bounded like nesting.
    splices: usize,
    /// What `xargs -I R` replaces in the words after it.
    replaced: Option<String>,
}

/// What a layer's program does with the words after it.
enum Step {
    /// It is a wrapper, and the program it runs starts at this word.
    Wraps(usize),
    /// It is a wrapper with an option this reader does not know.
    UnknownOption,
    /// It is the core: the words after it are all its own.
    Core,
    /// `env -S` put the words of its string in its place: they are read
    /// again, from `env`.
    Respliced,
}

/// A wrapper's step once its options are read: `None` if they did not
/// parse.
fn wraps(next: Option<usize>) -> Step {
    next.map_or(Step::UnknownOption, Step::Wraps)
}

impl Peeling {
    /// The words after the layer's program.
    fn args(&self) -> &[Word] {
        &self.words[self.start + 1..]
    }

    /// Where the program a wrapper runs starts, after the options `table`
    /// reads.
    fn after_options(&self, table: &Table) -> Option<usize> {
        table
            .parse(self.args())
            .ok()
            .map(|(_, rest)| self.start + 1 + rest)
    }

    /// Adds a wrapper's layer; the program it runs, at `next`, is the next.
    fn wrapper(&mut self, mut layer: Invocation, next: usize) {
        // A wrapper keeps its own words; the program it runs
        // is the next layer.
        layer.args = self.words[self.start + 1..next.min(self.words.len())].to_vec();
        self.layers.push(layer);
        self.start = next;
        if let Some(replace) = self.replaced.take() {
            for word in self.words.iter_mut().skip(self.start) {
                if word.text.contains(replace.as_str()) {
                    word.dynamic = true;
                }
            }
        }
    }

    /// Adds the last layer, with every word after its program, and ends.
    fn core(mut self, mut layer: Invocation) -> Vec<Invocation> {
        layer.args = self.args().to_vec();
        self.layers.push(layer);
        self.layers
    }

    /// `chrt [options] [PRIORITY] PROGRAM`: a literal priority is skipped.
    fn chrt(&self) -> Option<usize> {
        self.after_options(&CHRT).map(|at| {
            let priority = self
                .words
                .get(at)
                .is_some_and(|w| !w.dynamic && w.text.chars().all(|c| c.is_ascii_digit()));
            at + usize::from(priority)
        })
    }

    /// GNU `time`, or bash's `time` keyword (`time ! cmd` runs `cmd`
    /// negated): the `!` is skipped for bash's reading.
    fn time(&self, layer: &mut Invocation) -> Option<usize> {
        let (items, rest) = TIME.parse(self.args()).ok()?;
        layer.writes = has(&TIME, &items, "output");
        let mut at = self.start + 1 + rest;
        while self.words.get(at).is_some_and(|w| w.is("!")) {
            at += 1;
        }
        Some(at)
    }

    /// `xargs`: the program it runs gets the words xargs reads.
    fn xargs(&mut self) -> Option<usize> {
        let (items, rest) = XARGS.parse(&self.words[self.start + 1..]).ok()?;
        self.unseen_args = true;
        // `-I R`, `-i[R]`, `--replace[=R]`: every word that
        // holds R is replaced by what xargs reads.
        let replace = items.iter().find_map(|item| match item {
            Item::Opt { opt, value } if XARGS.is(*opt, "I") => value.clone(),
            Item::Opt { opt, value } if XARGS.is(*opt, "replace") => {
                Some(value.clone().unwrap_or_else(|| "{}".to_owned()))
            }
            _ => None,
        });
        self.replaced = replace.filter(|r| !r.is_empty());
        Some(self.start + 1 + rest)
    }

    /// `busybox APPLET`: the applet is the program it runs.
    fn busybox(&self) -> Option<usize> {
        match self.args().first() {
            Some(applet) if !applet.text.starts_with('-') => Some(self.start + 1),
            Some(_) => None,
            None => Some(self.start + 1),
        }
    }
}

impl Flat {
    /// The programs `words` start: the first word's, then each wrapped
    /// one's, until a program that is not a wrapper. Command strings and
    /// `find -exec` commands go on the work list.
    pub(super) fn peel(&mut self, words: &[Word], cx: Context, unseen: bool) -> Vec<Invocation> {
        let mut peeling = Peeling {
            layers: Vec::new(),
            words: words.to_vec(),
            start: 0,
            unseen_args: unseen,
            splices: 0,
            replaced: None,
        };
        loop {
            let Some(program) = peeling.words.get(peeling.start).cloned() else {
                self.program_from_input(&peeling);
                return peeling.layers;
            };
            if peeling.layers.len() >= MAX_LAYERS {
                self.hazard(Hazard::TooDeep);
                return peeling.layers;
            }
            peeling.replaced = None;
            let mut layer = Invocation {
                program,
                args: Vec::new(),
                unseen_args: peeling.unseen_args,
                writes: false,
                assignments: Vec::new(),
            };
            match self.step(&mut peeling, &mut layer, cx) {
                Step::Wraps(next) => peeling.wrapper(layer, next),
                Step::Respliced => {}
                Step::Core => return peeling.core(layer),
                Step::UnknownOption => {
                    let name = layer.name().to_owned();
                    let layers = peeling.core(layer);
                    self.hazard(Hazard::UnknownWrapperOption(name));
                    return layers;
                }
            }
        }
    }

    /// The words ran out after a wrapper.
    fn program_from_input(&mut self, peeling: &Peeling) {
        // `xargs env`: the program comes from xargs' input.
        if peeling.unseen_args && !peeling.layers.is_empty() {
            self.hazard(Hazard::DynamicProgram(
                "(the words xargs reads from its input)".into(),
            ));
        }
    }

    /// What the layer's program is: a dynamic word, a wrapper (whose
    /// options are read into the layer), or the core.
    fn step(&mut self, peeling: &mut Peeling, layer: &mut Invocation, cx: Context) -> Step {
        if layer.program.dynamic {
            self.hazard(Hazard::DynamicProgram(layer.program.text.clone()));
            return Step::Core;
        }
        if let Some(why) = unknown_file(&layer.program.text) {
            self.hazard(Hazard::ScriptFile(why));
        }
        let name = basename(&layer.program.text).to_owned();
        match name.as_str() {
            "nice" => wraps(peeling.after_options(&NICE)),
            "nohup" | "builtin" => wraps(peeling.after_options(&NOHUP)),
            "stdbuf" => wraps(peeling.after_options(&STDBUF)),
            "setsid" => wraps(peeling.after_options(&SETSID)),
            "ionice" => wraps(peeling.after_options(&IONICE)),
            "command" => wraps(peeling.after_options(&COMMAND)),
            "exec" => wraps(peeling.after_options(&EXEC)),
            "doas" => wraps(peeling.after_options(&DOAS)),
            "coproc" => Step::Wraps(peeling.start + 1),
            "timeout" => wraps(self.timeout(peeling)),
            "chrt" => wraps(peeling.chrt()),
            "time" => wraps(peeling.time(layer)),
            "sudo" => wraps(self.sudo(peeling, layer)),
            "env" => self.env(peeling, layer),
            "xargs" => wraps(peeling.xargs()),
            "busybox" | "toybox" => wraps(peeling.busybox()),
            name => {
                self.core_program(name, peeling.args(), peeling.unseen_args, cx);
                Step::Core
            }
        }
    }

    /// A program that is not a wrapper: what it runs or changes beyond
    /// its own words.
    fn core_program(&mut self, name: &str, args: &[Word], unseen_args: bool, cx: Context) {
        match name {
            "eval" => self.eval(args, unseen_args, cx),
            "." | "source" => {
                let what = args.first().map_or_else(String::new, |w| w.text.clone());
                self.hazard(Hazard::ScriptFile(what));
            }
            "trap" => self.trap(args, unseen_args, cx),
            "alias" | "hash" | "enable" => self.hazard(Hazard::RenamesPrograms(name.to_owned())),
            "find" => self.find_actions(args, cx),
            "git" => self.git(args),
            name if SHELLS.contains(&name) => self.shell(name, args, unseen_args, cx),
            name if OPAQUE_RUNNERS.contains(&name) || is_dynamic_loader(name) => {
                self.hazard(Hazard::OpaqueRunner(name.to_owned()));
            }
            name => {
                self.builtin(name, args);
                if let Some(what) = crate::classify::runs_commands_from_args(name, args) {
                    self.hazard(Hazard::OpaqueRunner(what));
                }
            }
        }
    }

    /// `timeout [options] DURATION PROGRAM`.
    fn timeout(&mut self, peeling: &Peeling) -> Option<usize> {
        // The duration is one word, which must be literal: `$x`
        // could be `5 rm`.
        peeling.after_options(&TIMEOUT).map(|at| {
            if peeling.words.get(at).is_some_and(|w| w.dynamic) {
                self.hazard(Hazard::UnknownWrapperOption("timeout".into()));
            }
            at + 1
        })
    }

    /// `sudo [options] [NAME=value...] PROGRAM`: what it writes, and the
    /// variables it sets.
    fn sudo(&mut self, peeling: &Peeling, layer: &mut Invocation) -> Option<usize> {
        let (items, rest) = SUDO.parse(peeling.args()).ok()?;
        layer.writes = has(&SUDO, &items, "edit");
        let from = peeling.start + 1 + rest;
        // sudo, not the shell, reads its `VAR=value`
        // operands: quoting is gone by then, so `'A=b'`
        // is one as much as `A=b` (as for `env` below).
        let to =
            self.operand_assignments(peeling, layer, from, |w| !w.dynamic && w.text.contains('='));
        Some(to)
    }

    /// `env [options] [NAME=value...] PROGRAM`, or with `-S` the words of
    /// its string.
    fn env(&mut self, peeling: &mut Peeling, layer: &mut Invocation) -> Step {
        let Ok((items, rest)) = ENV.parse(peeling.args()) else {
            return Step::UnknownOption;
        };
        let split = items.iter().find_map(|item| match item {
            Item::Opt { opt, value } if ENV.is(*opt, "split-string") => value.clone(),
            _ => None,
        });
        let at = peeling.start + 1 + rest;
        match split {
            Some(split) => self.env_split_string(peeling, layer, &split, at),
            // `env` takes assignments as operands.
            None => Step::Wraps(self.operand_assignments(peeling, layer, at, |w| {
                !w.dynamic && (w.text == "-" || w.text.contains('='))
            })),
        }
    }

    /// `env -S STRING`: the words of the string, then those after it
    /// (from `at`), are read again after `env`.
    fn env_split_string(
        &mut self,
        peeling: &mut Peeling,
        layer: &Invocation,
        split: &str,
        at: usize,
    ) -> Step {
        peeling.splices += 1;
        let spliced = (peeling.splices <= MAX_NESTING)
            .then(|| split_words(split))
            .flatten();
        let Some(mut spliced) = spliced else {
            self.hazard(Hazard::DynamicCommandString("env -S".into()));
            return Step::Core;
        };
        // `env -S` re-reads options from the split
        // words, so they go back in after `env`.
        spliced.insert(0, layer.program.clone());
        spliced.extend_from_slice(&peeling.words[at..]);
        peeling.words = spliced;
        peeling.start = 0;
        Step::Respliced
    }

    /// The `NAME=value` operands from `from` on (those `is_assignment`
    /// takes), as the layer's assignments; returns where they end.
    fn operand_assignments(
        &mut self,
        peeling: &Peeling,
        layer: &mut Invocation,
        from: usize,
        is_assignment: impl Fn(&Word) -> bool,
    ) -> usize {
        let mut to = from;
        while peeling.words.get(to).is_some_and(&is_assignment) {
            to += 1;
        }
        layer.assignments = peeling.words[from..to].to_vec();
        for assignment in &layer.assignments {
            self.assignment(assignment);
        }
        to
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
