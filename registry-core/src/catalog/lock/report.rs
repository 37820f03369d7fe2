//! What a lock check finds and how it says it: the problems that fail a
//! check (each with what to do), the notes that pass, and the report.

use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

use super::UPDATE_HINT;
use super::diff::{JsonChange, Line, line_diff};
use crate::declare::posture::{
    AccessKind, Loading, PostureField, PostureKind, PostureValue, ResultCap, Source,
};

/// What loosening `field` lets through.
fn loosening_means(field: PostureField) -> &'static str {
    match field {
        PostureField::ConcurrencySafe => "calls may now run alongside other calls",
        PostureField::ReadOnly => "calls are now trusted not to write",
        PostureField::Destructive => "calls are no longer all treated as destructive",
        PostureField::MaxResultChars => "results may now hand the model more text",
        PostureField::Loading => "the tool is now loaded differently",
        PostureField::ClassifierInput => "the safety classifier is now skipped for its calls",
        PostureField::Internal => "the tool is now exposed in the ordinary pool",
        PostureField::Access => {
            "calls may now share a batch with any call whose declared access they do not touch"
        }
        PostureField::Idempotent => "clients are now told a repeated call does nothing more",
        PostureField::OpenWorld => "clients are now told calls stay within a closed world",
        PostureField::RuleOfTwo => {
            "calls now bring fewer Rule of Two properties, so fewer combinations ask a person"
        }
    }
}

/// How much a value of `field` lets through: higher is looser. Per-input
/// sits between the two fixed answers (it is the looser one for some
/// calls). `None` for a field that is not a safety ordering: `loading` is
/// part of the definition, whose changes are reported as such.
pub(super) fn permissiveness(field: PostureField, value: &PostureValue) -> Option<u128> {
    use PostureKind::{Fixed, NotReadOnly, PerInput};
    Some(match (field, value) {
        (PostureField::Loading, _) => return None,
        (PostureField::ConcurrencySafe | PostureField::ReadOnly, PostureValue::Kind(kind)) => {
            match kind {
                Fixed(false) => 0,
                PerInput(_) | NotReadOnly => 1,
                Fixed(true) => 2,
            }
        }
        (PostureField::Destructive, PostureValue::Kind(kind)) => match kind {
            Fixed(true) => 0,
            PerInput(_) | NotReadOnly => 1,
            Fixed(false) => 2,
        },
        (PostureField::MaxResultChars, PostureValue::Cap(cap)) => match cap {
            ResultCap::Chars(n) => n.get() as u128,
            ResultCap::Unbounded => u128::MAX,
        },
        (PostureField::ClassifierInput | PostureField::Internal, PostureValue::Flag(strict)) => {
            u128::from(!*strict)
        }
        // Hints that promise more when declared: `idempotent: true`,
        // `open_world: false`.
        (PostureField::Idempotent, PostureValue::Flag(idempotent)) => u128::from(*idempotent),
        (PostureField::OpenWorld, PostureValue::Flag(open)) => u128::from(!*open),
        // Sets are ordered by inclusion (`check.rs` compares them); alone,
        // a set ranks by how few properties it holds.
        (PostureField::RuleOfTwo, PostureValue::Exposures(set)) => {
            (3 - set.map_or(3, |set| set.len())) as u128
        }
        // A declared access only ever lets calls run beside more calls
        // than the boolean rule does.
        (PostureField::Access, PostureValue::Access(kind)) => match kind {
            AccessKind::FromConcurrencySafe => 0,
            AccessKind::PerInput(_) => 1,
        },
        // A value of the wrong shape never comes out of a posture record;
        // should it, it ranks loosest, so the check fails.
        _ => u128::MAX,
    })
}

/// How a definition changed: the fields that differ and how.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DefinitionChange {
    /// The tool.
    pub tool: String,
    /// The hash in the lock.
    pub old_hash: String,
    /// The hash of the definition now.
    pub new_hash: String,
    /// The old and new description, when it changed.
    pub description: Option<(String, String)>,
    /// Every difference in the input schema, by JSON path.
    pub input_schema: Vec<JsonChange>,
    /// The old and new loading, when it changed.
    pub loading: Option<(Loading, Loading)>,
}

impl DefinitionChange {
    /// What changed, without the advice line.
    fn write_finding(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "definition of `{}` changed ({} -> {}): the prompt cache will miss.",
            self.tool, self.old_hash, self.new_hash
        )?;
        if let Some((old, new)) = &self.description {
            f.write_str("\n  description:")?;
            write_description_diff(f, old, new)?;
        }
        if !self.input_schema.is_empty() {
            f.write_str("\n  input_schema:")?;
            for change in &self.input_schema {
                write!(f, "\n    {change}")?;
            }
        }
        if let Some((old, new)) = &self.loading {
            write!(f, "\n  loading: {old} -> {new}")?;
        }
        Ok(())
    }
}

impl fmt::Display for DefinitionChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_finding(f)?;
        write!(f, "\n{}", definition_advice())
    }
}

fn definition_advice() -> String {
    format!("If the change is intended, review it and update the lock with `{UPDATE_HINT}`.")
}

/// Changed description lines with one line of context, `…` for the rest.
fn write_description_diff(f: &mut fmt::Formatter<'_>, old: &str, new: &str) -> fmt::Result {
    let lines = line_diff(old, new);
    let changed: Vec<bool> = lines.iter().map(|l| !matches!(l, Line::Same(_))).collect();
    if !changed.contains(&true) {
        // Only line endings or trailing whitespace differ.
        return write!(f, "\n    - {old:?}\n    + {new:?}");
    }
    let near_change =
        |i: usize| changed[i.saturating_sub(1)..=(i + 1).min(changed.len() - 1)].contains(&true);
    let mut skipped = false;
    for (i, line) in lines.iter().enumerate() {
        if !near_change(i) {
            if !skipped {
                f.write_str("\n      …")?;
                skipped = true;
            }
            continue;
        }
        skipped = false;
        match line {
            Line::Same("") => f.write_str("\n")?,
            Line::Same(text) => write!(f, "\n      {text}")?,
            Line::Old(text) => write!(f, "\n    - {text}")?,
            Line::New(text) => write!(f, "\n    + {text}")?,
        }
    }
    Ok(())
}

/// A difference between the lock and the catalog that fails the check.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum LockProblem {
    /// A locked tool is gone and its name is no name or alias of any tool:
    /// old transcripts that call it would break.
    Vanished {
        /// The locked name.
        name: String,
        /// Its locked aliases that no longer resolve either.
        lost_aliases: Vec<String>,
    },
    /// A locked alias no longer resolves to any tool.
    AliasRemoved {
        /// The tool that had the alias.
        tool: String,
        /// The alias.
        alias: String,
    },
    /// The rendered definition (name, description, input schema, loading,
    /// input examples, strict) changed: the prompt cache will miss.
    DefinitionChanged(DefinitionChange),
    /// A posture field is looser than the lock says (see [`crate::catalog::lock`]
    /// for the table). A change between two per-input values counts as
    /// loosening: the lock cannot tell.
    Loosened {
        /// The tool as named now.
        tool: String,
        /// The locked name, when the tool was renamed (its old name is now
        /// an alias).
        renamed_from: Option<String>,
        /// The field.
        field: PostureField,
        /// The locked value.
        old: PostureValue,
        /// The value now.
        new: PostureValue,
    },
    /// A tool is not in the lock: an unlocked tool escapes review.
    NewTool {
        /// The tool.
        name: String,
    },
    /// A tool's `#[tool(cfg(...))]` gate differs from the locked one, so it
    /// is compiled into other builds than were reviewed: a gate dropped
    /// ships a test-only tool, a gate added can remove a tool from every
    /// build unseen. Whether the new gate is narrower cannot be told in
    /// general, so every change fails until the lock is updated.
    GateChanged {
        /// The tool.
        tool: String,
        /// The locked predicate (`None`: ungated).
        old: Option<String>,
        /// The predicate now (`None`: ungated).
        new: Option<String>,
    },
}

impl LockProblem {
    /// What was found, without the advice.
    fn write_finding(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockProblem::Vanished { name, lost_aliases } => {
                write!(
                    f,
                    "tool `{name}` vanished and `{name}` is not an alias of any tool: old transcripts that call it would break."
                )?;
                if !lost_aliases.is_empty() {
                    write!(
                        f,
                        " Its aliases {} no longer resolve either.",
                        backticked(lost_aliases)
                    )?;
                }
                Ok(())
            }
            LockProblem::AliasRemoved { tool, alias } => write!(
                f,
                "alias `{alias}` of `{tool}` no longer resolves to any tool: old transcripts that call `{alias}` would break."
            ),
            LockProblem::DefinitionChanged(change) => change.write_finding(f),
            LockProblem::Loosened {
                tool,
                renamed_from,
                field,
                old,
                new,
            } => {
                let renamed = renamed_from
                    .as_ref()
                    .map(|old_name| format!(" (renamed from `{old_name}`)"))
                    .unwrap_or_default();
                if permissiveness(*field, old) == permissiveness(*field, new) {
                    write!(
                        f,
                        "posture of `{tool}`{renamed}: `{field}` changed from {old} to {new}; \
                         the lock cannot tell whether that is looser, so it counts as loosening."
                    )
                } else {
                    write!(
                        f,
                        "posture of `{tool}`{renamed} loosened: `{field}` {old} -> {new}; {}.",
                        loosening_means(*field)
                    )
                }
            }
            LockProblem::NewTool { name } => write!(
                f,
                "new tool `{name}` is not in the lock: an unlocked tool escapes review."
            ),
            LockProblem::GateChanged { tool, old, new } => {
                let gate = |g: &Option<String>| {
                    g.as_ref()
                        .map_or_else(|| "no gate".to_owned(), |g| format!("`cfg({g})`"))
                };
                write!(
                    f,
                    "the compile-time gate of `{tool}` changed: {} -> {}; it is now compiled into other builds than were reviewed.",
                    gate(old),
                    gate(new)
                )
            }
        }
    }

    /// What to do about it.
    fn advice(&self) -> String {
        match self {
            LockProblem::Vanished { name, .. } => format!(
                "Restore the tool, or add `{name}` to the aliases of the tool that replaces it; \
                 if dropping it is intended, update the lock with `{UPDATE_HINT}` after review."
            ),
            LockProblem::AliasRemoved { tool, .. } => format!(
                "Put the alias back (on `{tool}` or on the tool that replaces it); \
                 if dropping it is intended, update the lock with `{UPDATE_HINT}` after review."
            ),
            LockProblem::DefinitionChanged(_) => definition_advice(),
            LockProblem::Loosened { .. } => format!(
                "Restore the stricter value; if the looser one is intended, have it reviewed, \
                 then update the lock with `{UPDATE_HINT}`."
            ),
            LockProblem::NewTool { .. } => {
                format!("Run `{UPDATE_HINT}` and commit the lock.")
            }
            LockProblem::GateChanged { .. } => format!(
                "Restore the gate; if the change is intended, have it reviewed, then update the lock with `{UPDATE_HINT}`."
            ),
        }
    }
}

/// The finding alone, for reports of changes an update already accepted.
struct Finding<'a>(&'a LockProblem);

impl fmt::Display for Finding<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_finding(f)
    }
}

impl fmt::Display for LockProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_finding(f)?;
        write!(f, "\n{}", self.advice())
    }
}

/// A difference between the lock and the catalog that passes the check.
/// The lock file is then out of date: updating it records the change.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum LockNote {
    /// A locked tool is gone but its name is now an alias of `tool`.
    Renamed {
        /// The locked name.
        old: String,
        /// The tool it resolves to now.
        tool: String,
    },
    /// A locked alias now resolves to another tool.
    AliasMoved {
        /// The alias.
        alias: String,
        /// The tool it belonged to in the lock.
        from: String,
        /// The tool it resolves to now.
        to: String,
    },
    /// A tool has an alias the lock does not know.
    AliasAdded {
        /// The tool.
        tool: String,
        /// The new alias.
        alias: String,
    },
    /// A posture field is stricter than the lock says.
    Tightened {
        /// The tool as named now.
        tool: String,
        /// The field.
        field: PostureField,
        /// The locked value.
        old: PostureValue,
        /// The value now.
        new: PostureValue,
    },
    /// A posture value is unchanged, but it is now declared where it was the
    /// default (or the other way round).
    SourceChanged {
        /// The tool.
        tool: String,
        /// The field.
        field: PostureField,
        /// Where the value comes from now.
        now: Source,
    },
    /// A tool compiled out of this build has no entry yet, so nothing about
    /// it could be checked.
    CompiledOutUnlocked {
        /// The tool.
        tool: String,
        /// The gate that does not hold in this build.
        gate: String,
    },
    /// An update created the lock file.
    Created,
    /// An update replaced a lock file that could not be used.
    Replaced {
        /// Why the old file could not be used.
        reason: String,
    },
}

impl fmt::Display for LockNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockNote::Renamed { old, tool } => write!(
                f,
                "tool `{old}` was renamed: `{old}` is now an alias of `{tool}`, so old transcripts still resolve"
            ),
            LockNote::AliasMoved { alias, from, to } => {
                write!(f, "alias `{alias}` of `{from}` now resolves to `{to}`")
            }
            LockNote::AliasAdded { tool, alias } => {
                write!(f, "`{tool}` has a new alias `{alias}`")
            }
            LockNote::Tightened {
                tool,
                field,
                old,
                new,
            } => write!(f, "posture of `{tool}` tightened: `{field}` {old} -> {new}"),
            LockNote::SourceChanged { tool, field, now } => match now {
                Source::Declared => write!(
                    f,
                    "`{field}` of `{tool}` is now declared (it was the default); the value is unchanged"
                ),
                Source::Default => write!(
                    f,
                    "`{field}` of `{tool}` is now the default (it was declared); the value is unchanged"
                ),
            },
            LockNote::CompiledOutUnlocked { tool, gate } => write!(
                f,
                "`{tool}` is compiled out of this build (`cfg({gate})` does not hold) and the lock has no entry for it: \
                 update the lock in a build that compiles it"
            ),
            LockNote::Created => f.write_str("the lock file did not exist and was created"),
            LockNote::Replaced { reason } => {
                write!(
                    f,
                    "the previous lock file could not be used and was replaced: {reason}"
                )
            }
        }
    }
}

/// What a passing check or an update found.
///
/// Its [`Display`](fmt::Display) is the text
/// a test shows when it prints the report of [`check`](super::check).
#[derive(Debug, Clone)]
pub struct LockReport {
    pub(super) path: PathBuf,
    pub(super) tools: usize,
    pub(super) notes: Vec<LockNote>,
    pub(super) accepted: Vec<LockProblem>,
    pub(super) outcome: Outcome,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Outcome {
    Verified { up_to_date: bool },
    Updated { wrote: bool },
}

impl LockReport {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// How many tools the catalog has.
    pub fn tool_count(&self) -> usize {
        self.tools
    }
    /// Changes that passed: tightenings, renames to aliases, new aliases...
    pub fn notes(&self) -> &[LockNote] {
        &self.notes
    }
    /// After an update: the problems the update accepted into the lock
    /// (each would have failed a check). Empty after a check.
    pub fn accepted(&self) -> &[LockProblem] {
        &self.accepted
    }
    /// Whether this was an update ([`LockMode::Update`](super::LockMode),
    /// or the environment asked for one) rather than a check.
    pub fn was_update(&self) -> bool {
        matches!(self.outcome, Outcome::Updated { .. })
    }
    /// Whether an update wrote the file (it writes only when the bytes
    /// change).
    pub fn wrote_file(&self) -> bool {
        matches!(self.outcome, Outcome::Updated { wrote: true })
    }
    /// Whether the file holds exactly what an update would write now: after
    /// a check, `false` means there are notes (or formatting) to record;
    /// after an update, always `true`.
    pub fn is_up_to_date(&self) -> bool {
        match self.outcome {
            Outcome::Verified { up_to_date } => up_to_date,
            Outcome::Updated { .. } => true,
        }
    }
}

impl fmt::Display for LockReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        let tools = self.tools;
        match self.outcome {
            Outcome::Verified { .. } => write!(
                f,
                "catalog lock `{path}` matches the tool catalog ({tools} tools)."
            )?,
            Outcome::Updated { wrote: true } => {
                write!(f, "catalog lock `{path}` updated ({tools} tools).")?;
            }
            Outcome::Updated { wrote: false } => write!(
                f,
                "catalog lock `{path}` is already up to date ({tools} tools); nothing written."
            )?,
        }
        if !self.accepted.is_empty() {
            f.write_str(
                "\nAccepted into the lock (each would have failed a check; review them in the diff before committing):",
            )?;
            for problem in &self.accepted {
                write!(f, "\n{}", bulleted(&Finding(problem).to_string()))?;
            }
        }
        if !self.notes.is_empty() {
            f.write_str("\nNotes (these pass):")?;
            for note in &self.notes {
                write!(f, "\n{}", bulleted(&note.to_string()))?;
            }
        }
        if !self.is_up_to_date() {
            write!(
                f,
                "\nThe lock file differs from what an update would write: run `{UPDATE_HINT}` to record this, and commit `{path}`."
            )?;
        }
        Ok(())
    }
}

/// The text of [`LockError::Mismatch`].
pub(super) fn mismatch_message(
    path: &Path,
    problems: &[LockProblem],
    notes: &[LockNote],
) -> String {
    let mut out = format!(
        "catalog lock `{}` does not match the tool catalog: {} problem(s)\n",
        path.display(),
        problems.len()
    );
    for (i, problem) in problems.iter().enumerate() {
        let number = format!("{}. ", i + 1);
        let pad = " ".repeat(number.len());
        for (j, line) in problem.to_string().lines().enumerate() {
            let prefix = match j {
                0 => number.as_str(),
                _ if line.is_empty() => "",
                _ => pad.as_str(),
            };
            let _ = write!(out, "\n{prefix}{line}");
        }
    }
    if !notes.is_empty() {
        out.push_str("\n\nNotes (these pass):");
        for note in notes {
            let _ = write!(out, "\n{}", bulleted(&note.to_string()));
        }
    }
    let _ = write!(
        out,
        "\n\nFix each problem above, or, once the changes are reviewed and intended, update the lock:\n    {UPDATE_HINT}\nand commit `{}`.",
        path.display()
    );
    out
}

/// `  - ` before the first line, aligned continuation lines.
fn bulleted(text: &str) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(match i {
            0 => "  - ",
            _ if line.is_empty() => "",
            _ => "    ",
        });
        out.push_str(line);
    }
    out
}

fn backticked(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
