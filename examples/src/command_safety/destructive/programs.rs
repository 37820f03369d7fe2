//! The programs at the core of a command, once wrappers are peeled: which
//! destroy data always, and which depending on their arguments.

use super::super::lex::Word;
use super::super::options::{Arg::*, Item, Table, bad, ok};
use super::super::read_only::{SORT, UNIQ};
use super::Walker;
use super::git::git_destroys;
use super::wrappers::{HELP, OPAQUE_RUNNERS, SHELLS, VERSION, wrapper};

/// Programs that delete, overwrite, truncate, re-permission or otherwise
/// destroy data whatever their arguments.
pub(super) const DESTRUCTIVE_PROGRAMS: &[&str] = &[
    "rm",
    "rmdir",
    "unlink",
    "mv",
    "dd",
    "truncate",
    "shred",
    "chmod",
    "chown",
    "chgrp",
    "cp",
    "tee",
    "install",
    "ln",
    "rsync",
    "srm",
    "wipe",
    "wipefs",
    "fdisk",
    "sfdisk",
    "parted",
    "sponge",
    "sudoedit",
    "patch",
    "mkfs",
    "kill",
    "pkill",
    "killall",
    "shutdown",
    "reboot",
    "halt",
    "poweroff",
    "split",
    "csplit",
    "chattr",
    "setfacl",
    "chcon",
    "blkdiscard",
    "mkswap",
    "sgdisk",
    "gdisk",
    "cfdisk",
    "fallocate",
    "scp",
    "rclone",
    "strip",
    "objcopy",
    // `script` writes its typescript file (truncating it); `at` and
    // `batch` run commands read from their input later.
    "script",
    "at",
    "batch",
    // Editors exist to write files, and take their commands from
    // arguments (`vim -es -c 'g/x/d|x' f`, `ed f`).
    "vi",
    "vim",
    "nvim",
    "ex",
    "ed",
    "emacs",
    "nano",
    // Shell builtins that change what a later word runs: `alias ls='rm
    // -rf'` on one line makes `ls` on the next destroy, `hash -p /bin/rm
    // ls` does the same in bash, `enable -f` loads a builtin.
    "alias",
    "hash",
    "enable",
];

/// Checks the program at the core of a command.
pub(super) fn program_destroys(
    name: &str,
    args: &[Word],
    unseen_args: bool,
    walker: &mut Walker<'_>,
) -> bool {
    if DESTRUCTIVE_PROGRAMS.contains(&name) || name.starts_with("mkfs.") {
        return true;
    }
    // Past this point the answer depends on the arguments: one the shell
    // (or `xargs`) supplies could be anything.
    let arguments_matter = matches!(
        name,
        "find"
            | "git"
            | "sed"
            | "sort"
            | "uniq"
            | "perl"
            | "ruby"
            | "tar"
            | "curl"
            | "wget"
            | "unzip"
            | "shuf"
            | "iconv"
            | "sdiff"
            | "xxd"
            | "yq"
            | "crontab"
    ) || AWKS.contains(&name)
        || COMPRESSORS.contains(&name);
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
        "curl" => {
            has_short(args, 'o')
                || has_short(args, 'O')
                || has_long(args, "output")
                || has_long(args, "remote-name")
                || has_long(args, "remote-name-all")
        }
        "wget" => has_short(args, 'O') || has_long(args, "output-document"),
        // Writing an output file named by an option.
        "shuf" | "iconv" | "sdiff" => has_short(args, 'o') || has_long(args, "output"),
        "yq" => has_short(args, 'i') || has_long(args, "inplace"),
        // `file -C` compiles a magic file, `less -o` logs to one.
        "file" => has_short(args, 'C') || has_long(args, "compile"),
        "less" => {
            has_short(args, 'o')
                || has_short(args, 'O')
                || has_long(args, "log-file")
                || has_long(args, "LOG-FILE")
        }
        "crontab" => has_short(args, 'r') || operands(args) > 0,
        // `xxd IN OUT` truncates OUT.
        "xxd" => operands(args) >= 2,
        // Overwrites existing files only when told to, or to a stream. The
        // exemptions count only in clusters of argument-less flags, so an
        // option value such as `-S.c` cannot pose as `-c`.
        "unzip" => !['l', 't', 'v', 'p', 'Z']
            .iter()
            .any(|c| has_plain_flag(args, *c, "ltvpZqz")),
        // Compressing or decompressing replaces the input file; only
        // writing to standard output, testing and listing leave it.
        name if COMPRESSORS.contains(&name) => {
            !(['c', 't', 'l']
                .iter()
                .any(|c| has_plain_flag(args, *c, "cdfklnNqrtvz0123456789"))
                || args.iter().any(|w| {
                    matches!(
                        w.text.as_str(),
                        "--stdout" | "--to-stdout" | "--test" | "--list"
                    )
                }))
        }
        name if AWKS.contains(&name) => args.iter().any(|w| {
            w.text.contains("system")
                || w.text.contains('>')
                || w.text.contains('|')
                || w.text.contains("inplace")
        }),
        // `uniq INPUT OUTPUT` truncates OUTPUT.
        "uniq" => match UNIQ.parse(args) {
            Ok((items, _)) => {
                items
                    .iter()
                    .filter(|i| matches!(i, Item::Operand(_)))
                    .count()
                    >= 2
            }
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
            w.text.len() > 1
                && w.text.starts_with('-')
                && !w.text.starts_with("--")
                && modes(&w.text[1..])
        })
        || [
            "extract",
            "get",
            "create",
            "append",
            "update",
            "delete",
            "catenate",
            "concatenate",
        ]
        .iter()
        .any(|name| has_long(args, name))
}

/// Programs that replace their input file with its (de)compressed form.
const COMPRESSORS: &[&str] = &[
    "gzip",
    "gunzip",
    "bzip2",
    "bunzip2",
    "xz",
    "unxz",
    "lzma",
    "unlzma",
    "zstd",
    "unzstd",
    "lz4",
    "lzip",
    "compress",
    "uncompress",
    "pigz",
    "pbzip2",
];

/// A short option cluster made only of the argument-less flags `plain`
/// that contains `flag` (`-dc` has `c`; `-S.c` has no flag `c`).
fn has_plain_flag(args: &[Word], flag: char, plain: &str) -> bool {
    args.iter().any(|w| {
        w.text.strip_prefix('-').is_some_and(|cluster| {
            !cluster.starts_with('-')
                && cluster.contains(flag)
                && cluster.chars().all(|c| plain.contains(c))
        })
    })
}

/// Words that do not look like options (a rough count: option arguments
/// count too, which only errs toward destructive).
fn operands(args: &[Word]) -> usize {
    args.iter()
        .filter(|w| !w.text.starts_with('-') || w.text == "-")
        .count()
}

pub(super) fn has(table: &Table, items: &[Item<'_>], name: &str) -> bool {
    items
        .iter()
        .any(|item| matches!(item, Item::Opt { opt, .. } if table.is(*opt, name)))
}

/// `/bin/rm` is `rm`.
pub(super) fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// A word naming something this module inspects (a destroyer, a shell, a
/// wrapper, `find`, `git`, ...): inside an opaque runner it may be run.
pub(super) fn names_a_runner(word: &Word) -> bool {
    let name = basename(&word.text);
    DESTRUCTIVE_PROGRAMS.contains(&name)
        || name.starts_with("mkfs.")
        || SHELLS.contains(&name)
        || OPAQUE_RUNNERS.contains(&name)
        || matches!(
            name,
            "find"
                | "git"
                | "sed"
                | "sort"
                | "uniq"
                | "eval"
                | "env"
                | "xargs"
                | "sudo"
                | "doas"
                | "nice"
                | "nohup"
                | "timeout"
                | "stdbuf"
                | "setsid"
                | "ionice"
                | "chrt"
                | "time"
                | "command"
                | "builtin"
                | "exec"
                | "busybox"
                | "toybox"
                | "watch"
                | "flock"
        )
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
pub(super) fn has_long(args: &[Word], name: &str) -> bool {
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
pub(super) fn has_short(args: &[Word], c: char) -> bool {
    args.iter().any(|w| {
        w.text.len() > 1
            && w.text.starts_with('-')
            && !w.text.starts_with("--")
            && w.text[1..].contains(c)
    })
}

pub(super) fn has_word(args: &[Word], text: &str) -> bool {
    args.iter().any(|w| w.text == text)
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

const SED: Table = Table {
    permute: true,
    ..wrapper(&[
        ok('n', "quiet", No),
        ok(' ', "silent", No),
        ok(' ', "debug", No),
        ok('e', "expression", Required),
        ok('f', "file", Required),
        ok(' ', "follow-symlinks", No),
        bad('i', "in-place", Optional),
        ok('l', "line-length", Required),
        ok(' ', "posix", No),
        ok('E', "regexp-extended", No),
        ok('r', "", No),
        ok('s', "separate", No),
        ok(' ', "sandbox", No),
        ok('u', "unbuffered", No),
        ok('z', "null-data", No),
        HELP,
        VERSION,
    ])
};
