//! Programs that run a command given in their own arguments or options:
//! for a permission rule, such a command line names a program the rule
//! cannot see (`split --filter='rm x'`, `tar --checkpoint-action=exec=...`,
//! `git rebase -x 'rm x'`), so its reading is uncheckable.
//!
//! A list, and so never complete: what a program does with its arguments
//! is its own business, and a program this list does not name is taken
//! at its word. The list holds the programs on a Debian system that take
//! a command string in an option.

use super::git::git_runs_commands;
use super::programs::{has_long, has_short};
use super::sed::sed_destroys;
use crate::syntax::Word;

/// What about `name args...` runs a command the text does not show as a
/// program, if anything (phrased as the program and its option).
pub fn runs_commands_from_args(name: &str, args: &[Word]) -> Option<String> {
    let found = |what: &str| Some(format!("{name} {what}"));
    match name {
        "split" if has_long(args, "filter") => found("--filter"),
        "tar" => [
            "checkpoint-action",
            "to-command",
            "use-compress-program",
            "info-script",
            "new-volume-script",
            "rsh-command",
            "rmt-command",
        ]
        .iter()
        .find(|option| has_long(args, option))
        .map(|option| format!("tar --{option}"))
        .or_else(|| {
            // `-I PROG` and `-F SCRIPT`, in a short cluster or in the
            // dash-less first word (`tar tIf prog a.tar`).
            let first = args
                .first()
                .is_some_and(|w| !w.text.starts_with('-') && w.text.contains(['I', 'F']));
            let cluster = args.iter().any(|w| {
                w.text.starts_with('-')
                    && !w.text.starts_with("--")
                    && w.text[1..].contains(['I', 'F'])
            });
            (first || cluster).then(|| "tar -I/-F".to_owned())
        }),
        // `e` and `s///e` run the pattern space as a command; a script
        // this reader cannot follow counts too.
        "sed" if sed_destroys(args) => found("script"),
        "make" | "gmake" if has_long(args, "eval") || has_short(args, 'E') => found("--eval"),
        "zip" if has_long(args, "unzip-command") || args.iter().any(|w| w.is("-TT")) => {
            found("-TT")
        }
        "git" => git_runs_commands(args),
        // Code given inline to an interpreter is text fed to an evaluator:
        // it can start any program (`system("rm x")`). A script *file* is
        // the program's own business, as it is for `make`.
        "python" | "python2" | "python3" | "pypy" | "pypy3" if short_flag(args, 'c') => found("-c"),
        "perl" if short_flag(args, 'e') || short_flag(args, 'E') => found("-e"),
        "ruby" | "lua" | "luajit" | "osascript" if short_flag(args, 'e') => found("-e"),
        "node" | "nodejs" | "deno" | "bun"
            if short_flag(args, 'e')
                || short_flag(args, 'p')
                || has_long(args, "eval")
                || has_long(args, "print")
                || args.first().is_some_and(|w| w.is("eval")) =>
        {
            found("--eval")
        }
        "php" if short_flag(args, 'r') => found("-r"),
        // awk runs commands through `system(...)` and `| "cmd"` pipes (a
        // program without either only computes).
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk"
            if args
                .iter()
                .any(|w| w.dynamic || w.text.contains("system") || w.text.contains('|')) =>
        {
            found("program")
        }
        _ => None,
    }
}

/// A short option `-x` alone or in a cluster of the words before the
/// first operand (`python3 -Bc 'code'`).
fn short_flag(args: &[Word], flag: char) -> bool {
    args.iter()
        .take_while(|w| w.text.starts_with('-') && w.text != "-" && w.text != "--")
        .any(|w| !w.text.starts_with("--") && w.text[1..].contains(flag))
}
