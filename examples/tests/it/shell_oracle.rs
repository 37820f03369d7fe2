//! The oracle for the shell classifier: commands generated from a grammar
//! of shell constructs and programs (every attack class of issues 6 and 16
//! among them, git spelt so only the shell sees it is git) are classified,
//! and every one classified read-only is run for real, through
//! `run_command`, under `sh` (dash) and under `bash`, in a scratch
//! directory holding files and a git repository with a hostile
//! configuration. Nothing may change: same entries, same contents, same
//! modes and modification times, and no process of the call left running.
//!
//! The default budget keeps CI fast (1,000 cases, a few seconds). For a longer
//! hunt set `SHELL_ORACLE_CASES`, e.g.
//! `SHELL_ORACLE_CASES=50000 cargo test -p registry-examples --test it shell_oracle:: --release`.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use registry_core::{Flags, ToolHandle, catalog::BaseTools};
use registry_examples::Sandbox;
use registry_examples::command_safety::classify;
use registry_examples::tools::run_command::Shell;
use serde_json::json;

/// Cases generated when `SHELL_ORACLE_CASES` is not set.
const DEFAULT_CASES: u32 = 1000;

/// Each program on the allow-list with arguments it is usually given and
/// arguments that turn it into a writer (or run something). Multi-word
/// entries are inserted as they are.
const READERS: &[(&str, &[&str], &[&str])] = &[
    (
        "ls",
        &["-la", "-R", "sub", "--all", "-1", "a.txt"],
        &["-la>out", "--hyperlink", "-w", "--color=auto"],
    ),
    (
        "cat",
        &["a.txt", "-n", "in", "-A"],
        &["a.txt>out", "-", "a.txt>>out"],
    ),
    (
        "head",
        &["-n", "1", "-5", "a.txt", "--lines=2"],
        &["-c", "-n1>out"],
    ),
    (
        "tail",
        &["-n", "1", "a.txt", "-c", "3"],
        &["-f", "--pid=1", "-n1>|out"],
    ),
    (
        "wc",
        &["-l", "a.txt", "in", "-c"],
        &["--files0-from=in", "--total=always"],
    ),
    (
        "grep",
        &[
            "-rn",
            "alpha",
            "a.txt",
            "-c",
            "-e",
            "x",
            "sub",
            "--include=*.txt",
        ],
        &["-f", "in", "-o", "--exclude-from=in"],
    ),
    (
        "sort",
        &[
            "-n",
            "-r",
            "-u",
            "-k2",
            "-t,",
            "in",
            "names.txt",
            "--reverse",
        ],
        &[
            "-o out",
            "-uo out",
            "--output=out",
            "--out=out",
            "--outp out",
            "-T .",
            "--compress-program=touch",
            "-o",
            "--out</dev/null out",
        ],
    ),
    (
        "uniq",
        &["-c", "-d", "in", "a.txt"],
        &[
            "in out",
            "a.txt out",
            "-- a.txt out",
            "- out",
            "-c a.txt new.txt",
        ],
    ),
    (
        "stat",
        &["a.txt", "-c", "%s", "sub"],
        &["--printf=%s", "-f"],
    ),
    ("du", &["-sh", ".", "-a", "sub"], &["--time", "-X", "in"]),
    (
        "find",
        &[
            ".",
            "sub",
            "-name '*.txt'",
            "-type f",
            "-print",
            "-maxdepth 1",
            "!",
            "-o",
        ],
        &[
            "-delete",
            "-exec touch x \\;",
            "-execdir touch x \\;",
            "-ok touch x \\;",
            "-fprint out",
            "-fls out",
            "-fprintf out %p",
            "-fprint0 out",
            "-delete<a.txt",
            "-exec</dev/null touch x \\;",
            "-newer",
            "-exec rm {} +",
        ],
    ),
    (
        "echo",
        &["hello", "a b", "-n"],
        &[">out", "x>|out", "$(touch x)"],
    ),
    ("pwd", &["-P", "-L"], &[">out"]),
    ("git", GIT_PLAIN, GIT_ATTACK),
    // git spelt so that only the shell sees it is git: it must be
    // hardened all the same.
    ("g''it", GIT_PLAIN, GIT_ATTACK),
    ("\"git\"", GIT_PLAIN, GIT_ATTACK),
];

const GIT_PLAIN: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "--stat",
    "--oneline",
    "-p",
    "HEAD",
    "--cached",
    "-s",
];

const GIT_ATTACK: &[&str] = &[
    "diff --output=out",
    "diff --output</dev/null out",
    "log --output=out",
    "-c core.fsmonitor=touch status",
    "-c alias.st=!touch st",
    "--exec-path=. status",
    "branch -D x",
    "branch -qD x",
    "reset --hard",
    "reset --har",
    "checkout -f",
    "checkout -qf",
    "clean -fdx",
    "config core.fsmonitor touch",
    "-C sub status",
    "-C . clean -fdx",
    "stash",
    "archive -o out HEAD",
    "format-patch -1",
    "--ext-diff",
    "--textconv",
    "diff --out=out",
];

/// Writers, wrappers, shells and things that are not programs at all.
const OTHERS: &[&str] = &[
    "rm",
    "touch",
    "mv",
    "cp",
    "tee",
    "mkdir",
    "sed",
    "dd",
    "truncate",
    "chmod",
    "ln",
    "env",
    "nice",
    "timeout 5",
    "command",
    "eval",
    "xargs",
    "exec",
    "nohup",
    "stdbuf -oL",
    "time",
    "setsid",
    "busybox",
    "sh -c",
    "bash -c",
    "env -S",
    "builtin",
    "ls ()",
    "{",
    "(",
    "!",
    "X=1",
    "PATH=.",
    ">out",
    "2>/dev/null",
    "<a.txt",
];

/// Arguments any reader may be given: file names and redirections.
const PLAIN_ARGS: &[&str] = &[
    "a.txt",
    "b.txt",
    "in",
    "names.txt",
    "sub",
    ".",
    "sub/c.txt",
    "--",
    "2>/dev/null",
    ">/dev/null",
    "2>&1",
    "<a.txt",
    "-l",
    "-n",
    "1",
];

/// Arguments that write, run programs, or hide something from a naive
/// reader: every attack class of issue 6 is in here.
const ATTACK_ARGS: &[&str] = &[
    "out",
    "new.txt",
    "-",
    "-f",
    "-i",
    "-o",
    "-uo",
    "--output=out",
    "--out",
    "--outp=out",
    "-T",
    "--compress-program=touch",
    "--compress-program",
    "--files0-from=in",
    "-delete",
    "-exec",
    "-execdir",
    "-ok",
    "touch",
    "rm",
    "{}",
    "\\;",
    "+",
    "-fprint",
    "-fls",
    "-fprintf",
    "-newer",
    "(",
    ")",
    "\\(",
    "\\)",
    "!",
    "--output",
    "--ext-diff",
    "--textconv",
    "-C",
    "-c",
    "core.fsmonitor=touch",
    "core.pager=touch",
    "alias.x=!touch",
    "--git-dir=.git",
    "--exec-path=.",
    "branch",
    "-D",
    "reset",
    "--hard",
    "checkout",
    "clean",
    "-fdx",
    "config",
    "core.fsmonitor",
    "stash",
    "archive",
    "$(touch x)",
    "`touch x`",
    "${X:-touch}",
    "$X",
    "\"$X\"",
    "*",
    "?",
    "[a]",
    "{a,b}",
    // A tilde the shell leaves alone (no such user), so a misclassified
    // command cannot reach the real home directory.
    "~nosuchuser-oracle/x",
    ">out",
    ">>out",
    ">|out",
    "<>new.txt",
    ">&out",
    "</dev/null",
    "<<EOF",
    "#",
    "'rm -f a.txt'",
    "\"touch x\"",
    "-S'touch x'",
    "--split-string=touch",
    "X=1",
    "a\\",
    "&",
    ";",
    "|",
    "&&",
    "||",
];

/// What can come between two words: a space mostly, sometimes nothing
/// (glued), a line continuation, a tab, a newline.
const GAPS: &[&str] = &[
    " ", " ", " ", " ", " ", " ", " ", " ", "", " \\\n", "\\\n", "\t", "\n",
];

/// What joins two commands.
const JOINERS: &[&str] = &[
    " | ", " && ", " || ", "; ", "\n", " & ", "|", "&&", ";", " \\\n| ",
];

/// How a word is spelled: as is, quoted, escaped or split by a line
/// continuation.
fn spell(word: &str, how: u8) -> String {
    match how % 16 {
        0 if !word.contains('\'') => format!("'{word}'"),
        1 if !word.contains(['"', '$', '`', '\\']) => format!("\"{word}\""),
        2 if word.len() > 1 => {
            let (a, b) = word.split_at(word.len() / 2);
            if a.is_char_boundary(a.len()) {
                format!("{a}\\\n{b}")
            } else {
                word.to_owned()
            }
        }
        3 if word.len() > 1 && word.is_ascii() => {
            let (a, b) = word.split_at(word.len() - 1);
            format!("{a}\\{b}")
        }
        _ => word.to_owned(),
    }
}

fn simple_command() -> impl Strategy<Value = String> {
    let reader = (0..READERS.len()).prop_flat_map(|i| {
        let (program, plain, attack) = READERS[i];
        let arg = prop_oneof![
            6 => prop::sample::select(plain),
            2 => prop::sample::select(attack),
            2 => prop::sample::select(PLAIN_ARGS),
            1 => prop::sample::select(ATTACK_ARGS),
        ];
        (
            Just(program),
            prop::collection::vec((prop::sample::select(GAPS), arg, any::<u8>()), 0..5),
        )
    });
    let other = (
        prop::sample::select(OTHERS),
        prop::collection::vec(
            (
                prop::sample::select(GAPS),
                prop_oneof![
                    prop::sample::select(PLAIN_ARGS),
                    prop::sample::select(ATTACK_ARGS)
                ],
                any::<u8>(),
            ),
            0..5,
        ),
    );
    prop_oneof![5 => reader, 1 => other].prop_map(|(program, args)| {
        let mut text = program.to_owned();
        for (gap, arg, how) in args {
            text.push_str(gap);
            text.push_str(&spell(arg, how));
        }
        text
    })
}

fn command() -> impl Strategy<Value = String> {
    (
        simple_command(),
        prop::collection::vec((prop::sample::select(JOINERS), simple_command()), 0..2),
    )
        .prop_map(|(first, rest)| {
            let mut text = first;
            for (joiner, next) in rest {
                text.push_str(joiner);
                text.push_str(&next);
            }
            text
        })
}

/// Everything observable about a tree that a write would change.
#[derive(Debug, PartialEq, Eq)]
struct Entry {
    kind: &'static str,
    len: u64,
    mode: u32,
    modified: Option<std::time::SystemTime>,
    content: u64,
}

fn snapshot(root: &Path) -> BTreeMap<String, Entry> {
    let mut entries = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir") {
            let entry = entry.expect("entry");
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            let kind = if meta.is_dir() {
                stack.push(path.clone());
                "dir"
            } else if meta.is_symlink() {
                "symlink"
            } else {
                "file"
            };
            let content = if meta.is_file() {
                let mut hasher = DefaultHasher::new();
                std::fs::read(&path).expect("read").hash(&mut hasher);
                hasher.finish()
            } else {
                0
            };
            #[cfg(unix)]
            let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions());
            #[cfg(not(unix))]
            let mode = u32::from(meta.permissions().readonly());
            let relative = path
                .strip_prefix(root)
                .expect("inside")
                .display()
                .to_string();
            entries.insert(
                relative,
                Entry {
                    kind,
                    len: meta.len(),
                    mode,
                    modified: meta.modified().ok(),
                    content,
                },
            );
        }
    }
    // The root's own mtime changes when an entry is added or removed.
    entries.insert(
        ".".to_owned(),
        Entry {
            kind: "dir",
            len: 0,
            mode: 0,
            modified: std::fs::metadata(root).expect("root").modified().ok(),
            content: 0,
        },
    );
    entries
}

/// Processes started by calls of this test process still running, after
/// giving killed ones a bounded while to finish dying (a `SIGKILL`ed
/// process on a loaded machine can show as running for a moment).
fn leftover_processes() -> Vec<String> {
    let mut left = marked_processes();
    for _ in 0..100 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        left = marked_processes();
    }
    left
}

/// Processes started by calls of this test process still running (Linux).
fn marked_processes() -> Vec<String> {
    #[cfg(target_os = "linux")]
    {
        use registry_examples::tools::run_command::RUN_MARKER_VAR;
        let prefix = format!("{RUN_MARKER_VAR}={}-", std::process::id()).into_bytes();
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
                continue;
            };
            if !environ
                .split(|b| *b == 0)
                .any(|var| var.starts_with(&prefix))
            {
                continue;
            }
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let zombie = stat
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z'));
            if !zombie {
                found.push(stat);
            }
        }
        found
    }
    #[cfg(not(target_os = "linux"))]
    Vec::new()
}

fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    for (name, text) in [
        ("a.txt", "alpha\nbeta\nbeta\n"),
        ("b.txt", "b\n"),
        ("in", "3\n1\n2\n"),
        ("names.txt", "x\ny\n"),
        ("sub/c.txt", "c\n"),
    ] {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if git(&["init", "-q", "."]) {
        git(&["add", "a.txt", "sub"]);
        git(&[
            "-c",
            "user.name=o",
            "-c",
            "user.email=o@example.invalid",
            "commit",
            "-qm",
            "init",
        ]);
        std::fs::write(root.join("a.txt"), "alpha\nchanged\n").expect("edit");
        // A hostile configuration: every program it names leaves a file
        // behind, which the snapshot notices, so the oracle also checks
        // the hardened git environment of read-only commands.
        let hook = root.join("hook.sh");
        std::fs::write(&hook, "#!/bin/sh\ntouch \"$(dirname \"$0\")/pwned\"\n").expect("hook");
        #[cfg(unix)]
        std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
        let program = hook.display().to_string();
        for key in [
            "core.fsmonitor",
            "diff.external",
            "diff.evil.textconv",
            "core.pager",
        ] {
            git(&["config", key, &program]);
        }
        std::fs::write(root.join(".gitattributes"), "*.txt diff=evil\n").expect("attributes");
    }
    dir
}

fn run_command() -> ToolHandle {
    BaseTools::linked(&Flags::new())
        .expect("catalog")
        .get("run_command")
        .expect("run_command")
        .clone()
}

#[test]
fn read_only_commands_change_nothing() {
    let cases = std::env::var("SHELL_ORACLE_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    let tool = run_command();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // A fresh scratch directory after any case that changed it, so each
    // case (and each shrinking step) is judged on its own.
    let fresh = || {
        let dir = scratch();
        let cx = Sandbox::new(dir.path()).expect("sandbox").context();
        (dir, cx)
    };
    let state = std::cell::RefCell::new(fresh());
    let ran = std::cell::Cell::new(0usize);

    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    });
    let result = runner.run(&command(), |command| {
        let verdict = classify(&command);
        prop_assert!(
            !(verdict.read_only && verdict.destructive),
            "{command:?}: {verdict:?}"
        );
        if !verdict.read_only {
            return Ok(());
        }
        ran.set(ran.get() + 1);
        // Under both shells `run_command` can run: dash's `sh` and bash.
        for shell in [Shell::Sh, Shell::Bash] {
            let (changed, left) = {
                let (dir, cx) = &*state.borrow();
                let cx = cx.clone().with(shell);
                let before = snapshot(dir.path());
                // A timeout is a fine outcome (`tail -f`); a change is not.
                let _ = runtime.block_on(
                    tool.call_json(json!({ "command": command, "timeout_secs": 1 }), &cx),
                );
                let after = snapshot(dir.path());
                let changed: std::collections::BTreeSet<String> = before
                    .keys()
                    .chain(after.keys())
                    .filter(|k| before.get(*k) != after.get(*k))
                    .cloned()
                    .collect();
                (changed, leftover_processes())
            };
            if !changed.is_empty() {
                *state.borrow_mut() = fresh();
            }
            prop_assert!(
                changed.is_empty(),
                "{command:?} classified read-only changed {changed:?} under {shell:?}"
            );
            prop_assert!(
                left.is_empty(),
                "{command:?} left processes running under {shell:?}: {left:?}"
            );
        }
        Ok(())
    });
    if let Err(err) = result {
        panic!("{err}");
    }
    // The grammar must keep producing runnable cases, or the oracle tests
    // nothing.
    let ran = ran.get();
    eprintln!("{ran} of {cases} generated commands were read-only and ran");
    assert!(
        ran * 20 >= cases as usize,
        "only {ran} of {cases} cases were read-only"
    );
}
