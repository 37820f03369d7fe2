//! Wrappers: programs that run the program named in their arguments, with
//! the option tables that say where that program starts.

use crate::options::{Arg::*, Opt, Table, bad, ok};

/// Shells whose `-c` string is parsed as a nested command.
pub(crate) const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash", "lksh", "pdksh",
];

/// Programs that run a command given in their arguments in ways not
/// modelled option by option (or handed to a shell as one string, like
/// `watch` and `su -c`): any word that names a program this module cares
/// about, that only the shell knows, or that holds shell syntax makes them
/// destructive (a word with shell syntax is parsed as a nested command).
pub(crate) const OPAQUE_RUNNERS: &[&str] = &[
    "strace",
    "ltrace",
    "chroot",
    "unshare",
    "nsenter",
    "firejail",
    "su",
    "runuser",
    "unbuffer",
    "systemd-run",
    "proxychains",
    "proxychains4",
    "torsocks",
    "parallel",
    "caffeinate",
    "faketime",
    "catchsegv",
    "valgrind",
    "gdb",
    "fish",
    "csh",
    "tcsh",
    "ssh",
    "perf",
    "watch",
    "flock",
    "taskset",
    "numactl",
    "cgexec",
    "prlimit",
    "chpst",
    "runcon",
    "sg",
    "pkexec",
    "dbus-launch",
    "xvfb-run",
    "bwrap",
    "fakeroot",
    "eatmydata",
    "ccache",
    "distcc",
    "nocache",
    "rlwrap",
    "expect",
    "tmux",
    "screen",
    "entr",
    "docker",
    "podman",
    "kubectl",
    "vagrant",
    "lxc-attach",
    "schroot",
    "proot",
    "setpriv",
    "capsh",
    "tini",
    "dumb-init",
    "gosu",
    "su-exec",
    "chronic",
    "nohup.sh",
    // Run the program named in their arguments.
    "setarch",
    "x86_64",
    "i386",
    "linux32",
    "linux64",
    "ssh-agent",
    "logsave",
    "dbus-run-session",
    "choom",
    "script",
    "run-parts",
    "start-stop-daemon",
    "daemonize",
    "pkexec",
    "sudoedit",
    // Run command strings from their arguments or scripts they read.
    "sqlite3",
    "ed",
    "ex",
    "vi",
    "vim",
    "nvim",
    "view",
    "emacs",
    "mapfile",
    "readarray",
    "compgen",
    "complete",
    "bind",
    "fc",
];

// The option tables of the wrappers: every option each one has (from
// its `--help`), so the first operand, the program it runs, is found the
// way the wrapper finds it. An option missing here makes the command
// destructive, never less.

pub(crate) const HELP: Opt = ok(' ', "help", No);
pub(crate) const VERSION: Opt = ok(' ', "version", No);

pub(crate) const fn wrapper(options: &'static [Opt]) -> Table {
    Table {
        options,
        permute: false,
        numeric: false,
        abbreviations: true,
    }
}

pub(crate) const NICE: Table = Table {
    numeric: true,
    ..wrapper(&[ok('n', "adjustment", Required), HELP, VERSION])
};
pub(crate) const STDBUF: Table = wrapper(&[
    ok('i', "input", Required),
    ok('o', "output", Required),
    ok('e', "error", Required),
    HELP,
    VERSION,
]);
pub(crate) const NOHUP: Table = Table {
    abbreviations: false,
    ..wrapper(&[HELP, VERSION])
};
pub(crate) const SETSID: Table = wrapper(&[
    ok('c', "ctty", No),
    ok('f', "fork", No),
    ok('w', "wait", No),
    ok('h', "help", No),
    ok('V', "version", No),
]);
pub(crate) const IONICE: Table = wrapper(&[
    ok('c', "class", Required),
    ok('n', "classdata", Required),
    ok('p', "pid", No),
    ok('P', "pgid", No),
    ok('u', "uid", No),
    ok('t', "ignore", No),
    ok('h', "help", No),
    ok('V', "version", No),
]);
pub(crate) const COMMAND: Table = Table {
    abbreviations: false,
    ..wrapper(&[ok('p', "", No), ok('v', "", No), ok('V', "", No)])
};
pub(crate) const EXEC: Table = Table {
    abbreviations: false,
    ..wrapper(&[ok('c', "", No), ok('l', "", No), ok('a', "", Required)])
};
pub(crate) const DOAS: Table = Table {
    abbreviations: false,
    ..wrapper(&[
        ok('u', "", Required),
        ok('C', "", Required),
        ok('n', "", No),
        ok('s', "", No),
    ])
};
pub(crate) const TIMEOUT: Table = wrapper(&[
    ok('s', "signal", Required),
    ok('k', "kill-after", Required),
    ok(' ', "preserve-status", No),
    ok(' ', "foreground", No),
    ok('v', "verbose", No),
    HELP,
    VERSION,
]);
pub(crate) const CHRT: Table = wrapper(&[
    ok('a', "all-tasks", No),
    ok('b', "batch", No),
    ok('d', "deadline", No),
    ok('e', "ext", No),
    ok('f', "fifo", No),
    ok('i', "idle", No),
    ok('o', "other", No),
    ok('r', "rr", No),
    ok('R', "reset-on-fork", No),
    ok('v', "verbose", No),
    ok('m', "max", No),
    ok('p', "pid", No),
    ok('T', "sched-runtime", Required),
    ok('P', "sched-period", Required),
    ok('D', "sched-deadline", Required),
    ok('h', "help", No),
    ok('V', "version", No),
]);
/// GNU `time`; `-o FILE` truncates FILE.
pub(crate) const TIME: Table = wrapper(&[
    bad('o', "output", Required),
    ok('a', "append", No),
    ok('f', "format", Required),
    ok('p', "portability", No),
    ok('v', "verbose", No),
    ok('q', "quiet", No),
    HELP,
    ok('V', "version", No),
]);
pub(crate) const SUDO: Table = wrapper(&[
    ok('A', "askpass", No),
    ok('b', "background", No),
    ok('B', "bell", No),
    ok('C', "close-from", Required),
    ok('D', "chdir", Required),
    ok('E', "preserve-env", Optional),
    bad('e', "edit", No),
    ok('g', "group", Required),
    ok('H', "set-home", No),
    ok('h', "host", Optional),
    ok('i', "login", No),
    ok('K', "remove-timestamp", No),
    ok('k', "reset-timestamp", No),
    ok('l', "list", No),
    ok('N', "no-update", No),
    ok('n', "non-interactive", No),
    ok('P', "preserve-groups", No),
    ok('p', "prompt", Required),
    ok('R', "chroot", Required),
    ok('r', "role", Required),
    ok('S', "stdin", No),
    ok('s', "shell", No),
    ok('t', "type", Required),
    ok('T', "command-timeout", Required),
    ok('U', "other-user", Required),
    ok('u', "user", Required),
    ok('V', "version", No),
    ok('v', "validate", No),
    ok(' ', "help", No),
]);
pub(crate) const ENV: Table = wrapper(&[
    ok('i', "ignore-environment", No),
    ok('0', "null", No),
    ok('u', "unset", Required),
    ok('C', "chdir", Required),
    ok('S', "split-string", Required),
    ok('v', "debug", No),
    ok('a', "argv0", Required),
    ok(' ', "block-signal", Optional),
    ok(' ', "default-signal", Optional),
    ok(' ', "ignore-signal", Optional),
    ok(' ', "list-signal-handling", No),
    HELP,
    VERSION,
]);
pub(crate) const XARGS: Table = wrapper(&[
    ok('0', "null", No),
    ok('a', "arg-file", Required),
    ok('d', "delimiter", Required),
    ok('E', "", Required),
    ok('e', "eof", Optional),
    ok('I', "", Required),
    ok('i', "replace", Optional),
    ok('L', "", Required),
    ok('l', "max-lines", Optional),
    ok('n', "max-args", Required),
    ok('o', "open-tty", No),
    ok('P', "max-procs", Required),
    ok('p', "interactive", No),
    ok('r', "no-run-if-empty", No),
    ok('s', "max-chars", Required),
    ok('t', "verbose", No),
    ok('x', "exit", No),
    ok(' ', "process-slot-var", Required),
    ok(' ', "show-limits", No),
    HELP,
    VERSION,
]);
