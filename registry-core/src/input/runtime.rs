//! The tool a [`ToolBuilder`] finishes into: a handler closure over raw
//! JSON arguments, behind the same [`ToolHandle`] as a declared tool.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::declare::builder::ContentHook;
use crate::declare::{
    BoxError, DefinitionError, PermissionContent, Tool, ToolBuilder, ToolContext, ToolOutput,
    require_object_schema,
};
use crate::input::ToolHandle;

pub(crate) type Handler = Arc<
    dyn Fn(Value, ToolContext) -> Pin<Box<dyn Future<Output = Result<ToolOutput, BoxError>> + Send>>
        + Send
        + Sync,
>;

impl ToolBuilder {
    /// Checks the naming rules and finishes the tool with its handler.
    pub fn build<F, Fut>(self, handler: F) -> Result<ToolHandle, DefinitionError>
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, BoxError>> + Send + 'static,
    {
        self.declaration.validate()?;
        require_object_schema(&self.schema).map_err(|source| DefinitionError::InputNotObject {
            tool: self.declaration.spec().name().to_owned(),
            source,
        })?;
        let handler: Handler = Arc::new(move |args, cx| Box::pin(handler(args, cx)));
        let handle = ToolHandle::from_parts(
            RuntimeTool {
                handler,
                content: self.content,
            },
            self.declaration,
            Some(self.schema),
        );
        handle.check_input_examples()?;
        Ok(handle)
    }
}

struct RuntimeTool {
    handler: Handler,
    content: Option<ContentHook>,
}

/// The failure of a runtime tool's handler.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct RuntimeToolError(BoxError);

impl Tool for RuntimeTool {
    type Input = Value;
    type Output = ToolOutput;
    type Error = RuntimeToolError;

    async fn call(&self, input: Value, cx: &ToolContext) -> Result<ToolOutput, RuntimeToolError> {
        (self.handler)(input, cx.clone())
            .await
            .map_err(RuntimeToolError)
    }

    fn permission_content(&self, input: &Value) -> Option<PermissionContent> {
        // A panic here is caught by the handle, which answers `None`.
        self.content.as_ref().and_then(|f| f(input))
    }
}
