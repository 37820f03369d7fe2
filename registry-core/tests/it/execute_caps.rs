//! Result caps: spill with size, path and a line-cut preview; the visible
//! cut without a spill directory; "no output"; the per-turn budget spills
//! the largest results first; characters, never bytes.

use crate::execute_support;

use std::num::NonZeroUsize;

use execute_support::*;
use registry_core::{
    ToolBuilder, ToolCall, ToolCallResult, ToolHandle, ToolOutput, declare::ResultCap,
    execute::ExecutorConfig,
};
use serde_json::{Value, json};

/// `echo`: returns `text` repeated `times` times; capped at `cap` chars.
fn echo(name: &str, cap: ResultCap) -> ToolHandle {
    ToolBuilder::new(name, "Repeats text.")
        .read_only(true)
        .max_result_chars(cap)
        .build(|args: Value, _cx| async move {
            let text = args["text"].as_str().unwrap_or_default();
            let times = args["times"].as_u64().unwrap_or(1) as usize;
            Ok(ToolOutput::text(text.repeat(times)))
        })
        .unwrap()
}

fn chars(n: usize) -> ResultCap {
    ResultCap::Chars(NonZeroUsize::new(n).unwrap())
}

fn run(
    config: ExecutorConfig,
    tools: Vec<ToolHandle>,
    calls: Vec<ToolCall>,
) -> Vec<ToolCallResult> {
    let exec = registry_of(tools).executor().config(config).build();
    paused_runtime().block_on(exec.run_turn(calls))
}

#[test]
fn over_the_cap_with_a_spill_dir_saves_the_output_and_shows_a_line_cut_preview() {
    let dir = tempfile::tempdir().unwrap();
    let line = "é123456789\n"; // 11 chars, 12 bytes
    let results = run(
        ExecutorConfig::new()
            .spill_dir(dir.path())
            .preview_chars(NonZeroUsize::new(100).unwrap()),
        vec![echo("echo", chars(500))],
        vec![ToolCall::new(
            "../../etc/passwd",
            "echo",
            json!({ "text": line, "times": 100 }),
        )],
    );
    let result = &results[0];
    assert!(!result.is_error());
    let path = result.spilled_to().expect("spilled");
    // A hostile id stays inside the directory.
    assert_eq!(path.parent(), Some(dir.path()));
    assert_eq!(std::fs::read_to_string(path).unwrap(), line.repeat(100));
    // Nine whole lines fit in 100 characters; the preview stops at the
    // end of the ninth, not inside the tenth.
    let preview = line.repeat(9);
    let preview = preview.trim_end_matches('\n');
    assert_eq!(
        result.content(),
        format!(
            "[output too long: 1100 characters (1200 bytes), over the limit of 500 characters; the full output is saved in {}]\n[preview, first 98 characters:]\n{preview}",
            path.display()
        )
    );
}

#[test]
fn over_the_cap_without_a_spill_dir_is_cut_visibly_on_a_char_boundary() {
    let results = run(
        ExecutorConfig::new(),
        vec![echo("echo", chars(100))],
        vec![ToolCall::new(
            "1",
            "echo",
            json!({ "text": "😀", "times": 1000 }),
        )],
    );
    let content = results[0].content();
    assert!(content.chars().count() <= 100, "{content}");
    assert!(content.contains("[output truncated: showing"), "{content}");
    assert!(content.starts_with("😀😀"));
    assert!(results[0].spilled_to().is_none());
}

#[test]
fn empty_output_says_so() {
    let results = run(
        ExecutorConfig::new(),
        vec![echo("echo", chars(100))],
        vec![ToolCall::new("1", "echo", json!({ "text": "" }))],
    );
    assert_eq!(results[0].content(), "(`echo` completed with no output)");
    assert!(!results[0].is_error());
}

#[test]
fn the_turn_budget_spills_the_largest_results_first() {
    let dir = tempfile::tempdir().unwrap();
    let call = |id: &str, n: u64| ToolCall::new(id, "big", json!({ "text": "ab\n", "times": n }));
    let results = run(
        ExecutorConfig::new()
            .spill_dir(dir.path())
            .preview_chars(NonZeroUsize::new(50).unwrap())
            .turn_budget(Some(1_100)),
        vec![echo("big", ResultCap::Unbounded)],
        // 300, 900, 600 and 150 characters: 1,950 in all. Spilling the 900
        // leaves 1,050 + its spill notice: still over, so the 600 goes
        // too; then 450 + two notices (each under 325 characters, path
        // and 50-character preview included) fits and the rest stay.
        vec![
            call("a", 100),
            call("b", 300),
            call("c", 200),
            call("d", 50),
        ],
    );
    let spilled: Vec<bool> = results.iter().map(|r| r.spilled_to().is_some()).collect();
    assert_eq!(spilled, [false, true, true, false]);
    assert!(
        results[1]
            .content()
            .contains("over this turn's output budget of 1100 characters")
    );
    assert_eq!(results[0].content(), "ab\n".repeat(100));
    let total: usize = results.iter().map(|r| r.content().chars().count()).sum();
    assert!(total <= 1_100, "{total}");
}

#[test]
fn the_turn_budget_without_a_spill_dir_cuts_the_largest_visibly() {
    let results = run(
        ExecutorConfig::new()
            .turn_budget(Some(3_000))
            .preview_chars(NonZeroUsize::new(100).unwrap()),
        vec![echo("big", ResultCap::Unbounded)],
        vec![
            ToolCall::new("a", "big", json!({ "text": "é", "times": 2_000 })),
            ToolCall::new("b", "big", json!({ "text": "é", "times": 2_500 })),
        ],
    );
    assert_eq!(results[0].content(), "é".repeat(2_000));
    let cut = results[1].content();
    assert!(cut.starts_with(&"é".repeat(100)), "{cut}");
    assert!(
        cut.ends_with("[output truncated: showing 100 of 2500 characters, over this turn's output budget of 3000 characters]"),
        "{cut}"
    );
}

#[test]
fn the_budget_counts_characters_not_bytes() {
    // 1,000 four-byte characters: 4,000 bytes, 1,000 characters.
    let results = run(
        ExecutorConfig::new().turn_budget(Some(1_000)),
        vec![echo("big", ResultCap::Unbounded)],
        vec![ToolCall::new(
            "a",
            "big",
            json!({ "text": "😀", "times": 1_000 }),
        )],
    );
    assert_eq!(results[0].content(), "😀".repeat(1_000));
}

#[test]
fn a_spill_preview_never_shows_more_than_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let results = run(
        ExecutorConfig::new().spill_dir(dir.path()),
        vec![echo("echo", chars(50))],
        vec![ToolCall::new(
            "1",
            "echo",
            json!({ "text": "x", "times": 5_000 }),
        )],
    );
    let content = results[0].content();
    let preview = content.rsplit('\n').next().unwrap();
    assert_eq!(preview, "x".repeat(50));
    assert!(
        content.contains("[preview, first 50 characters:]"),
        "{content}"
    );
}

#[test]
fn two_turns_with_the_same_call_ids_spill_to_different_files() {
    let dir = tempfile::tempdir().unwrap();
    let exec = registry_of(vec![echo("echo", chars(10))])
        .executor()
        .config(ExecutorConfig::new().spill_dir(dir.path()))
        .build();
    let turn = |text: &str| {
        paused_runtime().block_on(exec.run_turn(vec![ToolCall::new(
            "toolu_1",
            "echo",
            json!({ "text": text, "times": 50 }),
        )]))
    };
    let first = turn("a");
    let second = turn("b");
    let first = first[0].spilled_to().expect("spilled").to_owned();
    let second = second[0].spilled_to().expect("spilled").to_owned();
    assert_ne!(first, second);
    // The second turn left the first one's output intact.
    assert_eq!(std::fs::read_to_string(&first).unwrap(), "a".repeat(50));
    assert_eq!(std::fs::read_to_string(&second).unwrap(), "b".repeat(50));
}
