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
//! `env -S`, `find -exec`, `watch`, `flock -c`) go on a work list with
//! their depth instead of being recursed into. A nested string is never
//! longer than the text it came from, so the total work is at most
//! `MAX_NESTING + 1` times the length.

use super::lex::{RedirectKind, Redirect, Token, Word, tokenize};
use super::options::{Arg::*, Item, Opt, Table, bad, ok};
use super::read_only::{SORT, UNIQ};
use super::parse::parse;

/// How deep command strings may nest (`sh -c "eval 'env -S ...'"`)
/// before the command counts as destructive without looking further.
pub const MAX_NESTING: usize = 8;

/// Programs that delete, overwrite, truncate or re-permission files
/// whatever their arguments.
const DESTRUCTIVE_PROGRAMS: &[&str] = &[
    "rm", "rmdir", "unlink", "mv", "dd", "truncate", "shred", "chmod", "chown", "chgrp", "cp",
    "tee", "install", "ln", "rsync", "srm", "wipe", "wipefs", "fdisk", "sfdisk", "parted",
    "sponge", "sudoedit", "patch", "mkfs", "kill", "pkill", "killall", "shutdown", "reboot",
    "halt", "poweroff",
    // Shell builtins that change what a later word runs: `alias ls='rm
    // -rf'` on one line makes `ls` on the next destroy, `hash -p /bin/rm
    // ls` does the same in bash, `enable -f` loads a builtin.
    "alias", "hash", "enable",
];

/// Shells whose `-c` string is parsed as a nested command.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"];

/// Programs that run a command given in their arguments in ways not
/// modelled option by option: any later word that names a program this
/// module cares about (or that only the shell knows) makes them
/// destructive.
const OPAQUE_RUNNERS: &[&str] = &[
    "strace", "ltrace", "chroot", "unshare", "nsenter", "firejail", "su", "runuser", "script",
    "unbuffer", "systemd-run", "proxychains", "proxychains4", "torsocks", "parallel", "caffeinate",
    "faketime", "catchsegv", "valgrind", "gdb", "fish", "csh", "tcsh", "ssh", "perf",
];

/// A unit of work: a command text to parse, or one command's words.
enum Work {
    Text(String, usize),
    Words(Vec<Word>, usize),
}

/// Can `text` destroy data? Over-approximates (see the module docs).
pub(crate) fn is_destructive_text(text: &str) -> bool {
    let mut work = vec![Work::Text(text.to_owned(), 0)];
    while let Some(item) = work.pop() {
        let destroys = match item {
            Work::Text(text, depth) => text_destroys(&text, depth, &mut work),
            Work::Words(words, depth) => Walker { depth, work: &mut work }.destroys(&words),
        };
        if destroys {
            return true;
        }
    }
    false
}

fn text_destroys(text: &str, depth: usize, work: &mut Vec<Work>) -> bool {
    if depth > MAX_NESTING || text.len() > super::MAX_COMMAND_BYTES {
        return true;
    }
    let Ok(script) = parse(text) else {
        return true;
    };
    for (command, _) in script.commands {
        if command.redirects.iter().any(redirect_destroys) {
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
                    let priority = words.get(at).is_some_and(|w| {
                        !w.dynamic && w.text.chars().all(|c| c.is_ascii_digit())
                    });
                    at + usize::from(priority)
                }),
                "time" => match TIME.parse(args) {
                    Ok((items, rest)) if !has(&TIME, &items, "output") => Some(start + 1 + rest),
                    _ => None,
                },
                "sudo" => match SUDO.parse(args) {
                    Ok((items, rest)) if !has(&SUDO, &items, "edit") => {
                        Some(skip_assignments(&words, start + 1 + rest))
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
                            None => Some(skip_env_operands(&words, at)),
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
                "busybox" => match args.first() {
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
                "watch" => {
                    return match WATCH.parse(args) {
                        Ok((_, rest)) if !unseen_args => {
                            let command = &args[rest..];
                            if command.iter().any(|w| w.dynamic) {
                                return true;
                            }
                            self.nested_text(join(command))
                        }
                        _ => true,
                    };
                }
                "flock" => {
                    return match FLOCK.parse(args) {
                        Ok((items, rest)) if !unseen_args => {
                            let string = items.iter().find_map(|item| match item {
                                Item::Opt { opt, value } if FLOCK.is(*opt, "command") => {
                                    value.clone()
                                }
                                _ => None,
                            });
                            match string {
                                Some(string) => self.nested_text(string),
                                // `flock FILE command...`
                                None => self.nested_words(args.get(rest + 1..).unwrap_or(&[])),
                            }
                        }
                        _ => true,
                    };
                }
                name if SHELLS.contains(&name) => return self.shell(args, unseen_args),
                name if OPAQUE_RUNNERS.contains(&name) => {
                    if unseen_args || args.iter().any(|w| w.dynamic || names_a_runner(w)) {
                        return true;
                    }
                    // `su -c 'rm x'`, `ssh host 'rm x'`: a word that holds
                    // several words may be a command line of its own.
                    for arg in args {
                        if arg.text.contains([' ', '\t', '\n', ';', '|', '&', '>'])
                            && self.nested_text(arg.text.clone())
                        {
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
            // A script file: opaque, like any program this list does not name.
            Some(_) => false,
            // The script comes from standard input (`curl ... | sh`).
            None => true,
        }
    }
}

/// Checks the program at the core of a command.
fn program_destroys(name: &str, args: &[Word], unseen_args: bool, walker: &mut Walker<'_>) -> bool {
    if DESTRUCTIVE_PROGRAMS.contains(&name) || name.starts_with("mkfs.") {
        return true;
    }
    // Past this point the answer depends on the arguments: one the shell
    // (or `xargs`) supplies could be anything.
    let arguments_matter = matches!(
        name,
        "find" | "git" | "sed" | "sort" | "uniq" | "perl" | "ruby" | "tar" | "curl" | "wget"
    ) || AWKS.contains(&name);
    if arguments_matter && (unseen_args || args.iter().any(|w| w.dynamic)) {
        return true;
    }
    match name {
        "find" => find_destroys(args, walker),
        "git" => git_destroys(args),
        "sed" => sed_destroys(args),
        "sort" => match SORT.parse(args) {
            Ok((items, _)) => has(&SORT, &items, "output"),
            Err(_) => true,
        },
        // In-place editing.
        "perl" | "ruby" => has_short(args, 'i'),
        // Extracting overwrites files, creating truncates the archive.
        "tar" => tar_destroys(args),
        "curl" => has_short(args, 'o') || has_short(args, 'O') || has_long(args, "output")
            || has_long(args, "remote-name") || has_long(args, "remote-name-all"),
        "wget" => has_short(args, 'O') || has_long(args, "output-document"),
        name if AWKS.contains(&name) => args.iter().any(|w| {
            w.text.contains("system") || w.text.contains('>') || w.text.contains('|')
                || w.text.contains("inplace")
        }),
        // `uniq INPUT OUTPUT` truncates OUTPUT.
        "uniq" => match UNIQ.parse(args) {
            Ok((items, _)) => items.iter().filter(|i| matches!(i, Item::Operand(_))).count() >= 2,
            Err(_) => true,
        },
        _ => false,
    }
}

/// awk programs can write files (`print > "f"`) and run commands
/// (`system`, `| "cmd"`); a program text that could do either counts.
const AWKS: &[&str] = &["awk", "gawk", "mawk", "nawk", "busybox-awk"];

/// `tar` in any mode but listing (`t`) and comparing (`d`): `x` overwrites
/// files, `c`, `r`, `u`, `A` write the archive, `--delete` edits it. The
/// first word may be a dash-less cluster (`tar xf a.tar`).
fn tar_destroys(args: &[Word]) -> bool {
    let modes = |text: &str| text.contains(['x', 'c', 'r', 'u', 'A']);
    let first_cluster = args
        .first()
        .is_some_and(|w| !w.text.starts_with('-') && modes(&w.text));
    first_cluster
        || args.iter().any(|w| {
            w.text.len() > 1 && w.text.starts_with('-') && !w.text.starts_with("--") && modes(&w.text[1..])
        })
        || ["extract", "get", "create", "append", "update", "delete", "catenate", "concatenate"]
            .iter()
            .any(|name| has_long(args, name))
}

fn has(table: &Table, items: &[Item<'_>], name: &str) -> bool {
    items
        .iter()
        .any(|item| matches!(item, Item::Opt { opt, .. } if table.is(*opt, name)))
}

/// `/bin/rm` is `rm`.
fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// A word naming something this module inspects (a destroyer, a shell, a
/// wrapper, `find`, `git`, ...): inside an opaque runner it may be run.
fn names_a_runner(word: &Word) -> bool {
    let name = basename(&word.text);
    DESTRUCTIVE_PROGRAMS.contains(&name)
        || name.starts_with("mkfs.")
        || SHELLS.contains(&name)
        || OPAQUE_RUNNERS.contains(&name)
        || matches!(
            name,
            "find" | "git" | "sed" | "sort" | "uniq" | "eval" | "env" | "xargs" | "sudo" | "doas"
                | "nice" | "nohup" | "timeout" | "stdbuf" | "setsid" | "ionice" | "chrt" | "time"
                | "command" | "builtin" | "exec" | "busybox" | "watch" | "flock"
        )
}

fn join(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
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

/// The words of an `env -S` string, read with the shell's quoting (a close
/// enough model of env's own, after its `\_` separator and `\c` end);
/// `None` if it holds anything but words.
fn split_words(text: &str) -> Option<Vec<Word>> {
    let text = text.split("\\c").next().unwrap_or_default().replace("\\_", " ");
    tokenize(&text)
        .ok()?
        .into_iter()
        .map(|token| match token {
            Token::Word(word) => Some(word),
            Token::Op(_) | Token::Redirect(_) => None,
        })
        .collect()
}

/// `find` actions that delete or truncate, and the commands `-exec` and
/// friends run.
fn find_destroys(args: &[Word], walker: &mut Walker<'_>) -> bool {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        match word.text.as_str() {
            "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls" => return true,
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = args[i..]
                    .iter()
                    .position(|w| w.text == ";" || w.text == "+")
                    .map_or(args.len(), |n| i + n);
                if walker.nested_words(&args[i..end]) {
                    return true;
                }
                i = end + 1;
            }
            _ => {}
        }
    }
    false
}

/// A long option that is `--name` or an abbreviation of it (`--har` for
/// `--hard`), with or without `=value`. Ambiguity is ignored: a prefix
/// that might mean the destructive option counts as it.
fn has_long(args: &[Word], name: &str) -> bool {
    args.iter().any(|w| {
        w.text.strip_prefix("--").is_some_and(|rest| {
            let given = rest.split('=').next().unwrap_or(rest);
            !given.is_empty() && name.starts_with(given)
        })
    })
}

/// A short option cluster (`-qf`) that contains `c`. Option arguments are
/// not modelled, so `-m f` style values glued into a cluster may count too:
/// an over-approximation.
fn has_short(args: &[Word], c: char) -> bool {
    args.iter().any(|w| {
        w.text.len() > 1 && w.text.starts_with('-') && !w.text.starts_with("--") && w.text[1..].contains(c)
    })
}

fn has_word(args: &[Word], text: &str) -> bool {
    args.iter().any(|w| w.text == text)
}

/// Configuration keys `git -c` may set without counting as destructive:
/// display settings only. Anything else may name a program git runs
/// (`core.fsmonitor`, `alias.x=!cmd`, `diff.external`, ...).
const GIT_HARMLESS_CONFIG: &[&str] = &[
    "color.", "core.quotepath", "advice.", "column.", "user.name", "user.email", "log.date",
];

/// git subcommands; an unknown one may be an alias, which can run a shell
/// command (`alias.x = !rm -rf .`).
const GIT_SUBCOMMANDS: &[&str] = &[
    "add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle",
    "cat-file", "check-attr", "check-ignore", "checkout", "cherry", "cherry-pick", "clean",
    "clone", "commit", "config", "count-objects", "describe", "diff", "diff-files",
    "diff-index", "diff-tree", "fetch", "format-patch", "fsck", "gc", "grep", "help", "init",
    "log", "ls-files", "ls-remote", "ls-tree", "merge", "merge-base", "mv", "notes", "pull",
    "push", "range-diff", "rebase", "reflog", "remote", "reset", "restore", "rev-list",
    "rev-parse", "revert", "rm", "shortlog", "show", "show-ref", "sparse-checkout", "stash",
    "status", "submodule", "switch", "symbolic-ref", "tag", "update-ref", "version",
    "whatchanged", "worktree", "prune", "filter-branch", "repack", "var", "verify-commit",
    "verify-tag", "name-rev", "for-each-ref", "hash-object", "read-tree", "write-tree",
    "update-index", "checkout-index", "mktag", "mktree", "merge-file", "maintenance",
];

fn git_destroys(args: &[Word]) -> bool {
    let Ok((items, rest)) = GIT.parse(args) else {
        return true;
    };
    for item in &items {
        let Item::Opt { opt, value } = item else { continue };
        if GIT.is(*opt, "C") {
            continue;
        }
        if GIT.is(*opt, "c") {
            let key = value.as_deref().unwrap_or_default();
            let key = key.split('=').next().unwrap_or_default().to_ascii_lowercase();
            if !GIT_HARMLESS_CONFIG.iter().any(|k| key.starts_with(k)) {
                return true;
            }
        }
        if GIT.is(*opt, "config-env") || (GIT.is(*opt, "exec-path") && value.is_some()) {
            return true;
        }
    }
    let Some(sub) = args.get(rest) else {
        return false;
    };
    let args = &args[rest + 1..];
    let long = |name: &str| has_long(args, name);
    let short = |c: char| has_short(args, c);
    let word = |text: &str| has_word(args, text);
    match sub.text.as_str() {
        "reset" => long("hard") || long("merge") || long("keep"),
        "clean" | "rm" | "restore" | "filter-branch" | "prune" | "format-patch"
        | "checkout-index" | "read-tree" => true,
        "checkout" => {
            let operands = args
                .iter()
                .filter(|w| !w.text.starts_with('-'))
                .count();
            short('f') || short('B') || short('p') || short('m') || long("force") || long("ours")
                || long("theirs") || long("patch") || long("merge") || long("overwrite-ignore")
                || long("pathspec-from-file") || word("--") || word(".") || operands > 1
        }
        "switch" => short('f') || short('C') || long("force") || long("discard-changes")
            || long("force-create"),
        "branch" => short('d') || short('D') || short('M') || short('C') || short('f')
            || long("delete") || long("force"),
        "tag" => short('d') || short('f') || long("delete") || long("force"),
        "stash" => word("drop") || word("clear"),
        "push" => short('f') || short('d') || long("force") || long("force-with-lease")
            || long("force-if-includes") || long("delete") || long("mirror") || long("prune")
            || args.iter().any(|w| w.text.starts_with('+') || w.text.starts_with(':')),
        "gc" => long("prune"),
        "reflog" => word("expire") || word("delete"),
        "update-ref" | "symbolic-ref" => short('d') || long("delete"),
        "worktree" => word("remove") || word("prune"),
        // `foreach`, `bisect run`, `rebase --exec` and `difftool -x` run
        // commands; `config` can name programs later git commands run.
        "submodule" => word("deinit") || word("foreach"),
        "bisect" => word("run"),
        "rebase" => short('x') || long("exec"),
        "difftool" | "mergetool" => true,
        "config" => !(long("get") || long("get-all") || long("get-regexp") || long("list")
            || short('l') || word("get") || word("list")),
        "archive" => short('o') || long("output"),
        "notes" => word("remove") || word("prune"),
        "diff" | "log" | "show" | "whatchanged" | "diff-tree" | "diff-files" | "diff-index" => {
            long("output")
        }
        sub => !GIT_SUBCOMMANDS.contains(&sub),
    }
}

/// `sed -i` edits in place; a script's `w` command or flag writes a file
/// and GNU's `e` runs one. The script scan is a rough over-approximation
/// (a `w` or `e` that could be a command or flag counts).
fn sed_destroys(args: &[Word]) -> bool {
    let Ok((items, _)) = SED.parse(args) else {
        return true;
    };
    if has(&SED, &items, "in-place") || has(&SED, &items, "file") {
        return true;
    }
    if has(&SED, &items, "sandbox") {
        return false;
    }
    let mut scripts: Vec<&str> = items
        .iter()
        .filter_map(|item| match item {
            Item::Opt { opt, value } if SED.is(*opt, "expression") => value.as_deref(),
            _ => None,
        })
        .collect();
    if scripts.is_empty() {
        scripts.extend(items.iter().find_map(|item| match item {
            Item::Operand(w) => Some(w.text.as_str()),
            _ => None,
        }));
    }
    scripts.iter().any(|script| sed_script_writes(script))
}

fn sed_script_writes(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    chars.iter().enumerate().any(|(i, &c)| {
        matches!(c, 'w' | 'W' | 'e')
            && chars
                .get(i + 1)
                .is_none_or(|n| n.is_whitespace() || *n == ';' || *n == '}')
            && (i == 0
                || chars
                    .get(i - 1)
                    .is_some_and(|p| "/;}{$! \t\n0123456789gpIiMm".contains(*p)))
    })
}

const HELP: Opt = ok(' ', "help", No);
const VERSION: Opt = ok(' ', "version", No);

const fn wrapper(options: &'static [Opt]) -> Table {
    Table {
        options,
        permute: false,
        numeric: false,
        abbreviations: true,
    }
}

const NICE: Table = Table {
    numeric: true,
    ..wrapper(&[ok('n', "adjustment", Required), HELP, VERSION])
};
const STDBUF: Table = wrapper(&[
    ok('i', "input", Required), ok('o', "output", Required), ok('e', "error", Required), HELP,
    VERSION,
]);
const NOHUP: Table = Table {
    abbreviations: false,
    ..wrapper(&[HELP, VERSION])
};
const SETSID: Table = wrapper(&[
    ok('c', "ctty", No), ok('f', "fork", No), ok('w', "wait", No), ok('h', "help", No),
    ok('V', "version", No),
]);
const IONICE: Table = wrapper(&[
    ok('c', "class", Required), ok('n', "classdata", Required), ok('p', "pid", No),
    ok('P', "pgid", No), ok('u', "uid", No), ok('t', "ignore", No), ok('h', "help", No),
    ok('V', "version", No),
]);
const COMMAND: Table = Table {
    abbreviations: false,
    ..wrapper(&[ok('p', "", No), ok('v', "", No), ok('V', "", No)])
};
const EXEC: Table = Table {
    abbreviations: false,
    ..wrapper(&[ok('c', "", No), ok('l', "", No), ok('a', "", Required)])
};
const DOAS: Table = Table {
    abbreviations: false,
    ..wrapper(&[ok('u', "", Required), ok('C', "", Required), ok('n', "", No), ok('s', "", No)])
};
const TIMEOUT: Table = wrapper(&[
    ok('s', "signal", Required), ok('k', "kill-after", Required), ok(' ', "preserve-status", No),
    ok(' ', "foreground", No), ok('v', "verbose", No), HELP, VERSION,
]);
const CHRT: Table = wrapper(&[
    ok('a', "all-tasks", No), ok('b', "batch", No), ok('d', "deadline", No), ok('e', "ext", No),
    ok('f', "fifo", No), ok('i', "idle", No), ok('o', "other", No), ok('r', "rr", No),
    ok('R', "reset-on-fork", No), ok('v', "verbose", No), ok('m', "max", No), ok('p', "pid", No),
    ok('T', "sched-runtime", Required), ok('P', "sched-period", Required),
    ok('D', "sched-deadline", Required), ok('h', "help", No), ok('V', "version", No),
]);
/// GNU `time`; `-o FILE` truncates FILE.
const TIME: Table = wrapper(&[
    bad('o', "output", Required), ok('a', "append", No), ok('f', "format", Required),
    ok('p', "portability", No), ok('v', "verbose", No), ok('q', "quiet", No), HELP,
    ok('V', "version", No),
]);
const SUDO: Table = wrapper(&[
    ok('A', "askpass", No), ok('b', "background", No), ok('B', "bell", No),
    ok('C', "close-from", Required), ok('D', "chdir", Required), ok('E', "preserve-env", Optional),
    bad('e', "edit", No), ok('g', "group", Required), ok('H', "set-home", No),
    ok('h', "host", Optional), ok('i', "login", No), ok('K', "remove-timestamp", No),
    ok('k', "reset-timestamp", No), ok('l', "list", No), ok('N', "no-update", No),
    ok('n', "non-interactive", No), ok('P', "preserve-groups", No), ok('p', "prompt", Required),
    ok('R', "chroot", Required), ok('r', "role", Required), ok('S', "stdin", No),
    ok('s', "shell", No), ok('t', "type", Required), ok('T', "command-timeout", Required),
    ok('U', "other-user", Required), ok('u', "user", Required), ok('V', "version", No),
    ok('v', "validate", No), ok(' ', "help", No),
]);
const ENV: Table = wrapper(&[
    ok('i', "ignore-environment", No), ok('0', "null", No), ok('u', "unset", Required),
    ok('C', "chdir", Required), ok('S', "split-string", Required), ok('v', "debug", No),
    ok('a', "argv0", Required), ok(' ', "block-signal", Optional),
    ok(' ', "default-signal", Optional), ok(' ', "ignore-signal", Optional),
    ok(' ', "list-signal-handling", No), HELP, VERSION,
]);
const XARGS: Table = wrapper(&[
    ok('0', "null", No), ok('a', "arg-file", Required), ok('d', "delimiter", Required),
    ok('E', "", Required), ok('e', "eof", Optional), ok('I', "", Required),
    ok('i', "replace", Optional), ok('L', "", Required), ok('l', "max-lines", Optional),
    ok('n', "max-args", Required), ok('o', "open-tty", No), ok('P', "max-procs", Required),
    ok('p', "interactive", No), ok('r', "no-run-if-empty", No), ok('s', "max-chars", Required),
    ok('t', "verbose", No), ok('x', "exit", No), ok(' ', "process-slot-var", Required),
    ok(' ', "show-limits", No), HELP, VERSION,
]);
const WATCH: Table = wrapper(&[
    ok('n', "interval", Required), ok('d', "differences", Optional), ok('t', "no-title", No),
    ok('b', "beep", No), ok('e', "errexit", No), ok('g', "chgexit", No), ok('c', "color", No),
    ok('C', "no-color", No), ok('x', "exec", No), ok('p', "precise", No), ok('w', "no-wrap", No),
    ok('q', "equexit", Required), ok('r', "no-rerun", No), ok('h', "help", No),
    ok('v', "version", No),
]);
const FLOCK: Table = wrapper(&[
    ok('s', "shared", No), ok('x', "exclusive", No), ok('u', "unlock", No),
    ok('n', "nonblock", No), ok('w', "timeout", Required), ok('E', "conflict-exit-code", Required),
    ok('o', "close", No), ok('c', "command", Required), ok('F', "no-fork", No),
    ok(' ', "verbose", No), ok('h', "help", No), ok('V', "version", No),
]);
/// git's global options (exact spellings only: git does not abbreviate
/// them).
const GIT: Table = Table {
    abbreviations: false,
    ..wrapper(&[
        ok('C', "", Required), ok('c', "", Required), ok(' ', "config-env", Required),
        ok(' ', "exec-path", Optional), ok(' ', "html-path", No), ok(' ', "man-path", No),
        ok(' ', "info-path", No), ok('p', "paginate", No), ok('P', "no-pager", No),
        ok(' ', "git-dir", Required), ok(' ', "work-tree", Required), ok(' ', "namespace", Required),
        ok(' ', "super-prefix", Required), ok(' ', "bare", No), ok(' ', "no-replace-objects", No),
        ok(' ', "no-lazy-fetch", No), ok(' ', "no-optional-locks", No), ok(' ', "no-advice", No),
        ok(' ', "literal-pathspecs", No), ok(' ', "glob-pathspecs", No),
        ok(' ', "noglob-pathspecs", No), ok(' ', "icase-pathspecs", No),
        ok(' ', "list-cmds", Required), ok(' ', "attr-source", Required), ok('v', "version", No),
        ok('h', "help", No),
    ])
};
const SED: Table = Table {
    permute: true,
    ..wrapper(&[
        ok('n', "quiet", No), ok(' ', "silent", No), ok(' ', "debug", No),
        ok('e', "expression", Required), ok('f', "file", Required),
        ok(' ', "follow-symlinks", No), bad('i', "in-place", Optional),
        ok('l', "line-length", Required), ok(' ', "posix", No), ok('E', "regexp-extended", No),
        ok('r', "", No), ok('s', "separate", No), ok(' ', "sandbox", No),
        ok('u', "unbuffered", No), ok('z', "null-data", No), HELP, VERSION,
    ])
};
