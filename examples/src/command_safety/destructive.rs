//! The destructive deny-list: a tripwire for the usual ways to lose data,
//! that sees through wrappers, nested shells, global options, abbreviated
//! options and redirections.
//!
//! Unlike the read-only allow-list this is a list of patterns, so it
//! over-approximates wherever it cannot see: a command it cannot parse, a
//! program whose name only the shell knows (`$cmd`), an argument only the
//! shell knows given to a program whose destructiveness depends on its
//! arguments (`find . $x`), a wrapper option it does not know, nesting
//! deeper than [`MAX_NESTING`]: all destructive.
//!
//! Cost stays linear: wrappers are peeled in a loop that consumes at least
//! one word per step, and nested command strings (`sh -c`, `eval`,
//! `env -S`, `find -exec`, `trap`, `su -c`) go on a work list with
//! their depth instead of being recursed into. A nested string is never
//! longer than the text it came from, so the total work is at most
//! `MAX_NESTING + 1` times the length.

mod git;
mod programs;
mod wrappers;

use super::lex::{Redirect, RedirectKind, Token, Word, tokenize};
use super::options::{Item, Table};
use super::parse::{Script, parse};
use programs::{basename, has, names_a_runner, program_destroys};
use wrappers::{
    CHRT, COMMAND, DOAS, ENV, EXEC, IONICE, NICE, NOHUP, OPAQUE_RUNNERS, SETSID, SHELLS, STDBUF,
    SUDO, TIME, TIMEOUT, XARGS,
};

/// How deep command strings may nest (`sh -c "eval 'env -S ...'"`)
/// before the command counts as destructive without looking further.
pub const MAX_NESTING: usize = 8;

/// A unit of work: a command text to parse, or one command's words.
enum Work {
    Text(String, usize),
    Words(Vec<Word>, usize),
}

/// Can the already parsed `script` destroy data? Over-approximates (see
/// the module docs).
pub(crate) fn is_destructive_script(script: Script) -> bool {
    let mut work = Vec::new();
    if script_destroys(script, 0, &mut work) {
        return true;
    }
    while let Some(item) = work.pop() {
        let destroys = match item {
            Work::Text(text, depth) => text_destroys(&text, depth, &mut work),
            Work::Words(words, depth) => Walker {
                depth,
                work: &mut work,
            }
            .destroys(&words),
        };
        if destroys {
            return true;
        }
    }
    false
}

/// A nested command string: parsed like the top level, within the bounds.
fn text_destroys(text: &str, depth: usize, work: &mut Vec<Work>) -> bool {
    if depth > MAX_NESTING || text.len() > super::MAX_COMMAND_BYTES {
        return true;
    }
    match parse(text) {
        Ok(script) => script_destroys(script, depth, work),
        Err(_) => true,
    }
}

/// Checks a script's redirections and queues its commands' words.
fn script_destroys(script: Script, depth: usize, work: &mut Vec<Work>) -> bool {
    for (command, _) in script.commands {
        if command.redirects.iter().any(redirect_destroys) {
            return true;
        }
        if command.assignments.iter().any(changes_what_runs) {
            return true;
        }
        if !command.words.is_empty() {
            work.push(Work::Words(command.words, depth));
        }
    }
    false
}

/// `>` and `>|` truncate their target; bash's `>&name` does too. `>>`
/// appends and `<>` opens without truncating, so neither loses data.
pub(crate) fn redirect_destroys(redirect: &Redirect) -> bool {
    let target = &redirect.target;
    match redirect.kind {
        RedirectKind::Truncate => !target.is("/dev/null"),
        RedirectKind::Duplicate => {
            target.dynamic
                || !(target.text == "-"
                    || (!target.text.is_empty() && target.text.chars().all(|c| c.is_ascii_digit())))
        }
        RedirectKind::Read | RedirectKind::Append | RedirectKind::ReadWrite => false,
    }
}

/// Peels wrappers off one command and checks the program at the core.
struct Walker<'a> {
    depth: usize,
    work: &'a mut Vec<Work>,
}

impl Walker<'_> {
    fn nested_text(&mut self, text: String) -> bool {
        if self.depth >= MAX_NESTING {
            return true;
        }
        self.work.push(Work::Text(text, self.depth + 1));
        false
    }

    fn nested_words(&mut self, words: &[Word]) -> bool {
        if self.depth >= MAX_NESTING {
            return true;
        }
        if !words.is_empty() {
            self.work.push(Work::Words(words.to_vec(), self.depth + 1));
        }
        false
    }

    fn destroys(&mut self, words: &[Word]) -> bool {
        let mut words: std::borrow::Cow<'_, [Word]> = words.into();
        let mut start = 0;
        // Arguments the command will receive that are not in the text
        // (`xargs` appends words read from its input).
        let mut unseen_args = false;
        // `env -S` splices a string into the words; bounded like nesting.
        let mut splices = 0;
        loop {
            let Some(program) = words.get(start) else {
                // A wrapper with no program left: with `xargs` in front the
                // program comes from its input.
                return unseen_args;
            };
            if program.dynamic {
                return true;
            }
            let name = basename(&program.text);
            let args = &words[start + 1..];
            let rest = |table: &Table| -> Option<usize> {
                table.parse(args).ok().map(|(_, rest)| start + 1 + rest)
            };
            let next = match name {
                "nice" => rest(&NICE),
                "nohup" | "builtin" => rest(&NOHUP),
                "stdbuf" => rest(&STDBUF),
                "setsid" => rest(&SETSID),
                "ionice" => rest(&IONICE),
                "command" => rest(&COMMAND),
                "exec" => rest(&EXEC),
                "doas" => rest(&DOAS),
                "timeout" => rest(&TIMEOUT).map(|at| at + 1),
                "chrt" => rest(&CHRT).map(|at| {
                    let priority = words
                        .get(at)
                        .is_some_and(|w| !w.dynamic && w.text.chars().all(|c| c.is_ascii_digit()));
                    at + usize::from(priority)
                }),
                "time" => match TIME.parse(args) {
                    Ok((items, rest)) if !has(&TIME, &items, "output") => Some(start + 1 + rest),
                    _ => None,
                },
                "sudo" => match SUDO.parse(args) {
                    Ok((items, rest)) if !has(&SUDO, &items, "edit") => {
                        let from = start + 1 + rest;
                        let to = skip_assignments(&words, from);
                        if operands_change_what_runs(&words, from, to) {
                            return true;
                        }
                        Some(to)
                    }
                    _ => None,
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
                                if splices > MAX_NESTING {
                                    return true;
                                }
                                let Some(mut spliced) = split_words(&split) else {
                                    return true;
                                };
                                // `env -S` re-reads options from the split
                                // words, so they go back in after `env`.
                                spliced.insert(0, program.clone());
                                spliced.extend_from_slice(&words[at..]);
                                words = spliced.into();
                                start = 0;
                                continue;
                            }
                            None => {
                                let to = skip_env_operands(&words, at);
                                if operands_change_what_runs(&words, at, to) {
                                    return true;
                                }
                                Some(to)
                            }
                        }
                    }
                    Err(_) => None,
                },
                "xargs" => match XARGS.parse(args) {
                    Ok((_, rest)) => {
                        unseen_args = true;
                        let at = start + 1 + rest;
                        if at >= words.len() {
                            // `xargs` alone runs `echo`.
                            return false;
                        }
                        Some(at)
                    }
                    Err(_) => None,
                },
                "busybox" | "toybox" => match args.first() {
                    Some(applet) if !applet.text.starts_with('-') => Some(start + 1),
                    Some(_) => None,
                    None => return false,
                },
                "eval" => {
                    if args.iter().any(|w| w.dynamic) || unseen_args {
                        return true;
                    }
                    return self.nested_text(join(args));
                }
                "." | "source" => {
                    // A script read from a device (`. /dev/stdin`) is the
                    // command's input; any other script is opaque.
                    return unseen_args
                        || args.iter().any(|w| w.dynamic || names_a_stream(&w.text));
                }
                name if SHELLS.contains(&name) => return self.shell(args, unseen_args),
                name if OPAQUE_RUNNERS.contains(&name) => {
                    if unseen_args || args.iter().any(|w| w.dynamic || names_a_runner(w)) {
                        return true;
                    }
                    // `su -c 'rm x'`, `watch 'ls > out'`: a word that holds
                    // shell syntax may be a command line of its own.
                    for arg in args {
                        if arg.text.contains(SHELL_SYNTAX) && self.nested_text(arg.text.clone()) {
                            return true;
                        }
                    }
                    return false;
                }
                "trap" => {
                    // `trap ACTION SIGNAL...`: the action is a command line.
                    return match args.iter().position(|w| !w.text.starts_with('-')) {
                        Some(at) if args[at].dynamic => true,
                        Some(at) => self.nested_text(args[at].text.clone()),
                        None => false,
                    };
                }
                name => return program_destroys(name, args, unseen_args, self),
            };
            match next {
                // A wrapper option this model does not know: fail closed.
                None => return true,
                Some(next) => start = next,
            }
        }
    }

    /// `sh [options] -c STRING [name [args]]`, `sh FILE`, or `sh` reading
    /// its script from standard input.
    fn shell(&mut self, args: &[Word], unseen_args: bool) -> bool {
        if unseen_args {
            return true;
        }
        let mut command_string = false;
        let mut i = 0;
        while let Some(word) = args.get(i) {
            if word.dynamic {
                return true;
            }
            let text = word.text.as_str();
            if text == "--" || text == "-" {
                i += 1;
                break;
            }
            if let Some(long) = text.strip_prefix("--") {
                match long {
                    "norc" | "noprofile" | "posix" | "login" | "restricted" | "verbose"
                    | "noediting" => i += 1,
                    "rcfile" | "init-file" => i += 2,
                    _ => return true,
                }
                continue;
            }
            let Some(flags) = text.strip_prefix('-').or_else(|| text.strip_prefix('+')) else {
                break;
            };
            if flags.contains('s') {
                // The script comes from standard input.
                return true;
            }
            command_string |= text.starts_with('-') && flags.contains('c');
            i += 1;
            // `-o option`, `+o option`, bash's `-O shopt_option`.
            if flags.contains('o') || flags.contains('O') {
                i += 1;
            }
        }
        match args.get(i) {
            Some(string) if command_string => self.nested_text(string.text.clone()),
            None if command_string => true,
            // A script read from a device or `/proc` is input in disguise; a
            // script file is opaque, like any program this list does not
            // name.
            Some(script) => names_a_stream(&script.text),
            // The script comes from standard input (`curl ... | sh`).
            None => true,
        }
    }
}

/// Characters that make a word worth parsing as a command line when an
/// opaque runner hands it to a shell.
const SHELL_SYNTAX: &[char] = &[
    ' ', '\t', '\n', ';', '|', '&', '<', '>', '(', ')', '$', '`', '\\', '"', '\'', '{', '}',
];

/// `/dev/stdin`, `/dev/fd/0`, `/proc/self/fd/0`: a path that is a stream.
fn names_a_stream(path: &str) -> bool {
    path == "-" || path.contains("/dev/") || path.contains("/proc/")
}

fn join(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Variables whose value decides which program runs, or injects code into
/// one: with any of them set, the program named in the text is not the
/// whole story (`PATH=. ls` runs `./ls`, `LD_PRELOAD=x.so ls` runs `x.so`).
const RUNS_SOMETHING_ELSE: &[&str] = &[
    "PATH",
    "BASH_ENV",
    "ENV",
    "IFS",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "LESSOPEN",
    "LESSCLOSE",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "NODE_OPTIONS",
];

/// Prefixes of such variables (`LD_PRELOAD`, `DYLD_INSERT_LIBRARIES`,
/// `GIT_EXTERNAL_DIFF`, `GIT_SSH_COMMAND`, `GIT_CONFIG_*`).
const RUNS_SOMETHING_ELSE_PREFIXES: &[&str] = &["LD_", "DYLD_", "GIT_"];

/// Whether an assignment (`NAME=value` before a program, or an operand of
/// `env`/`sudo`) can change which program runs: then what the command does
/// cannot be read from its text, the strict answer. A dynamic word counts
/// (its name may be any of these).
fn changes_what_runs(word: &Word) -> bool {
    if word.dynamic {
        return true;
    }
    let name = word.text.split('=').next().unwrap_or_default();
    RUNS_SOMETHING_ELSE.contains(&name)
        || RUNS_SOMETHING_ELSE_PREFIXES
            .iter()
            .any(|prefix| name.starts_with(prefix))
}

/// `sudo` takes `NAME=value` operands before the program.
fn skip_assignments(words: &[Word], mut at: usize) -> usize {
    while words.get(at).is_some_and(|w| w.assignment) {
        at += 1;
    }
    at
}

/// `env` takes `-` (an empty environment) and every word with a `=` as an
/// assignment before the program.
fn skip_env_operands(words: &[Word], mut at: usize) -> usize {
    while words
        .get(at)
        .is_some_and(|w| !w.dynamic && (w.text == "-" || w.text.contains('=')))
    {
        at += 1;
    }
    at
}

/// Whether any operand in `words[from..to]` is an assignment that changes
/// which program runs.
fn operands_change_what_runs(words: &[Word], from: usize, to: usize) -> bool {
    words
        .get(from..to)
        .is_some_and(|operands| operands.iter().any(changes_what_runs))
}

/// The words of an `env -S` string, read with the shell's quoting (a close
/// enough model of env's own, after its `\_` separator and `\c` end);
/// `None` if it holds anything but words.
fn split_words(text: &str) -> Option<Vec<Word>> {
    let text = text
        .split("\\c")
        .next()
        .unwrap_or_default()
        .replace("\\_", " ");
    tokenize(&text)
        .ok()?
        .into_iter()
        .map(|token| match token {
            Token::Word(word) => Some(word),
            Token::Op(_) | Token::Redirect(_) => None,
        })
        .collect()
}
