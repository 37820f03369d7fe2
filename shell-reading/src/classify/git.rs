//! git: global options (`git -C . clean`), abbreviated and clustered
//! options (`reset --har`, `branch -qD`), and subcommands that discard work
//! or run programs.

use super::programs::{has_long, has_short, has_word};
use crate::options::{Arg::*, Item, Table, ok};
use crate::syntax::Word;
use crate::wrappers::wrapper;

/// Configuration keys `git -c` may set without counting as destructive:
/// display settings only. Anything else may name a program git runs
/// (`core.fsmonitor`, `alias.x=!cmd`, `diff.external`, ...).
const GIT_HARMLESS_CONFIG: &[&str] = &[
    "color.",
    "core.quotepath",
    "advice.",
    "column.",
    "user.name",
    "user.email",
    "log.date",
];

/// git subcommands; an unknown one may be an alias, which can run a shell
/// command (`alias.x = !rm -rf .`).
const GIT_SUBCOMMANDS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "checkout",
    "cherry",
    "cherry-pick",
    "clean",
    "clone",
    "commit",
    "config",
    "count-objects",
    "describe",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "fetch",
    "format-patch",
    "fsck",
    "gc",
    "grep",
    "help",
    "init",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "merge",
    "merge-base",
    "mv",
    "notes",
    "pull",
    "push",
    "range-diff",
    "rebase",
    "reflog",
    "remote",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "shortlog",
    "show",
    "show-ref",
    "sparse-checkout",
    "stash",
    "status",
    "submodule",
    "switch",
    "symbolic-ref",
    "tag",
    "update-ref",
    "version",
    "whatchanged",
    "worktree",
    "prune",
    "filter-branch",
    "repack",
    "var",
    "verify-commit",
    "verify-tag",
    "name-rev",
    "for-each-ref",
    "hash-object",
    "read-tree",
    "write-tree",
    "update-index",
    "checkout-index",
    "mktag",
    "mktree",
    "merge-file",
    "maintenance",
    "difftool",
    "mergetool",
    "replace",
    "show-branch",
    "stage",
];

/// What a `git` command line says about the programs git itself may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitInvocation {
    /// A git subcommand, with no option that names a program.
    Known,
    /// `-c KEY=...`, `--config-env` or `--exec-path=DIR`: a setting that
    /// may name a program git runs (the key is given).
    ConfiguresProgram(String),
    /// A subcommand git does not have: an alias, which may run a shell
    /// command (`alias.x = !rm -rf .`), or a `git-NAME` program.
    Unknown(String),
    /// Global options this reader does not know, or one only the shell
    /// knows.
    Unreadable,
}

/// Reads git's global options and subcommand (the words after `git`).
pub fn git_invocation(args: &[Word]) -> GitInvocation {
    let Ok((items, rest)) = GIT.parse(args) else {
        return GitInvocation::Unreadable;
    };
    for item in &items {
        let Item::Opt { opt, value } = item else {
            continue;
        };
        if GIT.is(*opt, "c") {
            let setting = value.as_deref().unwrap_or_default();
            let key = setting.split('=').next().unwrap_or_default();
            if !harmless_key(key) {
                return GitInvocation::ConfiguresProgram(key.to_owned());
            }
        }
        if GIT.is(*opt, "config-env") {
            let key = value.as_deref().unwrap_or_default();
            return GitInvocation::ConfiguresProgram(
                key.split('=').next().unwrap_or_default().to_owned(),
            );
        }
        if GIT.is(*opt, "exec-path") && value.is_some() {
            return GitInvocation::ConfiguresProgram("--exec-path".to_owned());
        }
    }
    match args.get(rest) {
        None => GitInvocation::Known,
        Some(sub) if sub.dynamic => GitInvocation::Unreadable,
        Some(sub) if GIT_SUBCOMMANDS.contains(&sub.text.as_str()) => GitInvocation::Known,
        Some(sub) => GitInvocation::Unknown(sub.text.clone()),
    }
}

/// A `-c` key that only changes how git displays things.
fn harmless_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    GIT_HARMLESS_CONFIG.iter().any(|k| key.starts_with(k))
}

/// A git subcommand that runs a command given in its arguments or
/// options (`rebase -x`, `difftool -x`, `grep -O`, `--upload-pack`,
/// `submodule foreach`, `bisect run`, `filter-branch`), or that writes a
/// configuration key which later git commands run (`git config
/// core.fsmonitor ...`, any `git config` that sets a value).
pub(crate) fn git_runs_commands(args: &[Word]) -> Option<String> {
    let Ok((_, rest)) = GIT.parse(args) else {
        return None;
    };
    let sub = args.get(rest)?;
    let args = &args[rest + 1..];
    let long = |name: &str| has_long(args, name);
    let short = |c: char| has_short(args, c);
    let word = |text: &str| has_word(args, text);
    let runs = match sub.text.as_str() {
        "rebase" => short('x') || long("exec"),
        "difftool" | "mergetool" => true,
        "grep" => short('O') || long("open-files-in-pager"),
        "ls-remote" | "fetch" | "pull" | "clone" | "push" | "archive" | "remote" => {
            long("upload-pack") || long("receive-pack") || long("exec") || short('u')
        }
        "submodule" => word("foreach"),
        "bisect" => word("run"),
        "filter-branch" | "send-email" | "instaweb" | "daemon" => true,
        "config" => {
            !(long("get")
                || long("get-all")
                || long("get-regexp")
                || long("list")
                || short('l')
                || word("get")
                || word("list"))
        }
        _ => false,
    };
    runs.then(|| format!("git {}", sub.text))
}

pub(crate) fn git_destroys(args: &[Word]) -> bool {
    if git_invocation(args) != GitInvocation::Known {
        return true;
    }
    let Ok((_, rest)) = GIT.parse(args) else {
        return true;
    };
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
            let operands = args.iter().filter(|w| !w.text.starts_with('-')).count();
            short('f')
                || short('B')
                || short('p')
                || short('m')
                || long("force")
                || long("ours")
                || long("theirs")
                || long("patch")
                || long("merge")
                || long("overwrite-ignore")
                || long("pathspec-from-file")
                || word("--")
                || word(".")
                || operands > 1
        }
        "switch" => {
            short('f')
                || short('C')
                || long("force")
                || long("discard-changes")
                || long("force-create")
        }
        "branch" => {
            short('d')
                || short('D')
                || short('M')
                || short('C')
                || short('f')
                || long("delete")
                || long("force")
        }
        "tag" => short('d') || short('f') || long("delete") || long("force"),
        "stash" => word("drop") || word("clear"),
        "push" => {
            short('f')
                || short('d')
                || long("force")
                || long("force-with-lease")
                || long("force-if-includes")
                || long("delete")
                || long("mirror")
                || long("prune")
                || args
                    .iter()
                    .any(|w| w.text.starts_with('+') || w.text.starts_with(':'))
        }
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
        "config" => {
            !(long("get")
                || long("get-all")
                || long("get-regexp")
                || long("list")
                || short('l')
                || word("get")
                || word("list"))
        }
        "archive" => short('o') || long("output"),
        // Overwrites an existing destination only when forced.
        "mv" => short('f') || long("force"),
        // Writes a bundle file (truncating one that exists).
        "bundle" => word("create"),
        // Writes the merge result over the first file, unless `-p`.
        "merge-file" => !(short('p') || long("stdout")),
        // Changes work-tree files, unless it only reports.
        "apply" => {
            !(long("check") || long("stat") || long("numstat") || long("summary")) || long("apply")
        }
        // Removes files from the work tree.
        "sparse-checkout" => !word("list"),
        "replace" => short('f') || short('d') || long("force") || long("delete"),
        "notes" => word("remove") || word("prune"),
        // Aborting restores the pre-merge state, which may drop changes
        // made since.
        "merge" | "am" | "cherry-pick" | "revert" => long("abort"),
        "diff" | "log" | "show" | "whatchanged" | "diff-tree" | "diff-files" | "diff-index" => {
            long("output")
        }
        sub => !GIT_SUBCOMMANDS.contains(&sub),
    }
}

/// git's global options (exact spellings only: git does not abbreviate
/// them).
const GIT: Table = Table {
    abbreviations: false,
    ..wrapper(&[
        ok('C', "", Required),
        ok('c', "", Required),
        ok(' ', "config-env", Required),
        ok(' ', "exec-path", Optional),
        ok(' ', "html-path", No),
        ok(' ', "man-path", No),
        ok(' ', "info-path", No),
        ok('p', "paginate", No),
        ok('P', "no-pager", No),
        ok(' ', "git-dir", Required),
        ok(' ', "work-tree", Required),
        ok(' ', "namespace", Required),
        ok(' ', "super-prefix", Required),
        ok(' ', "bare", No),
        ok(' ', "no-replace-objects", No),
        ok(' ', "no-lazy-fetch", No),
        ok(' ', "no-optional-locks", No),
        ok(' ', "no-advice", No),
        ok(' ', "literal-pathspecs", No),
        ok(' ', "glob-pathspecs", No),
        ok(' ', "noglob-pathspecs", No),
        ok(' ', "icase-pathspecs", No),
        ok(' ', "list-cmds", Required),
        ok(' ', "attr-source", Required),
        ok('v', "version", No),
        ok('h', "help", No),
    ])
};
