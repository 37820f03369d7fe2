//! The file tools against what a hostile or careless model can put in front
//! of them: special files, huge files and lines, monstrous patterns, writes
//! into git's internals, enormous paths. Each must end in a result or a
//! typed error, never a hang, a panic or unbounded memory.

use std::path::Path;
use std::time::Duration;

use registry_core::{
    Flags, PermissionDecision, ToolContext, ToolError,
    catalog::BaseTools,
    permission::{Refusal, RefusedBy},
    text::MAX_ERROR_MESSAGE_CHARS,
};
use registry_examples::sandbox::{MAX_LINE_BYTES, MAX_PATTERN_CHARS, SpecialFile};
use registry_examples::tools::edit_file::{EditFileError, MAX_EDIT_BYTES};
use registry_examples::tools::glob::GlobError;
use registry_examples::tools::grep::GrepError;
use registry_examples::tools::read_file::{MAX_OUTPUT_BYTES, ReadFileError};
use registry_examples::tools::write_file::{MAX_WRITE_BYTES, WriteFileError};
use registry_examples::{Sandbox, SandboxError};
use serde_json::{Value, json};
use tempfile::TempDir;

struct Fixture {
    dir: TempDir,
    tools: BaseTools,
    cx: ToolContext,
}

/// Not a speed requirement: a call that blocks on a FIFO never returns, and
/// a test should fail rather than hang CI.
const HANG_GUARD: Duration = Duration::from_secs(60);

impl Fixture {
    fn new() -> Self {
        Self::with(|sandbox| sandbox)
    }

    fn with(configure: impl FnOnce(Sandbox) -> Sandbox) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("notes.txt"), "one\ntwo\n").expect("write");
        let sandbox = configure(Sandbox::new(dir.path()).expect("sandbox"));
        let cx = sandbox.context();
        let tools = BaseTools::linked(&Flags::new()).expect("catalog");
        Fixture { dir, tools, cx }
    }

    fn path(&self, relative: &str) -> std::path::PathBuf {
        self.dir.path().join(relative)
    }

    /// Runs a call as a runtime would (permission first), failing the
    /// test if it does not come back.
    async fn call(&self, name: &str, args: Value) -> Result<String, ToolError> {
        let tool = self.tools.get(name).expect("tool");
        let prepared = tool.prepare(args)?;
        if let PermissionDecision::Deny { reason } = prepared.check_permissions(&self.cx) {
            return Err(ToolError::Refused {
                tool: name.to_owned(),
                refusal: Refusal::new(RefusedBy::Tool, reason),
            });
        }
        tokio::time::timeout(HANG_GUARD, prepared.run(&self.cx))
            .await
            .unwrap_or_else(|_| panic!("{name} did not return"))
            .map(|out| out.into_string())
    }

    /// Runs `call` directly, skipping the permission step, as code holding
    /// the concrete tool could.
    async fn run_unchecked(&self, name: &str, args: Value) -> Result<String, ToolError> {
        let prepared = self.tools.get(name).expect("tool").prepare(args)?;
        tokio::time::timeout(HANG_GUARD, prepared.run_approved(&self.cx))
            .await
            .unwrap_or_else(|_| panic!("{name} did not return"))
            .map(|out| out.into_string())
    }
}

/// The typed error a tool returned.
fn source<E: std::error::Error + 'static>(err: &ToolError) -> &E {
    match err {
        ToolError::Failed { source, .. } => source
            .downcast_ref::<E>()
            .unwrap_or_else(|| panic!("unexpected error type: {err}")),
        other => panic!("expected a tool failure, got: {other}"),
    }
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

// ---- special files -----------------------------------------------------------

#[cfg(unix)]
#[tokio::test]
async fn fifos_are_refused_by_every_tool_that_opens_files() {
    let f = Fixture::new();
    mkfifo(&f.path("pipe"));

    let not_regular = |err: &SandboxError| matches!(err, SandboxError::NotARegularFile { path, kind: SpecialFile::Fifo } if path == "pipe");
    let err = f
        .call("read_file", json!({"path": "pipe"}))
        .await
        .unwrap_err();
    assert!(
        matches!(source(&err), ReadFileError::Sandbox(e) if not_regular(e)),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("`pipe` is a FIFO (named pipe), not a regular file"),
        "{err}"
    );
    let err = f
        .call("grep", json!({"pattern": "x", "path": "pipe"}))
        .await
        .unwrap_err();
    assert!(
        matches!(source(&err), GrepError::Sandbox(e) if not_regular(e)),
        "{err}"
    );
    let err = f
        .call(
            "edit_file",
            json!({"path": "pipe", "old_string": "a", "new_string": "b"}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(source(&err), EditFileError::Sandbox(e) if not_regular(e)),
        "{err}"
    );
    let err = f
        .call("write_file", json!({"path": "pipe", "content": "x"}))
        .await
        .unwrap_err();
    assert!(
        matches!(source(&err), WriteFileError::Sandbox(e) if not_regular(e)),
        "{err}"
    );
    let meta = std::fs::symlink_metadata(f.path("pipe")).expect("still there");
    assert!(!meta.is_file(), "the FIFO was not replaced by a file");
}

#[cfg(unix)]
#[tokio::test]
async fn writing_to_a_fifo_with_a_reader_is_refused_too() {
    use std::os::unix::fs::OpenOptionsExt;
    let f = Fixture::new();
    mkfifo(&f.path("pipe"));
    // A reader that never blocks: with it, opening the write end succeeds,
    // and only the check on the opened descriptor stands in the way.
    let _reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(f.path("pipe"))
        .expect("open read end");
    let err = f
        .call("write_file", json!({"path": "pipe", "content": "x"}))
        .await
        .unwrap_err();
    assert!(
        matches!(
            source(&err),
            WriteFileError::Sandbox(SandboxError::NotARegularFile { .. })
        ),
        "{err}"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn sockets_are_refused_and_walks_report_special_files() {
    let f = Fixture::new();
    std::fs::create_dir(f.path("run")).expect("mkdir");
    let _socket =
        std::os::unix::net::UnixListener::bind(f.path("run/agent.sock")).expect("bind socket");
    mkfifo(&f.path("run/pipe"));
    std::fs::write(f.path("run/log.txt"), "needle here\n").expect("write");

    let err = f
        .call("read_file", json!({"path": "run/agent.sock"}))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("is a socket, not a regular file"),
        "{err}"
    );

    let out = f
        .call("grep", json!({"pattern": "needle"}))
        .await
        .expect("grep");
    assert_eq!(
        out,
        "run/log.txt:1:needle here\n\
         [skipped 2 file(s) that are not regular files: `run/agent.sock` (a socket), `run/pipe` (a FIFO (named pipe))]\n"
    );
}

// ---- bounded memory ------------------------------------------------------------

/// Writes `len` bytes of `byte` without holding them in memory.
fn write_big(path: &Path, len: usize, byte: u8) {
    use std::io::Write;
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let chunk = vec![byte; 1 << 20];
    let mut left = len;
    while left > 0 {
        let n = left.min(chunk.len());
        file.write_all(&chunk[..n]).expect("write");
        left -= n;
    }
    file.flush().expect("flush");
}

#[tokio::test]
async fn a_huge_line_costs_a_bounded_result() {
    let f = Fixture::new();
    let len = 64 << 20;
    write_big(&f.path("huge.txt"), len, b'x');

    let out = f
        .call("read_file", json!({"path": "huge.txt", "limit": 1}))
        .await
        .expect("read");
    let expected = format!(
        "     1\t{} [… line cut: {} more bytes]\n",
        "x".repeat(MAX_LINE_BYTES),
        len - MAX_LINE_BYTES
    );
    assert_eq!(out, expected);

    // The same file after a short first line: the limit stops the read
    // before the huge line, and the note says where to continue.
    let mut content = b"first\n".to_vec();
    content.extend(std::iter::repeat_n(b'y', 1 << 20));
    std::fs::write(f.path("two.txt"), &content).expect("write");
    let out = f
        .call("read_file", json!({"path": "two.txt", "limit": 1}))
        .await
        .expect("read");
    assert_eq!(
        out,
        "     1\tfirst\n[more lines follow: continue with offset = 2]\n"
    );

    // grep skips files over its size limit, and says so.
    let out = f
        .call("grep", json!({"pattern": "x", "glob": "huge.txt"}))
        .await
        .expect("grep");
    assert!(out.contains("[skipped 1 file(s) over"), "{out}");
    assert!(out.contains("`huge.txt`"), "{out}");
}

#[tokio::test]
async fn edit_file_refuses_files_it_would_have_to_hold_whole() {
    let f = Fixture::new();
    let len = usize::try_from(MAX_EDIT_BYTES).expect("fits") + 1;
    write_big(&f.path("big.log"), len, b'e');
    let err = f
        .call(
            "edit_file",
            json!({"path": "big.log", "old_string": "e", "new_string": "f", "replace_all": true}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(source(&err), EditFileError::TooLarge { size, max, .. } if *size == len as u64 && *max == MAX_EDIT_BYTES),
        "{err}"
    );
    assert_eq!(
        std::fs::metadata(f.path("big.log"))
            .expect("still there")
            .len(),
        len as u64
    );
}

/// The typed error of a tool, whether `validate_input` or `call` returned it.
fn typed<E: std::error::Error + 'static>(err: &ToolError) -> &E {
    match err {
        ToolError::Rejected { source, .. } => source
            .downcast_ref::<E>()
            .unwrap_or_else(|| panic!("unexpected error type: {err}")),
        other => source(other),
    }
}

fn max_edit() -> usize {
    usize::try_from(MAX_EDIT_BYTES).expect("fits")
}

/// `replace_all` multiplies the size of `new_string` by the number of
/// occurrences: the result is sized before it is built, so a 16 GiB result
/// is refused as quickly as a 20 MB one, and the file is left alone.
#[tokio::test]
async fn edit_file_refuses_results_over_its_limit_before_building_them() {
    let f = Fixture::new();
    let new_string = "n".repeat(100);
    write_big(&f.path("small.txt"), 200_000, b'a');
    write_big(&f.path("at-limit.txt"), max_edit(), b'a');
    for (path, new_string, size) in [
        ("small.txt", new_string.clone(), 20_000_000_u64),
        ("at-limit.txt", "k".repeat(1024), MAX_EDIT_BYTES * 1024),
    ] {
        for runner in ["call", "run_unchecked"] {
            let args = json!({"path": path, "old_string": "a", "new_string": new_string, "replace_all": true});
            let err = match runner {
                "call" => f.call("edit_file", args).await,
                _ => f.run_unchecked("edit_file", args).await,
            }
            .unwrap_err();
            assert!(
                matches!(
                    typed(&err),
                    EditFileError::ResultTooLarge { field: "new_string", size: s, max, .. }
                        if *s == size && *max == MAX_EDIT_BYTES
                ),
                "{path}: {err}"
            );
            assert!(err.to_string().contains("`new_string`"), "{err}");
        }
    }
    let unchanged = |path: &str, len: usize| {
        let bytes = std::fs::read(f.path(path)).expect("read");
        assert!(
            bytes.len() == len && bytes.iter().all(|b| *b == b'a'),
            "{path}"
        );
    };
    unchanged("small.txt", 200_000);
    unchanged("at-limit.txt", max_edit());

    // A file at the limit can still be edited, shrinking or not growing.
    f.call(
        "edit_file",
        json!({"path": "at-limit.txt", "old_string": "aa", "new_string": "b", "replace_all": true}),
    )
    .await
    .expect("shrinking edit");
    assert_eq!(
        std::fs::metadata(f.path("at-limit.txt"))
            .expect("meta")
            .len(),
        MAX_EDIT_BYTES / 2
    );
}

/// The boundary: a result of exactly the limit is written, one byte more is
/// refused.
#[tokio::test]
async fn edit_file_writes_a_result_of_exactly_its_limit() {
    let f = Fixture::new();
    let mut content = vec![b'a'; max_edit() / 2];
    content.push(b'c');
    std::fs::write(f.path("over.txt"), &content).expect("write");
    content.pop();
    std::fs::write(f.path("exact.txt"), &content).expect("write");
    let args = |path: &str| json!({"path": path, "old_string": "a", "new_string": "bb", "replace_all": true});
    let err = f.call("edit_file", args("over.txt")).await.unwrap_err();
    assert!(
        matches!(typed(&err), EditFileError::ResultTooLarge { size, .. } if *size == MAX_EDIT_BYTES + 1),
        "{err}"
    );
    f.call("edit_file", args("exact.txt"))
        .await
        .expect("exactly the limit");
    assert_eq!(
        std::fs::metadata(f.path("exact.txt")).expect("meta").len(),
        MAX_EDIT_BYTES
    );
}

/// A `new_string` or `content` over the limit is refused from the input
/// alone, before any file is read or created.
#[tokio::test]
async fn writers_refuse_model_written_text_over_their_limit() {
    let f = Fixture::new();
    let huge = "z".repeat(max_edit() + 1);
    let err = f
        .call(
            "edit_file",
            json!({"path": "notes.txt", "old_string": "one", "new_string": huge}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(typed(&err), EditFileError::ResultTooLarge { field: "new_string", size, .. } if *size == MAX_EDIT_BYTES + 1),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(f.path("notes.txt")).expect("read"),
        "one\ntwo\n"
    );

    for runner in ["call", "run_unchecked"] {
        let args = json!({"path": "new.txt", "content": huge});
        let err = match runner {
            "call" => f.call("write_file", args).await,
            _ => f.run_unchecked("write_file", args).await,
        }
        .unwrap_err();
        assert!(
            matches!(typed(&err), WriteFileError::TooLarge { field: "content", size, max } if *size == MAX_WRITE_BYTES + 1 && *max == MAX_WRITE_BYTES),
            "{err}"
        );
        assert!(err.to_string().contains("`content`"), "{err}");
        assert!(!f.path("new.txt").exists());
    }
    f.call(
        "write_file",
        json!({"path": "new.txt", "content": &huge[1..]}),
    )
    .await
    .expect("exactly the limit");
    assert_eq!(
        std::fs::metadata(f.path("new.txt")).expect("meta").len(),
        MAX_WRITE_BYTES
    );
}

/// Writers replace a file through a temporary file renamed over it: the
/// result is the new text with the old permission bits, nothing is left
/// next to it, and a hard link (another name for the old inode) keeps the
/// old text instead of being written through.
#[cfg(unix)]
#[tokio::test]
async fn writers_replace_files_whole_and_leave_nothing_behind() {
    use std::os::unix::fs::PermissionsExt;
    let f = Fixture::new();
    std::fs::create_dir(f.path("d")).expect("mkdir");
    for name in ["e.sh", "w.sh"] {
        std::fs::write(f.path("d").join(name), "old\n").expect("write");
        std::fs::set_permissions(
            f.path("d").join(name),
            std::fs::Permissions::from_mode(0o750),
        )
        .expect("chmod");
    }
    std::fs::hard_link(f.path("d/e.sh"), f.path("e.link")).expect("link");
    f.call(
        "edit_file",
        json!({"path": "d/e.sh", "old_string": "old", "new_string": "new"}),
    )
    .await
    .expect("edit");
    f.call("write_file", json!({"path": "d/w.sh", "content": "new\n"}))
        .await
        .expect("write");
    f.call("write_file", json!({"path": "d/created", "content": "c"}))
        .await
        .expect("create");
    for name in ["e.sh", "w.sh"] {
        let path = f.path("d").join(name);
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new\n");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o7777, 0o750, "{name}");
    }
    assert_eq!(
        std::fs::read_to_string(f.path("e.link")).expect("read"),
        "old\n"
    );
    let mut names: Vec<_> = std::fs::read_dir(f.path("d"))
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["created", "e.sh", "w.sh"]);
}

/// Where [`writes_that_fail_halfway_leave_the_original`] tells its child
/// process to work.
const FSIZE_DIR_VAR: &str = "HOSTILE_FILES_FSIZE_DIR";

/// A real failed write: a child process (this test binary, running
/// [`child_writes_under_a_file_size_limit`]) runs with a file size limit of
/// 2 KiB (`ulimit -f 4`) and `SIGXFSZ` ignored, so writing past it fails
/// with `EFBIG` partway through, as a full disk would. The files it tried
/// to grow must still hold their old text, and nothing may be left next to
/// them. Writing in place (truncate, then write) fails this test.
#[cfg(unix)]
#[test]
fn writes_that_fail_halfway_leave_the_original() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = format!("start\n{}", "keep me\n".repeat(100));
    for name in ["edit.txt", "write.txt"] {
        std::fs::write(dir.path().join(name), &old).expect("write");
    }
    let exe = std::env::current_exe().expect("test binary");
    let output = std::process::Command::new("sh")
        .arg("-c")
        // An ignored signal stays ignored across `exec`.
        .arg(r#"trap '' XFSZ; ulimit -f 4 && exec "$0" --exact hostile_files::child_writes_under_a_file_size_limit --ignored --nocapture"#)
        .arg(&exe)
        .env(FSIZE_DIR_VAR, dir.path())
        .output()
        .expect("run the child");
    let report = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{report}");
    assert!(report.contains("1 passed"), "{report}");
    for name in ["edit.txt", "write.txt"] {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).expect("read"),
            old,
            "{name}"
        );
    }
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["edit.txt", "write.txt"]);
}

/// The child half of [`writes_that_fail_halfway_leave_the_original`]; it
/// only makes sense under the limit that test sets.
#[cfg(unix)]
#[tokio::test]
#[ignore = "run by writes_that_fail_halfway_leave_the_original under a file size limit"]
async fn child_writes_under_a_file_size_limit() {
    let dir = std::env::var_os(FSIZE_DIR_VAR).expect("run by the parent test");
    let cx = Sandbox::new(&dir).expect("sandbox").context();
    let tools = BaseTools::linked(&Flags::new()).expect("catalog");
    let big = "x".repeat(8 * 1024);
    for (name, args) in [
        (
            "edit_file",
            json!({"path": "edit.txt", "old_string": "start", "new_string": big}),
        ),
        (
            "edit_file",
            json!({"path": "edit.txt", "old_string": "keep", "new_string": "grown by far, far more", "replace_all": true}),
        ),
        ("write_file", json!({"path": "write.txt", "content": big})),
        ("write_file", json!({"path": "new.txt", "content": big})),
    ] {
        let prepared = tools.get(name).expect("tool").prepare(args).expect("args");
        let err = match prepared.run_approved(&cx).await {
            Err(err) => err,
            Ok(out) => panic!("{name} wrote past the limit: {}", out.into_string()),
        };
        let text = err.to_string();
        assert!(
            text.contains("could not") && text.to_lowercase().contains("too large"),
            "{name}: {text}"
        );
    }
}

#[tokio::test]
async fn grep_holds_a_bounded_part_of_each_line() {
    let f = Fixture::new();
    let mut content = b"needle".to_vec();
    content.extend(std::iter::repeat_n(b'z', 5 << 20));
    std::fs::write(f.path("minified.js"), &content).expect("write");
    let out = f
        .call("grep", json!({"pattern": "needle"}))
        .await
        .expect("grep");
    let line = format!(
        "minified.js:1:needle{} [… line cut: {} more bytes]\n",
        "z".repeat(MAX_LINE_BYTES - 6),
        content.len() - MAX_LINE_BYTES
    );
    assert_eq!(out, line);
}

#[tokio::test]
async fn long_reads_stop_below_the_result_cap_and_say_where_to_go_on() {
    let f = Fixture::new();
    let line = "w".repeat(1000);
    let text: String = (0..500).map(|_| format!("{line}\n")).collect();
    std::fs::write(f.path("wide.txt"), text).expect("write");
    let out = f
        .call("read_file", json!({"path": "wide.txt"}))
        .await
        .expect("read");
    assert!(out.len() <= MAX_OUTPUT_BYTES + 100, "{}", out.len());
    let shown = out.lines().filter(|l| l.contains('\t')).count();
    assert!(shown > 10 && shown < 500, "{shown}");
    assert!(
        out.ends_with(&format!(
            "[more lines follow: continue with offset = {}]\n",
            shown + 1
        )),
        "{}",
        &out[out.len() - 80..]
    );
}

#[tokio::test]
async fn a_file_that_is_not_text_is_named_with_its_line() {
    let f = Fixture::new();
    let mut content = b"fine\n".to_vec();
    content.extend(std::iter::repeat_n(b'a', 2 * MAX_LINE_BYTES));
    content.extend_from_slice(b"\xff\n");
    std::fs::write(f.path("bin.dat"), content).expect("write");
    let err = f
        .call("read_file", json!({"path": "bin.dat"}))
        .await
        .unwrap_err();
    assert!(
        matches!(source(&err), ReadFileError::NotUtf8 { line: 2, .. }),
        "invalid bytes past the cut still count: {err}"
    );
}

// ---- patterns ------------------------------------------------------------------

/// Patterns built to be long, deeply nested or expensive to compile.
fn hostile_patterns() -> Vec<String> {
    vec![
        "*".repeat(1_000_000),
        "a".repeat(MAX_PATTERN_CHARS + 1),
        "?".repeat(MAX_PATTERN_CHARS),
        "*?".repeat(MAX_PATTERN_CHARS / 2),
        "{".repeat(MAX_PATTERN_CHARS),
        "[".repeat(MAX_PATTERN_CHARS),
        "{a,".repeat(MAX_PATTERN_CHARS / 3),
        "**/".repeat(MAX_PATTERN_CHARS / 3),
        "[!a-z]".repeat(MAX_PATTERN_CHARS / 6),
        "{a,b,c,d}".repeat(MAX_PATTERN_CHARS / 9),
    ]
}

fn never_panicked(err: &ToolError) {
    assert!(!err.to_string().contains("panicked"), "{err}");
    assert!(
        err.to_string().chars().count() < MAX_ERROR_MESSAGE_CHARS + 200,
        "error of {} chars",
        err.to_string().len()
    );
}

#[tokio::test]
async fn hostile_globs_are_results_or_errors_naming_the_field() {
    let f = Fixture::new();
    for pattern in hostile_patterns() {
        let len = pattern.chars().count();
        match f.call("glob", json!({"pattern": pattern})).await {
            Ok(_) => assert!(len <= MAX_PATTERN_CHARS),
            Err(err) => {
                never_panicked(&err);
                match source::<GlobError>(&err) {
                    GlobError::PatternTooLong { field, len: l, max } => {
                        assert_eq!((*field, *l, *max), ("pattern", len, MAX_PATTERN_CHARS));
                    }
                    GlobError::InvalidPattern { field, .. } => assert_eq!(*field, "pattern"),
                    other => panic!("{other}"),
                }
                assert!(err.to_string().contains("`pattern`"), "{err}");
            }
        }
        match f
            .call("grep", json!({"pattern": "x", "glob": pattern}))
            .await
        {
            Ok(_) => assert!(len <= MAX_PATTERN_CHARS),
            Err(err) => {
                never_panicked(&err);
                assert!(
                    matches!(
                        source::<GrepError>(&err),
                        GrepError::PatternTooLong { field: "glob", .. }
                            | GrepError::InvalidGlob { field: "glob", .. }
                    ),
                    "{err}"
                );
            }
        }
    }
}

#[tokio::test]
async fn hostile_regexes_are_errors_naming_the_field() {
    let f = Fixture::new();
    let mut patterns = hostile_patterns();
    patterns.extend([
        "(a{1000}){1000}".to_owned(),
        "\\w{1000}".repeat(10),
        "(".repeat(MAX_PATTERN_CHARS / 2) + &")".repeat(MAX_PATTERN_CHARS / 2),
        "((((((((((a*)*)*)*)*)*)*)*)*)*)*".to_owned(),
    ]);
    for pattern in patterns {
        match f.call("grep", json!({"pattern": pattern})).await {
            Ok(_) => {}
            Err(err) => {
                never_panicked(&err);
                assert!(
                    matches!(
                        source::<GrepError>(&err),
                        GrepError::PatternTooLong {
                            field: "pattern",
                            ..
                        } | GrepError::InvalidRegex {
                            field: "pattern",
                            ..
                        }
                    ),
                    "{err}"
                );
            }
        }
    }
    let err = f
        .call("grep", json!({"pattern": "(a{1000}){1000}"}))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("invalid regex in `pattern`"),
        "{err}"
    );
}

// ---- git internals -------------------------------------------------------------

fn init_repo_shape(root: &Path, git_dir: &str) {
    for dir in ["objects", "refs/heads", "hooks"] {
        std::fs::create_dir_all(root.join(git_dir).join(dir)).expect("mkdir");
    }
    std::fs::write(root.join(git_dir).join("HEAD"), "ref: refs/heads/main\n").expect("HEAD");
    std::fs::write(root.join(git_dir).join("config"), "[core]\n").expect("config");
}

#[tokio::test]
async fn writes_into_git_internals_are_refused_however_they_are_reached() {
    let f = Fixture::new();
    init_repo_shape(f.dir.path(), ".git");
    init_repo_shape(f.dir.path(), "vendor/lib/.git");
    init_repo_shape(f.dir.path(), "mirror.bare");
    std::fs::create_dir_all(f.path("sub")).expect("mkdir");
    let absolute = f.path(".git/config");
    let mut paths = vec![
        ".git/config".to_owned(),
        ".git/hooks/pre-commit".to_owned(),
        "./sub/../.git/config".to_owned(),
        ".git/new-dir/file".to_owned(),
        ".GIT/config".to_owned(),
        ".git".to_owned(),
        "vendor/lib/.git/config".to_owned(),
        "mirror.bare/config".to_owned(),
        "mirror.bare/hooks/post-checkout".to_owned(),
        absolute.to_string_lossy().into_owned(),
    ];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(".git", f.path("innocent")).expect("symlink");
        std::os::unix::fs::symlink(".git/config", f.path("settings.ini")).expect("symlink");
        paths.extend(["innocent/config".to_owned(), "settings.ini".to_owned()]);
    }
    for path in &paths {
        for (tool, args) in [
            (
                "write_file",
                json!({"path": path, "content": "[core]\n\tfsmonitor = evil\n"}),
            ),
            (
                "edit_file",
                json!({"path": path, "old_string": "[core]", "new_string": "[core]\n\tpager = evil"}),
            ),
        ] {
            let err = f.call(tool, args.clone()).await.unwrap_err();
            assert!(
                matches!(&err, ToolError::Refused { refusal, .. } if refusal.reason.contains("inside git's internal files")),
                "{tool} {path}: {err}"
            );
            // `call` refuses on its own too.
            let err = f.run_unchecked(tool, args).await.unwrap_err();
            assert!(
                err.to_string().contains("inside git's internal files"),
                "{tool} {path}: {err}"
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(f.path(".git/config")).expect("config"),
        "[core]\n"
    );
    assert!(!f.path(".git/hooks/pre-commit").exists());
    assert!(!f.path("mirror.bare/hooks/post-checkout").exists());

    // Reading git internals stays allowed, and so does writing next to them.
    assert!(
        f.call("read_file", json!({"path": ".git/config"}))
            .await
            .is_ok()
    );
    for path in [".gitignore", "my.git/notes", "sub/.gitattributes"] {
        f.call("write_file", json!({"path": path, "content": "x\n"}))
            .await
            .unwrap_or_else(|err| panic!("{path}: {err}"));
    }
}

/// Names that case-insensitive, HFS+ or NTFS filesystems open as `.git`
/// (on Linux they are ordinary directories, created here so edits have a
/// file to find): writers refuse them all, walks skip them all.
#[tokio::test]
async fn every_spelling_of_dot_git_is_git_internals() {
    let f = Fixture::new();
    let spellings = [
        ".Git",
        ".git.",
        ".git ",
        ".git. .",
        ".g\u{200c}it",
        "\u{feff}.GIT",
        ".gi\u{202e}t",
        ".g\u{131}t",
        "GIT~1",
        "git~2",
        ".git::$INDEX_ALLOCATION",
    ];
    for name in spellings {
        // Not shaped like a git directory (no `HEAD`, `objects/`, `refs/`):
        // only the name can give it away.
        let dir = f.path("alias").join(name);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("config"), "[core]\n").expect("config");
        std::fs::write(dir.join("sub.txt"), "secret\n").expect("file");
        for path in [
            format!("alias/{name}/config"),
            format!("{name}/hooks/post-checkout"),
        ] {
            for (tool, args) in [
                (
                    "write_file",
                    json!({"path": path, "content": "[core]\n\tfsmonitor = evil\n"}),
                ),
                (
                    "edit_file",
                    json!({"path": path, "old_string": "[core]", "new_string": "[core]\n\tpager = evil"}),
                ),
            ] {
                let err = f.call(tool, args.clone()).await.unwrap_err();
                assert!(
                    matches!(&err, ToolError::Refused { refusal, .. } if refusal.reason.contains("inside git's internal files")),
                    "{tool} {path:?}: {err}"
                );
                // `call` refuses on its own too.
                let err = f.run_unchecked(tool, args).await.unwrap_err();
                assert!(
                    err.to_string().contains("inside git's internal files"),
                    "{tool} {path:?}: {err}"
                );
            }
        }
        assert_eq!(
            std::fs::read_to_string(f.path("alias").join(name).join("config")).expect("config"),
            "[core]\n",
            "{name:?}"
        );
    }
    // Directory walks do not enter any of them.
    let listed = f
        .call("glob", json!({"pattern": "**/*", "path": "alias"}))
        .await
        .expect("glob");
    assert!(
        !listed.contains("config") && !listed.contains("sub.txt"),
        "{listed}"
    );
    let found = f
        .call("grep", json!({"pattern": "secret", "path": "alias"}))
        .await
        .expect("grep");
    assert!(!found.contains("sub.txt"), "{found}");
    // Look-alikes that no filesystem opens as `.git` stay writable.
    for path in [
        ".gitx/a",
        "git/a",
        ".git-backup/a",
        "x.git/a",
        "GIT~/a",
        ".git~1/a",
    ] {
        f.call("write_file", json!({"path": path, "content": "x\n"}))
            .await
            .unwrap_or_else(|err| panic!("{path}: {err}"));
    }
}

#[tokio::test]
async fn a_runtime_can_allow_git_internal_writes() {
    let f = Fixture::with(Sandbox::allow_git_internal_writes);
    init_repo_shape(f.dir.path(), ".git");
    f.call(
        "edit_file",
        json!({"path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\tbare = false"}),
    )
    .await
    .expect("allowed by the runtime");
    assert!(
        std::fs::read_to_string(f.path(".git/config"))
            .expect("config")
            .contains("bare = false")
    );
}

// ---- enormous paths --------------------------------------------------------------

#[tokio::test]
async fn a_ten_megabyte_path_makes_a_small_error() {
    let f = Fixture::new();
    let huge = format!("{}missing.txt", "d/".repeat(5_000_000));
    for (tool, args) in [
        ("read_file", json!({"path": huge})),
        ("write_file", json!({"path": huge, "content": ""})),
        ("list_dir", json!({"path": huge})),
        ("grep", json!({"pattern": "x", "path": huge})),
    ] {
        let err = f.run_unchecked(tool, args).await.unwrap_err();
        let text = err.to_string();
        assert!(
            text.chars().count() < 2 * MAX_ERROR_MESSAGE_CHARS,
            "{tool}: {} chars",
            text.len()
        );
    }
}
