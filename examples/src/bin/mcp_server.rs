//! Serves the example tool set over MCP.
//!
//! ```text
//! mcp_server [--http ADDR] [--session-store URL] [--workspace DIR] [--mode MODE] [--page-size N]
//!            [--ask-client] [--defer]
//! ```
//!
//! Stdio by default (what an MCP client that launches servers expects);
//! `--http 127.0.0.1:8080` serves streamable HTTP instead, printing the
//! endpoint URL on stderr. With `MCP_SERVER_TOKEN` set in the environment,
//! HTTP requests without `Authorization: Bearer <token>` are refused (the
//! token is read from the environment, not the command line, so it does
//! not show in process listings).
//!
//! `--session-store redis://127.0.0.1:6379/` keeps each HTTP session's
//! record (grants, discoveries, session state) and handshake in Redis, so
//! several replicas behind one load balancer serve any session's next
//! request (see docs/serving.md).
//!
//! Calls run through the executor in permission mode `MODE` (default
//! `default`: read-only tools run, anything that writes needs an
//! approval). With `--ask-client` the client's user gives approvals
//! through elicitation (an "always" lasts for the conversation); without
//! it nobody can approve over MCP, so such a call is refused saying so.
//! `--defer` keeps deferred tools (`web_fetch`) out of `tools/list` until
//! the client finds them with `tool_search`. File tools
//! work inside `DIR` (default: the current directory). Logs go to stderr;
//! stdout belongs to the protocol.

registry_core::link!(registry_examples);

use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use registry_core::mcp::{HttpOptions, McpServer};
use registry_core::permission::RuleOfTwo;
use registry_core::search::TOOL_SEARCH_FLAG;
use registry_core::session::{DeferralPolicy, StoreLimits};
use registry_core::{
    Flags, PermissionMode, ToolRegistry, catalog::BaseTools, permission::PermissionPolicy,
};
use registry_examples::Sandbox;
use registry_redis::{RedisOptions, RedisSessionStore};

/// The environment variable holding the HTTP bearer token.
const TOKEN_VAR: &str = "MCP_SERVER_TOKEN";

struct Args {
    http: Option<SocketAddr>,
    session_store: Option<String>,
    workspace: PathBuf,
    mode: PermissionMode,
    page_size: Option<NonZeroUsize>,
    ask_client: bool,
    defer: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        http: None,
        session_store: None,
        workspace: std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?,
        mode: PermissionMode::Default,
        page_size: None,
        ask_client: false,
        defer: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("`{flag}` needs a value"));
        match flag.as_str() {
            "--http" => {
                let addr = value()?;
                args.http = Some(
                    addr.parse()
                        .map_err(|e| format!("`--http {addr}`: not an address: {e}"))?,
                );
            }
            "--session-store" => args.session_store = Some(value()?),
            "--ask-client" => args.ask_client = true,
            "--defer" => args.defer = true,
            "--workspace" => args.workspace = PathBuf::from(value()?),
            "--mode" => {
                let mode = value()?;
                args.mode = mode.parse().map_err(|e| format!("`--mode {mode}`: {e}"))?;
            }
            "--page-size" => {
                let n = value()?;
                args.page_size = Some(
                    n.parse()
                        .map_err(|e| format!("`--page-size {n}`: not a positive number: {e}"))?,
                );
            }
            other => {
                return Err(format!(
                    "unknown argument `{other}`; expected one of: --http ADDR, --session-store URL, --workspace DIR, --mode MODE, --page-size N, --ask-client, --defer"
                ));
            }
        }
    }
    Ok(args)
}

#[tokio::main]
async fn main() -> ExitCode {
    // Warnings and errors only: a client shows a server's stderr to its
    // user, and connection chatter is not worth their attention.
    tracing_subscriber::fmt()
        .with_max_level(tracing_subscriber::filter::LevelFilter::WARN)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let args = match parse_args() {
        Ok(args) => args,
        Err(err) => {
            eprintln!("error: {err}");
            eprintln!(
                "usage: mcp_server [--http ADDR] [--session-store URL] [--workspace DIR] [--mode MODE] [--page-size N] [--ask-client] [--defer]"
            );
            return ExitCode::FAILURE;
        }
    };
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let mut flags = Flags::new();
    if args.defer {
        flags = flags.with(TOOL_SEARCH_FLAG);
    }
    let tools = BaseTools::linked(&flags)?;
    tools.require_crates(&["registry_examples"])?;
    let registry = Arc::new(ToolRegistry::new(tools));
    let sandbox = Sandbox::new(&args.workspace)?;
    // In bypass mode a shell's writes would complete the Rule of Two on
    // their own: the server names `run_command` unattended, as a runtime
    // that runs a shell unattended must.
    let policy = PermissionPolicy::new(args.mode)
        .with_workspace(&args.workspace)
        .with_rule_of_two(RuleOfTwo::new().allow_unattended("run_command"));
    let mut server = McpServer::new(
        registry
            .executor()
            .policy(policy)
            .context(sandbox.context()),
    )
    .with_server_info("registry-examples", env!("CARGO_PKG_VERSION"));
    if let Some(page_size) = args.page_size {
        server = server.with_page_size(page_size);
    }
    if args.ask_client {
        // Five minutes for the client's user to read and answer.
        server = server.with_client_approvals(Duration::from_secs(300));
    }
    if args.defer {
        server = server.with_deferral(DeferralPolicy::Always);
    }
    if let Some(url) = &args.session_store {
        let store = RedisSessionStore::new(url, RedisOptions::default())?;
        server = server.with_session_store(Arc::new(store), StoreLimits::default());
    }
    match args.http {
        None => server.serve_stdio().await?,
        Some(addr) => {
            let mut options = HttpOptions::new(addr);
            if let Ok(token) = std::env::var(TOKEN_VAR) {
                options = options.bearer_token(token);
            }
            let handle = server.serve_http(options).await?;
            eprintln!("serving MCP at {}", handle.url());
            handle.wait().await;
        }
    }
    Ok(())
}
