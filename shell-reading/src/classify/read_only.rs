//! The read-only allow-list: which programs, with which options, only read.
//!
//! Kept small on purpose: every program here had its whole option table
//! reviewed (GNU coreutils, grep and findutils as shipped on Debian, and
//! git 2.47). An option or program missing from a table is not read-only;
//! widening the list means reviewing the program's manual page as a whole.
//!
//! What is deliberately left out: `file` (`-z` runs decompressors, `-C`
//! writes), `df` (may trigger automounts), `tee` (writes), `xargs`, `env`
//! and every other program that runs programs, and every interpreter.

use crate::options::{Arg::*, Item, Opt, Table, bad, ok};
use crate::syntax::Word;

/// Does `program args...` only read? The words are static (no expansion):
/// the caller checked.
pub(crate) fn is_read_only_invocation(program: &str, args: &[Word]) -> bool {
    match program {
        // `echo` writes its arguments to standard output and nothing else;
        // dash's and bash's builtins take no option that changes that.
        "echo" | "true" | "false" => true,
        "pwd" => options_read_only(&PWD, args),
        "ls" => options_read_only(&LS, args),
        "cat" => options_read_only(&CAT, args),
        "head" => options_read_only(&HEAD, args),
        "tail" => options_read_only(&TAIL, args),
        "wc" => options_read_only(&WC, args),
        "grep" => options_read_only(&GREP, args),
        "sort" => options_read_only(&SORT, args),
        "stat" => options_read_only(&STAT, args),
        "du" => options_read_only(&DU, args),
        // `uniq INPUT OUTPUT` truncates OUTPUT.
        "uniq" => {
            options_read_only(&UNIQ, args)
                && UNIQ
                    .parse(args)
                    .is_ok_and(|(items, _)| operands(&items) <= 1)
        }
        "find" => find_reads_only(args),
        "git" => git_reads_only(args),
        _ => false,
    }
}

fn operands(items: &[Item<'_>]) -> usize {
    items
        .iter()
        .filter(|i| matches!(i, Item::Operand(_)))
        .count()
}

/// Every option parses against `table` and is marked as reading only.
fn options_read_only(table: &Table, args: &[Word]) -> bool {
    table.parse(args).is_ok_and(|(items, _)| {
        items.iter().all(|item| match item {
            Item::Opt { opt, .. } => table.get(*opt).reads_only,
            Item::Numeric | Item::Operand(_) => true,
        })
    })
}

const fn gnu(options: &'static [Opt]) -> Table {
    Table {
        options,
        permute: true,
        numeric: false,
        abbreviations: true,
    }
}

const HELP: Opt = ok(' ', "help", No);
const VERSION: Opt = ok(' ', "version", No);

const PWD: Table = Table {
    abbreviations: false,
    ..gnu(&[ok('L', "", No), ok('P', "", No)])
};

const LS: Table = gnu(&[
    ok('a', "all", No),
    ok('A', "almost-all", No),
    ok(' ', "author", No),
    ok('b', "escape", No),
    ok(' ', "block-size", Required),
    ok('B', "ignore-backups", No),
    ok('c', "", No),
    ok('C', "", No),
    ok(' ', "color", Optional),
    ok(' ', "colour", Optional),
    ok('d', "directory", No),
    ok('D', "dired", No),
    ok('f', "", No),
    ok('F', "", No),
    ok(' ', "classify", Optional),
    ok(' ', "file-type", No),
    ok(' ', "format", Required),
    ok(' ', "full-time", No),
    ok('g', "", No),
    ok(' ', "group-directories-first", No),
    ok('G', "no-group", No),
    ok('h', "human-readable", No),
    ok(' ', "si", No),
    ok('H', "dereference-command-line", No),
    ok(' ', "dereference-command-line-symlink-to-dir", No),
    ok(' ', "hide", Required),
    ok(' ', "hyperlink", Optional),
    ok(' ', "indicator-style", Required),
    ok('i', "inode", No),
    ok('I', "ignore", Required),
    ok('k', "kibibytes", No),
    ok('l', "", No),
    ok('L', "dereference", No),
    ok('m', "", No),
    ok('n', "numeric-uid-gid", No),
    ok('N', "literal", No),
    ok('o', "", No),
    ok('p', "", No),
    ok('q', "hide-control-chars", No),
    ok(' ', "show-control-chars", No),
    ok('Q', "quote-name", No),
    ok(' ', "quoting-style", Required),
    ok('r', "reverse", No),
    ok('R', "recursive", No),
    ok('s', "size", No),
    ok('S', "", No),
    ok(' ', "sort", Required),
    ok(' ', "time", Required),
    ok(' ', "time-style", Required),
    ok('t', "", No),
    ok('T', "tabsize", Required),
    ok('u', "", No),
    ok('U', "", No),
    ok('v', "", No),
    ok('w', "width", Required),
    ok('x', "", No),
    ok('X', "", No),
    ok('Z', "context", No),
    ok(' ', "zero", No),
    ok('1', "", No),
    HELP,
    VERSION,
]);

const CAT: Table = gnu(&[
    ok('A', "show-all", No),
    ok('b', "number-nonblank", No),
    ok('e', "", No),
    ok('E', "show-ends", No),
    ok('n', "number", No),
    ok('s', "squeeze-blank", No),
    ok('t', "", No),
    ok('T', "show-tabs", No),
    ok('u', "", No),
    ok('v', "show-nonprinting", No),
    HELP,
    VERSION,
]);

const HEAD: Table = Table {
    numeric: true,
    ..gnu(&[
        ok('c', "bytes", Required),
        ok('n', "lines", Required),
        ok('q', "quiet", No),
        ok(' ', "silent", No),
        ok('v', "verbose", No),
        ok('z', "zero-terminated", No),
        HELP,
        VERSION,
    ])
};

const TAIL: Table = Table {
    numeric: true,
    ..gnu(&[
        ok('c', "bytes", Required),
        ok('f', "", No),
        ok(' ', "follow", Optional),
        ok('F', "", No),
        ok('n', "lines", Required),
        ok(' ', "max-unchanged-stats", Required),
        ok(' ', "pid", Required),
        ok('q', "quiet", No),
        ok(' ', "silent", No),
        ok(' ', "retry", No),
        ok('s', "sleep-interval", Required),
        ok('v', "verbose", No),
        ok('z', "zero-terminated", No),
        HELP,
        VERSION,
    ])
};

const WC: Table = gnu(&[
    ok('c', "bytes", No),
    ok('m', "chars", No),
    ok('l', "lines", No),
    bad(' ', "files0-from", Required),
    ok('L', "max-line-length", No),
    ok('w', "words", No),
    ok(' ', "total", Required),
    HELP,
    VERSION,
]);

const GREP: Table = Table {
    numeric: true,
    ..gnu(&[
        ok('E', "extended-regexp", No),
        ok('F', "fixed-strings", No),
        ok('G', "basic-regexp", No),
        ok('P', "perl-regexp", No),
        ok('e', "regexp", Required),
        ok('f', "file", Required),
        ok('i', "ignore-case", No),
        ok('y', "", No),
        ok(' ', "no-ignore-case", No),
        ok('w', "word-regexp", No),
        ok('x', "line-regexp", No),
        ok('z', "null-data", No),
        ok('s', "no-messages", No),
        ok('v', "invert-match", No),
        ok('V', "version", No),
        ok(' ', "help", No),
        ok('m', "max-count", Required),
        ok('b', "byte-offset", No),
        ok('n', "line-number", No),
        ok(' ', "line-buffered", No),
        ok('H', "with-filename", No),
        ok('h', "no-filename", No),
        ok(' ', "label", Required),
        ok('o', "only-matching", No),
        ok('q', "quiet", No),
        ok(' ', "silent", No),
        ok(' ', "binary-files", Required),
        ok('a', "text", No),
        ok('I', "", No),
        ok('d', "directories", Required),
        // `-D read` opens devices, which can block or act.
        bad('D', "devices", Required),
        ok('r', "recursive", No),
        ok('R', "dereference-recursive", No),
        ok(' ', "include", Required),
        ok(' ', "exclude", Required),
        ok(' ', "exclude-from", Required),
        ok(' ', "exclude-dir", Required),
        ok('L', "files-without-match", No),
        ok('l', "files-with-matches", No),
        ok('c', "count", No),
        ok('T', "initial-tab", No),
        ok('Z', "null", No),
        ok('B', "before-context", Required),
        ok('A', "after-context", Required),
        ok('C', "context", Required),
        ok(' ', "group-separator", Required),
        ok(' ', "no-group-separator", No),
        ok(' ', "color", Optional),
        ok(' ', "colour", Optional),
        ok('U', "binary", No),
    ])
};

/// `sort -o FILE` truncates FILE, `--compress-program` runs a program and
/// `-T DIR` creates temporary files there.
pub(crate) const SORT: Table = gnu(&[
    ok('b', "ignore-leading-blanks", No),
    ok('d', "dictionary-order", No),
    ok('f', "ignore-case", No),
    ok('g', "general-numeric-sort", No),
    ok('i', "ignore-nonprinting", No),
    ok('M', "month-sort", No),
    ok('h', "human-numeric-sort", No),
    ok('n', "numeric-sort", No),
    ok('R', "random-sort", No),
    ok(' ', "random-source", Required),
    ok('r', "reverse", No),
    ok(' ', "sort", Required),
    ok('V', "version-sort", No),
    ok(' ', "batch-size", Required),
    ok('c', "", No),
    ok(' ', "check", Optional),
    ok('C', "", No),
    bad(' ', "compress-program", Required),
    ok(' ', "debug", No),
    bad(' ', "files0-from", Required),
    ok('k', "key", Required),
    ok('m', "merge", No),
    bad('o', "output", Required),
    ok('s', "stable", No),
    ok('S', "buffer-size", Required),
    ok('t', "field-separator", Required),
    bad('T', "temporary-directory", Required),
    ok(' ', "parallel", Required),
    ok('u', "unique", No),
    ok('z', "zero-terminated", No),
    HELP,
    VERSION,
]);

pub(crate) const UNIQ: Table = gnu(&[
    ok('c', "count", No),
    ok('d', "repeated", No),
    ok('D', "", No),
    ok(' ', "all-repeated", Optional),
    ok('f', "skip-fields", Required),
    ok(' ', "group", Optional),
    ok('i', "ignore-case", No),
    ok('s', "skip-chars", Required),
    ok('u', "unique", No),
    ok('z', "zero-terminated", No),
    ok('w', "check-chars", Required),
    HELP,
    VERSION,
]);

const STAT: Table = gnu(&[
    ok('L', "dereference", No),
    ok('f', "file-system", No),
    ok(' ', "cached", Required),
    ok('c', "format", Required),
    ok(' ', "printf", Required),
    ok('t', "terse", No),
    HELP,
    VERSION,
]);

const DU: Table = gnu(&[
    ok('0', "null", No),
    ok('a', "all", No),
    ok(' ', "apparent-size", No),
    ok('B', "block-size", Required),
    ok('b', "bytes", No),
    ok('c', "total", No),
    ok('D', "dereference-args", No),
    ok('d', "max-depth", Required),
    bad(' ', "files0-from", Required),
    ok('H', "", No),
    ok('h', "human-readable", No),
    ok(' ', "inodes", No),
    ok('k', "", No),
    ok('L', "dereference", No),
    ok('l', "count-links", No),
    ok('m', "", No),
    ok('P', "no-dereference", No),
    ok('S', "separate-dirs", No),
    ok(' ', "si", No),
    ok('s', "summarize", No),
    ok('t', "threshold", Required),
    ok(' ', "time", Optional),
    ok(' ', "time-style", Required),
    ok('X', "exclude-from", Required),
    ok(' ', "exclude", Required),
    ok('x', "one-file-system", No),
    HELP,
    VERSION,
]);

/// `find` primaries that only test or print to standard output, with the
/// number of arguments each takes. `-delete`, `-exec`, `-execdir`, `-ok`,
/// `-okdir`, `-fprint`, `-fprint0`, `-fprintf`, `-fls` and everything not
/// listed are refused.
const FIND_PRIMARIES: &[(&str, usize)] = &[
    ("-print", 0),
    ("-print0", 0),
    ("-ls", 0),
    ("-prune", 0),
    ("-quit", 0),
    ("-true", 0),
    ("-false", 0),
    ("-empty", 0),
    ("-readable", 0),
    ("-writable", 0),
    ("-executable", 0),
    ("-nouser", 0),
    ("-nogroup", 0),
    ("-depth", 0),
    ("-follow", 0),
    ("-mount", 0),
    ("-xdev", 0),
    ("-noleaf", 0),
    ("-daystart", 0),
    ("-ignore_readdir_race", 0),
    ("-noignore_readdir_race", 0),
    ("-not", 0),
    ("!", 0),
    ("-a", 0),
    ("-and", 0),
    ("-o", 0),
    ("-or", 0),
    ("(", 0),
    (")", 0),
    (",", 0),
    ("-name", 1),
    ("-iname", 1),
    ("-path", 1),
    ("-ipath", 1),
    ("-wholename", 1),
    ("-iwholename", 1),
    ("-lname", 1),
    ("-ilname", 1),
    ("-regex", 1),
    ("-iregex", 1),
    ("-regextype", 1),
    ("-type", 1),
    ("-xtype", 1),
    ("-size", 1),
    ("-perm", 1),
    ("-user", 1),
    ("-group", 1),
    ("-uid", 1),
    ("-gid", 1),
    ("-links", 1),
    ("-inum", 1),
    ("-samefile", 1),
    ("-newer", 1),
    ("-anewer", 1),
    ("-cnewer", 1),
    ("-mtime", 1),
    ("-atime", 1),
    ("-ctime", 1),
    ("-mmin", 1),
    ("-amin", 1),
    ("-cmin", 1),
    ("-used", 1),
    ("-maxdepth", 1),
    ("-mindepth", 1),
    ("-fstype", 1),
    ("-printf", 1),
];

/// `find [-H|-L|-P] [start...] [expression]`, every primary on the list.
fn find_reads_only(args: &[Word]) -> bool {
    let mut words = args.iter().map(|w| w.text.as_str()).peekable();
    while words
        .next_if(|w| matches!(*w, "-H" | "-L" | "-P"))
        .is_some()
    {}
    // Starting points: everything before the first word that starts an
    // expression.
    while words
        .next_if(|w| !(w.starts_with('-') || matches!(*w, "(" | "!" | ")" | ",")))
        .is_some()
    {}
    while let Some(word) = words.next() {
        let Some(&(_, arity)) = FIND_PRIMARIES.iter().find(|(p, _)| *p == word) else {
            return false;
        };
        for _ in 0..arity {
            if words.next().is_none() {
                return false;
            }
        }
    }
    true
}

/// Global options of `git` accepted before a read-only subcommand. `-c`,
/// `--config-env`, `--exec-path`, `-C`, `--git-dir`, `--work-tree`, `-p`
/// and the rest are refused: they can make git run programs, or read a
/// repository other than the workspace's, whose configuration
/// `run_command` has not vetted.
const GIT_GLOBAL: &[(&str, usize)] = &[
    ("--no-pager", 0),
    ("-P", 0),
    ("--no-optional-locks", 0),
    ("--literal-pathspecs", 0),
    ("--no-replace-objects", 0),
];

/// Options of `git status`, `log`, `diff` and `show` that only read, each
/// with whether it takes a separate argument. Git accepts abbreviations of
/// its long options against a much longer list than this one, so only exact
/// spellings are accepted (an abbreviation is not read-only). Absent on
/// purpose: `--output`, `--ext-diff`, `--textconv`, `--show-signature`,
/// `--open-files-in-pager`, `--submodule` and `--ignore-submodules` but for
/// `=all` (they run git in submodules, whose configuration `run_command`
/// does not vet), and every option naming a
/// program or a file to write.
const GIT_OPTIONS: &[(&str, bool)] = &[
    // status
    ("-s", false),
    ("--short", false),
    ("-b", false),
    ("--branch", false),
    ("--porcelain", false),
    ("--long", false),
    ("-u", false),
    ("-uno", false),
    ("-unormal", false),
    ("-uall", false),
    ("--untracked-files", false),
    ("--ignored", false),
    ("-z", false),
    ("--no-renames", false),
    ("--show-stash", false),
    ("--ahead-behind", false),
    ("--no-ahead-behind", false),
    ("--column", false),
    ("--no-column", false),
    ("-v", false),
    ("--verbose", false),
    // log and show
    ("--oneline", false),
    ("-n", true),
    ("--graph", false),
    ("--decorate", false),
    ("--no-decorate", false),
    ("--all", false),
    ("--branches", false),
    ("--tags", false),
    ("--remotes", false),
    ("-p", false),
    ("--patch", false),
    ("--no-patch", false),
    ("-s", false),
    ("--stat", false),
    ("--shortstat", false),
    ("--numstat", false),
    ("--name-only", false),
    ("--name-status", false),
    ("--follow", false),
    ("--reverse", false),
    ("--no-merges", false),
    ("--merges", false),
    ("--first-parent", false),
    ("--abbrev-commit", false),
    ("--no-abbrev-commit", false),
    ("--summary", false),
    ("--date-order", false),
    ("--topo-order", false),
    ("--left-right", false),
    ("--cherry-pick", false),
    ("--boundary", false),
    ("-i", false),
    ("--regexp-ignore-case", false),
    ("-E", false),
    ("-F", false),
    ("--fixed-strings", false),
    ("--all-match", false),
    ("--invert-grep", false),
    ("--source", false),
    ("--parents", false),
    ("--children", false),
    ("--full-history", false),
    ("--simplify-by-decoration", false),
    ("--relative-date", false),
    ("-m", false),
    ("--cc", false),
    ("-c", false),
    ("--raw", false),
    ("--format", false),
    ("--pretty", false),
    ("--date", false),
    ("--since", false),
    ("--after", false),
    ("--until", false),
    ("--before", false),
    ("--author", false),
    ("--committer", false),
    ("--grep", false),
    ("--max-count", false),
    ("--skip", false),
    ("--abbrev", false),
    ("--no-color", false),
    ("--color", false),
    ("--encoding", false),
    ("--no-notes", false),
    // diff
    ("--cached", false),
    ("--staged", false),
    ("--no-index", false),
    ("--unified", false),
    ("-w", false),
    ("--ignore-all-space", false),
    ("-b", false),
    ("--ignore-space-change", false),
    ("--ignore-blank-lines", false),
    ("--word-diff", false),
    ("--color-words", false),
    ("--check", false),
    ("--exit-code", false),
    ("--quiet", false),
    ("-q", false),
    ("-R", false),
    ("-M", false),
    ("--find-renames", false),
    ("--histogram", false),
    ("--patience", false),
    ("--minimal", false),
    ("--diff-filter", false),
    ("--relative", false),
    ("--no-ext-diff", false),
    ("--no-textconv", false),
    ("--binary", false),
    ("--full-index", false),
    ("--dirstat", false),
    ("--text", false),
    ("-a", false),
    ("--function-context", false),
    ("-W", false),
    ("--indent-heuristic", false),
    ("--no-prefix", false),
];

/// Git options that may take a glued value (`--format=%h`, `-n5`, `-U3`).
const GIT_VALUED: &[&str] = &[
    "--porcelain",
    "--untracked-files",
    "--ignored",
    "--ahead-behind",
    "--column",
    "--decorate",
    "--stat",
    "--abbrev",
    "--format",
    "--pretty",
    "--date",
    "--since",
    "--after",
    "--until",
    "--before",
    "--author",
    "--committer",
    "--grep",
    "--max-count",
    "--skip",
    "--color",
    "--encoding",
    "--unified",
    "--word-diff",
    "--color-words",
    "--find-renames",
    "--diff-filter",
    "--relative",
    "--dirstat",
    "--branches",
    "--tags",
    "--remotes",
    "-n",
    "-U",
    "-M",
];

const GIT_READ_ONLY_SUBCOMMANDS: &[&str] = &["status", "log", "diff", "show"];

/// `git [global options] status|log|diff|show [options] [revisions] [--
/// paths]`, each option on the list, spelled out in full.
fn git_reads_only(args: &[Word]) -> bool {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(&(_, arity)) = GIT_GLOBAL.iter().find(|(g, _)| word.text == *g) else {
            break;
        };
        i += 1 + arity;
    }
    let Some(sub) = args.get(i) else {
        return false;
    };
    if !GIT_READ_ONLY_SUBCOMMANDS.contains(&sub.text.as_str()) {
        return false;
    }
    let mut words = args[i + 1..].iter();
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        if text == "--" {
            return true;
        }
        if !text.starts_with('-') || text == "-" {
            continue;
        }
        // Submodules run git with their own configuration, which nothing
        // vets: only the spelling that ignores them all is read-only.
        if matches!(text, "--ignore-submodules" | "--ignore-submodules=all") {
            continue;
        }
        if let Some(&(_, separate)) = GIT_OPTIONS.iter().find(|(o, _)| *o == text) {
            if separate && words.next().is_none() {
                return false;
            }
            continue;
        }
        let glued = GIT_VALUED.iter().any(|v| {
            text.strip_prefix(v).is_some_and(|rest| {
                if v.starts_with("--") {
                    rest.starts_with('=')
                } else {
                    !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit())
                }
            })
        });
        // `-NUM` limits `git log` to NUM commits.
        let numeric = text[1..].chars().all(|c| c.is_ascii_digit());
        if !(glued || numeric) {
            return false;
        }
    }
    true
}

/// What a read-only `program args...` reads, from its words: the paths it
/// names (operands, option arguments, find's starting points and primary
/// arguments, over-approximated: a pattern read as a path only widens the
/// set), `.` where it walks the working directory without naming it.
/// `None` when the words do not say: `git` reads a repository found from
/// the working directory, and an option that follows symlinks reads where
/// the links lead. Only for invocations [`is_read_only_invocation`]
/// accepted.
pub(crate) fn read_targets(program: &str, args: &[Word]) -> Option<Vec<String>> {
    let table = match program {
        "echo" | "true" | "false" | "pwd" => return Some(Vec::new()),
        "find" => return find_targets(args),
        "ls" => &LS,
        "cat" => &CAT,
        "head" => &HEAD,
        "tail" => &TAIL,
        "wc" => &WC,
        "grep" => &GREP,
        "sort" => &SORT,
        "stat" => &STAT,
        "du" => &DU,
        "uniq" => &UNIQ,
        _ => return None,
    };
    let (items, _) = table.parse(args).ok()?;
    let mut paths = Vec::new();
    let mut walks_cwd = matches!(program, "ls" | "du");
    for item in &items {
        match item {
            Item::Operand(word) => paths.push(word.text.clone()),
            Item::Opt { opt, value } => {
                let long = table.get(*opt).long.unwrap_or_default();
                if long.contains("dereference") {
                    return None;
                }
                // `grep -r` (or `-d recurse`) without a file operand
                // searches the working directory.
                if program == "grep" && matches!(long, "recursive" | "directories") {
                    walks_cwd = true;
                }
                paths.extend(value.iter().cloned());
            }
            Item::Numeric => {}
        }
    }
    // grep's first operand is its pattern, unless `-e` or `-f` gave one:
    // counting it as a file can only add `.`, never miss it.
    let files = operands(&items).saturating_sub(usize::from(program == "grep"));
    if walks_cwd && files == 0 {
        paths.push(".".to_owned());
    }
    Some(paths)
}

/// `find`: its starting points (`.` when none) and every other word that
/// is not an operator or a primary; `None` when it follows symlinks.
fn find_targets(args: &[Word]) -> Option<Vec<String>> {
    let words: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    if words.iter().any(|w| matches!(*w, "-L" | "-H" | "-follow")) {
        return None;
    }
    let mut paths: Vec<String> = words
        .iter()
        .filter(|w| !(w.starts_with('-') || matches!(**w, "(" | "!" | ")" | ",")))
        .map(|w| (*w).to_owned())
        .collect();
    let named_start = words
        .first()
        .is_some_and(|w| !(w.starts_with('-') || matches!(*w, "(" | "!" | ")" | ",")));
    if !named_start {
        paths.push(".".to_owned());
    }
    Some(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(command: &str) -> bool {
        let words: Vec<Word> = command.split(' ').map(Word::literal).collect();
        is_read_only_invocation(&words[0].text, &words[1..])
    }

    #[test]
    fn options_are_allow_listed_per_program() {
        for yes in [
            "ls -la --color=auto",
            "ls --alm",
            "head -5 f",
            "head -n5 f",
            "tail -n 3 f",
            "grep -rn --include=*.rs x .",
            "grep -e -o f",
            "sort -k2 -t, f",
            "sort --rev f",
            "uniq -c f",
            "wc -l f",
            "du -sh .",
            "stat -c %s f",
            "find . -name x -print",
            "find -L . ( -name a -o -name b ) -type f",
            "git status -s",
            "git log --oneline -5",
            "git --no-pager diff --cached -- f",
            "git show HEAD --stat",
            "git log -n 3",
            "git log --format=%h",
        ] {
            assert!(check(yes), "{yes}");
        }
        for no in [
            "ls --nope",
            "ls --al",
            "sort -o out in",
            "sort -uo out in",
            "sort --out=x in",
            "sort --o x",
            "sort --compress-program=sh in",
            "sort -T . in",
            "uniq in out",
            "uniq -c in out",
            "find . -delete",
            "find . -fprint x",
            "find . -exec rm {} ;",
            "find . -execdir ls ;",
            "find . -newerXY x",
            "find . -name",
            "git diff --output=x",
            "git diff --out=x",
            "git diff --ext-diff",
            "git log --show-signature",
            "git -c k=v log",
            "git --exec-path=. status",
            "git -C sub status",
            "git commit",
            "git status --porc",
            "git",
            "cat -z f",
            "head -5q f",
            "file x",
        ] {
            assert!(!check(no), "{no}");
        }
    }
}
