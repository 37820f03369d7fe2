//! Our own server, over an in-memory stream, imported back by our own
//! import: the round trip the import and tasks suites call through.

use std::sync::Arc;

use registry_core::mcp::{McpImport, McpServer, McpServerConfig};
use registry_core::permission::RuleOfTwo;
use registry_core::session::Session;
use registry_core::{
    Executor, PermissionContext, PermissionMode, ToolHandle, ToolRegistry, catalog::BaseTools,
};

/// Serves `tool` with our server (`configure`d, calls in `mode`, the
/// tool allowed unattended by the Rule of Two) over an in-memory stream
/// and imports it back, trusted, as `mcp__back__<name>` with `config`:
/// the import (keep it: dropping it ends the connection) and an executor
/// of the importing registry in bypass mode, the tool discovered.
pub async fn served(
    tool: ToolHandle,
    mode: PermissionMode,
    configure: impl FnOnce(McpServer) -> McpServer,
    config: impl FnOnce(McpServerConfig) -> McpServerConfig,
) -> (McpImport, Executor) {
    let name = tool.name().to_owned();
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(Vec::new()).unwrap(),
    ));
    registry.plugins().register("local", tool).unwrap().detach();
    let server = configure(McpServer::new(
        registry
            .executor()
            .mode(mode)
            .rule_of_two(RuleOfTwo::new().allow_unattended(name.as_str())),
    ));
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move { server.serve_io(ours).await });

    let importing = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(Vec::new()).unwrap(),
    ));
    let import = McpImport::connect(
        importing.plugins(),
        config(McpServerConfig::io("back", theirs).trusted(true)),
    )
    .await
    .unwrap();
    let imported = format!("mcp__back__{name}");
    let session = Arc::new(Session::new());
    session.discover(&imported);
    let executor = importing
        .executor()
        .permissions(PermissionContext::new())
        .mode(PermissionMode::Bypass)
        .rule_of_two(RuleOfTwo::new().allow_unattended(imported))
        .session(session)
        .build();
    (import, executor)
}
