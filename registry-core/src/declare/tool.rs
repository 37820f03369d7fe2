//! The body of a tool: the trait its author implements next to `#[tool]`.

use std::future::Future;

use crate::declare::context::ToolContext;
use crate::declare::output::IntoToolOutput;
use crate::declare::{PermissionContent, PermissionDecision};

/// The typed input of a tool: parsed from the model's JSON arguments and
/// described to the model by its JSON Schema.
///
/// Implemented for every `Deserialize + JsonSchema` type (the impl lives
/// with the parser, in the `input` stage); derive both on
/// your input struct. The schema must be an object (`"type": "object"`):
/// every provider requires one, so the list refuses any other input
/// ([`CatalogError::InputNotObject`](crate::catalog::CatalogError::InputNotObject)).
/// That check runs when the list is built, not at compile time: whether a
/// type's schema is an object is only known once schemars has produced it. The trait has no supertraits on purpose: a missing
/// derive is then reported as this trait's message, which names both
/// derives, rather than as whichever bound rustc happened to check first.
#[diagnostic::on_unimplemented(
    message = "tool input `{Self}` must implement `serde::Deserialize` and `schemars::JsonSchema`",
    label = "used as a tool's `type Input` here",
    note = "add `#[derive(serde::Deserialize, schemars::JsonSchema)]` to `{Self}`, a struct with named fields: a tool's input is a JSON object"
)]
pub trait ToolInput: Send + Sync + Sized + 'static {
    /// Parses the model's arguments; on failure, the field path and
    /// serde's message.
    #[doc(hidden)]
    fn __parse(args: &serde_json::Value) -> Result<Self, (String, String)>;

    /// The input's JSON Schema.
    #[doc(hidden)]
    fn __schema() -> serde_json::Value;
}

/// What a tool does. Implement it on the struct that carries `#[tool]`.
///
/// The attribute says what the tool *is* (name, description, posture);
/// this trait says what it *does*. The optional hooks default to "no extra
/// opinion": inputs that parsed are valid, and permission is delegated to the
/// runtime's general policy.
///
/// `call` is declared as returning a `Send` future so runtimes can run calls
/// on a multi-threaded executor; write it as an `async fn`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is declared with `#[tool]` but does not implement `registry_core::Tool`",
    label = "missing `impl registry_core::Tool for {Self}`",
    note = "implement `Tool` with `type Input`, `type Output`, `type Error` and `async fn call`"
)]
pub trait Tool: Send + Sync + 'static {
    /// The parsed arguments.
    type Input: ToolInput;
    /// The typed result, rendered as text for the model.
    type Output: IntoToolOutput;
    /// The typed failure, shown to the model as an error result: any
    /// `std::error::Error + Send + Sync` (a `thiserror` enum, `io::Error`)
    /// or anything else that converts into a boxed error (`anyhow::Error`).
    /// It stays downcastable from [`ToolError`](crate::input::ToolError)'s source.
    type Error: Into<crate::declare::BoxError> + Send + 'static;

    /// Runs one call.
    fn call(
        &self,
        input: Self::Input,
        cx: &ToolContext,
    ) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send;

    /// Checks what the schema cannot express (ranges, exclusive fields).
    /// An `Err` is shown to the model as [`ToolError::Rejected`](crate::input::ToolError::Rejected),
    /// with the typed error as its source; the call does not run.
    fn validate_input(&self, input: &Self::Input, cx: &ToolContext) -> Result<(), Self::Error> {
        let _ = (input, cx);
        Ok(())
    }

    /// The tool's own view on whether this call may run. The default
    /// delegates to the general permission policy; override it only for
    /// logic the policy cannot know (paths, quotas).
    ///
    /// [`PreparedCall::run`](crate::input::PreparedCall::run) enforces the answer
    /// itself: `Deny` never runs
    /// ([`ToolError::Refused`](crate::input::ToolError::Refused) by
    /// [`RefusedBy::Tool`](crate::permission::RefusedBy::Tool)); `Ask` does
    /// not run (refused by
    /// [`RefusedBy::Unapproved`](crate::permission::RefusedBy::Unapproved))
    /// until a person approved the call and the runtime calls
    /// [`run_approved`](crate::input::PreparedCall::run_approved); `Allow` and
    /// `Delegate` run, `run` assuming that the runtime's general policy,
    /// if it has one, has already allowed a delegated call. The
    /// [`PermissionPolicy`](crate::permission::PermissionPolicy) is that policy: it
    /// honours this hook's `Deny` right after the deny rules, and its
    /// `Allow` and `Ask` after the allow rules (an allow rule answers an
    /// `Ask` in advance); a hook that panics counts as `Ask`.
    fn check_permissions(&self, input: &Self::Input, cx: &ToolContext) -> PermissionDecision {
        let _ = (input, cx);
        PermissionDecision::Delegate
    }

    /// What content rules (`Tool(content)`) are matched against for this
    /// call: the command of a shell tool, the path of a file tool. Build it
    /// with [`PermissionContent::command`], [`PermissionContent::path`]
    /// (normalised lexically) or [`PermissionContent::text`].
    ///
    /// The default, `None`, fails closed: content rules for the tool then
    /// match nothing, only whole-tool rules apply, and a call of a tool
    /// that has deny or ask content rules but no content is not run
    /// silently: the permission pipeline asks a person (see
    /// [`PermissionPolicy`](crate::permission::PermissionPolicy)). A hook that
    /// panics counts as `None`.
    fn permission_content(&self, input: &Self::Input) -> Option<PermissionContent> {
        let _ = input;
        None
    }
}
