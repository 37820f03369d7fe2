//! Keeping the registry in step with the server: listing every page of
//! `tools/list` within bounds, building each listed tool through
//! [`DefinitionImport`] (or refusing it with a reason), and swapping the
//! server's registrations in one step.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{PaginatedRequestParams, Tool};
use rmcp::{Peer, RoleClient};
use serde_json::Value;

use super::Shared;
use super::lazy::call_fingerprint;
use super::manifest::kept;
use crate::declare::builder::BoxError;
use crate::declare::imported::{
    DefinitionImport, RemoteAnnotations, RemoteToolDefinition, imported_tool_name,
};
use crate::mcp::{ListError, McpError};

/// Listing stops after this many pages: a server whose cursors never end
/// would otherwise keep the import busy forever.
const MAX_PAGES: usize = 1_000;

/// The most tools one server may offer: a listing of more fails (a page
/// of more is refused as it is read, before it is held whole).
pub(crate) const MAX_IMPORTED_TOOLS: usize = 10_000;

/// A tool the server offered that was not imported, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RefusedTool {
    /// The tool's name on the server.
    pub(super) tool: String,
    /// Why it was refused.
    pub(super) reason: String,
}

impl Shared {
    /// Every page of `tools/list`, within bounds: a page within the call
    /// timeout, at most [`MAX_IMPORTED_TOOLS`] tools and [`MAX_PAGES`]
    /// pages, no cursor twice.
    pub(super) async fn list_all(&self, peer: &Peer<RoleClient>) -> Result<Vec<Tool>, McpError> {
        let failed = |source: ListError| McpError::List {
            server: self.server.clone(),
            source,
        };
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..MAX_PAGES {
            let request = PaginatedRequestParams::default().with_cursor(cursor.clone());
            let page = tokio::time::timeout(self.call_timeout, peer.list_tools(Some(request)))
                .await
                .map_err(|_| {
                    failed(ListError::NoAnswer {
                        limit: self.call_timeout,
                    })
                })?
                .map_err(|err| failed(list_error(err)))?;
            tools.extend(page.tools);
            if tools.len() > MAX_IMPORTED_TOOLS {
                return Err(failed(ListError::TooManyTools {
                    max: MAX_IMPORTED_TOOLS,
                }));
            }
            match page.next_cursor {
                None => return Ok(tools),
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(failed(ListError::CursorRepeated { cursor: next }));
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(failed(ListError::TooManyPages { max: MAX_PAGES }))
    }

    /// Lists the server's tools and replaces this server's registrations
    /// with them.
    pub(super) async fn sync_tools(self: &Arc<Self>) -> Result<(), McpError> {
        let _one_at_a_time = self.sync.lock().await;
        self.sync_tools_locked().await
    }

    /// [`sync_tools`](Self::sync_tools), with the sync lock held.
    pub(super) async fn sync_tools_locked(self: &Arc<Self>) -> Result<(), McpError> {
        let Some(link) = self.link() else {
            return Ok(());
        };
        // What requires a task is what this listing says.
        self.task_tools.clear();
        let listed = self.list_all(&link.peer).await?;
        self.register(listed);
        Ok(())
    }

    /// Replaces this server's registrations with the tools of `listed`
    /// (a live listing, or a manifest's), each kept with its description
    /// cut ([`kept`]).
    pub(super) fn register(self: &Arc<Self>, mut listed: Vec<Tool>) {
        // Sorted by the server's own name: which of two colliding tools
        // wins does not depend on the server's order.
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        let previous = std::mem::take(&mut self.state().definitions);
        let mut tools = BTreeMap::new();
        let mut refused = Vec::new();
        let mut handles = Vec::new();
        let mut definitions = BTreeMap::new();
        let mut listing = Vec::with_capacity(listed.len());
        for tool in listed {
            let (tool, definition) = kept(tool);
            // One copy, shared by the registration and the listing.
            let definition = Arc::new(definition);
            listing.push(Arc::clone(&definition));
            let remote = tool.name.to_string();
            let name = imported_tool_name(&self.server, &remote);
            // The same definition as before: the same handle.
            let unchanged = previous
                .get(&name)
                .filter(|(old, _)| *old == definition && !tools.contains_key(&name))
                .map(|(_, handle)| (name.clone(), handle.clone()));
            match unchanged.map_or_else(|| self.build_tool(&tool, &definition, &tools), Ok) {
                Ok((name, handle)) => {
                    tools.insert(name.clone(), remote);
                    definitions.insert(name, (definition, handle.clone()));
                    handles.push(handle);
                }
                Err(reason) => {
                    tracing::warn!(server = %self.server, tool = %remote, %reason, "MCP tool not imported");
                    refused.push(RefusedTool {
                        tool: remote,
                        reason,
                    });
                }
            }
        }
        // One atomic swap: calls resolved against the old set keep
        // working for every tool that is still offered.
        for err in self.registry.replace_owner(self.owner.as_str(), handles) {
            let crate::catalog::plugins::PluginError::InputNotObject { tool: name, .. } = &err;
            definitions.remove(name);
            let remote = tools.remove(name).unwrap_or_else(|| name.clone());
            refused.push(RefusedTool {
                tool: remote,
                reason: err.to_string(),
            });
        }
        let mut state = self.state();
        state.tools = tools;
        state.refused = refused;
        state.definitions = definitions;
        state.listing = listing;
    }

    /// One imported tool, or why not: the clash check is this import's
    /// own; the tool is [`DefinitionImport`]'s, the one
    /// implementation.
    ///
    /// A call first readies the import (`Shared::ready`: a lazy import
    /// starts its server and checks the tool is still defined as
    /// `definition` says), then goes over the connection.
    pub(super) fn build_tool(
        self: &Arc<Self>,
        tool: &Tool,
        definition: &Value,
        taken: &BTreeMap<String, String>,
    ) -> Result<(String, crate::input::ToolHandle), String> {
        let remote = tool.name.to_string();
        let name = imported_tool_name(&self.server, &remote);
        if let Some(other) = taken.get(&name) {
            return Err(format!(
                "its name normalises to `{name}`, already taken by the server's tool `{other}`"
            ));
        }
        let shared = Arc::downgrade(self);
        // Only a lazy import checks, at a call, that the tool is still
        // defined as it was (see `lazy`).
        let checked: Arc<str> = match &self.lazy {
            Some(_) => call_fingerprint(definition).into(),
            None => Arc::from(""),
        };
        let imported: Arc<str> = name.as_str().into();
        let handle = DefinitionImport::new(self.server.as_str())
            .trusted(self.trusted)
            .import(&remote_definition(tool), move |args, cx| {
                let shared = shared.clone();
                let remote = remote.clone();
                let checked = Arc::clone(&checked);
                let imported = Arc::clone(&imported);
                let cx = cx.clone();
                async move {
                    let shared = shared
                        .upgrade()
                        .ok_or_else(|| -> BoxError { "the MCP import was shut down".into() })?;
                    let remote = shared.ready(&imported, &remote, &checked).await?;
                    shared.call(&remote, args, &cx).await
                }
            })
            .map_err(|err| err.reason())?;
        Ok((name, handle))
    }
}

/// A failed `tools/list` request, by rmcp's error type.
fn list_error(err: rmcp::ServiceError) -> ListError {
    match err {
        rmcp::ServiceError::McpError(error) => ListError::Server {
            code: error.code.0,
            message: error.message.into_owned(),
        },
        rmcp::ServiceError::TransportClosed => ListError::Closed,
        other => ListError::Failed {
            source: Box::new(other),
        },
    }
}

/// The definition an rmcp tool is, field for field (no serde round
/// trip: nothing here can fail). Fields the definition does not read
/// (`icons`) are left behind.
fn remote_definition(tool: &Tool) -> RemoteToolDefinition {
    RemoteToolDefinition {
        name: tool.name.to_string(),
        title: tool.title.clone(),
        description: tool.description.as_deref().map(str::to_owned),
        input_schema: Value::Object((*tool.input_schema).clone()),
        output_schema: tool
            .output_schema
            .as_ref()
            .map(|schema| Value::Object((**schema).clone())),
        annotations: tool.annotations.as_ref().map(|a| RemoteAnnotations {
            title: a.title.clone(),
            read_only_hint: a.read_only_hint,
            destructive_hint: a.destructive_hint,
            idempotent_hint: a.idempotent_hint,
            open_world_hint: a.open_world_hint,
        }),
        meta: tool.meta.as_ref().map(|meta| meta.0.clone()),
    }
}
