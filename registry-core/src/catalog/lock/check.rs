//! Comparing a lock with the catalog as it is now, entry by entry (names
//! and aliases, definitions, postures), into the problems and notes of
//! [`report`](super::report); verifying and updating the lock file.

use std::cmp::Ordering;
use std::path::Path;

use super::diff::json_diff;
use super::expr::normalise;
use super::report::{DefinitionChange, LockNote, LockProblem, LockReport, Outcome, permissiveness};
use super::{CatalogLock, LockEntry, LockError, read_lock_text};
use crate::declare::exposure::{Exposure, Exposures};
use crate::declare::posture::{AccessKind, PostureField, PostureKind, PostureValue, SafetyPosture};

/// The problems and notes between a lock and the catalog now.
#[derive(Debug, Default)]
pub(crate) struct Comparison {
    pub(crate) problems: Vec<LockProblem>,
    pub(crate) notes: Vec<LockNote>,
}

/// Compares the `locked` catalog with the `current` one: locked tools by
/// name first, then tools new to the lock by name, so the order is stable.
pub(crate) fn compare(locked: &CatalogLock, current: &CatalogLock) -> Comparison {
    let resolve = current.resolver();
    let mut out = Comparison::default();
    for old in locked.entries() {
        if let Some(gate) = current.compiled_out.get(&old.name) {
            // Compiled out of this build: carried over, checked in a build
            // that compiles it, unless the gate itself moved.
            if old.cfg.as_ref() != Some(gate) {
                out.problems.push(LockProblem::GateChanged {
                    tool: old.name.clone(),
                    old: old.cfg.clone(),
                    new: Some(gate.clone()),
                });
            }
            continue;
        }
        if let Some(now) = current.get(&old.name) {
            if old.cfg != now.cfg {
                out.problems.push(LockProblem::GateChanged {
                    tool: now.name.clone(),
                    old: old.cfg.clone(),
                    new: now.cfg.clone(),
                });
            }
            check_aliases(old, Some(now), &resolve, &mut out);
            check_definition(old, now, &mut out);
            check_posture(&now.name, None, &old.posture, &now.posture, &mut out);
            for alias in &now.aliases {
                if !old.aliases.contains(alias) {
                    out.notes.push(LockNote::AliasAdded {
                        tool: now.name.clone(),
                        alias: alias.clone(),
                    });
                }
            }
        } else if let Some(successor) = resolve.get(old.name.as_str()) {
            out.notes.push(LockNote::Renamed {
                old: old.name.clone(),
                tool: successor.name.clone(),
            });
            check_aliases(old, Some(successor), &resolve, &mut out);
            check_posture(
                &successor.name,
                Some(&old.name),
                &old.posture,
                &successor.posture,
                &mut out,
            );
        } else {
            let lost_aliases = old
                .aliases
                .iter()
                .filter(|alias| !resolve.contains_key(alias.as_str()))
                .cloned()
                .collect();
            out.problems.push(LockProblem::Vanished {
                name: old.name.clone(),
                lost_aliases,
            });
            check_aliases(old, None, &resolve, &mut out);
        }
    }
    for now in current.entries() {
        if locked.get(&now.name).is_none() {
            out.problems.push(LockProblem::NewTool {
                name: now.name.clone(),
            });
        }
    }
    for (tool, gate) in &current.compiled_out {
        if locked.get(tool).is_none() {
            out.notes.push(LockNote::CompiledOutUnlocked {
                tool: tool.clone(),
                gate: gate.clone(),
            });
        }
    }
    out
}

/// Every locked alias must still resolve; to the same tool silently, to
/// another with a note. With no successor (the tool vanished), aliases that
/// resolve nowhere are already part of the vanished problem.
fn check_aliases(
    old: &LockEntry,
    successor: Option<&LockEntry>,
    resolve: &std::collections::BTreeMap<&str, &LockEntry>,
    out: &mut Comparison,
) {
    for alias in &old.aliases {
        match resolve.get(alias.as_str()) {
            Some(target) if successor.is_some_and(|s| s.name == target.name) => {}
            Some(target) => out.notes.push(LockNote::AliasMoved {
                alias: alias.clone(),
                from: old.name.clone(),
                to: target.name.clone(),
            }),
            None if successor.is_some() => out.problems.push(LockProblem::AliasRemoved {
                tool: old.name.clone(),
                alias: alias.clone(),
            }),
            None => {}
        }
    }
}

fn check_definition(old: &LockEntry, now: &LockEntry, out: &mut Comparison) {
    let (old_loading, now_loading) = (
        *old.posture.loading().value(),
        *now.posture.loading().value(),
    );
    if old.hash == now.hash
        && old.description == now.description
        && old.input_schema == now.input_schema
        && old_loading == now_loading
    {
        return;
    }
    out.problems
        .push(LockProblem::DefinitionChanged(DefinitionChange {
            tool: now.name.clone(),
            old_hash: old.hash.clone(),
            new_hash: now.hash.clone(),
            description: (old.description != now.description)
                .then(|| (old.description.clone(), now.description.clone())),
            input_schema: json_diff(&old.input_schema, &now.input_schema),
            loading: (old_loading != now_loading).then_some((old_loading, now_loading)),
        }));
}

/// Loosenings are problems; tightenings and source changes are notes,
/// except across a rename, where the successor's own entry (or its new-tool
/// problem) already speaks for it.
fn check_posture(
    tool: &str,
    renamed_from: Option<&str>,
    old: &SafetyPosture,
    now: &SafetyPosture,
    out: &mut Comparison,
) {
    let notes = renamed_from.is_none();
    for field in PostureField::ALL {
        let ((was, was_source), (is, source)) = (old.get(field), now.get(field));
        if same_value(&was, &is) {
            if notes && was_source != source {
                out.notes.push(LockNote::SourceChanged {
                    tool: tool.to_owned(),
                    field,
                    now: source,
                });
            }
            continue;
        }
        let (Some(looser), Some(stricter)) = compared(field, (&was, old), (&is, now)) else {
            // Not a safety ordering (`loading`): the definition check
            // reports it.
            continue;
        };
        match looser.cmp(&stricter) {
            Ordering::Less if !notes => {}
            Ordering::Less => out.notes.push(LockNote::Tightened {
                tool: tool.to_owned(),
                field,
                old: was,
                new: is,
            }),
            // Equal permissiveness with different values: two per-input
            // expressions. Unknown counts as looser.
            Ordering::Greater | Ordering::Equal => out.problems.push(LockProblem::Loosened {
                tool: tool.to_owned(),
                renamed_from: renamed_from.map(str::to_owned),
                field,
                old: was,
                new: is,
            }),
        }
    }
}

/// The permissiveness of the new and the old value, to compare. A set of
/// Rule of Two properties is ordered by inclusion, which one number per
/// value cannot say: the new set is stricter only when it holds every old
/// property. An undeclared set counts as what the tool's other postures
/// give at most (see [`derived`]).
fn compared(
    field: PostureField,
    (was, old): (&PostureValue, &SafetyPosture),
    (is, now): (&PostureValue, &SafetyPosture),
) -> (Option<u128>, Option<u128>) {
    if let (PostureValue::Exposures(was), PostureValue::Exposures(is)) = (was, is) {
        let was = was.unwrap_or_else(|| derived(old));
        let is = is.unwrap_or_else(|| derived(now));
        let keeps_all = is.union(was) == is;
        return (Some(u128::from(!keeps_all)), Some(u128::from(keeps_all)));
    }
    (permissiveness(field, is), permissiveness(field, was))
}

/// The most an undeclared `rule_of_two` brings, from the other postures:
/// private data; untrusted input when open-world; an external effect
/// unless every call is read-only.
fn derived(posture: &SafetyPosture) -> Exposures {
    let mut set = Exposures::NONE.with(Exposure::PrivateData);
    if *posture.open_world().value() {
        set = set.with(Exposure::UntrustedInput);
    }
    if *posture.read_only().value() != PostureKind::Fixed(true) {
        set = set.with(Exposure::ExternalEffect);
    }
    set
}

/// Equal values; posture expressions compare as token text (see
/// [`normalise`]): how the compiler happened to space their tokens is not
/// what they say, the contents of their literals are.
fn same_value(a: &PostureValue, b: &PostureValue) -> bool {
    match (a, b) {
        (
            PostureValue::Kind(PostureKind::PerInput(x)),
            PostureValue::Kind(PostureKind::PerInput(y)),
        ) => normalise(x) == normalise(y),
        (
            PostureValue::Access(AccessKind::PerInput(x)),
            PostureValue::Access(AccessKind::PerInput(y)),
        ) => normalise(x) == normalise(y),
        _ => a == b,
    }
}

/// Checks the lock file at `path` against `current`; never writes.
pub(crate) fn verify(path: &Path, current: &CatalogLock) -> Result<LockReport, LockError> {
    let text = read_lock_text(path)?;
    let locked = CatalogLock::parse(&text, path)?;
    let Comparison { problems, notes } = compare(&locked, current);
    let expected = current.with_compiled_out_entries_of(&locked);
    if !problems.is_empty() {
        return Err(LockError::Mismatch {
            path: path.to_owned(),
            problems,
            notes,
        });
    }
    Ok(LockReport {
        path: path.to_owned(),
        tools: current.len(),
        notes,
        accepted: Vec::new(),
        outcome: Outcome::Verified {
            up_to_date: text == expected.to_json(),
        },
    })
}

/// Writes `current` to `path`, reporting what changed relative to the
/// file's previous contents (if they could be read).
pub(crate) fn update(path: &Path, current: &CatalogLock) -> Result<LockReport, LockError> {
    let mut next = current.clone();
    let (notes, accepted) = match CatalogLock::read(path) {
        Ok(locked) => {
            let Comparison { problems, notes } = compare(&locked, current);
            next = current.with_compiled_out_entries_of(&locked);
            (notes, problems)
        }
        Err(LockError::NotFound { .. }) => (vec![LockNote::Created], Vec::new()),
        Err(err) => (
            vec![LockNote::Replaced {
                reason: err.to_string(),
            }],
            Vec::new(),
        ),
    };
    let wrote = next.write(path)?;
    Ok(LockReport {
        path: path.to_owned(),
        tools: next.len(),
        notes,
        accepted,
        outcome: Outcome::Updated { wrote },
    })
}
