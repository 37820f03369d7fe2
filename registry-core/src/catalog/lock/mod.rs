//! The catalog lock: a committed file (`tools.lock.json`) recording, for
//! every tool of the catalog, its name, aliases, a hash of its rendered
//! definition, the definition itself and its safety posture. A test compares
//! the catalog with it, so that a change which would break old transcripts,
//! miss the prompt cache or loosen a safety posture cannot land without
//! someone updating the lock, which shows up in review.
//!
//! Available with the crate feature `lock`, meant for test builds only:
//!
//! ```toml
//! [dev-dependencies]
//! registry-core = { version = "0.1", features = ["lock"] }
//! ```
//!
//! One entry point, [`check`], with [`LockOptions`]:
//!
//! ```no_run
//! // tests/catalog_lock.rs of a crate that declares tools. A crate testing
//! // tools of a dependency also writes `registry_core::link!(that_crate);`.
//! use registry_core::catalog::lock::{self, LockOptions};
//!
//! #[test]
//! fn the_catalog_matches_its_lock() {
//!     let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tools.lock.json");
//!     let report = lock::check(path, &LockOptions::new()).unwrap_or_else(|err| panic!("{err}"));
//!     // Notes (tightenings, renames to aliases) pass; show them anyway.
//!     eprintln!("{report}");
//! }
//! # fn main() {}
//! ```
//!
//! After reviewing an intended change, update the lock and commit it:
//!
//! ```text
//! REGISTRY_UPDATE_LOCK=1 cargo test
//! ```
//!
//! # What the check covers
//!
//! By default [`check`] builds the catalog with
//! [`BaseTools::linked`](crate::catalog::BaseTools::linked)`(&`[`Flags::all()`](crate::catalog::Flags::all)`)`,
//! so tools behind a runtime flag are locked too;
//! [`LockOptions::flags`] narrows that, [`LockOptions::tools`] takes any set
//! of tools instead. A tool gated with `#[tool(cfg(...))]` is recorded with
//! its predicate ([`LockEntry::cfg`]). In a build where its gate does not
//! hold, its entry is neither checked nor called vanished, and an update
//! keeps it: one lock file serves every feature set. Update the lock in a
//! build that compiles every gated tool (e.g. `--all-features`), and run
//! the check in CI in such a build too: a compiled-out tool's posture is
//! only checked where it is compiled. A compiled-out tool the lock does not
//! know yet passes with a note saying so. A changed gate fails (see 5.
//! below).
//!
//! # What fails
//!
//! Every problem is listed, not just the first, each with what to do. The
//! check fails when:
//!
//! 1. **a tool vanished** and its name is not an alias of any tool: old
//!    transcripts that call it would break. If the name is now an alias of
//!    another tool, that is a rename and passes with a note. A locked
//!    **alias that no longer resolves** fails the same way.
//! 2. **a definition changed**: the canonical JSON of
//!    `{name, description, input_schema, loading}` hashes differently, so
//!    the prompt cache will miss. The message shows the changed description
//!    lines and every input-schema difference as a JSON Pointer.
//! 3. **a posture was loosened**, field by field:
//!
//!    | field | loosening (fails) | tightening (passes, with a note) |
//!    |---|---|---|
//!    | `concurrency_safe` | `false` → per input or `true`; per input → `true` | the reverse |
//!    | `read_only` | `false` → per input or `true`; per input → `true` | the reverse |
//!    | `destructive` | `true` → per input or `false`; per input → `false` | the reverse |
//!    | `max_result_chars` | raised, or bounded → `unbounded` | lowered, or `unbounded` → bounded |
//!    | `classifier_input` | some → none (the safety classifier is skipped) | none → some |
//!    | `internal` | internal → exposed | exposed → internal |
//!    | `access` | undeclared → declared (per input): calls may now share batches | declared → undeclared |
//!    | aliases | an alias no longer resolves (as 1.) | an alias added, or moved to another tool |
//!
//!    The value compared is the one in force, declared or not. An undeclared
//!    `destructive` is "not read-only", so declaring `read_only = true` on a
//!    tool that declared neither loosens two fields (`read_only` false →
//!    true, `destructive` true → false) and fails twice; declaring a per-input
//!    `read_only` makes the undeclared `destructive` per input too
//!    (`not_read_only` in the file).
//!
//!    A change from one per-input value to another fails too: the lock
//!    cannot tell which way it goes. Posture expressions are compared as
//!    token text: whitespace between tokens does not matter (a compiler
//!    printing the same tokens differently does not fail the check), but
//!    whitespace inside string and character literals does (`"read only"`
//!    and `"readonly"` differ). Runtime tools built with
//!    [`ToolBuilder`](crate::declare::ToolBuilder)'s `*_when` all record
//!    `<runtime closure>`, so such changes are not seen for them. Only the
//!    expression is locked, not the body of a function it names: editing
//!    `is_read_only_command` itself is invisible to the lock, so keep such
//!    functions under their own table tests. A renamed tool is held to its
//!    old entry's posture: loosening across a rename fails. A value that
//!    changes only from default to declared, or back, passes with a note.
//! 4. **a tool is new**: it passes every rule above but is not in the lock,
//!    and an unlocked tool escapes review, so the check fails until the
//!    lock is updated and committed. This is also why a rename fails until
//!    the lock is updated: the new name is a new tool.
//! 5. **a gate changed**: a tool's `cfg` predicate differs from the locked
//!    one, including a locked ungated tool that a new gate compiles out of
//!    this build. Dropping `cfg(test)` ships a test-only tool; adding
//!    `cfg(feature = "never")` removes a tool from every build. Whether a
//!    new gate is narrower cannot be told in general, so every change fails
//!    until the lock is updated.
//!
//! The lock file itself being missing, unreadable, malformed, of another
//! format version, or edited by hand (a hash that does not match its
//! recorded definition) is a typed [`LockError`] naming the path.
//!
//! # Notes
//!
//! Changes that pass (tightenings, renames to an alias, added aliases) are
//! returned in the [`LockReport`]; [`check`] prints nothing. A passing
//! check with notes leaves the file out of date
//! ([`LockReport::is_up_to_date`]); updating records them.
//!
//! # Updating
//!
//! With [`LockMode::FromEnv`] (the default), setting `REGISTRY_UPDATE_LOCK`
//! to anything but empty or `0` makes [`check`] write the lock instead of
//! failing, and report what it accepted, except under CI (see
//! [`update_requested`]). [`LockMode::Update`] always writes;
//! [`LockMode::Verify`] never does. The file is written only when its
//! bytes change.
//!
//! # The file
//!
//! Canonical JSON (keys in byte order at every depth, two-space indent,
//! ending in a newline): `about`, `tools` (an object keyed by tool name, so
//! sorted by name) and `version` (`LOCK_VERSION`). Each tool records
//! `aliases` (sorted), `description`, `hash` (`sha256:` and 64 hex digits
//! of the compact canonical definition, see
//! [`LockEntry::canonical_definition`]), `input_schema`, `input_examples`
//! and `strict` when declared (both hashed), `posture` (the
//! serde form of [`SafetyPosture`]: each field `{"declared": value}` or
//! `{"default": value}`, a per-input value `{"per_input": "<expression>"}`;
//! its `loading` is also part of the hashed definition, so a change to it
//! is reported as a definition change) and, for a tool compiled in only
//! under a `#[cfg]`, `cfg`. Updating twice writes identical bytes.
//!
//! Relative paths are resolved against the current directory, which
//! `cargo test` sets to the package root; `concat!(env!("CARGO_MANIFEST_DIR"),
//! "/tools.lock.json")` says so explicitly.

mod check;
mod diff;
mod expr;
mod options;
mod report;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::catalog::CatalogError;
use crate::catalog::base_list::BaseTools;
use crate::declare::posture::SafetyPosture;
use crate::input::handle::ToolHandle;
use crate::text::{to_canonical_pretty, to_canonical_string};

pub use diff::JsonChange;
pub use options::{LockMode, LockOptions, check, update_requested};
pub use report::{DefinitionChange, LockNote, LockProblem, LockReport};

/// What every message tells a reader to run once a change is reviewed.
pub(crate) const UPDATE_HINT: &str = "REGISTRY_UPDATE_LOCK=1 cargo test";

/// The `about` text written at the top of every lock file.
const ABOUT: &str = "Catalog lock of registry_core (see registry_core::catalog::lock). \
    Do not edit by hand: review the tool changes, then regenerate with REGISTRY_UPDATE_LOCK=1 cargo test, and commit.";

/// The version of the lock file format this crate reads and writes.
///
/// Version 2: SHA-256 definition hashes, and the posture as one
/// [`SafetyPosture`] record whose every value carries its source.
pub(crate) const LOCK_VERSION: u32 = 2;

/// The prefix of every definition hash: the algorithm, so a future format
/// can change it without ambiguity.
const HASH_PREFIX: &str = "sha256:";

/// A lock file could not be read, written or checked, or the catalog does
/// not match it. Every message says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LockError {
    /// The lock file does not exist.
    #[error(
        "catalog lock `{}` does not exist: create it with `{UPDATE_HINT}`, review it and commit it",
        path.display()
    )]
    NotFound {
        /// The lock file.
        path: PathBuf,
    },
    /// The lock file exists but could not be read.
    #[error(
        "catalog lock `{}` could not be read: {source} (once it is readable, `{UPDATE_HINT}` rewrites it)",
        path.display()
    )]
    Read {
        /// The lock file.
        path: PathBuf,
        /// What the file system said.
        #[source]
        source: std::io::Error,
    },
    /// The lock file is not JSON.
    #[error(
        "catalog lock `{}` is not valid JSON: {source}; regenerate it with `{UPDATE_HINT}` (it is not meant to be edited by hand)",
        path.display()
    )]
    Syntax {
        /// The lock file.
        path: PathBuf,
        /// What the JSON parser said, with line and column.
        #[source]
        source: serde_json::Error,
    },
    /// The lock file is JSON but not a lock.
    #[error(
        "catalog lock `{}` is malformed at `{at}`: {message}; regenerate it with `{UPDATE_HINT}` (it is not meant to be edited by hand)",
        path.display()
    )]
    Invalid {
        /// The lock file.
        path: PathBuf,
        /// The path of the offending field inside the document.
        at: String,
        /// What is wrong with it.
        message: String,
    },
    /// The lock file was written by another version of the format.
    #[error(
        "catalog lock `{}` is in format version {found}, but this registry-core reads only version {supported} \
         (version 2 hashes definitions with SHA-256 and records each posture value with its source): \
         regenerate it with `{UPDATE_HINT}`, review the diff and commit it",
        path.display()
    )]
    UnsupportedVersion {
        /// The lock file.
        path: PathBuf,
        /// The `version` found, as JSON.
        found: String,
        /// The version this crate reads (`LOCK_VERSION`).
        supported: u32,
    },
    /// An entry's recorded hash does not match its recorded definition: the
    /// file was edited by hand.
    #[error(
        "catalog lock `{}`: the entry of `{tool}` records hash {recorded}, but its recorded definition hashes to {computed}; \
         the file was edited by hand: regenerate it with `{UPDATE_HINT}`",
        path.display()
    )]
    HashMismatch {
        /// The lock file.
        path: PathBuf,
        /// The tool whose entry is inconsistent.
        tool: String,
        /// The hash in the file.
        recorded: String,
        /// The hash of the definition in the file.
        computed: String,
    },
    /// Two tools handed to the lock claim the same name or alias, so the
    /// lock could not say which one a name means.
    #[error(
        "`{name}` is claimed by both tool `{first}` and tool `{second}`: a catalog lock needs every name and alias to be unique \
         (no lock was checked or written; fix the tool set first)"
    )]
    DuplicateName {
        /// The contested name.
        name: String,
        /// One claimant.
        first: String,
        /// The other claimant.
        second: String,
    },
    /// The catalog could not be built, so there was nothing to check.
    #[error("the tool catalog could not be built, so the catalog lock was not checked: {0}")]
    Catalog(#[from] CatalogError),
    /// The lock file could not be written.
    #[error("catalog lock `{}` could not be written: {source}", path.display())]
    Write {
        /// The lock file.
        path: PathBuf,
        /// What the file system said.
        #[source]
        source: std::io::Error,
    },
    /// The catalog does not match the lock: every problem found, and the
    /// notes that would pass on their own.
    #[error("{}", report::mismatch_message(path, problems, notes))]
    Mismatch {
        /// The lock file.
        path: PathBuf,
        /// Every problem, in a stable order (locked tools by name, then new
        /// tools by name).
        problems: Vec<LockProblem>,
        /// Changes that pass (tightenings, renames to aliases, new aliases).
        notes: Vec<LockNote>,
    },
}

/// One tool's entry in a [`CatalogLock`]; its serde form is the entry's
/// form in the file (the name is the key it is filed under).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[doc(hidden)]
pub struct LockEntry {
    #[serde(skip)]
    name: String,
    aliases: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cfg: Option<String>,
    description: String,
    hash: String,
    input_schema: Value,
    /// Example inputs the model is sent (absent when none, so locks
    /// written before the field existed keep their hashes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    input_examples: Vec<Value>,
    posture: SafetyPosture,
    /// Whether the provider is asked to hold the model to the schema
    /// (absent when not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    strict: bool,
}

impl LockEntry {
    /// The entry of one tool as it is now.
    pub fn of(tool: &ToolHandle) -> Self {
        let spec = tool.spec();
        let mut aliases = spec.aliases().to_vec();
        aliases.sort();
        let mut entry = LockEntry {
            name: spec.name().to_owned(),
            aliases,
            cfg: None,
            description: spec.description().to_owned(),
            hash: String::new(),
            // What providers are sent: without `$schema` and the Rust type
            // name in `title`, so renaming an input struct does not fail
            // the lock.
            input_schema: crate::input::provider_input_schema(tool),
            input_examples: spec.input_examples().to_vec(),
            posture: spec.posture().clone(),
            strict: spec.strict(),
        };
        entry.hash = entry.computed_hash();
        entry
    }

    /// The model-facing name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The aliases, sorted.
    pub fn aliases(&self) -> &[String] {
        &self.aliases
    }
    /// The `#[cfg]` predicate the tool is compiled under
    /// (`#[tool(cfg(...))]`), e.g. `feature = "web"`; `None` for an ungated
    /// tool. Not part of the hashed definition.
    pub fn cfg(&self) -> Option<&str> {
        self.cfg.as_deref()
    }
    /// `sha256:` and 64 hex digits: the hash of
    /// [`canonical_definition`](Self::canonical_definition).
    pub fn hash(&self) -> &str {
        &self.hash
    }
    /// The description the model reads.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// The input schema the model reads.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }
    /// The locked safety posture.
    pub fn posture(&self) -> &SafetyPosture {
        &self.posture
    }
    /// Example inputs the model is sent.
    pub fn input_examples(&self) -> &[Value] {
        &self.input_examples
    }
    /// Whether the provider is asked to hold the model to the schema.
    pub fn strict(&self) -> bool {
        self.strict
    }
    /// The exact text that is hashed: compact canonical JSON of
    /// `{description, input_schema, loading, name}`, `loading` being
    /// `eager`, `deferred` or `always`, with `input_examples` and
    /// `"strict": true` when the tool declares them (what the model is
    /// sent; left out otherwise, so older hashes hold).
    pub fn canonical_definition(&self) -> String {
        let mut definition = json!({
            "description": self.description,
            "input_schema": self.input_schema,
            "loading": self.posture.loading().value(),
            "name": self.name,
        });
        if let Value::Object(map) = &mut definition {
            if !self.input_examples.is_empty() {
                map.insert(
                    "input_examples".into(),
                    Value::Array(self.input_examples.clone()),
                );
            }
            if self.strict {
                map.insert("strict".into(), Value::Bool(true));
            }
        }
        to_canonical_string(&definition)
    }

    fn computed_hash(&self) -> String {
        let digest = Sha256::digest(self.canonical_definition().as_bytes());
        format!("{HASH_PREFIX}{digest:x}")
    }
}

/// A catalog lock: one [`LockEntry`] per tool, keyed and sorted by name.
///
/// Built from tools with [`from_tools`](Self::from_tools), read from a file
/// with [`read`](Self::read), written byte-stably with
/// [`write`](Self::write). Test suites use [`check`], which compares a file
/// against the catalog.
///
/// ```
/// use registry_core::catalog::lock::CatalogLock;
/// use registry_core::{ToolBuilder, ToolOutput};
///
/// let echo = ToolBuilder::new("echo", "Repeat the text.")
///     .aliases(["say"])
///     .read_only(true)
///     .build(|args, _cx| async move { Ok(ToolOutput::text(args.to_string())) })
///     .unwrap();
/// let lock = CatalogLock::from_tools([&echo]).unwrap();
/// let text = lock.to_json();
/// assert!(text.ends_with("}\n"));
/// let again = CatalogLock::parse(&text, "tools.lock.json").unwrap();
/// assert_eq!(again, lock);
/// assert_eq!(again.to_json(), text, "byte-stable");
/// assert_eq!(lock.get("echo").unwrap().aliases(), ["say"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[doc(hidden)]
pub struct CatalogLock {
    tools: BTreeMap<String, LockEntry>,
    /// Tools of the catalog a `#[cfg]` gate compiled out of this build,
    /// with their gate: they cannot be locked from here, and their entries
    /// (if any) are carried over, neither vanished nor new. Empty for a
    /// lock read from a file.
    compiled_out: BTreeMap<String, String>,
}

/// The file as written.
#[derive(Serialize)]
struct FileOut<'a> {
    about: &'a str,
    tools: &'a BTreeMap<String, LockEntry>,
    version: u32,
}

/// The file as read: the same shape, `about` optional.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileIn {
    #[serde(default, rename = "about")]
    _about: Option<String>,
    tools: BTreeMap<String, LockEntry>,
    #[serde(rename = "version")]
    _version: u32,
}

impl CatalogLock {
    /// The lock of a set of tools (a [`BaseTools`], a
    /// slice of handles, a pool's handles...).
    ///
    /// Fails when two tools claim the same name or alias.
    pub fn from_tools<'a>(
        tools: impl IntoIterator<Item = &'a ToolHandle>,
    ) -> Result<Self, LockError> {
        let mut lock = CatalogLock::default();
        let mut claims: BTreeMap<String, String> = BTreeMap::new();
        for tool in tools {
            let entry = LockEntry::of(tool);
            for claimed in std::iter::once(&entry.name).chain(&entry.aliases) {
                if let Some(first) = claims.insert(claimed.clone(), entry.name.clone()) {
                    return Err(LockError::DuplicateName {
                        name: claimed.clone(),
                        first,
                        second: entry.name.clone(),
                    });
                }
            }
            lock.tools.insert(entry.name.clone(), entry);
        }
        Ok(lock)
    }

    /// The lock of the authoritative list: every compiled-in tool, each
    /// gated one with its `cfg`, plus the names of the tools a `#[cfg]` gate
    /// compiled out, so a check in this build neither calls their locked
    /// entries vanished nor drops them when it updates the file. One lock
    /// file thus serves every feature set.
    pub fn from_base(tools: &BaseTools) -> Result<Self, LockError> {
        let mut lock = Self::from_tools(tools)?;
        for entry in lock.tools.values_mut() {
            entry.cfg = tools.gate_of(&entry.name).map(ToString::to_string);
        }
        lock.compiled_out = tools
            .compiled_out()
            .iter()
            .map(|tool| (tool.name.to_owned(), tool.gate.to_string()))
            .collect();
        Ok(lock)
    }

    /// The tools a `#[cfg]` gate compiled out of the build this lock was
    /// made in, with their gate (see [`from_base`](Self::from_base)).
    pub fn compiled_out(&self) -> impl ExactSizeIterator<Item = (&str, &str)> {
        self.compiled_out
            .iter()
            .map(|(name, gate)| (name.as_str(), gate.as_str()))
    }

    /// This lock plus the entries `locked` holds for tools compiled out of
    /// this build, their `cfg` set to the gate in force: what an update
    /// writes, and what an up-to-date file holds.
    fn with_compiled_out_entries_of(&self, locked: &CatalogLock) -> CatalogLock {
        let mut merged = self.clone();
        for (name, gate) in &self.compiled_out {
            if let Some(entry) = locked.get(name) {
                let mut entry = entry.clone();
                entry.cfg = Some(gate.clone());
                merged.tools.insert(name.clone(), entry);
            }
        }
        merged
    }

    /// The entries, sorted by name (byte order).
    pub fn entries(&self) -> impl ExactSizeIterator<Item = &LockEntry> {
        self.tools.values()
    }

    /// The entry whose primary name is `name`.
    pub fn get(&self, name: &str) -> Option<&LockEntry> {
        self.tools.get(name)
    }

    /// How many tools are locked.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is locked.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The file contents: canonical JSON (keys in byte order at every depth,
    /// two-space indent) ending in a newline. The same lock always yields
    /// the same bytes.
    pub fn to_json(&self) -> String {
        let file = FileOut {
            about: ABOUT,
            tools: &self.tools,
            version: LOCK_VERSION,
        };
        // Every field is a string, number, bool, map with string keys or a
        // JSON value: serialising into a `Value` cannot fail.
        let document = serde_json::to_value(file).unwrap_or(Value::Null);
        let mut text = to_canonical_pretty(&document);
        text.push('\n');
        text
    }

    /// Parses a lock file's contents; `path` only names the file in errors.
    ///
    /// Checks the version, every field, and that every entry's hash matches
    /// its recorded definition.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Self, LockError> {
        let path = path.as_ref();
        let document: Value = serde_json::from_str(text).map_err(|source| LockError::Syntax {
            path: path.to_owned(),
            source,
        })?;
        if let Some(version) = document.get("version")
            && version.as_u64() != Some(u64::from(LOCK_VERSION))
        {
            return Err(LockError::UnsupportedVersion {
                path: path.to_owned(),
                found: to_canonical_string(version),
                supported: LOCK_VERSION,
            });
        }
        let file: FileIn =
            serde_path_to_error::deserialize(&document).map_err(|err| LockError::Invalid {
                path: path.to_owned(),
                at: err.path().to_string(),
                message: err.inner().to_string(),
            })?;

        let mut lock = CatalogLock::default();
        for (name, mut entry) in file.tools {
            entry
                .posture
                .check()
                .map_err(|message| LockError::Invalid {
                    path: path.to_owned(),
                    at: format!("tools.{name}.posture"),
                    message,
                })?;
            entry.name = name;
            entry.aliases.sort();
            let computed = entry.computed_hash();
            if computed != entry.hash {
                return Err(LockError::HashMismatch {
                    path: path.to_owned(),
                    tool: entry.name,
                    recorded: entry.hash,
                    computed,
                });
            }
            lock.tools.insert(entry.name.clone(), entry);
        }
        Ok(lock)
    }

    /// Reads and parses a lock file.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, LockError> {
        let path = path.as_ref();
        let text = read_lock_text(path)?;
        Self::parse(&text, path)
    }

    /// Writes the lock to `path` unless the file already holds exactly these
    /// bytes; answers whether it wrote.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<bool, LockError> {
        let path = path.as_ref();
        let text = self.to_json();
        if std::fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
            return Ok(false);
        }
        std::fs::write(path, text).map_err(|source| LockError::Write {
            path: path.to_owned(),
            source,
        })?;
        Ok(true)
    }

    /// The entry `name` resolves to now, by primary name or alias.
    fn resolver(&self) -> BTreeMap<&str, &LockEntry> {
        let mut names = BTreeMap::new();
        for entry in self.tools.values() {
            names.insert(entry.name.as_str(), entry);
            for alias in &entry.aliases {
                names.insert(alias.as_str(), entry);
            }
        }
        names
    }
}

/// Reads a lock file's text, telling "missing" apart from other failures.
fn read_lock_text(path: &Path) -> Result<String, LockError> {
    std::fs::read_to_string(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => LockError::NotFound {
            path: path.to_owned(),
        },
        _ => LockError::Read {
            path: path.to_owned(),
            source,
        },
    })
}

#[cfg(test)]
mod tests;
