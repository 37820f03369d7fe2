//! The module tree is the pipeline: no stage imports a stage after it.
//!
//! Reads every source file of the crate, finds each `crate::<module>`
//! path in code (imports and inline paths alike; comments are skipped, so
//! doc links may point anywhere) and fails when the module named is a
//! later stage than the file's own. A path through the crate root
//! (`crate::ToolHandle`) hides its stage, so inside a stage it is refused
//! too. `lib.rs` (the root's re-exports) and `private.rs` (the macro's
//! door, which reaches into every stage) sit outside the pipeline.

use std::path::{Path, PathBuf};

/// The stages, in pipeline order.
const STAGES: &[&str] = &[
    "text",
    "path",
    "access",
    "declare",
    "input",
    "catalog",
    "permission",
    "pool",
    "render",
    "session",
    "execute",
    "search",
    "provider",
    "mcp",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The stage a file belongs to: its first path component under `src/`.
fn stage_of(file: &Path) -> Option<usize> {
    let relative = file.strip_prefix(src()).ok()?;
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    STAGES.iter().position(|stage| *stage == name)
}

/// Every `crate::<ident>` in the code of `text`, with its line number:
/// comments are dropped, `$crate::` (macro hygiene) is not a path of this
/// kind.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            let after = &rest[at + "crate::".len()..];
            rest = after;
            if before.is_some_and(|c| c == '$' || c == '_' || c.is_alphanumeric()) {
                continue;
            }
            let ident: String = after
                .chars()
                .take_while(|c| *c == '_' || c.is_alphanumeric())
                .collect();
            // `crate::{a, b}` names several; each is checked.
            if ident.is_empty() && after.starts_with('{') {
                let group = &after[1..after.find('}').unwrap_or(after.len())];
                for item in group.split(',') {
                    let item: String = item
                        .trim()
                        .chars()
                        .take_while(|c| *c == '_' || c.is_alphanumeric())
                        .collect();
                    if !item.is_empty() {
                        found.push((number + 1, item));
                    }
                }
            } else if !ident.is_empty() {
                found.push((number + 1, ident));
            }
        }
    }
    found
}

#[test]
fn no_stage_imports_a_later_stage() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in &files {
        let Some(own) = stage_of(file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).expect("source file");
        for (line, name) in crate_paths(&text) {
            checked += 1;
            let shown = file.strip_prefix(src()).unwrap_or(file).display();
            match STAGES.iter().position(|stage| *stage == name) {
                Some(target) if target > own => problems.push(format!(
                    "src/{shown}:{line}: stage `{}` imports `{name}`, a later stage",
                    STAGES[own]
                )),
                Some(_) => {}
                None => problems.push(format!(
                    "src/{shown}:{line}: `crate::{name}` goes through the crate root; \
                     name the stage module instead"
                )),
            }
        }
    }
    assert!(
        checked > 200,
        "only {checked} paths found: is the scan broken?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_stage_says_what_it_owns_and_never_does() {
    for stage in STAGES {
        let dir = src().join(stage).join("mod.rs");
        let file = if dir.exists() {
            dir
        } else {
            src().join(format!("{stage}.rs"))
        };
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|err| panic!("{}: {err}", file.display()));
        let docs: String = text
            .lines()
            .take_while(|line| line.starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            docs.contains("Never does:"),
            "{}: the module docs must say what the stage never does",
            file.display()
        );
    }
}

#[test]
fn the_lint_sees_what_it_must() {
    let paths = crate_paths(
        "use crate::pool::ToolPool;\n\
         // use crate::mcp::McpServer;\n\
         let x = $crate::__private::inventory;\n\
         use crate::{render::mcp_tool, session::Session};\n\
         fn f() -> crate::execute::Executor { todo() } // crate::search\n",
    );
    let names: Vec<&str> = paths.iter().map(|(_, name)| name.as_str()).collect();
    assert_eq!(names, ["pool", "render", "session", "execute"]);
}

/// The most lines of code a source file may hold: past it, a file mixes
/// jobs (split it the way tower splits `timeout/{mod,layer,future,error}.rs`).
const MAX_LINES_OF_CODE: usize = 700;

/// Lines of code of a source file: not blank, not a comment, and before a
/// `#[cfg(test)] mod tests { ... }` block (tests may be long).
fn lines_of_code(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let mut count = 0;
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        let next = lines.get(i + 1).map_or("", |l| l.trim());
        if line == "#[cfg(test)]" && next.starts_with("mod ") && next.ends_with('{') {
            break;
        }
        if !line.is_empty() && !line.starts_with("//") {
            count += 1;
        }
    }
    count
}

#[test]
fn no_source_file_is_over_700_lines_of_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("registry-core sits in the workspace")
        .to_path_buf();
    let mut files = Vec::new();
    for krate in [
        "registry-core",
        "registry-macros",
        "registry-sandbox",
        "registry-embed",
        "registry-redis",
        "shell-reading",
        "examples",
    ] {
        rust_files(&root.join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 100, "only {} files found", files.len());
    let long: Vec<String> = files
        .iter()
        // A unit-test module in its own file is all tests.
        .filter(|file| !file.ends_with("tests.rs"))
        .filter_map(|file| {
            let text = std::fs::read_to_string(file).expect("source file");
            let n = lines_of_code(&text);
            (n > MAX_LINES_OF_CODE).then(|| {
                let shown = file.strip_prefix(&root).unwrap_or(file).display();
                format!("{shown}: {n} lines of code (at most {MAX_LINES_OF_CODE})")
            })
        })
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}

#[test]
fn lines_of_code_leave_out_comments_blanks_and_tests() {
    let text =
        "//! docs\nfn a() {}\n\n// why\nfn b() {}\n#[cfg(test)]\nmod tests {\n    fn c() {}\n}\n";
    assert_eq!(lines_of_code(text), 2);
}
