//! Which program a process is about to run, read from the kernel at its
//! exec stop, and the names it goes by.
//!
//! A rule names a program (`rm`); the kernel runs a file. The two meet
//! here: each program a rule or the reading names is resolved, before the
//! command starts, to the file the command's `PATH` finds (links
//! followed); at each exec stop the file the kernel maps
//! (`/proc/PID/exe`, its device and inode) is compared with them. A file
//! of the same size is compared byte for byte, so a copy of a denied
//! program goes by its name too. The dynamic loader run as a program
//! (`ld.so /bin/rm`) and an interpreter running a script (`#!`) are seen
//! through to the file they run.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A file as the kernel knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Target {
    pub path: PathBuf,
    /// Where its bytes are read: the path, or `/proc/PID/exe` for the file
    /// a process maps (which may be deleted, or a memfd, with no path).
    contents: PathBuf,
    dev: u64,
    ino: u64,
    size: u64,
}

impl Target {
    fn of(path: &Path) -> Option<Target> {
        let meta = fs::metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        let path = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        Some(Target {
            contents: path.clone(),
            path,
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
        })
    }

    fn same_file(&self, other: &Target) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }

    /// The same file, or a byte-for-byte copy of it.
    /// `other` is this file, a copy of it, or a copy with bytes added at
    /// its end (an ELF runs the same with anything appended).
    fn same_program(&self, other: &Target) -> bool {
        self.same_file(other)
            || (other.size >= self.size && begins_with(&other.contents, &self.contents, self.size))
    }
}

/// Whether the file at `candidate` begins with the `len` bytes of the
/// file at `original`. Compared in 4 KiB blocks, so two different
/// programs part at their first block (their headers differ).
fn begins_with(candidate: &Path, original: &Path, len: u64) -> bool {
    let (Ok(mut a), Ok(mut b)) = (File::open(candidate), File::open(original)) else {
        return false;
    };
    let (mut x, mut y) = ([0u8; 4096], [0u8; 4096]);
    let mut left = len;
    while left > 0 {
        let want = left.min(x.len() as u64) as usize;
        if a.read_exact(&mut x[..want]).is_err() || b.read_exact(&mut y[..want]).is_err() {
            return false;
        }
        if x[..want] != y[..want] {
            return false;
        }
        left -= want as u64;
    }
    true
}

/// Looks `name` up as the command's shell will: a name with a `/` is a
/// path from `cwd`; any other is searched in `path`.
pub(super) fn resolve(name: &str, path: &OsStr, cwd: &Path) -> Option<Target> {
    if name.contains('/') {
        return Target::of(&cwd.join(name));
    }
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .find_map(|dir| {
            let candidate = dir.join(name);
            let meta = fs::metadata(&candidate).ok()?;
            (meta.is_file() && meta.mode() & 0o111 != 0).then(|| Target::of(&candidate))?
        })
}

/// The programs known before the command starts, by name.
#[derive(Debug, Default)]
pub(super) struct Known {
    /// Each name a rule's pattern starts with, and its file (if any).
    pub rules: Vec<(String, Option<Target>)>,
    /// The predicted programs' files; names not found yet are looked up
    /// again at each exec (the command may create them).
    pub predicted: Vec<Target>,
    pub predicted_later: Vec<String>,
    /// The predicted programs named by a relative path (`./x.sh`): the
    /// command may run them from another directory (`cd sub && ./x.sh`),
    /// so they are also looked up from the directory they start in.
    pub predicted_relative: Vec<String>,
    pub wrappers: Vec<String>,
    pub path: std::ffi::OsString,
    pub cwd: PathBuf,
    cache: HashMap<String, Option<Target>>,
}

impl Known {
    pub(super) fn new(
        rule_names: impl IntoIterator<Item = String>,
        predicted: impl IntoIterator<Item = String>,
        wrappers: Vec<String>,
        path: std::ffi::OsString,
        cwd: PathBuf,
    ) -> Known {
        let mut known = Known {
            path,
            cwd,
            wrappers,
            ..Known::default()
        };
        for name in rule_names {
            if known.rules.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let target = resolve(&name, &known.path, &known.cwd);
            known.rules.push((name, target));
        }
        for name in predicted {
            if name.contains('/') && !name.starts_with('/') {
                known.predicted_relative.push(name.clone());
            }
            match resolve(&name, &known.path, &known.cwd) {
                Some(target) => known.predicted.push(target),
                None => known.predicted_later.push(name),
            }
        }
        known
    }

    fn late(&mut self, name: &str) -> Option<Target> {
        if let Some(found) = self.cache.get(name) {
            return found.clone();
        }
        let found = resolve(name, &self.path, &self.cwd);
        if found.is_some() {
            self.cache.insert(name.to_owned(), found.clone());
        }
        found
    }
}

/// A program start as read from the kernel.
#[derive(Debug)]
pub(super) struct Start {
    /// The file the kernel maps.
    pub exe: PathBuf,
    /// The argument vector.
    pub argv: Vec<String>,
    /// The program the start amounts to (the script an interpreter runs,
    /// the file the loader loads, else the file itself), and the index in
    /// `argv` of its name.
    program: Target,
    program_at: usize,
    /// The file the kernel maps, as a target.
    exe_target: Target,
    /// `/proc/PID`, for what is read only when needed.
    proc: PathBuf,
}

/// Reads the start of `pid`, stopped at its exec.
pub(super) fn read_start(pid: i32) -> io::Result<Start> {
    let proc = PathBuf::from(format!("/proc/{pid}"));
    let exe = fs::read_link(proc.join("exe"))?;
    let raw = fs::read(proc.join("cmdline"))?;
    let argv: Vec<String> = raw
        .split(|b| *b == 0)
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect::<Vec<_>>();
    let argv = match argv.last() {
        Some(last) if last.is_empty() => argv[..argv.len() - 1].to_vec(),
        _ => argv,
    };
    let meta = fs::metadata(proc.join("exe"))?;
    let exe_target = Target {
        path: exe.clone(),
        contents: proc.join("exe"),
        dev: meta.dev(),
        ino: meta.ino(),
        size: meta.size(),
    };
    let mut program = exe_target.clone();
    let mut program_at = 0;
    let name = exe.file_name().map(OsStr::as_bytes).unwrap_or_default();
    let loader =
        name.starts_with(b"ld-linux") || name.starts_with(b"ld.so") || name.starts_with(b"ld64.so");
    if loader {
        // `ld.so [OPTIONS] PROGRAM ARGS`: the loader maps PROGRAM itself.
        let cwd = fs::read_link(proc.join("cwd")).unwrap_or_default();
        if let Some(at) = loader_program(&argv)
            && let Some(target) = Target::of(&cwd.join(&argv[at]))
        {
            program = target;
            program_at = at;
        }
    } else if argv.len() > 1 {
        // A `#!` script: the kernel ran `INTERP [ARG] SCRIPT ARGS`. Only a
        // file whose own first line names this very interpreter counts,
        // so `chmod +x x.sh` stays `chmod`.
        let cwd = fs::read_link(proc.join("cwd")).unwrap_or_default();
        for (at, word) in argv.iter().enumerate().take(3).skip(1) {
            let path = cwd.join(word);
            if shebang_interpreter(&path)
                .and_then(|interp| Target::of(&interp))
                .is_some_and(|interp| interp.same_file(&exe_target))
                && let Some(target) = Target::of(&path)
            {
                program = target;
                program_at = at;
                break;
            }
        }
    }
    Ok(Start {
        exe,
        exe_target,
        argv,
        program,
        program_at,
        proc,
    })
}

fn loader_program(argv: &[String]) -> Option<usize> {
    let mut at = 1;
    while at < argv.len() {
        match argv[at].as_str() {
            "--library-path" | "--preload" | "--argv0" | "--audit" | "--inhibit-rpath" => at += 2,
            flag if flag.starts_with("--") => at += 1,
            _ => return Some(at),
        }
    }
    None
}

/// The interpreter a `#!` line names, when the file starts with one.
fn shebang_interpreter(path: &Path) -> Option<PathBuf> {
    let mut head = [0u8; 256];
    let mut file = File::open(path).ok()?;
    let n = file.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = line.split(|b| *b == b'\n').next()?;
    let interp = line
        .split(|b| *b == b' ' || *b == b'\t')
        .find(|w| !w.is_empty())?;
    Some(PathBuf::from(OsStr::from_bytes(interp)))
}

/// What a start is, in the terms of the rules.
pub(super) struct Named {
    /// Every name it goes by.
    pub names: Vec<String>,
    /// The names proven to be its file.
    pub verified: Vec<String>,
    /// The arguments after its name.
    pub args: Vec<String>,
    /// Whether the reading predicted it.
    pub predicted: bool,
    /// Whether it is a shell or a predicted wrapper: what it starts is
    /// still the command's own.
    pub transparent: bool,
}

/// Whether a shell with these arguments runs a string (`-c`) or its
/// standard input, rather than a script file.
fn shell_runs_own_text(args: &[String]) -> bool {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "--" => return words.next().is_none(),
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file" => {
                words.next();
            }
            w if w.starts_with("--") => {}
            w if w.starts_with('-') || w.starts_with('+') => {
                if w[1..].contains('c') || w[1..].contains('s') {
                    return true;
                }
            }
            // The first operand is a script file.
            _ => return false,
        }
    }
    true
}

const SHELLS: &[&str] = &["sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "busybox"];

pub(super) fn name(start: &Start, known: &mut Known) -> Named {
    let mut names: Vec<String> = Vec::new();
    let push = |name: &str, names: &mut Vec<String>| {
        if !name.is_empty() && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    };
    let file_name = start
        .program
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    push(&file_name, &mut names);
    let exe_name = start
        .exe
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    push(&exe_name, &mut names);
    if let Some(called) = start.argv.get(start.program_at) {
        push(shell_reading::basename(called), &mut names);
    }
    if let Some(argv0) = start.argv.first() {
        push(shell_reading::basename(argv0), &mut names);
    }
    let mut verified = Vec::new();
    for (rule_name, target) in &known.rules {
        let Some(target) = target else { continue };
        if target.same_file(&start.program) {
            verified.push(rule_name.clone());
            push(rule_name, &mut names);
        } else if target.same_program(&start.program) || target.same_program(&start.exe_target) {
            push(rule_name, &mut names);
        }
    }
    let mut predicted = known.predicted.iter().any(|t| t.same_file(&start.program));
    if !predicted {
        let later = known.predicted_later.clone();
        predicted = later.iter().any(|name| {
            known
                .late(name)
                .is_some_and(|t| t.same_file(&start.program))
        });
    }
    if !predicted && !known.predicted_relative.is_empty() {
        let cwd = fs::read_link(start.proc.join("cwd")).unwrap_or_default();
        predicted = known
            .predicted_relative
            .iter()
            .any(|name| Target::of(&cwd.join(name)).is_some_and(|t| t.same_file(&start.program)));
    }
    // The command's own shells (`bash -c`, a shell reading its input) and
    // the wrappers the reading peeled start what the command itself
    // starts; a shell running a script file, or a script, is a program
    // like any other (what it starts is under its rule).
    let args = start.argv.get(start.program_at + 1..).unwrap_or_default();
    let transparent = (SHELLS.contains(&file_name.as_str()) && shell_runs_own_text(args))
        || known.wrappers.contains(&file_name);
    Named {
        names,
        verified,
        args: start
            .argv
            .get(start.program_at + 1..)
            .unwrap_or_default()
            .to_vec(),
        predicted,
        transparent,
    }
}
