//! A tool's definition: its model-facing identity, its safety posture and
//! where it was declared.
//!
//! [`Declaration::new`] starts every definition from
//! [`SafetyPosture::DEFAULT`], the single place where the fail-closed
//! defaults are written down. `#[tool]` starts from it and applies only the
//! keys the author wrote; the runtime [`ToolBuilder`](crate::declare::ToolBuilder)
//! starts from it too. Nothing else may construct a definition.

use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::access::Access;

use crate::declare::DefinitionError;
use crate::declare::callers::Callers;
use crate::declare::exposure::Exposure;
use crate::declare::naming::validate_name;
use crate::declare::posture::{
    AccessKind, DeclaredAccess, Loading, Posture, PostureKind, ResultCap, SafetyPosture, Setting,
};

/// Where a tool was declared: enough to find it in a large workspace.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    /// The declaring crate, as `CARGO_CRATE_NAME` spells it.
    pub crate_name: &'static str,
    /// The module path of the declaration.
    pub module_path: &'static str,
    /// The source file.
    pub file: &'static str,
    /// The line of the tool's struct.
    pub line: u32,
}

impl Origin {
    /// The origin of a tool made at run time (no source location).
    pub const RUNTIME: Origin = Origin {
        crate_name: "<runtime>",
        module_path: "<runtime>",
        file: "<runtime>",
        line: 0,
    };
}

/// Where a tool made at run time came from when that is another process:
/// the MCP server that serves it, and the tool's name there.
///
/// [`Origin`] holds `&'static str`s so `#[tool]` can write it as a
/// constant; a server's name is known only at run time, so it lives here,
/// owned, beside it ([`ToolSpec::remote_origin`]). The spec's
/// [`Origin`] of such a tool is [`Origin::RUNTIME`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RemoteOrigin {
    server: Arc<str>,
    tool: Arc<str>,
    trusted: bool,
}

impl RemoteOrigin {
    /// The tool `tool` as server `server` names it, from a server that is
    /// not trusted (its annotations are not believed).
    pub fn new(server: impl Into<Arc<str>>, tool: impl Into<Arc<str>>) -> Self {
        RemoteOrigin {
            server: server.into(),
            tool: tool.into(),
            trusted: false,
        }
    }

    /// Whether the importer trusts the server's annotations.
    pub fn with_trust(mut self, trusted: bool) -> Self {
        self.trusted = trusted;
        self
    }

    /// Whether the server is trusted: when it is not, the tool has the
    /// strictest posture whatever the server hinted, and refusals say so.
    pub fn is_trusted(&self) -> bool {
        self.trusted
    }

    /// The server's name, as configured by the importer.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The tool's own name on that server (what a call sends).
    pub fn tool(&self) -> &str {
        &self.tool
    }
}

impl fmt::Display for RemoteOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MCP server `{}`, tool `{}`", self.server, self.tool)
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "crate `{}`, module `{}`, {}:{}",
            self.crate_name, self.module_path, self.file, self.line
        )
    }
}

/// The model-independent, input-independent facts about a tool: what list
/// builders, renderers and tables read.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// Shared: every result of a call names its tool without a copy.
    name: Arc<str>,
    aliases: Vec<String>,
    description: String,
    user_facing_name: Option<String>,
    search_hint: Option<String>,
    input_examples: Vec<serde_json::Value>,
    strict: bool,
    posture: SafetyPosture,
    flag: Option<String>,
    has_enabled_check: bool,
    origin: Origin,
    remote_origin: Option<RemoteOrigin>,
    output_schema: Option<Arc<serde_json::Value>>,
    allowed_callers: Option<Callers>,
    long_running: bool,
}

/// What `#[tool]` fixes statically about a tool: the parts of its spec
/// the catalog checks for collisions. Not generic, so the code that turns
/// it into a spec is compiled once, in this crate, not once per tool.
#[derive(Debug, Clone)]
pub(crate) struct Identity {
    pub(crate) name: &'static str,
    pub(crate) aliases: &'static [&'static str],
    pub(crate) description: &'static str,
    pub(crate) flag: Option<&'static str>,
    pub(crate) origin: Origin,
}

impl Identity {
    /// A spec with this identity and every default.
    pub(crate) fn spec(&self) -> ToolSpec {
        let mut spec = ToolSpec::with_defaults(String::new(), String::new());
        self.apply(&mut spec);
        spec
    }

    /// Overwrites the identity fields of `spec` with this identity.
    pub(crate) fn apply(&self, spec: &mut ToolSpec) {
        spec.name = Arc::from(self.name);
        spec.aliases = self.aliases.iter().map(|a| (*a).to_owned()).collect();
        spec.description = self.description.to_owned();
        spec.flag = self.flag.map(str::to_owned);
        spec.origin = self.origin.clone();
    }
}

impl ToolSpec {
    /// A spec with every default: the posture of
    /// [`SafetyPosture::DEFAULT`], no aliases, a runtime origin.
    fn with_defaults(name: String, description: String) -> Self {
        ToolSpec {
            name: Arc::from(name),
            aliases: Vec::new(),
            description,
            user_facing_name: None,
            search_hint: None,
            input_examples: Vec::new(),
            strict: false,
            posture: SafetyPosture::DEFAULT,
            flag: None,
            has_enabled_check: false,
            origin: Origin::RUNTIME,
            remote_origin: None,
            output_schema: None,
            allowed_callers: None,
            long_running: false,
        }
    }

    /// The model-facing name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name, shared (a clone is a count, not a copy).
    pub(crate) fn shared_name(&self) -> &Arc<str> {
        &self.name
    }
    /// Old names that still resolve to this tool.
    pub fn aliases(&self) -> &[String] {
        &self.aliases
    }
    /// What the model reads to choose the tool.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// A name for people (UIs, logs); falls back to the model-facing name.
    pub fn user_facing_name(&self) -> &str {
        self.user_facing_name.as_deref().unwrap_or(&self.name)
    }
    /// Words that help tool search find a deferred tool.
    pub fn search_hint(&self) -> Option<&str> {
        self.search_hint.as_deref()
    }
    /// Who may call the tool, when it says (see [`Callers`]); `None`:
    /// rendered without `allowed_callers`, callable by programs here.
    pub fn allowed_callers(&self) -> Option<Callers> {
        self.allowed_callers
    }
    /// Whether a call may run for long: served over MCP as a task to a
    /// client that negotiates the Tasks extension, so the client polls
    /// instead of holding a request open (and an ordinary call to one that
    /// does not). Nothing else treats it differently.
    pub fn long_running(&self) -> bool {
        self.long_running
    }
    /// Example inputs, each checked against the tool's input when the
    /// list is built (Anthropic's `input_examples`).
    pub fn input_examples(&self) -> &[serde_json::Value] {
        &self.input_examples
    }
    /// Whether the tool asks the provider to hold the model to its input
    /// schema (Anthropic's `strict`; sent where the schema allows it).
    pub fn strict(&self) -> bool {
        self.strict
    }
    /// Every safety value, each with whether it was declared.
    pub fn posture(&self) -> &SafetyPosture {
        &self.posture
    }
    /// May calls run alongside other concurrency-safe calls?
    pub fn concurrency_safe(&self) -> &Setting<PostureKind> {
        self.posture.concurrency_safe()
    }
    /// Does a call only read?
    pub fn read_only(&self) -> &Setting<PostureKind> {
        self.posture.read_only()
    }
    /// Can a call destroy data or state? Unsaid, the opposite of
    /// [`read_only`](Self::read_only).
    pub fn destructive(&self) -> &Setting<PostureKind> {
        self.posture.destructive()
    }
    /// Whether the tool hands a safety classifier any text (`false`: the
    /// classifier is skipped, which is the default).
    pub fn has_classifier_input(&self) -> &Setting<bool> {
        self.posture.classifier_input()
    }
    /// The most characters a result may hand the model.
    pub fn max_result_chars(&self) -> &Setting<ResultCap> {
        self.posture.max_result_chars()
    }
    /// Eager, deferred or always loaded.
    pub fn loading(&self) -> &Setting<Loading> {
        self.posture.loading()
    }
    /// What a call reads and writes: declared per input, or, unsaid, the
    /// boolean rule in access terms.
    pub fn access(&self) -> &Setting<AccessKind> {
        self.posture.access()
    }
    /// The runtime flag gating the tool, if any.
    pub fn flag(&self) -> Option<&str> {
        self.flag.as_deref()
    }
    /// Whether the tool has an `enabled` self-check.
    pub fn has_enabled_check(&self) -> bool {
        self.has_enabled_check
    }
    /// Whether the tool is kept out of the ordinary pool (used only by
    /// the runtime itself, e.g. a tool another tool calls).
    pub fn is_internal(&self) -> bool {
        *self.posture.internal().value()
    }
    /// Where the tool was declared.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }
    /// The server a tool imported over MCP came from (`None` for tools
    /// declared in this program).
    pub fn remote_origin(&self) -> Option<&RemoteOrigin> {
        self.remote_origin.as_ref()
    }
    /// The JSON Schema of the tool's structured result, when its output is
    /// typed (`Json<T>` with `T: JsonSchema`); MCP publishes it as
    /// `outputSchema`.
    pub fn output_schema(&self) -> Option<&serde_json::Value> {
        self.output_schema.as_deref()
    }

    /// Records the schema of the tool's structured result.
    pub(crate) fn set_output_schema(&mut self, schema: serde_json::Value) {
        self.output_schema = Some(Arc::new(schema));
    }
}

/// An evaluator over a parsed input, with the input's type erased: `None`
/// when handed an input of another type. Every tool's evaluators have this
/// one type, so their drop glue and the code that runs them are compiled
/// once in this crate, not once per tool in every user's crate.
pub(crate) type Eval<R> = Arc<dyn Fn(&dyn Any) -> Option<R> + Send + Sync>;
/// A runtime self-check.
type SelfCheck = Arc<dyn Fn() -> bool + Send + Sync>;

/// Wraps a typed evaluator into an [`Eval`].
fn erase<I: 'static, R>(f: impl Fn(&I) -> R + Send + Sync + 'static) -> Eval<R> {
    Arc::new(move |input: &dyn Any| input.downcast_ref::<I>().map(&f))
}

/// Not public API. A posture as the metadata table stores it: a fixed
/// answer or an erased evaluator, with the expression's text. Built by
/// `#[tool]` through `__private::fixed` and `__private::per_input`.
#[doc(hidden)]
#[derive(Clone)]
pub struct ErasedPosture {
    eval: Option<Eval<bool>>,
    kind: PostureKind,
}

impl ErasedPosture {
    pub(crate) const fn fixed(value: bool) -> Self {
        ErasedPosture {
            eval: None,
            kind: PostureKind::Fixed(value),
        }
    }

    pub(crate) fn per_input<I: 'static>(
        eval: impl Fn(&I) -> bool + Send + Sync + 'static,
        expr: String,
    ) -> Self {
        ErasedPosture {
            eval: Some(erase(eval)),
            kind: PostureKind::PerInput(expr),
        }
    }

    fn from_typed<I: 'static>(posture: Posture<I>) -> Self {
        match posture {
            Posture::Fixed(value) => Self::fixed(value),
            Posture::PerInput { eval, expr } => Self::per_input(move |i: &I| eval(i), expr),
        }
    }

    /// The answer for one input; `None` for an input of another type. A
    /// panicking evaluator panics here; the caller answers strictly.
    fn evaluate(&self, input: &dyn Any) -> Option<bool> {
        match (&self.eval, &self.kind) {
            (Some(eval), _) => eval(input),
            (None, PostureKind::Fixed(value)) => Some(*value),
            // `fixed` and `per_input` are the only constructors.
            (None, _) => None,
        }
    }
}

/// Not public API. A declared access evaluator, erased like
/// [`ErasedPosture`].
#[doc(hidden)]
#[derive(Clone)]
pub struct ErasedAccess {
    eval: Eval<Access>,
    expr: String,
}

impl ErasedAccess {
    pub(crate) fn new<I: 'static>(
        eval: impl Fn(&I) -> Access + Send + Sync + 'static,
        expr: String,
    ) -> Self {
        ErasedAccess {
            eval: erase(eval),
            expr,
        }
    }
}

/// The evaluators of a definition: everything about a tool that needs an
/// input, held without its type (see [`Eval`]).
#[derive(Clone)]
pub(crate) struct Evaluators {
    concurrency_safe: ErasedPosture,
    read_only: ErasedPosture,
    /// `None` when unsaid: then a call is destructive exactly when it is not
    /// read-only.
    destructive: Option<ErasedPosture>,
    classifier_input: Option<Eval<String>>,
    enabled: Option<SelfCheck>,
    /// `None` when unsaid: then a call's access follows `concurrency_safe`.
    access: Option<Eval<Access>>,
}

impl Evaluators {
    /// Whether a call on `input` may share a concurrent batch; `None` for
    /// an input of another type.
    pub(crate) fn concurrency_safe(&self, input: &dyn Any) -> Option<bool> {
        self.concurrency_safe.evaluate(input)
    }

    /// Whether a call on `input` only reads.
    pub(crate) fn read_only(&self, input: &dyn Any) -> Option<bool> {
        self.read_only.evaluate(input)
    }

    /// Whether a call on `input` may destroy data: as declared, or, unsaid,
    /// whenever it does not only read. A panicking `read_only` expression
    /// panics here too, and the caller answers with the strict `true`.
    pub(crate) fn destructive(&self, input: &dyn Any) -> Option<bool> {
        match &self.destructive {
            Some(posture) => posture.evaluate(input),
            None => self.read_only.evaluate(input).map(|read_only| !read_only),
        }
    }

    /// The classifier's text (empty when the tool declares none).
    pub(crate) fn classifier_input(&self, input: &dyn Any) -> Option<String> {
        match &self.classifier_input {
            Some(f) => f(input),
            None => Some(String::new()),
        }
    }

    /// `None` on an input of the wrong type; `Some(None)` when the tool
    /// declares no access.
    pub(crate) fn access(&self, input: &dyn Any) -> Option<Option<Access>> {
        match &self.access {
            Some(f) => f(input).map(Some),
            None => Some(None),
        }
    }

    /// The `enabled` self-check (true when there is none).
    pub(crate) fn enabled(&self) -> bool {
        self.enabled.as_ref().is_none_or(|check| check())
    }
}

/// A typed definition under construction: the spec plus the evaluators that
/// need the tool's input type.
///
/// `#[tool]` emits a chain of these setters; the runtime builder calls them
/// too. Every value not set keeps the fail-closed default from [`new`](Self::new).
pub struct Declaration<I> {
    pub(crate) spec: ToolSpec,
    pub(crate) evaluators: Evaluators,
    /// The evaluators take an `I`; they hold it erased.
    input: PhantomData<fn(&I)>,
}

impl<I> fmt::Debug for Declaration<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Declaration")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

impl<I: 'static> Declaration<I> {
    /// Starts a definition with the posture of [`SafetyPosture::DEFAULT`]
    /// (see its table: not concurrency-safe, not read-only, destructive
    /// unless it only reads, a finite result cap; the safety classifier
    /// skipped, which is a convenience rather than a strict default) and the
    /// permission check delegated to the general permission policy.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self::from_spec(ToolSpec::with_defaults(name.into(), description.into()))
    }

    /// The defaults around `spec`. Kept apart from [`new`](Self::new) so the
    /// part generated per input type is only this struct literal.
    pub(crate) fn from_spec(spec: ToolSpec) -> Self {
        Declaration {
            spec,
            evaluators: Evaluators {
                concurrency_safe: ErasedPosture::fixed(false),
                read_only: ErasedPosture::fixed(false),
                destructive: None,
                classifier_input: None,
                enabled: None,
                access: None,
            },
            input: PhantomData,
        }
    }

    /// The spec as built so far.
    pub fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// Adds old names that keep resolving to this tool.
    pub fn aliases<S: Into<String>>(mut self, aliases: impl IntoIterator<Item = S>) -> Self {
        self.spec
            .aliases
            .extend(aliases.into_iter().map(Into::into));
        self
    }

    /// Declares whether calls may share a concurrent batch.
    pub fn concurrency_safe(self, posture: Posture<I>) -> Self {
        self.__concurrency_safe(ErasedPosture::from_typed(posture))
    }

    /// Not public API: [`concurrency_safe`](Self::concurrency_safe) for
    /// `#[tool]`, whose posture is already erased.
    #[doc(hidden)]
    pub fn __concurrency_safe(mut self, posture: ErasedPosture) -> Self {
        self.spec
            .posture
            .declare_concurrency_safe(posture.kind.clone());
        self.evaluators.concurrency_safe = posture;
        self
    }

    /// Declares whether calls only read; an undeclared `destructive`
    /// follows it.
    pub fn read_only(self, posture: Posture<I>) -> Self {
        self.__read_only(ErasedPosture::from_typed(posture))
    }

    /// Not public API: [`read_only`](Self::read_only) for `#[tool]`.
    #[doc(hidden)]
    pub fn __read_only(mut self, posture: ErasedPosture) -> Self {
        self.spec.posture.declare_read_only(posture.kind.clone());
        self.evaluators.read_only = posture;
        self
    }

    /// Declares whether calls can destroy data or state.
    pub fn destructive(self, posture: Posture<I>) -> Self {
        self.__destructive(ErasedPosture::from_typed(posture))
    }

    /// Not public API: [`destructive`](Self::destructive) for `#[tool]`.
    #[doc(hidden)]
    pub fn __destructive(mut self, posture: ErasedPosture) -> Self {
        self.spec.posture.declare_destructive(posture.kind.clone());
        self.evaluators.destructive = Some(posture);
        self
    }

    /// Declares what each call reads and writes. Batching then follows the
    /// declared access instead of `concurrency_safe`: two calls share a
    /// batch when their accesses do not conflict, whatever either's
    /// `concurrency_safe` says. A call whose access is
    /// [`everything`](crate::access::Access::everything), or whose expression
    /// panics, still runs alone.
    pub fn access(self, access: DeclaredAccess<I>) -> Self {
        let DeclaredAccess { eval, expr } = access;
        self.__access(ErasedAccess::new(move |i: &I| eval(i), expr))
    }

    /// Not public API: [`access`](Self::access) for `#[tool]`.
    #[doc(hidden)]
    pub fn __access(mut self, access: ErasedAccess) -> Self {
        self.spec
            .posture
            .declare_access(AccessKind::PerInput(access.expr));
        self.evaluators.access = Some(access.eval);
        self
    }

    /// Declares the text a safety classifier sees for a call.
    pub fn classifier_input(mut self, f: impl Fn(&I) -> String + Send + Sync + 'static) -> Self {
        self.spec.posture.declare_classifier_input();
        self.evaluators.classifier_input = Some(erase(f));
        self
    }

    /// Declares the result cap.
    pub fn max_result_chars(mut self, cap: ResultCap) -> Self {
        self.spec.posture.declare_max_result_chars(cap);
        self
    }

    /// Declares how the tool is loaded.
    pub fn loading(mut self, loading: Loading) -> Self {
        self.spec.posture.declare_loading(loading);
        self
    }

    /// Sets the search hint used to find a deferred tool.
    pub fn search_hint(mut self, hint: impl Into<String>) -> Self {
        self.spec.search_hint = Some(hint.into());
        self
    }

    /// Sets a name for people.
    pub fn user_facing_name(mut self, name: impl Into<String>) -> Self {
        self.spec.user_facing_name = Some(name.into());
        self
    }

    /// Declares that a call may run for long (see [`ToolSpec::long_running`]).
    pub fn long_running(mut self) -> Self {
        self.spec.long_running = true;
        self
    }

    /// Says who may call the tool (see [`Callers`]).
    pub fn allowed_callers(mut self, callers: Callers) -> Self {
        self.spec.allowed_callers = Some(callers);
        self
    }

    /// Adds an example input (checked against the input when the list is
    /// built, or when a runtime tool is built).
    pub fn input_example(mut self, example: serde_json::Value) -> Self {
        self.spec.input_examples.push(example);
        self
    }

    /// Not public API: an example input as `#[tool]` writes it, JSON text
    /// the macro has already parsed.
    #[doc(hidden)]
    pub fn __input_example_json(self, json: &'static str) -> Self {
        let example = serde_json::from_str(json).unwrap_or(serde_json::Value::Null);
        self.input_example(example)
    }

    /// Asks the provider to hold the model to the input schema.
    pub fn strict(mut self, strict: bool) -> Self {
        self.spec.strict = strict;
        self
    }

    /// Gates the tool on a runtime flag, evaluated when the list is built.
    pub fn flag(mut self, flag: impl Into<String>) -> Self {
        self.spec.flag = Some(flag.into());
        self
    }

    /// Adds a runtime self-check; a tool that answers `false` is left out by
    /// the narrowing chain.
    pub fn enabled(mut self, check: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        self.spec.has_enabled_check = true;
        self.evaluators.enabled = Some(Arc::new(check));
        self
    }

    /// Declares whether a repeated call with the same arguments does
    /// nothing more (MCP's `idempotentHint`).
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.spec.posture.declare_idempotent(idempotent);
        self
    }

    /// Declares whether calls may reach an open world of things (MCP's
    /// `openWorldHint`).
    pub fn open_world(mut self, open_world: bool) -> Self {
        self.spec.posture.declare_open_world(open_world);
        self
    }

    /// Declares which Rule of Two properties the tool's calls bring
    /// (all of them: the empty set says "none").
    pub fn rule_of_two(mut self, exposures: impl IntoIterator<Item = Exposure>) -> Self {
        self.spec
            .posture
            .declare_rule_of_two(exposures.into_iter().collect());
        self
    }

    /// Keeps the tool out of the ordinary pool; it stays in the
    /// authoritative list for lookup and introspection.
    pub fn internal(mut self) -> Self {
        self.spec.posture.declare_internal();
        self
    }

    /// Records where the tool was declared.
    pub fn origin(mut self, origin: Origin) -> Self {
        self.spec.origin = origin;
        self
    }

    /// Records the MCP server a runtime tool was imported from.
    pub fn remote_origin(mut self, origin: RemoteOrigin) -> Self {
        self.spec.remote_origin = Some(origin);
        self
    }

    /// Takes name, aliases, description, flag and origin from `identity`.
    pub(crate) fn with_identity(mut self, identity: &Identity) -> Self {
        identity.apply(&mut self.spec);
        self
    }

    /// Checks the rules `#[tool]` enforces at compile time, for definitions
    /// made at run time.
    pub(crate) fn validate(&self) -> Result<(), DefinitionError> {
        let spec = &self.spec;
        let tool = || spec.name.to_string();
        validate_name(&spec.name).map_err(|source| DefinitionError::Name {
            tool: tool(),
            source,
        })?;
        for (i, alias) in spec.aliases.iter().enumerate() {
            validate_name(alias).map_err(|source| DefinitionError::Name {
                tool: tool(),
                source,
            })?;
            if **alias == *spec.name {
                return Err(DefinitionError::AliasIsName {
                    tool: tool(),
                    alias: alias.clone(),
                });
            }
            if spec.aliases[..i].contains(alias) {
                return Err(DefinitionError::RepeatedAlias {
                    tool: tool(),
                    alias: alias.clone(),
                });
            }
        }
        if spec.description.trim().is_empty() {
            return Err(DefinitionError::EmptyDescription { tool: tool() });
        }
        Ok(())
    }
}
