//! The programs at the core of a command, once wrappers are peeled: which
//! destroy data always, and which depending on their arguments.

use super::git::git_destroys;
use super::read_only::{SORT, UNIQ};
use super::sed::sed_destroys;
use crate::options::Item;
use crate::reading::has;
use crate::syntax::Word;

/// Programs that delete, overwrite, truncate, re-permission or otherwise
/// destroy data whatever their arguments.
pub(crate) const DESTRUCTIVE_PROGRAMS: &[&str] = &[
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
pub(crate) fn program_destroys(name: &str, args: &[Word], unseen_args: bool) -> bool {
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
        "find" => find_destroys(args),
        "git" => git_destroys(args),
        "sed" => sed_destroys(args),
        // `-o` truncates a file; `--compress-program` runs a program.
        "sort" => match SORT.parse(args) {
            Ok((items, _)) => {
                has(&SORT, &items, "output") || has(&SORT, &items, "compress-program")
            }
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
/// first word may be a dash-less cluster (`tar xf a.tar`). In any mode,
/// tar runs programs it is given (`--checkpoint-action=exec=CMD`,
/// `--use-compress-program`/`-I`, `--to-command`, `--info-script`/`-F`,
/// `--rsh-command`, an archive named `host:file`, which it opens through
/// a remote shell) and writes files named by options (`--index-file`,
/// `--listed-incremental`/`-g`, `--volno-file`).
fn tar_destroys(args: &[Word]) -> bool {
    let modes = |text: &str| text.contains(['x', 'c', 'r', 'u', 'A']);
    // Short options that run programs or write files: in a dash-less first
    // cluster, or in any short cluster.
    let acting_short = |text: &str| text.contains(['I', 'F', 'g']);
    let first_cluster = args
        .first()
        .is_some_and(|w| !w.text.starts_with('-') && (modes(&w.text) || acting_short(&w.text)));
    let short_cluster = args.iter().any(|w| {
        w.text.len() > 1
            && w.text.starts_with('-')
            && !w.text.starts_with("--")
            && (modes(&w.text[1..]) || acting_short(&w.text[1..]))
    });
    let remote_archive = !has_long(args, "force-local")
        && args
            .iter()
            .any(|w| !w.text.starts_with("--") && w.text.contains(':'));
    first_cluster
        || short_cluster
        || remote_archive
        || [
            "extract",
            "get",
            "create",
            "append",
            "update",
            "delete",
            "catenate",
            "concatenate",
            "checkpoint-action",
            "use-compress-program",
            "to-command",
            "info-script",
            "new-volume-script",
            "rsh-command",
            "rmt-command",
            "index-file",
            "listed-incremental",
            "volno-file",
            "remove-files",
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

/// `find` actions that delete or write files. The commands `-exec` and
/// its kin run are runs of their own in the reading, checked like any
/// other.
fn find_destroys(args: &[Word]) -> bool {
    args.iter().any(|word| {
        matches!(
            word.text.as_str(),
            "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls"
        )
    })
}

/// A long option that is `--name` or an abbreviation of it (`--har` for
/// `--hard`), with or without `=value`. Ambiguity is ignored: a prefix
/// that might mean the destructive option counts as it.
pub(crate) fn has_long(args: &[Word], name: &str) -> bool {
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
pub(crate) fn has_short(args: &[Word], c: char) -> bool {
    args.iter().any(|w| {
        w.text.len() > 1
            && w.text.starts_with('-')
            && !w.text.starts_with("--")
            && w.text[1..].contains(c)
    })
}

pub(crate) fn has_word(args: &[Word], text: &str) -> bool {
    args.iter().any(|w| w.text == text)
}
