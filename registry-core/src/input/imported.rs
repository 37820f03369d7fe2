//! Finishing an imported definition into a handle:
//! [`DefinitionImport::import`], next to [`ToolBuilder::build`](crate::declare::ToolBuilder::build)
//! it calls.

use std::future::Future;

use serde_json::Value;

use crate::declare::imported::{DefinitionImport, ImportError, RemoteToolDefinition};
use crate::declare::{BoxError, ToolContext, ToolOutput};
use crate::input::ToolHandle;

impl DefinitionImport {
    /// The tool `definition` becomes, with `handler` running its calls
    /// (the handler [`ToolBuilder::build`](crate::declare::ToolBuilder::build)
    /// takes: the raw JSON arguments and the call's context in, the
    /// output or an error out). Exactly the tool `mcp::McpImport` (feature
    /// `mcp`) makes of the same definition listed by a live server; see
    /// [`builder`](Self::builder) for what each field becomes.
    ///
    /// An error names the tool and the problem; bad input is never a
    /// panic.
    ///
    /// ```
    /// use registry_core::ToolOutput;
    /// use registry_core::declare::imported::{DefinitionImport, RemoteToolDefinition};
    ///
    /// let definition = RemoteToolDefinition::new("ping", serde_json::json!({ "type": "object" }));
    /// let ping = DefinitionImport::new("net")
    ///     .import(&definition, |_, _| async { Ok(ToolOutput::text("pong")) })?;
    /// assert_eq!(ping.name(), "mcp__net__ping");
    /// assert_eq!(ping.spec().remote_origin().map(|o| o.server()), Some("net"));
    /// # Ok::<(), registry_core::declare::imported::ImportError>(())
    /// ```
    pub fn import<F, Fut>(
        &self,
        definition: &RemoteToolDefinition,
        handler: F,
    ) -> Result<ToolHandle, ImportError>
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, BoxError>> + Send + 'static,
    {
        self.builder(definition)?
            .build(handler)
            .map_err(|source| ImportError::Definition {
                server: self.server().to_owned(),
                tool: definition.name.clone(),
                source,
            })
    }
}
