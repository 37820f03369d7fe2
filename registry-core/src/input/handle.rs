//! The type-erased tool every list, pool and executor holds, and the
//! prepared call that carries one parsed input from classification to
//! execution.
//!
//! Everything that evaluates author code (posture expressions, self-checks,
//! permission hooks, the call itself) catches panics here and answers with
//! the strict value, so one faulty tool never takes the runtime down.

use std::any::{Any, TypeId};
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use serde_json::Value;

use crate::access::Access;
use crate::declare::context::ToolContext;
use crate::declare::definition::{Declaration, Evaluators, ToolSpec};
use crate::declare::output::{IntoToolOutput, ToolOutput};
use crate::declare::tool::{Tool, ToolInput};
use crate::declare::{Exposure, Exposures, PermissionContent, PermissionDecision};
use crate::input::refusal::{Refusal, RefusedBy};
use crate::input::schema::plan::ArgPlan;
use crate::{
    input::ToolError,
    text::{cap_error_text, capped_message},
};

type AnyInput = Box<dyn Any + Send + Sync>;
/// A borrowed input, of whichever type the tool takes.
type InputRef<'a> = &'a (dyn Any + Send + Sync);
type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Which boolean posture to evaluate.
#[derive(Debug, Clone, Copy)]
enum Question {
    ConcurrencySafe,
    ReadOnly,
    Destructive,
}

impl Question {
    /// The answer that assumes the worst, used when an evaluator panics.
    fn strict_answer(self) -> bool {
        matches!(self, Question::Destructive)
    }

    fn key(self) -> &'static str {
        match self {
            Question::ConcurrencySafe => "concurrency_safe",
            Question::ReadOnly => "read_only",
            Question::Destructive => "destructive",
        }
    }
}

/// The object-safe face of a typed tool: only what needs the tool's own
/// code. Everything else a handle knows (spec, postures, access,
/// classifier text, self-check, schema) is held without its types in
/// [`Inner`] and read by code compiled once here: each method below is
/// compiled once per tool in the user's crate.
trait ErasedTool: Send + Sync + 'static {
    fn tool_any(&self) -> &dyn Any;
    fn parse(&self, args: &Value) -> Result<AnyInput, (String, String)>;
    fn permission_content(&self, input: InputRef<'_>) -> Option<PermissionContent>;
    fn validate(&self, input: InputRef<'_>, cx: &ToolContext) -> Result<(), Failure>;
    /// `None` on an input of the wrong type.
    fn check_permissions(
        &self,
        input: InputRef<'_>,
        cx: &ToolContext,
    ) -> Option<PermissionDecision>;
    fn call<'a>(&'a self, input: AnyInput, cx: &'a ToolContext) -> BoxFuture<'a, CallResult>;
}

/// How a tool's own code failed, before the tool's name is attached (by
/// non-generic code, so the per-tool methods carry no error building).
enum Failure {
    /// The input was not the tool's type.
    Mismatch,
    /// `validate_input` said no.
    Rejected(crate::declare::BoxError),
    /// `call` returned an error.
    Failed(crate::declare::BoxError),
    /// The output could not be rendered.
    Output(String),
}

type CallResult = Result<ToolOutput, Failure>;

impl Failure {
    fn into_error(self, tool: &str) -> ToolError {
        let tool = tool.to_owned();
        match self {
            Failure::Mismatch => ToolError::InputMismatch { tool },
            Failure::Rejected(source) => ToolError::Rejected { tool, source },
            Failure::Failed(source) => ToolError::Failed { tool, source },
            Failure::Output(message) => ToolError::Output { tool, message },
        }
    }
}

/// Turns the body's typed result into the erased one. Generic over the
/// output and error types only, so tools sharing them (most return
/// `String`) share one copy.
fn finish<O: IntoToolOutput, E: Into<crate::declare::BoxError>>(
    result: Result<O, E>,
) -> CallResult {
    match result {
        Ok(output) => output
            .into_tool_output()
            .map_err(|err| Failure::Output(err.to_string())),
        Err(err) => Err(Failure::Failed(err.into())),
    }
}

pin_project_lite::pin_project! {
    /// A body's future, its result made erased by [`finish`] when ready.
    /// A plain struct with a one-line poll: it is compiled once per tool,
    /// where an async block or `FutureExt::map` compiles a state machine.
    struct Finish<F> {
        #[pin]
        body: F,
    }
}

impl<F, O, E> Future for Finish<F>
where
    F: Future<Output = Result<O, E>>,
    O: IntoToolOutput,
    E: Into<crate::declare::BoxError>,
{
    type Output = CallResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<CallResult> {
        match self.project().body.poll(cx) {
            Poll::Ready(result) => Poll::Ready(finish(result)),
            Poll::Pending => Poll::Pending,
        }
    }
}

struct Typed<T: Tool> {
    tool: T,
}

impl<T: Tool> ErasedTool for Typed<T> {
    fn tool_any(&self) -> &dyn Any {
        &self.tool
    }

    fn parse(&self, args: &Value) -> Result<AnyInput, (String, String)> {
        Ok(Box::new(<T::Input as ToolInput>::__parse(args)?))
    }

    fn permission_content(&self, input: InputRef<'_>) -> Option<PermissionContent> {
        self.tool
            .permission_content(input.downcast_ref::<T::Input>()?)
    }

    fn validate(&self, input: InputRef<'_>, cx: &ToolContext) -> Result<(), Failure> {
        let Some(input) = input.downcast_ref::<T::Input>() else {
            return Err(Failure::Mismatch);
        };
        match self.tool.validate_input(input, cx) {
            Ok(()) => Ok(()),
            Err(err) => Err(Failure::Rejected(err.into())),
        }
    }

    fn check_permissions(
        &self,
        input: InputRef<'_>,
        cx: &ToolContext,
    ) -> Option<PermissionDecision> {
        Some(
            self.tool
                .check_permissions(input.downcast_ref::<T::Input>()?, cx),
        )
    }

    fn call<'a>(&'a self, input: AnyInput, cx: &'a ToolContext) -> BoxFuture<'a, CallResult> {
        // The body's own future in a thin wrapper, boxed once: no async
        // block of ours around it, whose state machine would be compiled
        // once per tool.
        match input.downcast::<T::Input>() {
            Ok(input) => Box::pin(Finish {
                body: self.tool.call(*input, cx),
            }),
            Err(_) => mismatch_future(),
        }
    }
}

fn mismatch_future<'a>() -> BoxFuture<'a, CallResult> {
    Box::pin(std::future::ready(Err(Failure::Mismatch)))
}

/// Where a tool's input schema comes from.
enum SchemaSource {
    /// Generated from the input type on first use.
    Generated(fn() -> Value),
    /// Given whole (runtime tools): the handle's cache holds it from the
    /// start, so it is never copied.
    Given,
}

/// A tool ready to be listed, rendered and called: cheap to clone, shared
/// by the list, every pool and the executor.
#[derive(Clone)]
pub struct ToolHandle {
    inner: Arc<Inner>,
}

struct Inner {
    tool: Box<dyn ErasedTool>,
    /// The tool's input type is `serde_json::Value` (runtime and imported
    /// tools): its input is the arguments themselves, never parsed into a
    /// copy of them.
    json_input: bool,
    spec: ToolSpec,
    evaluators: Evaluators,
    schema_source: SchemaSource,
    schema: OnceLock<Value>,
    /// Which schema walks `prepare` can need, derived from `schema` once.
    plan: OnceLock<ArgPlan>,
    /// The tool's rendered definitions, per provider format.
    render_slots: RenderSlots,
}

impl fmt::Debug for ToolHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ToolHandle").field(&self.name()).finish()
    }
}

impl ToolHandle {
    /// Wraps a tool declared with `#[tool]`.
    ///
    /// The list built by [`BaseTools::linked`](crate::catalog::BaseTools::linked) does this
    /// for every registered tool; call it yourself to test one tool alone.
    pub fn new<T: crate::declare::DeclaredTool>(tool: T) -> Self {
        Self::from_parts(tool, crate::declare::declared::declaration_of::<T>(), None)
    }

    pub(crate) fn from_parts<T: Tool>(
        tool: T,
        declaration: Declaration<T::Input>,
        schema_override: Option<Value>,
    ) -> Self {
        let (schema_source, schema) = match schema_override {
            Some(schema) => (SchemaSource::Given, OnceLock::from(schema)),
            None => (
                SchemaSource::Generated(<T::Input as ToolInput>::__schema),
                OnceLock::new(),
            ),
        };
        Self::from_erased(
            Box::new(Typed { tool }),
            TypeId::of::<T::Input>() == TypeId::of::<Value>(),
            declaration.spec,
            declaration.evaluators,
            schema_source,
            schema,
            <T::Output as IntoToolOutput>::output_schema,
        )
    }

    /// The non-generic rest of [`from_parts`](Self::from_parts), compiled
    /// once rather than once per tool.
    fn from_erased(
        tool: Box<dyn ErasedTool>,
        json_input: bool,
        mut spec: ToolSpec,
        evaluators: Evaluators,
        schema_source: SchemaSource,
        schema: OnceLock<Value>,
        output_schema: fn() -> Option<Value>,
    ) -> Self {
        if let Some(schema) = output_schema() {
            spec.set_output_schema(schema);
        }
        ToolHandle {
            inner: Arc::new(Inner {
                tool,
                json_input,
                spec,
                evaluators,
                schema_source,
                schema,
                plan: OnceLock::new(),
                render_slots: RenderSlots::default(),
            }),
        }
    }

    /// The model-facing name.
    pub fn name(&self) -> &str {
        self.spec().name()
    }

    /// Everything known about the tool without an input.
    pub fn spec(&self) -> &ToolSpec {
        &self.inner.spec
    }

    /// The JSON Schema of the tool's input, generated once and cached.
    pub fn input_schema(&self) -> &Value {
        self.inner
            .schema
            .get_or_init(|| match &self.inner.schema_source {
                SchemaSource::Generated(schema) => schema(),
                // Set when the handle was made; never reached.
                SchemaSource::Given => Value::Object(serde_json::Map::new()),
            })
    }

    /// What `prepare` must check of this tool's arguments, worked out
    /// from the input schema on first use.
    fn arg_plan(&self) -> &ArgPlan {
        self.inner
            .plan
            .get_or_init(|| ArgPlan::new(self.input_schema()))
    }

    /// The tool's rendered definitions (see `render::cache`).
    pub(crate) fn render_slots(&self) -> &RenderSlots {
        &self.inner.render_slots
    }

    /// Runs the tool's `enabled` self-check (true when it has none).
    /// A self-check that panics counts as disabled.
    pub fn is_enabled(&self) -> bool {
        catch_unwind(AssertUnwindSafe(|| self.inner.evaluators.enabled())).unwrap_or_else(|_| {
            tracing::warn!(
                tool = self.name(),
                "enabled self-check panicked; treating the tool as disabled"
            );
            false
        })
    }

    /// Checks every declared example input the way a call's arguments are
    /// checked ([`prepare`](Self::prepare)): an example the tool would
    /// refuse teaches the model a call that fails.
    pub(crate) fn check_input_examples(&self) -> Result<(), crate::declare::DefinitionError> {
        for (index, example) in self.spec().input_examples().iter().enumerate() {
            if let Err(err) = self.prepare(example.clone()) {
                return Err(crate::declare::DefinitionError::InputExample {
                    tool: self.name().to_owned(),
                    index,
                    why: err.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Parses the model's arguments into the tool's input type. A bad
    /// argument is an error naming the tool and the field path.
    ///
    /// `null` for an optional field whose schema does not admit null means
    /// "absent": providers' strict modes make optional fields nullable and
    /// models then send `null` (see the strict-schema section of the
    /// [`render`](crate::render) module docs).
    ///
    /// Where the input schema describes an object (the arguments
    /// themselves, a nested struct), only a JSON object is accepted: serde
    /// would also read a struct from an array of its fields in order
    /// (`["ls"]`), a form no provider sends and no schema advertises, so it
    /// is refused here rather than guessed at.
    ///
    /// Both rules are schema walks. Which of them a tool can need is
    /// worked out once from its schema, so a tool whose schema proves a
    /// walk idle (most flat inputs) never pays for it per call.
    pub fn prepare(&self, mut args: Value) -> Result<PreparedCall, ToolError> {
        let plan = *self.arg_plan();
        if plan.needs_shape_walk(&args) {
            self.check_shape(&args)?;
        }
        if plan.needs_null_walk(&args) {
            crate::input::nulls::drop_null_optionals(&mut args, self.input_schema());
        }
        // A typed input is parsed from a borrow, so the arguments stay, as
        // sent, for an approver to see (`PreparedCall::args`); a JSON input
        // is the arguments, held once.
        let input = if self.inner.json_input {
            Input::Json(Arc::new(args))
        } else {
            let input = self
                .inner
                .tool
                .parse(&args)
                .map_err(|(path, message)| invalid_input(self.name(), &path, &message))?;
            Input::Parsed {
                input,
                args: Arc::new(args),
            }
        };
        Ok(PreparedCall {
            tool: self.clone(),
            input,
            postures: OnceLock::new(),
        })
    }

    /// Refuses a non-object where the schema promises an object.
    fn check_shape(&self, args: &Value) -> Result<(), ToolError> {
        if let Some(mismatch) =
            crate::input::schema::shape::first_mismatch(args, self.input_schema())
        {
            if mismatch.found == crate::input::schema::shape::TOO_DEEP {
                return Err(invalid_input(
                    self.name(),
                    &mismatch.path,
                    "arguments nested more than 64 levels deep are refused",
                ));
            }
            let expected = if mismatch.path.is_empty() {
                "a JSON object holding the tool's arguments"
            } else {
                "a JSON object"
            };
            return Err(invalid_input(
                self.name(),
                &mismatch.path,
                &format!("expected {expected}, got {}", mismatch.found),
            ));
        }
        Ok(())
    }

    /// Parses, validates and runs one call, capping the result: the short
    /// path for tests and simple runtimes, with [`PreparedCall::run`]'s
    /// rules (the tool's own `Deny` and `Ask` stop the call). No general
    /// permission policy is consulted; runtimes that have one use
    /// [`prepare`](Self::prepare) and ask it first.
    pub async fn call_json(&self, args: Value, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.prepare(args)?.run(cx).await
    }

    /// The concrete tool, when it is a `T` (for state a tool keeps, such as
    /// a todo list).
    pub fn downcast_ref<T: Tool>(&self) -> Option<&T> {
        self.inner.tool.tool_any().downcast_ref::<T>()
    }

    /// `true` when both handles are the same tool instance.
    pub fn ptr_eq(&self, other: &ToolHandle) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The instance's address: equal for two handles exactly when
    /// [`ptr_eq`](Self::ptr_eq) holds, while either is alive (a key for
    /// caches that hold the handle too).
    #[cfg(feature = "mcp")]
    pub(crate) fn instance_key(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }
}

/// One call whose input has been parsed: ask it how it may be dispatched,
/// then run it.
pub struct PreparedCall {
    tool: ToolHandle,
    input: Input,
    /// The three postures, evaluated together on the first question, so
    /// batching and the permission pipeline act on the same answers (and
    /// the expressions run once per call, not once per question).
    postures: OnceLock<Postures>,
}

/// A call's input and the arguments it came from (after null handling),
/// each held once: the arguments are shared with an approver, never
/// copied, and a JSON input is the arguments themselves.
enum Input {
    /// The tool's own type, parsed from a borrow of the arguments.
    Parsed { input: AnyInput, args: Arc<Value> },
    /// A tool that takes JSON (runtime and imported tools).
    Json(Arc<Value>),
}

impl Input {
    fn args(&self) -> &Arc<Value> {
        match self {
            Input::Parsed { args, .. } | Input::Json(args) => args,
        }
    }

    fn as_any(&self) -> InputRef<'_> {
        match self {
            Input::Parsed { input, .. } => &**input,
            Input::Json(args) => &**args,
        }
    }

    /// The input the body takes. The arguments of a typed input are let go
    /// here, before the body runs; a JSON input is moved out of its `Arc`
    /// (copied only if an approver kept its request).
    fn into_any(self) -> AnyInput {
        match self {
            Input::Parsed { input, .. } => input,
            Input::Json(args) => Box::new(Arc::unwrap_or_clone(args)),
        }
    }
}

/// The three postures of one call, and how many of them fell back to the
/// strict answer because their expression panicked (the executor counts
/// those per tool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Postures {
    pub(crate) concurrency_safe: bool,
    pub(crate) read_only: bool,
    pub(crate) destructive: bool,
    pub(crate) fallbacks: u32,
}

impl fmt::Debug for PreparedCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedCall")
            .field("tool", &self.tool.name())
            .finish_non_exhaustive()
    }
}

impl PreparedCall {
    /// The tool this call is for.
    pub fn tool(&self) -> &ToolHandle {
        &self.tool
    }

    /// The arguments the input was parsed from, after null handling (an
    /// optional field sent as `null` is absent here).
    pub fn args(&self) -> &Value {
        self.input.args()
    }

    /// The arguments, shared (for an approval request).
    pub(crate) fn shared_args(&self) -> &Arc<Value> {
        self.input.args()
    }

    /// The text content rules (`Tool(content)`) are matched against: the
    /// tool's [`permission_content`](crate::declare::Tool::permission_content) (a
    /// path normalised lexically). `None` when the tool gives none, and
    /// when the hook panicked: content rules then match nothing, which the
    /// permission pipeline treats as a reason to ask.
    pub fn permission_content(&self) -> Option<String> {
        self.content().map(PermissionContent::into_string)
    }

    /// [`permission_content`](Self::permission_content) with its kind.
    pub(crate) fn content(&self) -> Option<PermissionContent> {
        let erased = &self.tool.inner.tool;
        catch_unwind(AssertUnwindSafe(|| {
            erased.permission_content(self.input.as_any())
        }))
        .unwrap_or_else(|_| {
            tracing::warn!(
                tool = self.tool.name(),
                "permission content hook panicked; content rules cannot match this call"
            );
            None
        })
    }

    fn ask(&self, question: Question) -> bool {
        let postures = self.postures();
        match question {
            Question::ConcurrencySafe => postures.concurrency_safe,
            Question::ReadOnly => postures.read_only,
            Question::Destructive => postures.destructive,
        }
    }

    /// The answer, and whether it is the strict fallback.
    fn ask_tracked(&self, question: Question) -> (bool, bool) {
        let evaluators = &self.tool.inner.evaluators;
        let input: &dyn Any = self.input.as_any();
        let answer = || match question {
            Question::ConcurrencySafe => evaluators.concurrency_safe(input),
            Question::ReadOnly => evaluators.read_only(input),
            Question::Destructive => evaluators.destructive(input),
        };
        match catch_unwind(AssertUnwindSafe(answer)) {
            Ok(Some(answer)) => (answer, false),
            Ok(None) => (question.strict_answer(), true),
            Err(_) => {
                tracing::warn!(
                    tool = self.tool.name(),
                    posture = question.key(),
                    "posture expression panicked; using the strict answer"
                );
                (question.strict_answer(), true)
            }
        }
    }

    /// All three postures, counting strict fallbacks: evaluated on the
    /// first call, read afterwards.
    pub(crate) fn postures(&self) -> Postures {
        *self.postures.get_or_init(|| {
            let (concurrency_safe, a) = self.ask_tracked(Question::ConcurrencySafe);
            let (read_only, b) = self.ask_tracked(Question::ReadOnly);
            let (destructive, c) = self.ask_tracked(Question::Destructive);
            Postures {
                concurrency_safe,
                read_only,
                destructive,
                fallbacks: u32::from(a) + u32::from(b) + u32::from(c),
            }
        })
    }

    /// May this call share a concurrent batch? A panicking posture
    /// expression means no. The three posture expressions run together on
    /// the first of these questions, once per call; later questions read
    /// those answers, so every step that asks sees the same ones.
    pub fn is_concurrency_safe(&self) -> bool {
        self.ask(Question::ConcurrencySafe)
    }

    /// Does this call only read? A panicking posture expression means no.
    pub fn is_read_only(&self) -> bool {
        self.ask(Question::ReadOnly)
    }

    /// Can this call destroy data? A panicking posture expression means
    /// yes. Unsaid, a call is destructive exactly when it is not read-only,
    /// so a panicking `read_only` expression means yes too.
    pub fn is_destructive(&self) -> bool {
        self.ask(Question::Destructive)
    }

    /// The Rule of Two properties this call brings to its conversation:
    /// the tool's declared set, or, unsaid, private data; untrusted input
    /// when the tool is open-world; an external effect when this call is
    /// not read-only (a panicking `read_only` expression means it is not).
    pub fn exposures(&self) -> Exposures {
        let posture = self.tool().spec().posture();
        if let Some(declared) = posture.rule_of_two().value() {
            return *declared;
        }
        let mut exposures = Exposures::NONE.with(Exposure::PrivateData);
        if *posture.open_world().value() {
            exposures = exposures.with(Exposure::UntrustedInput);
        }
        if !self.is_read_only() {
            exposures = exposures.with(Exposure::ExternalEffect);
        }
        exposures
    }

    /// What this call reads and writes, as the tool declares it (paths as
    /// written, normalised lexically but not yet anchored to a root);
    /// `None` when the tool declares no access, so the boolean rule
    /// applies. An access expression that panics means
    /// [`Access::everything`]: the call runs alone.
    pub fn declared_access(&self) -> Option<Access> {
        self.access_tracked().0
    }

    /// The declared access, and whether it is the strict fallback of a
    /// panicking expression (the executor counts those per tool).
    pub(crate) fn access_tracked(&self) -> (Option<Access>, bool) {
        let evaluators = &self.tool.inner.evaluators;
        match catch_unwind(AssertUnwindSafe(|| evaluators.access(self.input.as_any()))) {
            Ok(Some(access)) => (access, false),
            Ok(None) => (Some(Access::everything()), true),
            Err(_) => {
                tracing::warn!(
                    tool = self.tool.name(),
                    posture = "access",
                    "access expression panicked; the call writes everything"
                );
                (Some(Access::everything()), true)
            }
        }
    }

    /// The text a safety classifier sees; empty means "skip the classifier".
    /// `None` when producing the text panicked: the caller must then ask a
    /// person rather than skip.
    pub fn classifier_input(&self) -> Option<String> {
        let evaluators = &self.tool.inner.evaluators;
        catch_unwind(AssertUnwindSafe(|| {
            evaluators.classifier_input(self.input.as_any())
        }))
        .ok()
        .flatten()
    }

    /// The tool's own permission view. A hook that panics asks a person.
    pub fn check_permissions(&self, cx: &ToolContext) -> PermissionDecision {
        let erased = &self.tool.inner.tool;
        let name = self.tool.name();
        match catch_unwind(AssertUnwindSafe(|| {
            erased.check_permissions(self.input.as_any(), cx)
        })) {
            Ok(Some(decision)) => decision,
            Ok(None) => PermissionDecision::Deny {
                reason: Failure::Mismatch.into_error(name).to_string(),
            },
            Err(_) => PermissionDecision::Ask {
                reason: format!("the permission check of `{name}` panicked"),
            },
        }
    }

    /// Validates, runs and caps the call, after the tool's own permission
    /// check: `Deny` stops it ([`ToolError::Refused`] by
    /// [`RefusedBy::Tool`]), and so does `Ask` (refused by
    /// [`RefusedBy::Unapproved`]) until a person has approved the call and
    /// the runtime says so with [`run_approved`](Self::run_approved).
    /// `Allow` and `Delegate` run: `run` assumes the runtime's general
    /// policy, if it has one, has already allowed the call.
    /// A tool that panics yields an error, never a panic in the caller.
    pub async fn run(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.run_checked(cx, false).await
    }

    /// [`run`](Self::run) for a call a person has approved: an `Ask` from
    /// the tool no longer stops it; a `Deny` still does.
    pub async fn run_approved(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.run_checked(cx, true).await
    }

    async fn run_checked(self, cx: &ToolContext, approved: bool) -> Result<ToolOutput, ToolError> {
        let refused = |by, reason: &str| ToolError::Refused {
            tool: self.tool.name().to_owned(),
            refusal: Refusal::new(by, capped_message(reason).to_string()),
        };
        match self.check_permissions(cx) {
            PermissionDecision::Deny { reason } => return Err(refused(RefusedBy::Tool, &reason)),
            PermissionDecision::Ask { reason } if !approved => {
                return Err(refused(RefusedBy::Unapproved, &reason));
            }
            _ => {}
        }
        self.validate(cx)?;
        let cap = *self.tool.spec().max_result_chars().value();
        Ok(self.invoke(cx).await?.capped(cap))
    }

    /// The tool's `validate_input`; a panic is an error.
    pub(crate) fn validate(&self, cx: &ToolContext) -> Result<(), ToolError> {
        let erased = &self.tool.inner.tool;
        match catch_unwind(AssertUnwindSafe(|| {
            erased.validate(self.input.as_any(), cx)
        })) {
            Ok(result) => result.map_err(|failure| failure.into_error(self.tool.name())),
            Err(payload) => Err(panicked(self.tool.name(), "validate_input", payload)),
        }
    }

    /// Runs the body with no permission check and no cap: for the
    /// executor, which has authorized and validated the call and caps
    /// (or spills) the result itself. A panic is an error.
    pub(crate) async fn invoke(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let PreparedCall { tool, input, .. } = self;
        let name = tool.name();
        let erased = &tool.inner.tool;
        // Taken apart before the body runs, so nothing of the call but
        // the input the body owns is held while it does.
        let input = input.into_any();
        let future = match catch_unwind(AssertUnwindSafe(|| erased.call(input, cx))) {
            Ok(future) => future,
            Err(payload) => return Err(panicked(name, "call", payload)),
        };
        CatchUnwind(future)
            .await
            .map_err(|payload| panicked(name, "call", payload))?
            .map_err(|failure| failure.into_error(name))
    }
}

/// The error for arguments that do not fit: `path` as serde_path_to_error
/// writes it (`.` for the root, which is stored as the empty path), both
/// texts capped since they quote the model's input.
fn invalid_input(tool: &str, path: &str, message: &str) -> ToolError {
    let path = if path == "." { "" } else { path };
    ToolError::InvalidInput {
        tool: tool.to_owned(),
        path: cap_error_text(path).into_owned(),
        message: cap_error_text(message).into_owned(),
    }
}

fn panicked(tool: &str, phase: &str, payload: Box<dyn Any + Send>) -> ToolError {
    // A panic message can quote anything the tool was given.
    let message = capped_message(&crate::text::panic_message(payload.as_ref())).to_string();
    tracing::error!(tool, phase, message, "tool panicked");
    ToolError::Failed {
        tool: tool.to_owned(),
        source: format!("{phase} panicked: {message}").into(),
    }
}

/// Polls a future, turning a panic inside `poll` into an `Err`.
pub(crate) struct CatchUnwind<F>(pub(crate) F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}

/// How many per-tool renders a handle keeps (the render stage's
/// `Fragment` kinds: one per provider format, the prompt catalog, and the
/// input schema's two rendered forms).
pub(crate) const RENDER_SLOTS: usize = 8;

/// One tool's rendered definitions, each produced on first use by the
/// render stage (which alone knows what goes in each slot). Held by the
/// handle, so it lives exactly as long as the definition it renders.
#[derive(Default)]
pub(crate) struct RenderSlots {
    slots: [OnceLock<Box<str>>; RENDER_SLOTS],
}

impl RenderSlots {
    /// Slot `index` (below [`RENDER_SLOTS`]).
    pub(crate) fn slot(&self, index: usize) -> &OnceLock<Box<str>> {
        &self.slots[index]
    }
}

impl fmt::Debug for RenderSlots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rendered = self.slots.iter().filter(|s| s.get().is_some()).count();
        f.debug_struct("RenderSlots")
            .field("rendered", &rendered)
            .finish()
    }
}
