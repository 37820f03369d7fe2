//! The README's Rust blocks build as a user would build them: each block
//! is its own crate, `src/main.rs` (or `src/lib.rs` when it has no
//! `fn main`), whose dependencies are exactly what the README tells a user
//! to add: the `[dependencies]` of its ```` ```toml ```` block, plus the
//! crates an HTML comment `<!-- deps: registry-embed, some-crate[feature] -->`
//! right above a block names (invisible on GitHub and crates.io, so the
//! prose next to the block says the same). This checkout's crates are path
//! dependencies; everything else resolves offline from the workspace's
//! `Cargo.lock`.
//!
//! All blocks are members of one scratch workspace, built by one
//! `cargo build --offline --keep-going` into a target directory kept
//! between runs (no debug info). A failing block is reported with the
//! compiler's output, whose line numbers are README.md's. Info strings as
//! rustdoc reads them: `rust` builds the program and runs it, `no_run`
//! only builds it, `compile_fail` must fail to build, `ignore` is skipped.
//! Rustc warnings are errors, except the `unused` ones (allowed, as in
//! doctests). A block shows all of its code: rustdoc's hidden `# ` lines
//! would be shown on GitHub and crates.io, and are refused.
//!
//! The scratch workspace sits at a fixed place under the target directory:
//! a lock file next to it makes two runs (two `cargo test`s of one
//! checkout) take turns instead of rewriting each other's workspace
//! mid-build.
//!
//! Why one `cargo build` and not `cargo check` for the blocks that do not
//! run: every block depends on registry-core (the README's
//! `[dependencies]`), so checking some blocks would compile
//! registry-core's whole tree (rmcp, tokio, rustls, hyper...) a second
//! time, metadata-only, next to the build the running blocks need, and
//! rebuild proc-macro crates whose features the two selections unify
//! differently. Measured cold on 2 cores, that cost more than the code
//! generation it saves for the embedding block's candle and tokenizers.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Run,
    Build,
    CompileFail,
}

/// One dependency a `<!-- deps: ... -->` comment adds.
#[derive(Debug)]
struct Dep {
    name: String,
    features: Vec<String>,
}

#[derive(Debug)]
struct Block {
    /// README.md's line of the opening fence.
    line: usize,
    code: String,
    mode: Mode,
    extra: Vec<Dep>,
}

struct Readme {
    /// `name = value` lines of the README's `[dependencies]` block.
    deps: Vec<(String, String)>,
    blocks: Vec<Block>,
}

/// `a, b[f1, f2]`: names with optional features.
fn parse_deps(list: &str) -> Vec<Dep> {
    let mut deps = Vec::new();
    let mut rest = list.trim();
    while !rest.is_empty() {
        let end = rest.find([',', '[']).unwrap_or(rest.len());
        let name = rest[..end].trim().to_owned();
        rest = &rest[end..];
        let mut features = Vec::new();
        if let Some(inner) = rest.strip_prefix('[') {
            let close = inner
                .find(']')
                .expect("`[` closed by `]` in a deps comment");
            features = inner[..close]
                .split(',')
                .map(|f| f.trim().to_owned())
                .filter(|f| !f.is_empty())
                .collect();
            rest = inner[close + 1..].trim_start();
        }
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
        assert!(!name.is_empty(), "an empty name in `deps: {list}`");
        deps.push(Dep { name, features });
    }
    deps
}

fn parse(readme: &str) -> Readme {
    let mut deps = None;
    let mut blocks = Vec::new();
    let mut pending: Option<Vec<Dep>> = None;
    let mut lines = readme.lines().enumerate().map(|(i, l)| (i + 1, l));
    while let Some((number, line)) = lines.next() {
        let trimmed = line.trim();
        if let Some(list) = trimmed
            .strip_prefix("<!-- deps:")
            .and_then(|l| l.strip_suffix("-->"))
        {
            pending = Some(parse_deps(list));
            continue;
        }
        let Some(info) = trimmed.strip_prefix("```") else {
            if !trimmed.is_empty() {
                pending = None;
            }
            continue;
        };
        let body: Vec<&str> = lines
            .by_ref()
            .map(|(_, l)| l)
            .take_while(|l| l.trim_end() != "```")
            .collect();
        let extra = pending.take();
        let words: Vec<&str> = info.split([' ', ',']).filter(|w| !w.is_empty()).collect();
        match words.first().copied() {
            Some("toml") if body.first().map(|l| l.trim()) == Some("[dependencies]") => {
                assert!(deps.is_none(), "README.md has one `[dependencies]` block");
                deps = Some(
                    body[1..]
                        .iter()
                        .filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#'))
                        .map(|l| {
                            let (name, value) = l.split_once('=').expect("`name = value`");
                            (name.trim().to_owned(), value.trim().to_owned())
                        })
                        .collect(),
                );
            }
            Some("rust") => {
                let mut mode = Mode::Run;
                for word in &words[1..] {
                    mode = match *word {
                        "no_run" => Mode::Build,
                        "compile_fail" => Mode::CompileFail,
                        "ignore" => mode,
                        other => panic!(
                            "README.md line {number}: `{other}` is not an info string this check knows"
                        ),
                    }
                }
                if words.contains(&"ignore") {
                    continue;
                }
                blocks.push(Block {
                    line: number,
                    code: body.iter().map(|l| format!("{l}\n")).collect(),
                    mode,
                    extra: extra.unwrap_or_default(),
                });
            }
            _ => {}
        }
    }
    Readme {
        deps: deps.expect("README.md has a ```toml block starting with `[dependencies]`"),
        blocks,
    }
}

fn readme() -> Readme {
    let text = std::fs::read_to_string(workspace_root().join("README.md")).expect("README.md");
    parse(&text)
}

/// This checkout's packages: name and directory.
fn local_packages() -> Vec<(String, PathBuf)> {
    let mut packages = Vec::new();
    for entry in std::fs::read_dir(workspace_root()).expect("the workspace root") {
        let dir = entry.expect("an entry").path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let name = manifest
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|l| l.strip_suffix('"'));
        if let Some(name) = name {
            packages.push((name.to_owned(), dir));
        }
    }
    packages
}

/// A TOML dependency `value` (`"1"` or an inline table, maybe followed by
/// a comment) with a `path` and more `features`.
fn amend(value: &str, path: Option<&Path>, features: &[String]) -> String {
    let mut table = match value.strip_prefix('"') {
        Some(rest) => {
            let end = rest.find('"').expect("a quoted version");
            format!("{{ version = \"{}\" }}{}", &rest[..end], &rest[end + 1..])
        }
        None => value.to_owned(),
    };
    assert!(
        table.starts_with('{'),
        "`{value}`: a version or an inline table"
    );
    if let Some(path) = path {
        table.insert_str(1, &format!(" path = {path:?},"));
    }
    if !features.is_empty() {
        let quoted: Vec<String> = features.iter().map(|f| format!("{f:?}")).collect();
        let quoted = quoted.join(", ");
        match table.find("features = [") {
            Some(at) => table.insert_str(at + "features = [".len(), &format!("{quoted}, ")),
            None => table.insert_str(1, &format!(" features = [{quoted}],")),
        }
    }
    table
}

/// The `[dependencies]` table of one block's crate.
fn dependencies(readme: &Readme, block: &Block, local: &[(String, PathBuf)]) -> String {
    let path_of = |name: &str| {
        local
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d.as_path())
    };
    let mut table = String::new();
    for (name, value) in &readme.deps {
        let features: Vec<String> = block
            .extra
            .iter()
            .filter(|d| &d.name == name)
            .flat_map(|d| d.features.clone())
            .collect();
        table += &format!("{name} = {}\n", amend(value, path_of(name), &features));
    }
    for dep in &block.extra {
        if readme.deps.iter().any(|(name, _)| name == &dep.name) {
            continue;
        }
        let value = match path_of(&dep.name) {
            Some(_) => "{}",
            None => "\"*\"",
        };
        table += &format!(
            "{} = {}\n",
            dep.name,
            amend(value, path_of(&dep.name), &dep.features)
        );
    }
    table
}

/// Writes `text` unless the file holds it already: cargo judges freshness
/// by modification times.
fn write(path: &Path, text: &str) {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return;
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Writes the scratch workspace, one member per block (`block-1`, ...).
fn write_workspace(dir: &Path, readme: &Readme) {
    let local = local_packages();
    let members: Vec<String> = (1..=readme.blocks.len())
        .map(|i| format!("\"block-{i}\""))
        .collect();
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n\n[profile.dev]\ndebug = 0\nincremental = false\n",
            members.join(", ")
        ),
    );
    for (i, block) in readme.blocks.iter().enumerate() {
        let member = dir.join(format!("block-{}", i + 1));
        write(
            &member.join("Cargo.toml"),
            &format!(
                "# README.md line {}\n[package]\nname = \"readme-block-{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[lints.rust]\nwarnings = \"deny\"\nunused = {{ level = \"allow\", priority = 1 }}\n\n[dependencies]\n{}",
                block.line,
                i + 1,
                dependencies(readme, block, &local)
            ),
        );
        let (file, other) = if block.code.contains("fn main(") {
            ("main.rs", "lib.rs")
        } else {
            ("lib.rs", "main.rs")
        };
        // Blank lines first: the compiler's line numbers are README.md's.
        let source = format!("{}{}", "\n".repeat(block.line), block.code);
        write(&member.join("src").join(file), &source);
        let _ = std::fs::remove_file(member.join("src").join(other));
    }
    // Members of a longer README before.
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let index = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("block-"))
            .and_then(|n| n.parse::<usize>().ok());
        if index.is_some_and(|i| i > readme.blocks.len()) {
            std::fs::remove_dir_all(path).unwrap();
        }
    }
    // The checkout's lock keeps the versions (and the offline build) the same.
    std::fs::copy(workspace_root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
}

/// Holds an exclusive `flock` on `path` (created if missing) until the file
/// is dropped (closed).
fn lock(path: &Path) -> File {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .expect("the lock file opens");
    let mut waiting = false;
    loop {
        let flags = if waiting {
            libc::LOCK_EX
        } else {
            libc::LOCK_EX | libc::LOCK_NB
        };
        // SAFETY: `flock` on a descriptor this function owns, open for its call.
        if unsafe { libc::flock(file.as_raw_fd(), flags) } == 0 {
            return file;
        }
        let error = std::io::Error::last_os_error();
        match error.kind() {
            std::io::ErrorKind::Interrupted => {}
            std::io::ErrorKind::WouldBlock if !waiting => {
                eprintln!(
                    "waiting for another run of the README check ({})",
                    path.display()
                );
                waiting = true;
            }
            _ => panic!("flock {}: {error}", path.display()),
        }
    }
}

/// What the build said about one block.
#[derive(Default)]
struct Outcome {
    built: bool,
    executable: Option<PathBuf>,
    errors: Vec<String>,
}

/// Runs a built block's program (from its member directory), at most a
/// minute: success and what it printed.
fn run(program: &Path, dir: &Path) -> (bool, String) {
    let out = dir.join("run.out");
    let mut child = Command::new(program)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(dir.join("run.err")).unwrap())
        .spawn()
        .expect("the block's program starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let printed = format!(
        "{}{}",
        std::fs::read_to_string(out).unwrap_or_default(),
        std::fs::read_to_string(dir.join("run.err")).unwrap_or_default()
    );
    match status {
        Some(status) => (status.success(), printed),
        None => (
            false,
            format!("{printed}\n(still running after a minute: killed)"),
        ),
    }
}

#[test]
fn the_conventions_are_read_as_documented() {
    let readme = parse(
        "```toml\n[dependencies]\nlocal = { version = \"0.1\", features = [\"a\"] }  # a comment\nremote = \"1\"\n```\n\
         \n<!-- deps: local[b], other[x, y] -->\n\n```rust no_run\nfn main() {}\n```\n\
         ```rust,compile_fail\nfn f() -> u8 { \"\" }\n```\n```rust ignore\nnot rust\n```\n\
         text\n<!-- deps: other -->\ntext\n```rust\npub fn f() {}\n```\n",
    );
    let modes: Vec<(usize, Mode, usize)> = readme
        .blocks
        .iter()
        .map(|b| (b.line, b.mode, b.extra.len()))
        .collect();
    assert_eq!(
        modes,
        [
            (9, Mode::Build, 2),
            (12, Mode::CompileFail, 0),
            (21, Mode::Run, 0)
        ],
        "a deps comment belongs to the block right below it"
    );
    let local = vec![("local".to_owned(), PathBuf::from("/l"))];
    assert_eq!(
        dependencies(&readme, &readme.blocks[0], &local),
        "local = { path = \"/l\", version = \"0.1\", features = [\"b\", \"a\"] }  # a comment\n\
         remote = { version = \"1\" }\n\
         other = { features = [\"x\", \"y\"], version = \"*\" }\n"
    );
}

#[test]
fn readme_blocks_show_whole_programs() {
    let readme = readme();
    assert!(
        readme.blocks.len() >= 3,
        "README.md's Rust blocks are found"
    );
    for block in &readme.blocks {
        for (offset, line) in block.code.lines().enumerate() {
            let trimmed = line.trim_start();
            assert!(
                !(trimmed == "#" || trimmed.starts_with("# ")),
                "README.md line {}: rustdoc would hide this line, GitHub and crates.io show it; \
                 write the block as a whole program instead",
                block.line + 1 + offset
            );
        }
    }
}

#[test]
fn readme_blocks_build_with_the_listed_dependencies() {
    let readme = readme();
    let kept = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-check");
    let dir = kept.join("workspace");
    std::fs::create_dir_all(&kept).unwrap();
    // Held until the blocks have run: their programs are in the workspace's
    // target directory, and they write into its member directories.
    let _lock = lock(&kept.join("lock"));
    write_workspace(&dir, &readme);

    let output = Command::new(env!("CARGO"))
        .args([
            "build",
            "--offline",
            "--quiet",
            "--keep-going",
            "--workspace",
            "--message-format=json",
        ])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", kept.join("target"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);

    let manifests: Vec<PathBuf> = (1..=readme.blocks.len())
        .map(|i| dir.join(format!("block-{i}")).join("Cargo.toml"))
        .collect();
    let mut outcomes: Vec<Outcome> = readme.blocks.iter().map(|_| Outcome::default()).collect();
    // Errors of the dependencies (this checkout's crates), and cargo's own.
    let mut elsewhere = stderr.to_string();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let manifest = message["manifest_path"].as_str().map(PathBuf::from);
        let Some(i) = manifests.iter().position(|m| Some(m) == manifest.as_ref()) else {
            if message["message"]["level"] == "error" {
                elsewhere += message["message"]["rendered"].as_str().unwrap_or_default();
            }
            continue;
        };
        match message["reason"].as_str() {
            Some("compiler-artifact") => {
                outcomes[i].built = true;
                outcomes[i].executable = message["executable"].as_str().map(PathBuf::from);
            }
            Some("compiler-message") if message["message"]["level"] == "error" => {
                let rendered = message["message"]["rendered"].as_str().unwrap_or_default();
                let source = format!("block-{}/src/", i + 1);
                outcomes[i].errors.push(
                    rendered
                        .replace(&format!("{source}main.rs"), "README.md")
                        .replace(&format!("{source}lib.rs"), "README.md"),
                );
            }
            _ => {}
        }
    }

    let mut failures = Vec::new();
    for ((block, outcome), i) in readme.blocks.iter().zip(&outcomes).zip(1..) {
        let at = format!("README.md line {} (block {i})", block.line);
        match block.mode {
            Mode::CompileFail if outcome.built => {
                failures.push(format!("{at} is `compile_fail` but builds"));
            }
            Mode::CompileFail if outcome.errors.is_empty() => failures.push(format!(
                "{at} is `compile_fail` and did not build, but not for an error of its own:\n{elsewhere}"
            )),
            Mode::CompileFail => {}
            _ if !outcome.built => {
                let why = if outcome.errors.is_empty() {
                    format!("no error of its own; cargo said:\n{elsewhere}")
                } else {
                    outcome.errors.concat()
                };
                failures.push(format!("{at} does not build:\n{why}"));
            }
            Mode::Run => {
                // A library block (no `fn main`) has nothing to run.
                if let Some(program) = &outcome.executable {
                    let (ok, printed) = run(program, &dir.join(format!("block-{i}")));
                    if !ok {
                        failures.push(format!("{at} builds but fails when run:\n{printed}"));
                    }
                }
            }
            Mode::Build => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
