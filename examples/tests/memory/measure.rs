//! Peak resident memory of one scenario, each run alone in a child
//! process.
//!
//! The test binary runs itself again ([`std::env::current_exe`]) with only
//! its `child` test selected and the scenario named in the environment.
//! The child runs the scenario once, says so on its standard output and
//! waits for its standard input to close; meanwhile the parent reads the
//! child's high-water mark of resident memory (`VmHWM` in
//! `/proc/<pid>/status`, which only a live process has), then lets it
//! exit. Each scenario is measured twice, with its payload and with a tiny
//! one, so the fixed base (the test harness, the runtime, the registry, the
//! allocator's arenas) is measured the same way as the peak, never
//! guessed.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// Names the scenario a child runs; unset in the parent.
const SCENARIO_VAR: &str = "REGISTRY_MEMORY_SCENARIO";
/// The child's payload size in bytes.
const BYTES_VAR: &str = "REGISTRY_MEMORY_BYTES";
/// The line a child prints once its scenario is done.
const DONE: &str = "registry-memory-scenario-done";

/// One MiB.
pub const MIB: usize = 1024 * 1024;

/// What a child was asked to run.
pub struct Request {
    /// The scenario's name.
    pub scenario: String,
    /// Its payload size in bytes.
    pub bytes: usize,
}

/// In a child, what to run; `None` in the parent (and in any other run of
/// the test binary).
pub fn request() -> Option<Request> {
    let scenario = std::env::var(SCENARIO_VAR).ok()?;
    let bytes = std::env::var(BYTES_VAR)
        .ok()
        .and_then(|bytes| bytes.parse().ok())
        .expect("a child is told its payload size");
    Some(Request { scenario, bytes })
}

/// In a child, after the scenario: tells the parent, then waits until it
/// has read the peak (it closes our standard input).
pub fn done() {
    let mut out = std::io::stdout().lock();
    writeln!(out, "\n{DONE}").expect("stdout");
    out.flush().expect("stdout");
    drop(out);
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
}

/// One scenario at both sizes.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    /// The payload's size in bytes.
    pub bytes: usize,
    /// Peak resident bytes with a tiny payload.
    pub base: u64,
    /// Peak resident bytes with the payload.
    pub peak: u64,
}

impl Measured {
    /// What the payload added to the peak, in bytes.
    pub fn growth(&self) -> u64 {
        self.peak.saturating_sub(self.base)
    }

    /// The growth as a multiple of the payload.
    pub fn ratio(&self) -> f64 {
        self.growth() as f64 / self.bytes as f64
    }
}

impl std::fmt::Display for Measured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mib = |bytes: u64| bytes as f64 / MIB as f64;
        write!(
            f,
            "payload {:.1} MiB: base {:.1} MiB, peak {:.1} MiB, growth {:.2}x the payload",
            mib(self.bytes as u64),
            mib(self.base),
            mib(self.peak),
            self.ratio()
        )
    }
}

/// Measures `scenario` with `tiny` bytes (the base) and with `bytes`.
pub fn measure(scenario: &str, tiny: usize, bytes: usize) -> Measured {
    // One child at a time: they are measured alone and the machine holds
    // one payload's worth of them, not one per test thread.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let base = peak_of(scenario, tiny);
    let peak = peak_of(scenario, bytes);
    let measured = Measured { bytes, base, peak };
    eprintln!("memory: {scenario}: {measured}");
    measured
}

/// Runs `scenario` in a child with a `bytes` payload; its peak resident
/// bytes.
fn peak_of(scenario: &str, bytes: usize) -> u64 {
    let exe = std::env::current_exe().expect("the test binary");
    let mut child = Command::new(exe)
        .args(["child", "--exact", "--nocapture", "--test-threads=1"])
        .env(SCENARIO_VAR, scenario)
        .env(BYTES_VAR, bytes.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the child starts");
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut finished = false;
    let mut said = String::new();
    let mut line = String::new();
    while stdout.read_line(&mut line).expect("the child's output") > 0 {
        if line.trim_end() == DONE {
            finished = true;
            break;
        }
        said.push_str(&line);
        line.clear();
    }
    let peak = finished.then(|| high_water_mark(child.id()));
    // Let it exit, and read what it says on the way out.
    drop(child.stdin.take());
    let _ = stdout.read_to_string(&mut said);
    let status = child.wait().expect("the child exits");
    let errors = errors.join().unwrap_or_default();
    assert!(
        finished && status.success(),
        "scenario `{scenario}` ({bytes} bytes) failed ({status}):\n{said}{errors}"
    );
    peak.expect("read while the child was alive")
}

/// `VmHWM` of a live process, in bytes.
fn high_water_mark(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse().ok())
        .expect("a VmHWM line");
    kib * 1024
}
