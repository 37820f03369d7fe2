//! The lock's model, comparison and file handling, on runtime tools.

use std::num::NonZeroUsize;

use serde_json::json;

use super::check::{Comparison, compare, update, verify};
use super::*;
use crate::access::{Access, AccessKey};
use crate::declare::builder::ToolBuilder;
use crate::declare::output::ToolOutput;
use crate::declare::posture::{
    Loading, PostureField, PostureKind, PostureValue, ResultCap, Source,
};

fn tool(name: &str) -> ToolBuilder {
    ToolBuilder::new(name, "A test tool.").input_schema(json!({
        "type": "object",
        "properties": { "path": { "type": "string" } },
        "required": ["path"],
    }))
}

fn build(builder: ToolBuilder) -> ToolHandle {
    builder
        .build(|_, _| async { Ok(ToolOutput::text("ok")) })
        .unwrap_or_else(|err| panic!("{err}"))
}

fn lock_of(tools: &[ToolHandle]) -> CatalogLock {
    CatalogLock::from_tools(tools).unwrap_or_else(|err| panic!("{err}"))
}

fn diff(old: &[ToolHandle], new: &[ToolHandle]) -> Comparison {
    compare(&lock_of(old), &lock_of(new))
}

fn texts<T: ToString>(items: &[T]) -> Vec<String> {
    items.iter().map(ToString::to_string).collect()
}

fn cap(n: usize) -> ResultCap {
    ResultCap::Chars(NonZeroUsize::new(n).unwrap())
}

/// A reader tool: concurrent, read-only, capped, with classifier input.
fn reader() -> ToolBuilder {
    tool("read")
        .aliases(["cat"])
        .concurrency_safe(false)
        .read_only(false)
        .destructive(true)
        .max_result_chars(cap(1_000))
        .classifier_input(|args| args.to_string())
        .internal()
}

#[test]
fn the_hash_is_of_the_canonical_definition() {
    let lock = lock_of(&[build(tool("read").loading(Loading::Deferred))]);
    let entry = lock.get("read").unwrap();
    assert_eq!(
        entry.canonical_definition(),
        r#"{"description":"A test tool.","input_schema":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"},"loading":"deferred","name":"read"}"#
    );
    // SHA-256 of the text above, computed independently: pins the
    // algorithm and the canonical form, so no release changes a hash
    // silently.
    assert_eq!(
        entry.hash(),
        "sha256:dc7b354a180522db21f1c72f387beb066b0f45e201efc67898e10171d2b270a3"
    );
}

#[test]
fn an_unchanged_catalog_has_nothing_to_say() {
    let tools = [build(reader()), build(tool("write"))];
    let Comparison { problems, notes } = diff(&tools, &tools);
    assert!(problems.is_empty() && notes.is_empty());
}

// ---- 1. vanished names

#[test]
fn a_vanished_tool_fails_naming_its_lost_aliases() {
    let Comparison { problems, notes } = diff(
        &[build(reader()), build(tool("write"))],
        &[build(tool("write"))],
    );
    assert!(notes.is_empty());
    assert_eq!(
        problems,
        [LockProblem::Vanished {
            name: "read".into(),
            lost_aliases: vec!["cat".into()],
        }]
    );
    let text = problems[0].to_string();
    assert!(
        text.contains("old transcripts that call it would break"),
        "{text}"
    );
    assert!(text.contains("add `read` to the aliases"), "{text}");
    assert!(text.contains("REGISTRY_UPDATE_LOCK=1"), "{text}");
}

#[test]
fn a_tool_renamed_to_an_alias_of_a_locked_tool_passes_with_a_note() {
    // `view` is stricter than `read` was (not read-only): that tightening
    // across the rename is no note of its own; `view` is unchanged.
    let old = [build(tool("read").read_only(true)), build(tool("view"))];
    let new = [build(tool("view").aliases(["read"]))];
    let Comparison { problems, notes } = diff(&old, &new);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        notes,
        [
            LockNote::Renamed {
                old: "read".into(),
                tool: "view".into()
            },
            LockNote::AliasAdded {
                tool: "view".into(),
                alias: "read".into()
            },
        ]
    );
    assert!(
        notes[0]
            .to_string()
            .contains("old transcripts still resolve")
    );
}

#[test]
fn a_rename_to_a_new_tool_fails_only_because_the_new_tool_is_unlocked() {
    let Comparison { problems, notes } = diff(&[build(reader())], &[build(reader_renamed())]);
    assert_eq!(
        problems,
        [LockProblem::NewTool {
            name: "read_file".into()
        }]
    );
    assert_eq!(
        notes,
        [LockNote::Renamed {
            old: "read".into(),
            tool: "read_file".into()
        }]
    );
}

fn reader_renamed() -> ToolBuilder {
    let mut renamed = ToolBuilder::new("read_file", "A test tool.")
        .aliases(["read", "cat"])
        .concurrency_safe(false)
        .read_only(false)
        .destructive(true)
        .max_result_chars(cap(1_000))
        .classifier_input(|args| args.to_string())
        .internal();
    renamed = renamed.input_schema(json!({"type": "object"}));
    renamed
}

#[test]
fn a_renamed_tool_cannot_loosen_its_posture_on_the_way() {
    let renamed = ToolBuilder::new("read_file", "A test tool.")
        .aliases(["read", "cat"])
        .concurrency_safe(true)
        .read_only(false)
        .destructive(true)
        .max_result_chars(cap(1_000))
        .classifier_input(|args| args.to_string())
        .internal();
    let Comparison { problems, .. } = diff(&[build(reader())], &[build(renamed)]);
    assert!(
        problems.contains(&LockProblem::Loosened {
            tool: "read_file".into(),
            renamed_from: Some("read".into()),
            field: PostureField::ConcurrencySafe,
            old: PostureValue::Kind(PostureKind::Fixed(false)),
            new: PostureValue::Kind(PostureKind::Fixed(true)),
        }),
        "{problems:?}"
    );
}

#[test]
fn removing_an_alias_fails_and_moving_it_passes_with_a_note() {
    let old = [
        build(tool("read").aliases(["cat", "Read"])),
        build(tool("view")),
    ];
    let new = [build(tool("read")), build(tool("view").aliases(["cat"]))];
    let Comparison { problems, notes } = diff(&old, &new);
    assert_eq!(
        problems,
        [LockProblem::AliasRemoved {
            tool: "read".into(),
            alias: "Read".into()
        }]
    );
    assert!(
        problems[0]
            .to_string()
            .contains("old transcripts that call `Read` would break")
    );
    assert!(notes.contains(&LockNote::AliasMoved {
        alias: "cat".into(),
        from: "read".into(),
        to: "view".into()
    }));
}

// ---- 2. definitions

/// Input examples and `strict` are sent to the model, so they are part of
/// the hashed definition; a tool without them hashes as before.
#[test]
fn input_examples_and_strict_are_locked_and_change_the_hash() {
    let plain = build(tool("read"));
    let with_examples = build(tool("read").input_example(json!({ "path": "a.rs" })));
    let strict = build(tool("read").strict(true));
    let plain_entry = lock_of(std::slice::from_ref(&plain))
        .get("read")
        .unwrap()
        .clone();
    assert!(
        !plain_entry
            .canonical_definition()
            .contains("input_examples")
    );
    assert!(!plain_entry.canonical_definition().contains("strict"));
    for changed in [&with_examples, &strict] {
        let Comparison { problems, .. } =
            diff(std::slice::from_ref(&plain), std::slice::from_ref(changed));
        assert!(
            matches!(problems.as_slice(), [LockProblem::DefinitionChanged(_)]),
            "{problems:?}"
        );
    }
    // Both survive the file.
    let lock = lock_of(&[build(
        tool("read")
            .input_example(json!({ "path": "a.rs" }))
            .strict(true),
    )]);
    let again = CatalogLock::parse(&lock.to_json(), "tools.lock.json").unwrap();
    assert_eq!(again, lock);
    let entry = again.get("read").unwrap();
    assert_eq!(entry.input_examples(), [json!({ "path": "a.rs" })]);
    assert!(entry.strict());
}

#[test]
fn a_changed_definition_fails_showing_what_changed() {
    let old = [build(
        ToolBuilder::new("read", "Read a file.\n\nArguments: path").input_schema(json!({
            "type": "object",
            "properties": { "path": { "type": "string" } },
        })),
    )];
    let new = [build(
        ToolBuilder::new("read", "Read a UTF-8 file.\n\nArguments: path")
            .input_schema(json!({
                "type": "object",
                "properties": { "path": { "type": "integer" }, "limit": { "type": "integer" } },
            }))
            .loading(Loading::Deferred),
    )];
    let Comparison { problems, notes } = diff(&old, &new);
    assert!(notes.is_empty(), "{notes:?}");
    let [LockProblem::DefinitionChanged(change)] = problems.as_slice() else {
        panic!("expected one definition change: {problems:?}");
    };
    assert_eq!(change.tool, "read");
    assert_ne!(change.old_hash, change.new_hash);
    assert_eq!(
        texts(&change.input_schema),
        [
            r#"added   /properties/limit: {"type":"integer"}"#,
            r#"changed /properties/path/type: "string" -> "integer""#,
        ]
    );
    assert_eq!(change.loading, Some((Loading::Eager, Loading::Deferred)));
    let text = change.to_string();
    assert!(text.contains("the prompt cache will miss"), "{text}");
    assert!(
        text.contains("  description:\n    - Read a file.\n    + Read a UTF-8 file.\n\n      …\n  input_schema:"),
        "{text}"
    );
    assert!(text.contains("\n  loading: eager -> deferred"), "{text}");
    assert!(text.contains("REGISTRY_UPDATE_LOCK=1"), "{text}");
}

#[test]
fn a_whitespace_only_description_change_is_still_shown() {
    let old = [build(ToolBuilder::new("t", "Same."))];
    let new = [build(ToolBuilder::new("t", "Same.\n"))];
    let Comparison { problems, .. } = diff(&old, &new);
    let text = problems[0].to_string();
    assert!(text.contains("- \"Same.\"\n    + \"Same.\\n\""), "{text}");
}

// ---- 3. postures

/// The strictest runtime tool: every field at its strictest, declared.
fn strictest() -> ToolBuilder {
    tool("t")
        .internal()
        .classifier_input(|a| a.to_string())
        .concurrency_safe(false)
        .read_only(false)
        .destructive(true)
}

/// Rule of Two sets are ordered by inclusion: trading one property for
/// another is a loosening both ways, adding one never is.
#[test]
fn rule_of_two_sets_loosen_when_any_property_goes() {
    use crate::declare::Exposure::{ExternalEffect, PrivateData, UntrustedInput};
    let with = |set: &[crate::declare::Exposure]| {
        let set = set.to_vec();
        build(strictest().rule_of_two(set))
    };
    let loosened = |from: &[crate::declare::Exposure], to: &[crate::declare::Exposure]| {
        !diff(&[with(from)], &[with(to)]).problems.is_empty()
    };
    assert!(loosened(&[PrivateData], &[UntrustedInput]));
    assert!(loosened(&[UntrustedInput], &[PrivateData]));
    assert!(loosened(&[PrivateData, ExternalEffect], &[UntrustedInput]));
    assert!(!loosened(&[PrivateData], &[PrivateData, UntrustedInput]));
    assert!(!loosened(&[], &[ExternalEffect]));

    // Undeclared, a read-only closed-world tool brings private data only:
    // dropping a declared list that said more is a loosening.
    let closed = || {
        strictest()
            .read_only(true)
            .destructive(false)
            .open_world(false)
    };
    let declared = build(closed().rule_of_two([PrivateData, UntrustedInput]));
    let undeclared = build(closed());
    assert!(!diff(&[declared], &[undeclared]).problems.is_empty());
    let declared = build(closed().rule_of_two([PrivateData, UntrustedInput]));
    let undeclared = build(closed());
    assert!(diff(&[undeclared], &[declared]).problems.is_empty());
}

/// Every field's loosening fails and its reverse passes with a note.
#[test]
fn each_posture_field_fails_when_loosened_and_notes_when_tightened() {
    type Loosen = fn(ToolBuilder) -> ToolBuilder;
    let cases: [(PostureField, Loosen); 13] = [
        (PostureField::ConcurrencySafe, |t| t.concurrency_safe(true)),
        (PostureField::ConcurrencySafe, |t| {
            t.concurrency_safe_when(|_| true)
        }),
        (PostureField::ReadOnly, |t| t.read_only(true)),
        (PostureField::ReadOnly, |t| t.read_only_when(|_| true)),
        (PostureField::Destructive, |t| t.destructive(false)),
        (PostureField::Destructive, |t| t.destructive_when(|_| true)),
        (PostureField::MaxResultChars, |t| {
            t.max_result_chars(cap(50_001))
        }),
        (PostureField::MaxResultChars, |t| {
            t.max_result_chars(ResultCap::Unbounded)
        }),
        (PostureField::Access, |t| {
            t.access(|_| Access::read(AccessKey::path("a")))
        }),
        (PostureField::Idempotent, |t| t.idempotent(true)),
        (PostureField::OpenWorld, |t| t.open_world(false)),
        (PostureField::RuleOfTwo, |t| {
            t.rule_of_two([crate::declare::Exposure::PrivateData])
        }),
        (PostureField::ClassifierInput, |_| {
            tool("t")
                .internal()
                .concurrency_safe(false)
                .read_only(false)
                .destructive(true)
        }),
    ];
    let exposed = tool("t")
        .classifier_input(|a| a.to_string())
        .concurrency_safe(false)
        .read_only(false)
        .destructive(true);
    let cases = cases
        .into_iter()
        .map(|(field, loosen)| (field, build(loosen(strictest()))))
        .chain([(PostureField::Internal, build(exposed))]);
    for (field, loose) in cases {
        let strict = || build(strictest());
        let Comparison { problems, notes } = diff(&[strict()], std::slice::from_ref(&loose));
        assert_eq!(problems.len(), 1, "{field}: {problems:?}");
        let LockProblem::Loosened { field: found, .. } = &problems[0] else {
            panic!("{field}: {problems:?}");
        };
        assert_eq!(*found, field);
        assert!(
            notes
                .iter()
                .all(|n| matches!(n, LockNote::SourceChanged { .. })),
            "{notes:?}"
        );
        let text = problems[0].to_string();
        assert!(text.contains(&format!("`{field}`")), "{text}");
        assert!(text.contains("REGISTRY_UPDATE_LOCK=1"), "{text}");

        // The other way round is a tightening: passes, with a note.
        let Comparison { problems, notes } = diff(&[loose], &[strict()]);
        assert!(problems.is_empty(), "{field} tightened: {problems:?}");
        assert!(
            notes
                .iter()
                .any(|n| matches!(n, LockNote::Tightened { field: f, .. } if *f == field)),
            "{field}: {notes:?}"
        );
    }
}

fn loosened(problems: &[LockProblem]) -> Vec<(PostureField, String, String)> {
    problems
        .iter()
        .map(|p| match p {
            LockProblem::Loosened {
                field, old, new, ..
            } => (*field, old.to_string(), new.to_string()),
            other => panic!("not a loosening: {other}"),
        })
        .collect()
}

fn tightened(notes: &[LockNote]) -> Vec<(PostureField, String, String)> {
    notes
        .iter()
        .filter_map(|n| match n {
            LockNote::Tightened {
                field, old, new, ..
            } => Some((*field, old.to_string(), new.to_string())),
            _ => None,
        })
        .collect()
}

fn row(field: PostureField, old: &str, new: &str) -> (PostureField, String, String) {
    (field, old.to_owned(), new.to_owned())
}

/// An undeclared `destructive` is "not read-only": declaring a tool
/// read-only loosens it too, and the lock says so for both fields.
#[test]
fn the_default_destructive_follows_read_only_in_the_lock() {
    use PostureField::{Destructive, ReadOnly};
    let bare = || build(tool("t"));
    let reads = || build(tool("t").read_only(true));
    let sometimes = || build(tool("t").read_only_when(|_| true));

    let Comparison { problems, .. } = diff(&[bare()], &[reads()]);
    assert_eq!(
        loosened(&problems),
        [
            row(ReadOnly, "false", "true"),
            row(Destructive, "true", "false")
        ]
    );
    let Comparison { problems, notes } = diff(&[reads()], &[bare()]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        tightened(&notes),
        [
            row(ReadOnly, "true", "false"),
            row(Destructive, "false", "true")
        ]
    );

    // A per-input read_only makes the default destructive per input.
    let Comparison { problems, .. } = diff(&[bare()], &[sometimes()]);
    assert_eq!(
        loosened(&problems),
        [
            row(ReadOnly, "false", "per input (`<runtime closure>`)"),
            row(Destructive, "true", "per input (unless read-only)"),
        ]
    );
    let Comparison { problems, notes } = diff(&[sometimes()], &[reads()]);
    assert_eq!(
        loosened(&problems),
        [
            row(ReadOnly, "per input (`<runtime closure>`)", "true"),
            row(Destructive, "per input (unless read-only)", "false"),
        ]
    );
    assert!(tightened(&notes).is_empty());
    let Comparison { problems, notes } = diff(&[sometimes()], &[bare()]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(tightened(&notes).len(), 2, "{notes:?}");
}

#[test]
fn a_declared_destructive_is_held_to_its_own_value() {
    use PostureField::Destructive;
    // Declared `true` on a read-only tool, then left to the default
    // (which for a read-only tool is `false`): a loosening.
    let Comparison { problems, .. } = diff(
        &[build(tool("t").read_only(true).destructive(true))],
        &[build(tool("t").read_only(true))],
    );
    assert_eq!(loosened(&problems), [row(Destructive, "true", "false")]);

    // Declaring `destructive = true` on a tool that reads per input is a
    // tightening of its default.
    let Comparison { problems, notes } = diff(
        &[build(tool("t").read_only_when(|_| true))],
        &[build(tool("t").read_only_when(|_| true).destructive(true))],
    );
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        tightened(&notes),
        [row(Destructive, "per input (unless read-only)", "true")]
    );

    // Trading the default per-input rule for an expression of one's own:
    // the lock cannot tell which is stricter.
    let Comparison { problems, .. } = diff(
        &[build(tool("t").read_only_when(|_| true))],
        &[build(
            tool("t")
                .read_only_when(|_| true)
                .destructive_when(|_| false),
        )],
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .to_string()
            .contains("the lock cannot tell whether that is looser"),
        "{}",
        problems[0]
    );
}

#[test]
fn destructive_loosens_from_true_towards_false() {
    let destructive = || build(tool("rm").destructive(true));
    for loose in [
        build(tool("rm").destructive(false)),
        build(tool("rm").destructive_when(|_| true)),
    ] {
        let Comparison { problems, .. } = diff(&[destructive()], std::slice::from_ref(&loose));
        assert!(
            matches!(
                problems.as_slice(),
                [LockProblem::Loosened {
                    field: PostureField::Destructive,
                    ..
                }]
            ),
            "{problems:?}"
        );
        let Comparison { problems, notes } = diff(&[loose], &[destructive()]);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(notes.iter().any(|n| matches!(
            n,
            LockNote::Tightened {
                field: PostureField::Destructive,
                ..
            }
        )));
    }
}

#[test]
fn a_loosened_posture_message_says_what_it_lets_through() {
    let Comparison { problems, .. } = diff(
        &[build(tool("sh"))],
        &[build(tool("sh").concurrency_safe(true))],
    );
    assert_eq!(
        problems[0].to_string(),
        "posture of `sh` loosened: `concurrency_safe` false -> true; calls may now run alongside other calls.\n\
         Restore the stricter value; if the looser one is intended, have it reviewed, then update the lock with \
         `REGISTRY_UPDATE_LOCK=1 cargo test`."
    );
}

#[test]
fn a_changed_per_input_expression_counts_as_loosening() {
    let current = lock_of(&[build(tool("sh").concurrency_safe_when(|_| false))]);
    let locked_text = current.to_json().replace("<runtime closure>", "is_listing");
    let locked = CatalogLock::parse(&locked_text, "tools.lock.json").unwrap();
    let Comparison { problems, .. } = compare(&locked, &current);
    assert_eq!(
        problems,
        [LockProblem::Loosened {
            tool: "sh".into(),
            renamed_from: None,
            field: PostureField::ConcurrencySafe,
            old: PostureValue::Kind(PostureKind::PerInput("is_listing".into())),
            new: PostureValue::Kind(PostureKind::PerInput("<runtime closure>".into())),
        }]
    );
    assert!(
        problems[0]
            .to_string()
            .contains("the lock cannot tell whether that is looser")
    );
}

#[test]
fn a_per_input_expression_printed_with_other_spacing_is_the_same() {
    let current = lock_of(&[build(tool("sh").concurrency_safe_when(|_| false))]);
    let locked_text = current
        .to_json()
        .replace("<runtime closure>", "< runtime  closure >");
    let locked = CatalogLock::parse(&locked_text, "tools.lock.json").unwrap();
    let Comparison { problems, notes } = compare(&locked, &current);
    assert!(
        problems.is_empty() && notes.is_empty(),
        "{problems:?} {notes:?}"
    );
}

#[test]
fn the_contents_of_literals_in_an_expression_matter() {
    let lock_with = |expr: &str| {
        let text = lock_of(&[build(tool("sh").concurrency_safe_when(|_| false))])
            .to_json()
            .replace("<runtime closure>", expr);
        CatalogLock::parse(&text, "tools.lock.json").unwrap()
    };
    let locked = lock_with(r#"|i: &In| i.mode == \"read only\""#);
    let respaced = lock_with(r#"| i : & In | i . mode == \"read only\""#);
    let Comparison { problems, .. } = compare(&locked, &respaced);
    assert!(problems.is_empty(), "{problems:?}");
    let squeezed = lock_with(r#"|i: &In| i.mode == \"readonly\""#);
    let Comparison { problems, .. } = compare(&locked, &squeezed);
    assert_eq!(problems.len(), 1, "{problems:?}");
}

#[test]
fn declaring_the_default_value_passes_with_a_note() {
    let Comparison { problems, notes } = diff(
        &[build(tool("t"))],
        &[build(tool("t").concurrency_safe(false))],
    );
    assert!(problems.is_empty());
    assert_eq!(
        notes,
        [LockNote::SourceChanged {
            tool: "t".into(),
            field: PostureField::ConcurrencySafe,
            now: Source::Declared
        }]
    );
}

// ---- 4. new tools

#[test]
fn a_new_tool_fails_until_the_lock_is_updated() {
    let Comparison { problems, .. } =
        diff(&[build(tool("a"))], &[build(tool("a")), build(tool("b"))]);
    assert_eq!(problems, [LockProblem::NewTool { name: "b".into() }]);
    let text = problems[0].to_string();
    assert!(text.contains("an unlocked tool escapes review"), "{text}");
    assert!(text.contains("REGISTRY_UPDATE_LOCK=1"), "{text}");
}

// ---- the file

#[test]
fn every_problem_is_listed_in_one_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    lock_of(&[build(reader()), build(tool("sh")), build(tool("gone"))])
        .write(&path)
        .unwrap();
    let current = lock_of(&[
        build(reader().loading(Loading::Deferred)),
        build(tool("sh").concurrency_safe(true)),
        build(tool("new")),
    ]);
    let err = verify(&path, &current).unwrap_err();
    let LockError::Mismatch { problems, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(problems.len(), 4, "{problems:?}");
    let text = err.to_string();
    assert!(
        text.contains(": 4 problem(s)\n\n1. tool `gone` vanished"),
        "{text}"
    );
    assert!(text.contains("\n2. definition of `read` changed"), "{text}");
    assert!(text.contains("\n3. posture of `sh` loosened"), "{text}");
    assert!(text.contains("\n4. new tool `new`"), "{text}");
    assert!(text.ends_with(&format!(
        "update the lock:\n    REGISTRY_UPDATE_LOCK=1 cargo test\nand commit `{}`.",
        path.display()
    )));
}

#[test]
fn the_file_is_canonical_sorted_versioned_and_byte_stable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    let tools = [
        build(tool("zeta").aliases(["z2", "z1"])),
        build(reader()),
        build(tool("sh").concurrency_safe_when(|_| true)),
    ];
    let first = update(&path, &lock_of(&tools)).unwrap();
    assert!(first.wrote_file());
    assert_eq!(first.notes(), [LockNote::Created]);
    let bytes = std::fs::read(&path).unwrap();

    // Another order of the same tools, another update: the same bytes, not
    // even rewritten.
    let reversed: Vec<ToolHandle> = tools.iter().rev().cloned().collect();
    let second = update(&path, &lock_of(&reversed)).unwrap();
    assert!(!second.wrote_file());
    assert!(second.notes().is_empty() && second.accepted().is_empty());
    assert_eq!(std::fs::read(&path).unwrap(), bytes);

    let text = String::from_utf8(bytes).unwrap();
    assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
    let document: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(to_canonical_pretty(&document) + "\n", text, "canonical");
    assert_eq!(document["version"], json!(LOCK_VERSION));
    let names: Vec<&String> = document["tools"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["read", "sh", "zeta"]);
    assert_eq!(document["tools"]["zeta"]["aliases"], json!(["z1", "z2"]));
    assert_eq!(
        document["tools"]["sh"]["posture"]["concurrency_safe"],
        json!({ "declared": { "per_input": "<runtime closure>" } })
    );
    assert_eq!(
        document["tools"]["read"]["posture"],
        json!({
            "classifier_input": { "declared": true },
            "concurrency_safe": { "declared": false },
            "destructive": { "declared": true },
            "internal": { "declared": true },
            "loading": { "default": "eager" },
            "max_result_chars": { "declared": 1000 },
            "read_only": { "declared": false },
            "access": { "default": "from_concurrency_safe" },
        })
    );
    assert!(document["tools"]["read"].get("cfg").is_none());
    assert_eq!(CatalogLock::parse(&text, &path).unwrap(), lock_of(&tools));

    let report = verify(&path, &lock_of(&tools)).unwrap();
    assert!(report.is_up_to_date() && !report.was_update());
}

#[test]
fn an_update_reports_what_it_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    lock_of(&[build(tool("a")), build(tool("b"))])
        .write(&path)
        .unwrap();
    let report = update(&path, &lock_of(&[build(tool("a").concurrency_safe(true))])).unwrap();
    assert!(report.was_update() && report.wrote_file());
    assert_eq!(report.accepted().len(), 2, "{report}");
    let text = report.to_string();
    assert!(text.contains("updated (1 tools)"), "{text}");
    assert!(text.contains("Accepted into the lock"), "{text}");
    verify(&path, &lock_of(&[build(tool("a").concurrency_safe(true))])).unwrap();
}

#[test]
fn a_passing_check_with_notes_says_the_file_is_out_of_date() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    lock_of(&[build(tool("a").read_only(true))])
        .write(&path)
        .unwrap();
    let report = verify(&path, &lock_of(&[build(tool("a").read_only(false))])).unwrap();
    assert!(!report.is_up_to_date());
    // `read_only` and, following it, the undeclared `destructive`.
    assert_eq!(report.notes().len(), 2);
    let text = report.to_string();
    assert!(
        text.contains(
            "Notes (these pass):\n  - posture of `a` tightened: `read_only` true -> false"
        ),
        "{text}"
    );
    assert!(
        text.contains("run `REGISTRY_UPDATE_LOCK=1 cargo test` to record this"),
        "{text}"
    );
}

#[test]
fn lock_file_errors_are_typed_and_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    let current = lock_of(&[build(tool("a"))]);

    let err = verify(&path, &current).unwrap_err();
    assert!(
        matches!(&err, LockError::NotFound { path: p } if *p == path),
        "{err}"
    );
    assert!(err.to_string().contains("REGISTRY_UPDATE_LOCK=1"));

    let parse = |text: &str| CatalogLock::parse(text, &path).unwrap_err();

    let err = parse("{ not json");
    assert!(matches!(err, LockError::Syntax { .. }), "{err}");
    assert!(err.to_string().contains(&path.display().to_string()));

    // A file of the first format (FNV hashes, a `declared` list).
    let err = parse(r#"{"version": 1, "tools": {}}"#);
    assert!(matches!(err, LockError::UnsupportedVersion { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("is in format version 1, but this registry-core reads only version 2"),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("regenerate it with `REGISTRY_UPDATE_LOCK=1 cargo test`"),
        "{err}"
    );

    let good = current.to_json();
    let err = parse(&good.replace("\"eager\"", "\"lazy\""));
    let LockError::Invalid { at, .. } = &err else {
        panic!("{err}");
    };
    assert!(at.starts_with("tools.a.posture.loading"), "{at}");
    assert!(err.to_string().contains("REGISTRY_UPDATE_LOCK=1"), "{err}");

    let err = parse(&good.replace("\"hash\":", "\"extra\": 1,\n\"hash\":"));
    assert!(matches!(err, LockError::Invalid { .. }), "{err}");

    // `not_read_only` belongs to an undeclared `destructive` only.
    let err = parse(&good.replace(
        "\"concurrency_safe\": {\n          \"default\": false\n        }",
        "\"concurrency_safe\": {\n          \"default\": \"not_read_only\"\n        }",
    ));
    let LockError::Invalid { at, message, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(at, "tools.a.posture");
    assert!(message.contains("`concurrency_safe`"), "{message}");

    let err = parse(&good.replace("A test tool.", "A tool edited by hand."));
    assert!(
        matches!(&err, LockError::HashMismatch { tool, .. } if tool == "a"),
        "{err}"
    );
    assert!(err.to_string().contains("edited by hand"), "{err}");
}

#[test]
fn an_entry_records_the_cfg_of_a_compiled_out_tool() {
    let good = lock_of(&[build(tool("a"))]).to_json();
    let gated = good.replace(
        "\"aliases\": [],",
        "\"aliases\": [],\n      \"cfg\": \"feature = \\\"web\\\"\",",
    );
    let lock = CatalogLock::parse(&gated, "tools.lock.json").unwrap();
    assert_eq!(lock.get("a").unwrap().cfg(), Some("feature = \"web\""));
    assert_eq!(lock.to_json(), gated, "written back byte for byte");
}

#[test]
fn an_update_replaces_an_unusable_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    std::fs::write(&path, "garbage").unwrap();
    let current = lock_of(&[build(tool("a"))]);
    let report = update(&path, &current).unwrap();
    assert!(matches!(report.notes(), [LockNote::Replaced { .. }]));
    verify(&path, &current).unwrap();
}

#[test]
fn two_tools_claiming_one_name_cannot_be_locked() {
    let err = CatalogLock::from_tools(&[
        build(tool("a").aliases(["x"])),
        build(tool("b").aliases(["x"])),
    ])
    .unwrap_err();
    assert!(
        matches!(&err, LockError::DuplicateName { name, first, second } if name == "x" && first == "a" && second == "b"),
        "{err}"
    );
}

// ---- compiled-out tools

/// The lock of a build where `tools` are compiled in (the `gated` ones
/// under their gate) and `out` are compiled out under theirs.
fn build_lock(tools: &[(ToolHandle, Option<&str>)], out: &[(&str, &str)]) -> CatalogLock {
    let handles: Vec<ToolHandle> = tools.iter().map(|(t, _)| t.clone()).collect();
    let mut lock = lock_of(&handles);
    for (tool, gate) in tools {
        lock.tools.get_mut(tool.name()).unwrap().cfg = gate.map(str::to_owned);
    }
    lock.compiled_out = out
        .iter()
        .map(|(name, gate)| ((*name).to_owned(), (*gate).to_owned()))
        .collect();
    lock
}

const WEB: &str = "feature = \"web\"";

#[test]
fn a_compiled_out_tool_is_neither_vanished_nor_new() {
    let full = build_lock(
        &[(build(tool("a")), None), (build(tool("web")), Some(WEB))],
        &[],
    );
    let narrow = build_lock(&[(build(tool("a")), None)], &[("web", WEB)]);
    let Comparison { problems, notes } = compare(&full, &narrow);
    assert!(
        problems.is_empty() && notes.is_empty(),
        "{problems:?} {notes:?}"
    );
    // And back: the entry carried over is the one checked when it returns.
    let Comparison { problems, notes } = compare(&full, &full);
    assert!(problems.is_empty() && notes.is_empty());
}

#[test]
fn one_file_serves_both_feature_sets_through_updates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    let full = build_lock(
        &[(build(tool("a")), None), (build(tool("web")), Some(WEB))],
        &[],
    );
    let narrow = build_lock(&[(build(tool("a")), None)], &[("web", WEB)]);

    update(&path, &full).unwrap();
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(
        written.contains(r#""cfg": "feature = \"web\"""#),
        "{written}"
    );

    // The narrow build checks and is up to date; updating there keeps the
    // gated entry byte for byte.
    assert!(verify(&path, &narrow).unwrap().is_up_to_date());
    let report = update(&path, &narrow).unwrap();
    assert!(!report.wrote_file(), "{report}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    assert!(verify(&path, &full).unwrap().is_up_to_date());
}

#[test]
fn a_compiled_out_tool_missing_from_the_lock_passes_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    let narrow = build_lock(&[(build(tool("a")), None)], &[("web", WEB)]);
    update(&path, &narrow).unwrap();
    let report = verify(&path, &narrow).unwrap();
    assert_eq!(
        texts(report.notes()),
        [
            "`web` is compiled out of this build (`cfg(feature = \"web\")` does not hold) and the lock has no entry for it: \
          update the lock in a build that compiles it"
        ]
    );
    // The full build then finds it new, as any unlocked tool.
    let full = build_lock(
        &[(build(tool("a")), None), (build(tool("web")), Some(WEB))],
        &[],
    );
    let err = verify(&path, &full).unwrap_err();
    assert!(err.to_string().contains("`web`"), "{err}");
}

#[test]
fn a_changed_gate_fails() {
    let gated = build_lock(&[(build(tool("web")), Some(WEB))], &[]);
    let ungated = build_lock(&[(build(tool("web")), None)], &[]);
    let Comparison { problems, notes } = compare(&gated, &ungated);
    assert!(notes.is_empty());
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].to_string().starts_with(
            "the compile-time gate of `web` changed: `cfg(feature = \"web\")` -> no gate"
        ),
        "{}",
        problems[0]
    );
}

#[test]
fn a_locked_tool_cannot_slip_out_of_every_build_behind_a_new_gate() {
    // Locked ungated; now `cfg(feature = "never")` compiles it out here.
    let locked = build_lock(&[(build(tool("a")), None), (build(tool("b")), None)], &[]);
    let now = build_lock(&[(build(tool("a")), None)], &[("b", "feature = \"never\"")]);
    let Comparison { problems, .. } = compare(&locked, &now);
    assert_eq!(
        problems,
        [LockProblem::GateChanged {
            tool: "b".into(),
            old: None,
            new: Some("feature = \"never\"".into()),
        }]
    );
}

/// Declaring `access` lets calls share batches they could not share
/// before: the lock fails until it is updated, and names the field and
/// what it lets through. Dropping the declaration is a tightening.
#[test]
fn a_newly_declared_access_fails_the_check_until_the_lock_is_updated() {
    let plain = || build(tool("edit_file"));
    let declared = || {
        build(
            tool("edit_file").access(|args| match args["path"].as_str() {
                Some(path) => Access::write(AccessKey::path(path)),
                None => Access::everything(),
            }),
        )
    };
    let Comparison { problems, .. } = diff(&[plain()], &[declared()]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        matches!(
            &problems[0],
            LockProblem::Loosened {
                field: PostureField::Access,
                ..
            }
        ),
        "{problems:?}"
    );
    let text = problems[0].to_string();
    assert!(
        text.contains(
            "posture of `edit_file` loosened: `access` from concurrency_safe -> per input (`<runtime closure>`); \
             calls may now share a batch with any call whose declared access they do not touch."
        ),
        "{text}"
    );

    let Comparison { problems, notes } = diff(&[declared()], &[plain()]);
    assert!(problems.is_empty(), "{problems:?}");
    assert!(
        notes.iter().any(|n| matches!(
            n,
            LockNote::Tightened {
                field: PostureField::Access,
                ..
            }
        )),
        "{notes:?}"
    );

    // In the file, as every other posture value.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock.json");
    assert!(verify(&path, &lock_of(&[plain()])).is_err());
    update(&path, &lock_of(&[plain()])).unwrap();
    let err = verify(&path, &lock_of(&[declared()])).unwrap_err();
    assert!(err.to_string().contains("`access`"), "{err}");
    update(&path, &lock_of(&[declared()])).unwrap();
    let document: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        document["tools"]["edit_file"]["posture"]["access"],
        json!({ "declared": { "per_input": "<runtime closure>" } })
    );
    verify(&path, &lock_of(&[declared()])).unwrap();
}
