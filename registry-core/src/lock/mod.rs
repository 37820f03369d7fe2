//! The catalog lock: a committed file (`tools.lock.json`) recording, for
//! every tool of the catalog, its name, aliases, a hash of its rendered
//! definition, the definition itself and its safety posture, so a change
//! that would break old transcripts, miss the prompt cache or loosen a
//! posture is caught in review. The rules and the file format are documented
//! on [`crate::testing`], the entry points used from test suites.
//!
//! This module holds the model and its (de)serialisation; `check` compares
//! two locks and `diff` shows what changed.

mod check;
mod diff;

use std::collections::BTreeMap;
use std::fmt;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};

use crate::canonical::{to_canonical_pretty, to_canonical_string};
use crate::error::CatalogError;
use crate::handle::ToolHandle;
use crate::posture::{Loading, PostureKind, ResultCap, Setting, Source};

pub use check::{DefinitionChange, LockNote, LockProblem, LockReport, PostureField, PostureValue};
pub(crate) use check::{update, verify};
pub use diff::JsonChange;

/// The environment variable that turns a lock check into a lock update.
pub(crate) const UPDATE_VAR: &str = "REGISTRY_UPDATE_LOCK";

/// What every message tells a reader to run once a change is reviewed.
pub(crate) const UPDATE_HINT: &str = "REGISTRY_UPDATE_LOCK=1 cargo test";

/// The `about` text written at the top of every lock file.
const ABOUT: &str = "Catalog lock of registry_core (see registry_core::testing). \
    Do not edit by hand: review the tool changes, then regenerate with REGISTRY_UPDATE_LOCK=1 cargo test, and commit.";

/// The version of the lock file format this crate reads and writes.
pub const LOCK_VERSION: u32 = 1;

/// The prefix of every definition hash: the algorithm, so a future format
/// can change it without ambiguity.
const HASH_PREFIX: &str = "fnv1a64:";

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
        "catalog lock `{}` has version {found}; this registry-core reads version {supported}: regenerate it with `{UPDATE_HINT}` and commit it",
        path.display()
    )]
    UnsupportedVersion {
        /// The lock file.
        path: PathBuf,
        /// The `version` found, as JSON.
        found: String,
        /// The version this crate reads ([`LOCK_VERSION`]).
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
    #[error("{}", check::mismatch_message(path, problems, notes))]
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

/// A tool's locked posture: every value the lock guards against loosening.
/// See [`crate::testing`] for what counts as loosening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedPosture {
    concurrency_safe: Setting<PostureKind>,
    read_only: Setting<PostureKind>,
    destructive: Setting<PostureKind>,
    max_result_chars: Setting<ResultCap>,
    classifier_input: Setting<bool>,
    internal: bool,
}

impl LockedPosture {
    /// May calls run alongside other concurrency-safe calls?
    pub fn concurrency_safe(&self) -> &Setting<PostureKind> {
        &self.concurrency_safe
    }
    /// Does a call only read?
    pub fn read_only(&self) -> &Setting<PostureKind> {
        &self.read_only
    }
    /// Can a call destroy data or state?
    pub fn destructive(&self) -> &Setting<PostureKind> {
        &self.destructive
    }
    /// The most characters a result may hand the model.
    pub fn max_result_chars(&self) -> &Setting<ResultCap> {
        &self.max_result_chars
    }
    /// Whether a safety classifier is handed text for each call.
    pub fn classifier_input(&self) -> &Setting<bool> {
        &self.classifier_input
    }
    /// Whether the tool is kept out of the ordinary pool.
    pub fn is_internal(&self) -> bool {
        self.internal
    }

    /// The value of one field.
    pub fn value(&self, field: PostureField) -> PostureValue {
        match field {
            PostureField::ConcurrencySafe => {
                PostureValue::Kind(self.concurrency_safe.value().clone())
            }
            PostureField::ReadOnly => PostureValue::Kind(self.read_only.value().clone()),
            PostureField::Destructive => PostureValue::Kind(self.destructive.value().clone()),
            PostureField::MaxResultChars => PostureValue::Cap(*self.max_result_chars.value()),
            PostureField::ClassifierInput => PostureValue::Flag(*self.classifier_input.value()),
            PostureField::Internal => PostureValue::Flag(self.internal),
        }
    }

    /// Whether one field was declared or left to its default; `None` for
    /// `internal`, which has no default to speak of.
    pub fn source(&self, field: PostureField) -> Option<Source> {
        match field {
            PostureField::ConcurrencySafe => Some(self.concurrency_safe.source()),
            PostureField::ReadOnly => Some(self.read_only.source()),
            PostureField::Destructive => Some(self.destructive.source()),
            PostureField::MaxResultChars => Some(self.max_result_chars.source()),
            PostureField::ClassifierInput => Some(self.classifier_input.source()),
            PostureField::Internal => None,
        }
    }

    fn to_value(&self) -> Value {
        let mut declared: Vec<&str> = PostureField::ALL
            .iter()
            .filter(|f| self.source(**f) == Some(Source::Declared))
            .map(|f| f.key())
            .collect();
        declared.sort_unstable();
        json!({
            "classifier_input": self.classifier_input.value(),
            "concurrency_safe": kind_value(self.concurrency_safe.value()),
            "declared": declared,
            "destructive": kind_value(self.destructive.value()),
            "internal": self.internal,
            "max_result_chars": match self.max_result_chars.value() {
                ResultCap::Chars(n) => json!(n.get()),
                ResultCap::Unbounded => json!("unbounded"),
            },
            "read_only": kind_value(self.read_only.value()),
        })
    }
}

fn kind_value(kind: &PostureKind) -> Value {
    match kind {
        PostureKind::Fixed(value) => json!(value),
        PostureKind::PerInput(expr) => json!({ "per_input": expr }),
    }
}

/// One tool's entry in a [`CatalogLock`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockEntry {
    name: String,
    aliases: Vec<String>,
    hash: String,
    description: String,
    input_schema: Value,
    loading: Loading,
    posture: LockedPosture,
}

impl LockEntry {
    /// The entry of one tool as it is now.
    pub fn of(tool: &ToolHandle) -> Self {
        let spec = tool.spec();
        let mut aliases = spec.aliases().to_vec();
        aliases.sort();
        let description = spec.description().to_owned();
        // What providers are sent: without `$schema` and the Rust type name
        // in `title`, so renaming an input struct does not fail the lock.
        let input_schema = crate::render::provider_input_schema(tool);
        let loading = *spec.loading().value();
        let hash = definition_hash(spec.name(), &description, &input_schema, loading);
        LockEntry {
            name: spec.name().to_owned(),
            aliases,
            hash,
            description,
            input_schema,
            loading,
            posture: LockedPosture {
                concurrency_safe: spec.concurrency_safe().clone(),
                read_only: spec.read_only().clone(),
                destructive: spec.destructive().clone(),
                max_result_chars: spec.max_result_chars().clone(),
                classifier_input: spec.has_classifier_input().clone(),
                internal: spec.is_internal(),
            },
        }
    }

    /// The model-facing name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The aliases, sorted.
    pub fn aliases(&self) -> &[String] {
        &self.aliases
    }
    /// `fnv1a64:` and 16 hex digits: the hash of
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
    /// Eager, deferred or always loaded.
    pub fn loading(&self) -> Loading {
        self.loading
    }
    /// The locked safety posture.
    pub fn posture(&self) -> &LockedPosture {
        &self.posture
    }
    /// The exact text that is hashed: compact canonical JSON of
    /// `{description, input_schema, loading, name}`, `loading` being
    /// `eager`, `deferred` or `always`.
    pub fn canonical_definition(&self) -> String {
        canonical_definition(
            &self.name,
            &self.description,
            &self.input_schema,
            self.loading,
        )
    }

    fn to_value(&self) -> Value {
        json!({
            "aliases": self.aliases,
            "description": self.description,
            "hash": self.hash,
            "input_schema": self.input_schema,
            "loading": self.loading.to_string(),
            "posture": self.posture.to_value(),
        })
    }
}

fn canonical_definition(name: &str, description: &str, schema: &Value, loading: Loading) -> String {
    to_canonical_string(&json!({
        "description": description,
        "input_schema": schema,
        "loading": loading.to_string(),
        "name": name,
    }))
}

fn definition_hash(name: &str, description: &str, schema: &Value, loading: Loading) -> String {
    let text = canonical_definition(name, description, schema, loading);
    format!("{HASH_PREFIX}{:016x}", fnv1a64(text.as_bytes()))
}

/// 64-bit FNV-1a: specified in a few lines, the same on every platform and
/// in every release, and needs no dependency. It is not collision-resistant
/// against an adversary, and it does not need to be: the lock also records
/// the definition itself, and the check compares that too.
fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(PRIME))
}

/// A catalog lock: one [`LockEntry`] per tool, keyed and sorted by name.
///
/// Built from tools with [`from_tools`](Self::from_tools), read from a file
/// with [`read`](Self::read), written byte-stably with
/// [`write`](Self::write). Test suites use the functions of
/// [`crate::testing`], which compare a file against the catalog.
///
/// ```
/// use registry_core::{CatalogLock, ToolBuilder, ToolOutput};
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
pub struct CatalogLock {
    tools: BTreeMap<String, LockEntry>,
}

impl CatalogLock {
    /// The lock of a set of tools (a [`BaseTools`](crate::BaseTools), a
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
        let tools: serde_json::Map<String, Value> = self
            .tools
            .iter()
            .map(|(name, entry)| (name.clone(), entry.to_value()))
            .collect();
        let document = json!({
            "about": ABOUT,
            "tools": tools,
            "version": LOCK_VERSION,
        });
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
        let file: FileRepr =
            serde_path_to_error::deserialize(&document).map_err(|err| LockError::Invalid {
                path: path.to_owned(),
                at: err.path().to_string(),
                message: err.inner().to_string(),
            })?;

        let mut lock = CatalogLock::default();
        for (name, entry) in file.tools {
            let entry = entry.into_entry(name);
            let computed = definition_hash(
                &entry.name,
                &entry.description,
                &entry.input_schema,
                entry.loading,
            );
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

impl fmt::Display for PostureValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PostureValue::Kind(PostureKind::Fixed(value)) | PostureValue::Flag(value) => {
                write!(f, "{value}")
            }
            PostureValue::Kind(PostureKind::PerInput(expr)) => write!(f, "per input (`{expr}`)"),
            PostureValue::Cap(cap) => write!(f, "{cap}"),
        }
    }
}

// ---- The file format, for parsing. Writing builds the JSON directly (see
// `to_value`), so nothing on the write path can fail.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRepr {
    #[serde(default)]
    #[allow(dead_code)]
    about: Option<String>,
    #[allow(dead_code)]
    version: u32,
    tools: BTreeMap<String, EntryRepr>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryRepr {
    aliases: Vec<String>,
    description: String,
    hash: String,
    input_schema: Value,
    loading: LoadingRepr,
    posture: PostureRepr,
}

impl EntryRepr {
    fn into_entry(self, name: String) -> LockEntry {
        let declared = |field: SourcedField| self.posture.declared.contains(&field);
        let setting = |value, field| {
            if declared(field) {
                Setting::declared(value)
            } else {
                Setting::default_value(value)
            }
        };
        let posture = LockedPosture {
            concurrency_safe: setting(
                self.posture.concurrency_safe.clone().into(),
                SourcedField::ConcurrencySafe,
            ),
            read_only: setting(
                self.posture.read_only.clone().into(),
                SourcedField::ReadOnly,
            ),
            destructive: setting(
                self.posture.destructive.clone().into(),
                SourcedField::Destructive,
            ),
            max_result_chars: if declared(SourcedField::MaxResultChars) {
                Setting::declared(self.posture.max_result_chars.into())
            } else {
                Setting::default_value(self.posture.max_result_chars.into())
            },
            classifier_input: if declared(SourcedField::ClassifierInput) {
                Setting::declared(self.posture.classifier_input)
            } else {
                Setting::default_value(self.posture.classifier_input)
            },
            internal: self.posture.internal,
        };
        let mut aliases = self.aliases;
        aliases.sort();
        LockEntry {
            name,
            aliases,
            hash: self.hash,
            description: self.description,
            input_schema: self.input_schema,
            loading: self.loading.into(),
            posture,
        }
    }
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum LoadingRepr {
    Eager,
    Deferred,
    Always,
}

impl From<LoadingRepr> for Loading {
    fn from(repr: LoadingRepr) -> Self {
        match repr {
            LoadingRepr::Eager => Loading::Eager,
            LoadingRepr::Deferred => Loading::Deferred,
            LoadingRepr::Always => Loading::AlwaysLoad,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PostureRepr {
    classifier_input: bool,
    concurrency_safe: KindRepr,
    declared: Vec<SourcedField>,
    destructive: KindRepr,
    internal: bool,
    max_result_chars: CapRepr,
    read_only: KindRepr,
}

/// The posture fields that record whether they were declared.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum SourcedField {
    ConcurrencySafe,
    ReadOnly,
    Destructive,
    MaxResultChars,
    ClassifierInput,
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum KindRepr {
    Fixed(bool),
    PerInput(PerInputRepr),
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct PerInputRepr {
    per_input: String,
}

impl From<KindRepr> for PostureKind {
    fn from(repr: KindRepr) -> Self {
        match repr {
            KindRepr::Fixed(value) => PostureKind::Fixed(value),
            KindRepr::PerInput(p) => PostureKind::PerInput(p.per_input),
        }
    }
}

#[derive(Deserialize, Clone, Copy)]
#[serde(untagged)]
enum CapRepr {
    Chars(NonZeroUsize),
    Unbounded(UnboundedRepr),
}

#[derive(Deserialize, Clone, Copy)]
enum UnboundedRepr {
    #[serde(rename = "unbounded")]
    Unbounded,
}

impl From<CapRepr> for ResultCap {
    fn from(repr: CapRepr) -> Self {
        match repr {
            CapRepr::Chars(n) => ResultCap::Chars(n),
            CapRepr::Unbounded(UnboundedRepr::Unbounded) => ResultCap::Unbounded,
        }
    }
}

#[cfg(test)]
mod tests;
