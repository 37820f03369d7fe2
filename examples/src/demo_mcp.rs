//! The demo's MCP section (`demo --mcp`): import the `mcp_server` binary
//! that sits next to the demo as a child process, and print the combined
//! pool, built-ins first, then the imported `mcp__...` tools, with one
//! call through the import.
//!
//! The output is the same on every run: the pool is sorted, the child's
//! workspace is a scratch directory whose path is never printed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use registry_core::mcp::{McpImport, McpServerConfig};
use registry_core::{
    Flags, PermissionContext, ToolCall, ToolRegistry, catalog::BaseTools, declare::Loading,
    session::Session,
};
use serde_json::json;

/// The flag that selects this section.
pub const FLAG: &str = "--mcp";

/// Runs the MCP section when `args` is exactly `[--mcp]`; `None`
/// otherwise, so the ordinary demo runs.
pub async fn run_if_requested(args: &[String]) -> Option<ExitCode> {
    if args != [FLAG] {
        return None;
    }
    let tools = match BaseTools::linked(&Flags::new()) {
        Ok(tools) => tools,
        Err(err) => {
            eprintln!("error: the tool list could not be built: {err}");
            return Some(ExitCode::FAILURE);
        }
    };
    Some(match print_mcp_import(tools).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    })
}

/// `mcp_server` beside the running executable (cargo builds every binary
/// of the package into the same directory).
fn sibling_server() -> Result<PathBuf, Box<dyn std::error::Error>> {
    let exe = std::env::current_exe()?;
    let server = exe.with_file_name(format!("mcp_server{}", std::env::consts::EXE_SUFFIX));
    if !server.exists() {
        return Err(format!(
            "`{}` not found; build it first: cargo build -p registry-examples --bin mcp_server",
            server.display()
        )
        .into());
    }
    Ok(server)
}

/// Imports the example server and prints the combined pool.
pub async fn print_mcp_import(tools: BaseTools) -> Result<(), Box<dyn std::error::Error>> {
    let server = sibling_server()?;
    let scratch = tempfile::tempdir()?;
    std::fs::write(scratch.path().join("hello.txt"), "hello over MCP\n")?;
    let registry = Arc::new(ToolRegistry::new(tools));
    let import = McpImport::connect(
        registry.plugins(),
        // Our own server: trusted, so its `readOnlyHint`s count and the
        // read-only tools run without an approval.
        McpServerConfig::command("examples", &server, workspace_args(scratch.path())).trusted(true),
    )
    .await?;

    println!("== MCP: the example server imported as a child process ==");
    println!();
    let rules = PermissionContext::new();
    let pool = registry.assemble_tool_pool(&rules);
    println!("built-ins ({}):", pool.builtins().len());
    for entry in pool.builtins() {
        println!("  {}", entry.tool().name());
    }
    println!(
        "imported from `{}` ({}):",
        import.owner(),
        pool.plugins().len()
    );
    for entry in pool.plugins() {
        let spec = entry.tool().spec();
        let remote = spec.remote_origin().map_or("?", |o| o.tool());
        let deferred = if *spec.loading().value() == Loading::Deferred {
            " (deferred)"
        } else {
            ""
        };
        println!("  {}{deferred}  <- {remote}", spec.name());
    }

    // A deferred tool must be discovered before it runs; the session
    // discovers the one it calls, as tool search would.
    let session = Arc::new(Session::new());
    session.discover("mcp__examples__read_file");
    let executor = registry
        .executor()
        .permissions(rules)
        .session(session)
        .build();
    let call = ToolCall::new(
        "mcp_1",
        "mcp__examples__read_file",
        json!({"path": "hello.txt"}),
    );
    println!();
    println!("call {} {}:", call.name, call.input);
    for result in executor.run_turn(vec![call]).await {
        let status = if result.is_error() { "error" } else { "ok" };
        println!("  {status}: {}", result.content().trim_end());
    }
    import.shutdown().await;
    println!();
    println!(
        "after shutdown: {} imported tools left",
        registry.plugins().len()
    );
    Ok(())
}

fn workspace_args(dir: &Path) -> Vec<String> {
    vec!["--workspace".to_owned(), dir.display().to_string()]
}
