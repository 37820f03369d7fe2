//! Programs that run command lines given in their arguments: `eval`,
//! `trap`, the shells (`sh -c`) and `find -exec`. A literal command string
//! goes on the work list, to be read as a list of its own; one only the
//! shell knows is a hazard.
//!
//! Programs that run a command in ways this reader does not follow
//! (`strace`, `ssh`, `watch`) are not read here: they are opaque runners.

use super::flat::{Flat, Work};
use super::{Context, Hazard, MAX_COMMAND_BYTES, MAX_NESTING};
use crate::syntax::Word;

impl Flat {
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

    /// bash's `eval`: its words, joined, are a command line.
    pub(super) fn eval(&mut self, args: &[Word], unseen_args: bool, cx: Context) {
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
    }

    /// `trap`: the action it sets is a command line.
    pub(super) fn trap(&mut self, args: &[Word], unseen_args: bool, cx: Context) {
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
    }

    /// `sh [options] -c STRING [name [args]]`, `sh FILE`, or `sh` reading
    /// its commands from its input.
    pub(super) fn shell(&mut self, name: &str, args: &[Word], unseen_args: bool, cx: Context) {
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
    pub(super) fn find_actions(&mut self, args: &[Word], cx: Context) {
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
}

fn join(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}
