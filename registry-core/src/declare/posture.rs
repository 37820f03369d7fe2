//! Safety posture: the per-call answers a dispatcher asks of a tool
//! (may it run concurrently, does it only read, does it destroy), the result
//! cap, how it is loaded, whether a safety classifier sees its calls and
//! whether it is internal; and for each, whether it was declared or is the
//! fail-closed default.
//!
//! [`SafetyPosture`] is the one record of these values: the tool's spec, the
//! builder, the `#[tool]` expansion and the catalog lock all read and write
//! it, and it has one serde representation. Adding a posture key means a
//! field of the record, a [`PostureField`] with its arm in
//! [`SafetyPosture::get`], and a setter; the lock file and the demo's
//! table follow from those. Three places still need a line each: the
//! lock's loosening order for the field (`lock/check.rs`), the setter on
//! `ToolBuilder`, and, for a key the attribute takes, its parsing and
//! emission in `registry-macros` (`attr.rs`, `expand.rs`).
//!
//! This module only describes postures; it never decides a default. The
//! defaults live in [`SafetyPosture::DEFAULT`] alone.

use std::fmt;
use std::num::NonZeroUsize;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::access::Access;
use crate::declare::exposure::Exposures;

/// Whether a setting was written by the tool's author or left to the
/// fail-closed default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// Nothing was said; the strictest value applies.
    Default,
    /// The tool's declaration (or the runtime builder) said it.
    Declared,
}

/// A value together with where it came from.
///
/// Keeping the source lets tools such as the demo table, a catalog lock or a
/// reviewer tell "this tool is serial because someone decided so" apart from
/// "this tool is serial because nobody thought about it".
///
/// Serialised as `{"default": value}` or `{"declared": value}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Setting<T> {
    value: T,
    source: Source,
}

impl<T> Setting<T> {
    pub(crate) const fn default_value(value: T) -> Self {
        Self {
            value,
            source: Source::Default,
        }
    }

    pub(crate) const fn declared(value: T) -> Self {
        Self {
            value,
            source: Source::Declared,
        }
    }

    /// Whether the value was left to its default.
    pub(crate) fn is_default(&self) -> bool {
        self.source == Source::Default
    }

    /// The value in force.
    pub fn value(&self) -> &T {
        &self.value
    }

    /// Where the value came from.
    pub fn source(&self) -> Source {
        self.source
    }

    /// `true` when the tool's author wrote this value.
    pub fn is_declared(&self) -> bool {
        self.source == Source::Declared
    }
}

/// The serde shape of a [`Setting`]: the source is the key, so a reader of
/// a lock file sees at a glance which values nobody decided.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum SettingRef<'a, T> {
    Default(&'a T),
    Declared(&'a T),
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum SettingOwned<T> {
    Default(T),
    Declared(T),
}

impl<T: Serialize> Serialize for Setting<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.source {
            Source::Default => SettingRef::Default(&self.value),
            Source::Declared => SettingRef::Declared(&self.value),
        }
        .serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Setting<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match SettingOwned::deserialize(deserializer)? {
            SettingOwned::Default(value) => Setting::default_value(value),
            SettingOwned::Declared(value) => Setting::declared(value),
        })
    }
}

/// How a boolean posture (`concurrency_safe`, `read_only`, `destructive`) is
/// decided, as metadata that can be shown without an input at hand.
///
/// Serialised as `true`, `false`, `{"per_input": "<expression>"}` or
/// `"not_read_only"`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PostureKind {
    /// Decided per call on the parsed input; carries the posture expression
    /// as written, for display.
    PerInput(String),
    /// Decided per call as the opposite of `read_only`: the default of
    /// `destructive` when `read_only` is per input and `destructive` unsaid.
    NotReadOnly,
    /// The same answer for every call.
    #[serde(untagged)]
    Fixed(bool),
}

impl PostureKind {
    /// Whether the answer depends on the call's input.
    pub fn is_per_input(&self) -> bool {
        !matches!(self, PostureKind::Fixed(_))
    }

    /// The `destructive` that follows from this `read_only` when
    /// `destructive` is unsaid: whatever does not only read may destroy.
    fn not_read_only(&self) -> PostureKind {
        match self {
            PostureKind::Fixed(read_only) => PostureKind::Fixed(!read_only),
            PostureKind::PerInput(_) | PostureKind::NotReadOnly => PostureKind::NotReadOnly,
        }
    }
}

impl fmt::Display for PostureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PostureKind::Fixed(v) => write!(f, "{v}"),
            PostureKind::PerInput(_) => f.write_str("per input"),
            PostureKind::NotReadOnly => f.write_str("per input (unless read-only)"),
        }
    }
}

/// A typed posture evaluator: a fixed answer or a posture expression over
/// the parsed input.
pub enum Posture<I> {
    /// The same answer for every call.
    Fixed(bool),
    /// Evaluated on each call's parsed input at dispatch time.
    PerInput {
        /// The evaluator.
        eval: Arc<dyn Fn(&I) -> bool + Send + Sync>,
        /// The posture expression as written, for display.
        expr: String,
    },
}

impl<I> Clone for Posture<I> {
    fn clone(&self) -> Self {
        match self {
            Posture::Fixed(v) => Posture::Fixed(*v),
            Posture::PerInput { eval, expr } => Posture::PerInput {
                eval: Arc::clone(eval),
                expr: expr.clone(),
            },
        }
    }
}

impl<I> fmt::Debug for Posture<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Posture").field(&self.kind()).finish()
    }
}

impl<I> Posture<I> {
    /// The displayable shape of this posture.
    pub fn kind(&self) -> PostureKind {
        match self {
            Posture::Fixed(v) => PostureKind::Fixed(*v),
            Posture::PerInput { expr, .. } => PostureKind::PerInput(expr.clone()),
        }
    }
}

/// How a tool's resource access is decided, as metadata that can be shown
/// without an input at hand.
///
/// Serialised as `"from_concurrency_safe"` or `{"per_input": "<expression>"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessKind {
    /// Undeclared: the boolean rule, in access terms. A concurrency-safe
    /// call reads everything; any other call writes everything.
    FromConcurrencySafe,
    /// Declared: evaluated per call on the parsed input; carries the
    /// access expression as written, for display.
    PerInput(String),
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessKind::FromConcurrencySafe => f.write_str("from concurrency_safe"),
            AccessKind::PerInput(_) => f.write_str("per input"),
        }
    }
}

/// A declared access evaluator: what a call reads and writes, from its
/// parsed input.
pub struct DeclaredAccess<I> {
    pub(crate) eval: Arc<dyn Fn(&I) -> Access + Send + Sync>,
    pub(crate) expr: String,
}

impl<I> DeclaredAccess<I> {
    /// An evaluator and its expression as written (for display and the
    /// catalog lock).
    pub fn new(
        eval: impl Fn(&I) -> Access + Send + Sync + 'static,
        expr: impl Into<String>,
    ) -> Self {
        DeclaredAccess {
            eval: Arc::new(eval),
            expr: expr.into(),
        }
    }

    /// The displayable shape.
    pub fn kind(&self) -> AccessKind {
        AccessKind::PerInput(self.expr.clone())
    }
}

impl<I> Clone for DeclaredAccess<I> {
    fn clone(&self) -> Self {
        DeclaredAccess {
            eval: Arc::clone(&self.eval),
            expr: self.expr.clone(),
        }
    }
}

impl<I> fmt::Debug for DeclaredAccess<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DeclaredAccess").field(&self.expr).finish()
    }
}

/// The most characters of output a tool's result may hand the model.
///
/// Serialised as a number or `"unbounded"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultCap {
    /// No cap. Only ever set by writing `max_result_chars = unbounded`.
    Unbounded,
    /// Longer output is cut to this many characters and says so.
    #[serde(untagged)]
    Chars(NonZeroUsize),
}

impl ResultCap {
    /// The cap a tool gets when it says nothing: 50,000 characters.
    pub const DEFAULT: ResultCap = ResultCap::Chars(match NonZeroUsize::new(50_000) {
        Some(n) => n,
        None => unreachable!(),
    });

    /// The cap as a number, `None` when unbounded.
    pub fn limit(self) -> Option<usize> {
        match self {
            ResultCap::Chars(n) => Some(n.get()),
            ResultCap::Unbounded => None,
        }
    }
}

impl Default for ResultCap {
    /// [`ResultCap::DEFAULT`]: 50,000 characters.
    fn default() -> Self {
        ResultCap::DEFAULT
    }
}

impl fmt::Display for ResultCap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResultCap::Chars(n) => write!(f, "{n}"),
            ResultCap::Unbounded => f.write_str("unbounded"),
        }
    }
}

/// How a tool is loaded into the model's context.
///
/// Serialised as `"eager"`, `"deferred"` or `"always"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Loading {
    /// Sent with its full schema every turn (the default).
    Eager,
    /// Sent without its schema; found through tool search before use.
    Deferred,
    /// Never deferred, even when a runtime defers tools wholesale.
    #[serde(rename = "always")]
    AlwaysLoad,
}

impl fmt::Display for Loading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Loading::Eager => "eager",
            Loading::Deferred => "deferred",
            Loading::AlwaysLoad => "always",
        })
    }
}

/// Every safety-relevant value of a tool, each with its [`Source`]: the one
/// record the spec, the builder, the `#[tool]` expansion and the catalog
/// lock share.
///
/// [`DEFAULT`](Self::DEFAULT) is the single place the fail-closed defaults
/// are written:
///
/// | field | unsaid means |
/// |---|---|
/// | `concurrency_safe` | `false`: the call runs alone |
/// | `read_only` | `false`: assumed to write |
/// | `destructive` | not read-only: `true` unless `read_only` says otherwise, per call when `read_only` is per input (MCP's own default) |
/// | `max_result_chars` | 50,000 characters; `unbounded` only when written |
/// | `loading` | eager |
/// | `classifier_input` | none: the safety classifier is **skipped** (a convenience, not a strict default; see below) |
/// | `internal` | `false`: in the ordinary pool |
/// | `access` | from `concurrency_safe`: a safe call reads everything, any other call writes everything (runs alone) |
/// | `idempotent` | `false`: a repeated call may do more than the first (MCP's `idempotentHint` default) |
/// | `open_world` | `true`: calls may reach beyond a closed set of things (MCP's `openWorldHint` default) |
/// | `rule_of_two` | from the other postures, as strict as they allow: **private data** always, **untrusted input** when `open_world`, an **external effect** when the call is not read-only (per call); see [`Exposure`](crate::declare::Exposure) |
///
/// `classifier_input` is the one default that is not the strictest: a tool
/// that hands the safety classifier nothing is not reviewed by it in an
/// `auto` permission mode, and only the general policy stands between its
/// calls and execution. Tools whose calls a classifier should see must
/// declare the text.
///
/// Serialised as an object with one key per field, each a [`Setting`]. A
/// key missing when reading takes its value from [`DEFAULT`](Self::DEFAULT):
/// a record written before a posture key existed describes a tool that had
/// that key's default, so adding a key needs no new file format, and a
/// tool that now declares a looser value fails a lock check as it should.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SafetyPosture {
    pub(crate) concurrency_safe: Setting<PostureKind>,
    pub(crate) read_only: Setting<PostureKind>,
    pub(crate) destructive: Setting<PostureKind>,
    pub(crate) max_result_chars: Setting<ResultCap>,
    pub(crate) loading: Setting<Loading>,
    pub(crate) classifier_input: Setting<bool>,
    pub(crate) internal: Setting<bool>,
    pub(crate) access: Setting<AccessKind>,
    /// Left out of a record while undeclared, so records written before
    /// the key existed keep their hash.
    #[serde(skip_serializing_if = "Setting::is_default")]
    pub(crate) idempotent: Setting<bool>,
    #[serde(skip_serializing_if = "Setting::is_default")]
    pub(crate) open_world: Setting<bool>,
    /// `None` while undeclared: the properties follow from the other
    /// postures, call by call.
    #[serde(skip_serializing_if = "Setting::is_default")]
    pub(crate) rule_of_two: Setting<Option<Exposures>>,
}

impl SafetyPosture {
    /// The posture of a tool that declares nothing.
    pub const DEFAULT: SafetyPosture = SafetyPosture {
        concurrency_safe: Setting::default_value(PostureKind::Fixed(false)),
        read_only: Setting::default_value(PostureKind::Fixed(false)),
        // `PostureKind::not_read_only` of the `read_only` above; kept so by
        // `declare_read_only`.
        destructive: Setting::default_value(PostureKind::Fixed(true)),
        max_result_chars: Setting::default_value(ResultCap::DEFAULT),
        loading: Setting::default_value(Loading::Eager),
        classifier_input: Setting::default_value(false),
        internal: Setting::default_value(false),
        access: Setting::default_value(AccessKind::FromConcurrencySafe),
        idempotent: Setting::default_value(false),
        open_world: Setting::default_value(true),
        rule_of_two: Setting::default_value(None),
    };

    /// May calls run alongside other concurrency-safe calls?
    pub fn concurrency_safe(&self) -> &Setting<PostureKind> {
        &self.concurrency_safe
    }
    /// Does a call only read?
    pub fn read_only(&self) -> &Setting<PostureKind> {
        &self.read_only
    }
    /// Can a call destroy data or state? Unsaid, the opposite of
    /// [`read_only`](Self::read_only).
    pub fn destructive(&self) -> &Setting<PostureKind> {
        &self.destructive
    }
    /// The most characters a result may hand the model.
    pub fn max_result_chars(&self) -> &Setting<ResultCap> {
        &self.max_result_chars
    }
    /// Eager, deferred or always loaded.
    pub fn loading(&self) -> &Setting<Loading> {
        &self.loading
    }
    /// Whether a safety classifier is handed text for each call (`false`:
    /// it is skipped, which is the default).
    pub fn classifier_input(&self) -> &Setting<bool> {
        &self.classifier_input
    }
    /// Whether the tool is kept out of the ordinary pool.
    pub fn internal(&self) -> &Setting<bool> {
        &self.internal
    }
    /// What a call reads and writes: declared per input, or the boolean
    /// rule in access terms.
    pub fn access(&self) -> &Setting<AccessKind> {
        &self.access
    }

    /// Whether calling again with the same arguments does nothing more
    /// (MCP's `idempotentHint`). Descriptive: no permission decision reads
    /// it.
    pub fn idempotent(&self) -> &Setting<bool> {
        &self.idempotent
    }
    /// Whether calls may reach an open world of things (the web, any
    /// file), rather than a closed set (MCP's `openWorldHint`).
    /// Descriptive: no permission decision reads it.
    pub fn open_world(&self) -> &Setting<bool> {
        &self.open_world
    }
    /// What the tool's calls bring to the Rule of Two: the declared set,
    /// or `None` when unsaid (then, call by call: private data; untrusted
    /// input when [`open_world`](Self::open_world); an external effect
    /// when the call is not read-only).
    pub fn rule_of_two(&self) -> &Setting<Option<Exposures>> {
        &self.rule_of_two
    }

    /// Every field, in the order reports list them: its key (as `#[tool]`
    /// spells it), its value as text (a per-input expression shows as `per
    /// input`), and whether the tool declared it or left the default.
    ///
    /// ```
    /// use registry_core::declare::{SafetyPosture, Source};
    ///
    /// let fields: Vec<_> = SafetyPosture::DEFAULT.fields().collect();
    /// assert_eq!(fields[0], ("concurrency_safe", "false".to_owned(), Source::Default));
    /// assert!(fields.iter().all(|(_, _, source)| *source == Source::Default));
    /// ```
    pub fn fields(&self) -> impl Iterator<Item = (&'static str, String, Source)> + '_ {
        PostureField::ALL.into_iter().map(|field| {
            let (value, source) = self.get(field);
            let text = match value {
                PostureValue::Kind(kind) => kind.to_string(),
                PostureValue::Access(kind) => kind.to_string(),
                other => other.to_string(),
            };
            (field.key(), text, source)
        })
    }

    /// One field's value and source.
    pub(crate) fn get(&self, field: PostureField) -> (PostureValue, Source) {
        fn of<T: Clone>(
            setting: &Setting<T>,
            wrap: fn(T) -> PostureValue,
        ) -> (PostureValue, Source) {
            (wrap(setting.value.clone()), setting.source)
        }
        match field {
            PostureField::ConcurrencySafe => of(&self.concurrency_safe, PostureValue::Kind),
            PostureField::ReadOnly => of(&self.read_only, PostureValue::Kind),
            PostureField::Destructive => of(&self.destructive, PostureValue::Kind),
            PostureField::MaxResultChars => of(&self.max_result_chars, PostureValue::Cap),
            PostureField::Loading => of(&self.loading, PostureValue::Loading),
            PostureField::ClassifierInput => of(&self.classifier_input, PostureValue::Flag),
            PostureField::Internal => of(&self.internal, PostureValue::Flag),
            PostureField::Access => of(&self.access, PostureValue::Access),
            PostureField::Idempotent => of(&self.idempotent, PostureValue::Flag),
            PostureField::OpenWorld => of(&self.open_world, PostureValue::Flag),
            PostureField::RuleOfTwo => of(&self.rule_of_two, PostureValue::Exposures),
        }
    }

    /// What no declaration can produce, for records read from outside (a
    /// lock file): `not_read_only` anywhere but an undeclared
    /// `destructive`, or an undeclared `destructive` that does not follow
    /// `read_only`.
    #[cfg(any(test, feature = "lock"))]
    pub(crate) fn check(&self) -> Result<(), String> {
        for field in PostureField::ALL {
            let (value, source) = self.get(field);
            let derived = matches!(value, PostureValue::Kind(PostureKind::NotReadOnly));
            if derived && (field != PostureField::Destructive || source == Source::Declared) {
                return Err(format!(
                    "`{field}` is `not_read_only`, which only an undeclared `destructive` can be"
                ));
            }
        }
        let follows = self.read_only.value().not_read_only();
        if !self.destructive.is_declared() && *self.destructive.value() != follows {
            return Err(format!(
                "the undeclared `destructive` is `{}`, but with `read_only` {} it can only be `{follows}`",
                self.destructive.value(),
                PostureValue::Kind(self.read_only.value().clone()),
            ));
        }
        Ok(())
    }

    pub(crate) fn declare_concurrency_safe(&mut self, kind: PostureKind) {
        self.concurrency_safe = Setting::declared(kind);
    }

    /// Declares `read_only`; an undeclared `destructive` follows it.
    pub(crate) fn declare_read_only(&mut self, kind: PostureKind) {
        if !self.destructive.is_declared() {
            self.destructive = Setting::default_value(kind.not_read_only());
        }
        self.read_only = Setting::declared(kind);
    }

    pub(crate) fn declare_destructive(&mut self, kind: PostureKind) {
        self.destructive = Setting::declared(kind);
    }

    pub(crate) fn declare_max_result_chars(&mut self, cap: ResultCap) {
        self.max_result_chars = Setting::declared(cap);
    }

    pub(crate) fn declare_loading(&mut self, loading: Loading) {
        self.loading = Setting::declared(loading);
    }

    pub(crate) fn declare_classifier_input(&mut self) {
        self.classifier_input = Setting::declared(true);
    }

    pub(crate) fn declare_internal(&mut self) {
        self.internal = Setting::declared(true);
    }

    pub(crate) fn declare_access(&mut self, kind: AccessKind) {
        self.access = Setting::declared(kind);
    }

    pub(crate) fn declare_idempotent(&mut self, idempotent: bool) {
        self.idempotent = Setting::declared(idempotent);
    }

    pub(crate) fn declare_open_world(&mut self, open_world: bool) {
        self.open_world = Setting::declared(open_world);
    }

    pub(crate) fn declare_rule_of_two(&mut self, exposures: Exposures) {
        self.rule_of_two = Setting::declared(Some(exposures));
    }
}

impl Default for SafetyPosture {
    /// [`SafetyPosture::DEFAULT`].
    fn default() -> Self {
        SafetyPosture::DEFAULT
    }
}

/// One field of a [`SafetyPosture`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PostureField {
    /// `concurrency_safe`.
    ConcurrencySafe,
    /// `read_only`.
    ReadOnly,
    /// `destructive`.
    Destructive,
    /// `max_result_chars`.
    MaxResultChars,
    /// `loading` (`defer` / `always_load`).
    Loading,
    /// `classifier_input`: whether there is any.
    ClassifierInput,
    /// `internal`.
    Internal,
    /// `access`: what a call reads and writes.
    Access,
    /// `idempotent` (MCP's `idempotentHint`).
    Idempotent,
    /// `open_world` (MCP's `openWorldHint`).
    OpenWorld,
    /// `rule_of_two`: the Rule of Two properties calls bring.
    RuleOfTwo,
}

impl PostureField {
    /// Every field, in the order reports list them.
    pub const ALL: [PostureField; 11] = [
        PostureField::ConcurrencySafe,
        PostureField::ReadOnly,
        PostureField::Destructive,
        PostureField::MaxResultChars,
        PostureField::Loading,
        PostureField::ClassifierInput,
        PostureField::Internal,
        PostureField::Access,
        PostureField::Idempotent,
        PostureField::OpenWorld,
        PostureField::RuleOfTwo,
    ];

    /// The field's key in `#[tool]`, in serialised records and in lock files.
    pub fn key(self) -> &'static str {
        match self {
            PostureField::ConcurrencySafe => "concurrency_safe",
            PostureField::ReadOnly => "read_only",
            PostureField::Destructive => "destructive",
            PostureField::MaxResultChars => "max_result_chars",
            PostureField::Loading => "loading",
            PostureField::ClassifierInput => "classifier_input",
            PostureField::Internal => "internal",
            PostureField::Access => "access",
            PostureField::Idempotent => "idempotent",
            PostureField::OpenWorld => "open_world",
            PostureField::RuleOfTwo => "rule_of_two",
        }
    }
}

impl fmt::Display for PostureField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// The value of one posture field.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PostureValue {
    /// `concurrency_safe`, `read_only`, `destructive`.
    Kind(PostureKind),
    /// `max_result_chars`.
    Cap(ResultCap),
    /// `loading`.
    Loading(Loading),
    /// `classifier_input` (whether there is any), `internal`,
    /// `idempotent`, `open_world`.
    Flag(bool),
    /// `access`.
    Access(AccessKind),
    /// `rule_of_two`: the declared set, or `None` when it follows from
    /// the other postures.
    Exposures(Option<Exposures>),
}

impl fmt::Display for PostureValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PostureValue::Kind(PostureKind::PerInput(expr)) => write!(f, "per input (`{expr}`)"),
            PostureValue::Kind(kind) => write!(f, "{kind}"),
            PostureValue::Cap(cap) => write!(f, "{cap}"),
            PostureValue::Loading(loading) => write!(f, "{loading}"),
            PostureValue::Flag(value) => write!(f, "{value}"),
            PostureValue::Access(AccessKind::PerInput(expr)) => write!(f, "per input (`{expr}`)"),
            PostureValue::Access(kind) => write!(f, "{kind}"),
            PostureValue::Exposures(Some(set)) => write!(f, "{set}"),
            PostureValue::Exposures(None) => f.write_str("from the other postures"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_undeclared_destructive_follows_read_only() {
        let mut posture = SafetyPosture::DEFAULT;
        assert_eq!(posture.destructive.value(), &PostureKind::Fixed(true));
        posture.declare_read_only(PostureKind::Fixed(true));
        assert_eq!(
            posture.destructive,
            Setting::default_value(PostureKind::Fixed(false))
        );
        posture.declare_read_only(PostureKind::PerInput("is_listing".into()));
        assert_eq!(
            posture.destructive,
            Setting::default_value(PostureKind::NotReadOnly)
        );
        posture.declare_read_only(PostureKind::Fixed(false));
        assert_eq!(posture.destructive.value(), &PostureKind::Fixed(true));
    }

    #[test]
    fn a_declared_destructive_stays_independent() {
        let mut posture = SafetyPosture::DEFAULT;
        posture.declare_destructive(PostureKind::Fixed(false));
        posture.declare_read_only(PostureKind::Fixed(false));
        assert_eq!(
            posture.destructive,
            Setting::declared(PostureKind::Fixed(false))
        );
        let mut posture = SafetyPosture::DEFAULT;
        posture.declare_read_only(PostureKind::Fixed(true));
        posture.declare_destructive(PostureKind::Fixed(true));
        assert_eq!(
            posture.destructive,
            Setting::declared(PostureKind::Fixed(true))
        );
    }

    #[test]
    fn the_record_has_one_readable_serde_form_that_round_trips() {
        let mut posture = SafetyPosture::DEFAULT;
        posture.declare_concurrency_safe(PostureKind::PerInput("|i: &In| i.ok".into()));
        posture.declare_read_only(PostureKind::PerInput("is_short".into()));
        posture.declare_max_result_chars(ResultCap::Unbounded);
        posture.declare_loading(Loading::AlwaysLoad);
        posture.declare_access(AccessKind::PerInput("writes_path".into()));
        let value = serde_json::to_value(&posture).unwrap();
        assert_eq!(
            value,
            json!({
                "concurrency_safe": {"declared": {"per_input": "|i: &In| i.ok"}},
                "read_only": {"declared": {"per_input": "is_short"}},
                "destructive": {"default": "not_read_only"},
                "max_result_chars": {"declared": "unbounded"},
                "loading": {"declared": "always"},
                "classifier_input": {"default": false},
                "internal": {"default": false},
                "access": {"declared": {"per_input": "writes_path"}},
            })
        );
        let back: SafetyPosture = serde_json::from_value(value).unwrap();
        assert_eq!(back, posture);
        let default = serde_json::to_value(SafetyPosture::DEFAULT).unwrap();
        assert_eq!(default["destructive"], json!({"default": true}));
        assert_eq!(default["max_result_chars"], json!({"default": 50_000}));
        assert_eq!(
            default["access"],
            json!({"default": "from_concurrency_safe"})
        );
        assert_eq!(
            serde_json::from_value::<SafetyPosture>(default).unwrap(),
            SafetyPosture::DEFAULT
        );
    }

    #[test]
    fn a_key_missing_from_an_older_record_reads_as_its_default() {
        let mut value = serde_json::to_value(SafetyPosture::DEFAULT).unwrap();
        value.as_object_mut().unwrap().remove("internal");
        let read: SafetyPosture = serde_json::from_value(value).unwrap();
        assert_eq!(read.internal, Setting::default_value(false));
        assert_eq!(read, SafetyPosture::DEFAULT);
    }

    #[test]
    fn malformed_records_are_refused() {
        let mut value = serde_json::to_value(SafetyPosture::DEFAULT).unwrap();
        value["max_result_chars"] = json!({"default": 0});
        assert!(serde_json::from_value::<SafetyPosture>(value.clone()).is_err());
        value["max_result_chars"] = json!({"sometimes": 5});
        assert!(serde_json::from_value::<SafetyPosture>(value).is_err());

        let mut derived = SafetyPosture::DEFAULT;
        derived.read_only = Setting::default_value(PostureKind::NotReadOnly);
        assert!(derived.check().unwrap_err().contains("`read_only`"));
        let mut declared = SafetyPosture::DEFAULT;
        declared.destructive = Setting::declared(PostureKind::NotReadOnly);
        assert!(declared.check().is_err());
        assert!(SafetyPosture::DEFAULT.check().is_ok());

        // An undeclared destructive that does not follow read_only.
        let mut stale = SafetyPosture::DEFAULT;
        stale.read_only = Setting::declared(PostureKind::Fixed(true));
        let message = stale.check().unwrap_err();
        assert!(message.contains("can only be `false`"), "{message}");
        stale.declare_read_only(PostureKind::Fixed(true));
        assert!(stale.check().is_ok());
    }

    #[test]
    fn result_cap_default_is_the_constant() {
        assert_eq!(ResultCap::default(), ResultCap::DEFAULT);
        assert_eq!(ResultCap::default().limit(), Some(50_000));
    }
}
