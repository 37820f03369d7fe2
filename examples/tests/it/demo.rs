//! The demo binary as users and the README see it: byte-identical output
//! across runs, a permission table that says what the modes promise, and a
//! trace file that holds the turn's batches (what
//! `scripts/trace_timeline.py` draws).

use std::process::{Command, Output};

use serde_json::Value;

fn demo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_demo"))
        .args(args)
        .output()
        .expect("the demo binary starts")
}

fn stdout_of(args: &[&str]) -> String {
    let output = demo(args);
    assert!(
        output.status.success(),
        "demo {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the demo prints UTF-8")
}

#[test]
fn output_is_byte_identical_across_runs() {
    // Each run has its own scratch directory (named after its process id),
    // so a path leaking into the output would differ here.
    let first = stdout_of(&[]);
    let second = stdout_of(&[]);
    assert_eq!(first, second);
    for section in [
        "== The authoritative tool list",
        "== Calls in a scratch sandbox ==",
        "== The permission pipeline in each mode ==",
        "== What the kernel enforces for commands ==",
        "== One model turn through the executor ==",
    ] {
        assert!(first.contains(section), "missing section {section:?}");
    }
    assert!(
        !first.contains("registry-examples-demo-"),
        "a scratch path leaked"
    );
}

/// The permission table: the header's modes, then per call its cells.
struct ModeTable {
    modes: Vec<String>,
    rows: Vec<(String, Vec<String>)>,
}

impl ModeTable {
    fn parse(stdout: &str) -> ModeTable {
        let section = stdout
            .split("== The permission pipeline in each mode ==")
            .nth(1)
            .expect("the permission section");
        let mut lines = section
            .lines()
            .skip_while(|line| !line.starts_with("call "));
        let header = lines.next().expect("the table header");
        let cells = |line: &str| -> Vec<String> {
            line.split("  ")
                .map(str::trim)
                .filter(|cell| !cell.is_empty())
                .map(str::to_owned)
                .collect()
        };
        let modes = cells(header)[1..].to_vec();
        let rule = lines.next().expect("the rule under the header");
        assert!(rule.starts_with("---"), "{rule}");
        let rows = lines
            .take_while(|line| !line.is_empty())
            .map(|line| {
                let mut row = cells(line);
                let call = row.remove(0);
                assert_eq!(row.len(), modes.len(), "{line}");
                (call, row)
            })
            .collect();
        ModeTable { modes, rows }
    }

    fn row(&self, call: &str) -> &[String] {
        &self
            .rows
            .iter()
            .find(|(name, _)| name == call)
            .unwrap_or_else(|| panic!("no row {call:?}"))
            .1
    }

    fn cell(&self, call: &str, mode: &str) -> &str {
        let column = self
            .modes
            .iter()
            .position(|m| m == mode)
            .unwrap_or_else(|| panic!("no mode {mode:?}"));
        &self.row(call)[column]
    }

    fn column(&self, mode: &str) -> Vec<(&str, &str)> {
        self.rows
            .iter()
            .map(|(call, _)| (call.as_str(), self.cell(call, mode)))
            .collect()
    }
}

#[test]
fn the_permission_table_keeps_the_modes_promises() {
    let table = ModeTable::parse(&stdout_of(&[]));
    assert_eq!(
        table.modes,
        [
            "default",
            "accept_edits",
            "plan",
            "bypass",
            "dont_ask",
            "auto"
        ]
    );
    assert_eq!(table.rows.len(), 9);

    // What no mode changes: read-only calls run, a deny rule and the
    // tool's own deny hold.
    for call in ["read_file notes.txt", "run_command `git status`"] {
        for cell in table.row(call) {
            assert!(cell.starts_with("run: "), "{call}: {cell}");
        }
    }
    for cell in table.row("run_command `rm -r build`") {
        assert_eq!(cell, "deny: rule");
    }
    for cell in table.row("edit_file /etc/hosts") {
        assert_eq!(cell, "deny: tool");
    }

    // Each mode's own promise.
    for (call, cell) in table.column("bypass") {
        assert!(
            cell.starts_with("run: ") || cell == "deny: rule" || cell == "deny: tool",
            "bypass, {call}: {cell}"
        );
    }
    for (call, cell) in table.column("dont_ask") {
        assert_ne!(cell, "ask", "dont_ask, {call}");
    }
    for (call, cell) in table.column("plan") {
        let reads_only = call == "read_file notes.txt" || call == "run_command `git status`";
        assert_eq!(
            cell.starts_with("run: "),
            reads_only,
            "plan, {call}: {cell}"
        );
    }
    assert_eq!(
        table.cell("edit_file $SANDBOX/project/src/lib.rs", "default"),
        "ask"
    );
    assert_eq!(
        table.cell("edit_file $SANDBOX/project/src/lib.rs", "accept_edits"),
        "run: mode"
    );
    assert_eq!(
        table.cell("edit_file $SANDBOX/notes.txt", "accept_edits"),
        "ask"
    );
    // An allow rule covers the command, but a shell line that writes
    // brings all three Rule of Two properties (a shell may read anything
    // and fetch anything): a person is asked; bypass mode runs it only
    // because the demo names `run_command` unattended.
    assert_eq!(
        table.cell("run_command `cargo test --quiet`", "default"),
        "ask"
    );
    assert_eq!(
        table.cell("run_command `cargo test --quiet`", "bypass"),
        "run: rule"
    );
    assert_eq!(
        table.cell("run_command `git push origin main`", "auto"),
        "deny: classifier"
    );
    assert_eq!(
        table.cell("run_command `git status`", "auto"),
        "run: classifier"
    );
}

#[test]
fn the_trace_holds_the_turns_batches_and_calls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("trace.json");
    let path = file.to_str().expect("a UTF-8 temp path");
    stdout_of(&["--trace", path]);
    let events: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("the trace was written"))
            .expect("the trace is a JSON array of events");
    let begins = |name: &str| -> Vec<&Value> {
        events
            .iter()
            .filter(|e| e["ph"] == "b" && e["name"] == name)
            .collect()
    };
    assert_eq!(
        begins("tool_call").len(),
        9,
        "one span per call of the turn"
    );
    let batches: Vec<(String, String)> = begins("batch")
        .iter()
        .map(|e| {
            let args = &e["args"];
            (
                args["mode"].as_str().unwrap_or_default().to_owned(),
                args["calls"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    // `write_file` declares its access: a batch of its own because the
    // next call reads the file it writes, but not a serial one.
    let expected = [
        ("Concurrent", "1"),
        ("Concurrent", "5"),
        ("Serial", "1"),
        ("Concurrent", "1"),
    ];
    assert_eq!(
        batches,
        expected.map(|(mode, calls)| (mode.to_owned(), calls.to_owned()))
    );
    // Every phase span a call opens is closed, so the timeline can pair them.
    for phase in ["permission", "run"] {
        let ends = events
            .iter()
            .filter(|e| e["ph"] == "e" && e["name"] == phase)
            .count();
        assert_eq!(begins(phase).len(), ends, "{phase}");
    }
}

#[test]
fn a_bad_argument_prints_the_usage() {
    let output = demo(&["--bogus"]);
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "usage: demo [--trace FILE]\n"
    );
}

#[test]
fn the_rule_of_two_stops_the_third_property_and_a_waiting_turn_resumes_once() {
    let out = stdout_of(&[]);
    let scene = out
        .split("== Across a conversation: the Rule of Two ==")
        .nth(1)
        .expect("the Rule of Two scene")
        .split("== One model turn through the executor ==")
        .next()
        .unwrap();
    // The untrusted page is `web_fetch`'s, behind the `web` feature.
    if cfg!(feature = "web") {
        assert!(
            scene.contains("would complete the Rule of Two")
                && scene.contains("processed untrusted input (`web_fetch` call `toolu_21`)"),
            "{scene}"
        );
        assert!(
            !scene.contains("read_file {\"path\":\"secret.txt\"}\n    ran"),
            "{scene}"
        );
    } else {
        assert!(scene.contains("this build has no `web_fetch`"), "{scene}");
    }
    assert!(scene.contains("toolu_32: created `notes.txt`"), "{scene}");
    assert!(scene.contains("resumed again: refused (stale"), "{scene}");
}
