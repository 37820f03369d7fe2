//! The one way to make a tool at run time (MCP imports, tools from config):
//! the same fail-closed defaults as `#[tool]`, the same rules checked when
//! [`build`](ToolBuilder::build) runs instead of at compile time.
//!
//! The builder is the declaration; [`build`](ToolBuilder::build), which
//! erases it into a [`ToolHandle`](crate::input::ToolHandle), lives with the
//! handle in `input::runtime`, the stage that makes handles.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::access::Access;
use crate::declare::PermissionContent;
use crate::declare::definition::{Declaration, RemoteOrigin};
use crate::declare::exposure::Exposure;
use crate::declare::posture::{DeclaredAccess, Loading, Posture, ResultCap};

/// The error a runtime tool's handler returns.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Builds a tool at run time. Anything not set keeps the strict default of
/// [`Declaration::new`].
///
/// ```
/// use registry_core::{ToolBuilder, ToolOutput, declare::PostureKind};
///
/// let echo = ToolBuilder::new("echo", "Repeat the `text` argument.")
///     .input_schema(serde_json::json!({
///         "type": "object",
///         "properties": { "text": { "type": "string" } },
///         "required": ["text"]
///     }))
///     .read_only(true)
///     .build(|args, _cx| async move {
///         Ok(ToolOutput::text(args["text"].as_str().unwrap_or_default()))
///     })
///     .unwrap();
/// // Unsaid: not concurrency-safe, and the spec knows it was not declared.
/// assert_eq!(echo.spec().concurrency_safe().value(), &PostureKind::Fixed(false));
/// assert!(!echo.spec().concurrency_safe().is_declared());
/// assert!(echo.spec().read_only().is_declared());
/// // `destructive` is unsaid: it follows `read_only`, so a reader destroys nothing.
/// assert_eq!(echo.spec().destructive().value(), &PostureKind::Fixed(false));
/// assert!(!echo.spec().destructive().is_declared());
/// ```
pub struct ToolBuilder {
    pub(crate) declaration: Declaration<Value>,
    pub(crate) schema: Value,
    pub(crate) content: Option<ContentHook>,
}

/// Names what a call's content rules (`Tool(content)`) are matched against.
pub(crate) type ContentHook = Arc<dyn Fn(&Value) -> Option<PermissionContent> + Send + Sync>;

impl fmt::Debug for ToolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolBuilder")
            .field("spec", self.declaration.spec())
            .finish_non_exhaustive()
    }
}

impl ToolBuilder {
    /// Starts a tool with the strict defaults and an input schema that
    /// accepts any object.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        ToolBuilder {
            declaration: Declaration::new(name, description),
            schema: serde_json::json!({ "type": "object" }),
            content: None,
        }
    }

    /// The JSON Schema of the arguments, as the model will see it.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.schema = schema;
        self
    }

    /// Old names that keep resolving.
    pub fn aliases<S: Into<String>>(mut self, aliases: impl IntoIterator<Item = S>) -> Self {
        self.declaration = self.declaration.aliases(aliases);
        self
    }

    /// Declares a fixed concurrency posture.
    pub fn concurrency_safe(self, safe: bool) -> Self {
        self.concurrency_safe_when_posture(Posture::Fixed(safe))
    }

    /// Declares concurrency per call, on the raw arguments.
    pub fn concurrency_safe_when(self, f: impl Fn(&Value) -> bool + Send + Sync + 'static) -> Self {
        self.concurrency_safe_when_posture(per_input(f))
    }

    fn concurrency_safe_when_posture(mut self, posture: Posture<Value>) -> Self {
        self.declaration = self.declaration.concurrency_safe(posture);
        self
    }

    /// Declares a fixed read-only posture.
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.declaration = self.declaration.read_only(Posture::Fixed(read_only));
        self
    }

    /// Declares read-only per call, on the raw arguments.
    pub fn read_only_when(mut self, f: impl Fn(&Value) -> bool + Send + Sync + 'static) -> Self {
        self.declaration = self.declaration.read_only(per_input(f));
        self
    }

    /// Declares a fixed destructive posture.
    pub fn destructive(mut self, destructive: bool) -> Self {
        self.declaration = self.declaration.destructive(Posture::Fixed(destructive));
        self
    }

    /// Declares destructive per call, on the raw arguments.
    pub fn destructive_when(mut self, f: impl Fn(&Value) -> bool + Send + Sync + 'static) -> Self {
        self.declaration = self.declaration.destructive(per_input(f));
        self
    }

    /// Declares what each call reads and writes, on the raw arguments:
    /// calls whose accesses do not conflict share a batch, even when they
    /// write (see [`Access`]). Unsaid, the boolean rule applies
    /// (`concurrency_safe` calls read everything, others write
    /// everything); a closure that panics means the call writes
    /// everything.
    ///
    /// ```
    /// use registry_core::{
    ///     ToolBuilder, ToolOutput, access::{Access, AccessKey}, declare::AccessKind,
    /// };
    ///
    /// let put = ToolBuilder::new("kv_put", "Store a value under `key`.")
    ///     .access(|args| match args["key"].as_str() {
    ///         Some(key) => Access::write(AccessKey::named("kv", key)),
    ///         None => Access::everything(),
    ///     })
    ///     .build(|_, _| async { Ok(ToolOutput::text("ok")) })
    ///     .unwrap();
    /// assert!(put.spec().access().is_declared());
    /// let call = put.prepare(serde_json::json!({ "key": "a" })).unwrap();
    /// assert_eq!(call.declared_access().unwrap().to_string(), "writes kv a");
    /// ```
    pub fn access(mut self, f: impl Fn(&Value) -> Access + Send + Sync + 'static) -> Self {
        self.declaration = self
            .declaration
            .access(DeclaredAccess::new(f, RUNTIME_CLOSURE));
        self
    }

    /// The text a safety classifier sees for a call.
    pub fn classifier_input(
        mut self,
        f: impl Fn(&Value) -> String + Send + Sync + 'static,
    ) -> Self {
        self.declaration = self.declaration.classifier_input(f);
        self
    }

    /// The result cap.
    pub fn max_result_chars(mut self, cap: ResultCap) -> Self {
        self.declaration = self.declaration.max_result_chars(cap);
        self
    }

    /// Eager, deferred or always loaded.
    pub fn loading(mut self, loading: Loading) -> Self {
        self.declaration = self.declaration.loading(loading);
        self
    }

    /// Words that help tool search find the tool.
    pub fn search_hint(mut self, hint: impl Into<String>) -> Self {
        self.declaration = self.declaration.search_hint(hint);
        self
    }

    /// Who may call the tool: the model, programs, or both (see
    /// [`Callers`](crate::declare::Callers)); rendered as the providers'
    /// `allowed_callers` and enforced by the executor.
    pub fn allowed_callers(mut self, callers: crate::declare::Callers) -> Self {
        self.declaration = self.declaration.allowed_callers(callers);
        self
    }

    /// A name for people.
    pub fn user_facing_name(mut self, name: impl Into<String>) -> Self {
        self.declaration = self.declaration.user_facing_name(name);
        self
    }

    /// A call may run for long: served over MCP as a task to clients that
    /// negotiate the Tasks extension (see
    /// [`ToolSpec::long_running`](crate::declare::ToolSpec::long_running)).
    pub fn long_running(mut self) -> Self {
        self.declaration = self.declaration.long_running();
        self
    }

    /// An example input for the model (Anthropic's `input_examples`);
    /// [`build`](Self::build) checks it against the input schema's shape.
    pub fn input_example(mut self, example: serde_json::Value) -> Self {
        self.declaration = self.declaration.input_example(example);
        self
    }

    /// Asks the provider to hold the model to the input schema
    /// (Anthropic's `strict`, sent where the schema allows it).
    pub fn strict(mut self, strict: bool) -> Self {
        self.declaration = self.declaration.strict(strict);
        self
    }

    /// A runtime self-check.
    pub fn enabled(mut self, check: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        self.declaration = self.declaration.enabled(check);
        self
    }

    /// Declares whether a repeated call with the same arguments does
    /// nothing more (MCP's `idempotentHint`; unsaid, `false`).
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.declaration = self.declaration.idempotent(idempotent);
        self
    }

    /// Declares whether calls may reach an open world of things (MCP's
    /// `openWorldHint`; unsaid, `true`).
    pub fn open_world(mut self, open_world: bool) -> Self {
        self.declaration = self.declaration.open_world(open_world);
        self
    }

    /// Declares which properties of the Rule of Two the tool's calls bring
    /// to a conversation (every one of them: `[]` says none). Unsaid, the
    /// strictest reading of the other postures (see
    /// [`SafetyPosture`](crate::declare::SafetyPosture)).
    ///
    /// ```
    /// use registry_core::declare::{Exposure, ToolBuilder};
    ///
    /// let fetch = ToolBuilder::new("web_fetch", "Fetches a page.")
    ///     .read_only(true)
    ///     .rule_of_two([Exposure::UntrustedInput, Exposure::ExternalEffect]);
    /// # let _ = fetch;
    /// ```
    pub fn rule_of_two(mut self, exposures: impl IntoIterator<Item = Exposure>) -> Self {
        self.declaration = self.declaration.rule_of_two(exposures);
        self
    }

    /// The JSON schema of the tool's structured output (an object schema;
    /// MCP publishes it as `outputSchema`).
    pub fn output_schema(mut self, schema: serde_json::Value) -> Self {
        self.declaration.spec.set_output_schema(schema);
        self
    }

    /// Keeps the tool out of the ordinary pool.
    pub fn internal(mut self) -> Self {
        self.declaration = self.declaration.internal();
        self
    }

    /// Records the MCP server (and its own tool name) a tool was imported
    /// from; see [`ToolSpec::remote_origin`](crate::declare::ToolSpec::remote_origin).
    pub fn remote_origin(mut self, origin: RemoteOrigin) -> Self {
        self.declaration = self.declaration.remote_origin(origin);
        self
    }

    /// What content rules (`Tool(content)`) are matched against for a
    /// call, from its raw arguments: the runtime counterpart of
    /// [`Tool::permission_content`](crate::declare::Tool::permission_content). Unset, content rules match nothing
    /// and only whole-tool rules apply (the fail-closed default); a hook
    /// that panics counts as `None`.
    ///
    /// ```
    /// use registry_core::{PermissionContent, ToolBuilder, ToolOutput};
    ///
    /// let fetch = ToolBuilder::new("fetch", "Fetch a URL.")
    ///     .permission_content(|args| args["url"].as_str().map(PermissionContent::text))
    ///     .build(|_, _| async { Ok(ToolOutput::text("")) })
    ///     .unwrap();
    /// let call = fetch.prepare(serde_json::json!({ "url": "https://example.com" })).unwrap();
    /// assert_eq!(call.permission_content().as_deref(), Some("https://example.com"));
    /// ```
    pub fn permission_content(
        mut self,
        f: impl Fn(&Value) -> Option<PermissionContent> + Send + Sync + 'static,
    ) -> Self {
        self.content = Some(Arc::new(f));
        self
    }
}

/// What the catalog records for a runtime closure's text.
const RUNTIME_CLOSURE: &str = "<runtime closure>";

fn per_input(f: impl Fn(&Value) -> bool + Send + Sync + 'static) -> Posture<Value> {
    Posture::PerInput {
        eval: Arc::new(f),
        expr: RUNTIME_CLOSURE.to_owned(),
    }
}
