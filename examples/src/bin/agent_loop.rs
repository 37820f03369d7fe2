//! One step of an agent loop, offline: a provider's recorded response in,
//! the next request out.
//!
//! ```text
//! cargo run -p registry-examples --bin agent_loop -- --provider anthropic examples/fixtures/anthropic.json
//! ```
//!
//! `--provider` is `anthropic`, `openai-chat` or `openai-responses`. The
//! calls run against the example tools in a scratch sandbox (holding
//! `a.rs`, `b.rs` and `screen.png`) in `default` mode with no approver,
//! with GitHub's tools imported and deferred and `tool_search` on; what
//! is printed is the next request's `tools` and the items to append
//! (`messages` for Anthropic and Chat, `input` for Responses), and the
//! blocks the provider runs itself. The output is the same on every run.

registry_core::link!(registry_examples);

use std::process::ExitCode;
use std::sync::Arc;

use registry_core::{
    Flags, PermissionMode, ToolContext, ToolRegistry, catalog::BaseTools, provider::Provider,
    render::AnthropicOptions, search::TOOL_SEARCH_FLAG, session::DeferralPolicy,
};
use registry_examples::Sandbox;
use serde_json::{Value, json};

/// A 1×1 PNG: what `screen.png` holds.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [flag, provider, file] = args.as_slice() else {
        return usage();
    };
    if flag != "--provider" {
        return usage();
    }
    let provider = match provider.as_str() {
        "anthropic" => Provider::Anthropic,
        "openai-chat" => Provider::OpenAiChat,
        "openai-responses" => Provider::OpenAiResponses,
        other => {
            eprintln!("agent_loop: unknown provider `{other}`");
            return usage();
        }
    };
    match run(provider, file).await {
        Ok(request) => {
            match serde_json::to_string_pretty(&request) {
                Ok(text) => println!("{text}"),
                Err(err) => {
                    eprintln!("agent_loop: {err}");
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("agent_loop: {err}");
            ExitCode::FAILURE
        }
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: agent_loop --provider anthropic|openai-chat|openai-responses FILE");
    ExitCode::FAILURE
}

async fn run(provider: Provider, file: &str) -> Result<Value, Box<dyn std::error::Error>> {
    let text =
        std::fs::read_to_string(file).map_err(|err| format!("cannot read `{file}`: {err}"))?;
    let response: Value =
        serde_json::from_str(&text).map_err(|err| format!("`{file}` is not JSON: {err}"))?;

    let scratch = tempfile::tempdir()?;
    std::fs::write(scratch.path().join("a.rs"), "fn a() {}\n")?;
    std::fs::write(scratch.path().join("b.rs"), "fn b() {}\n")?;
    std::fs::write(scratch.path().join("screen.png"), PNG)?;
    let sandbox = Sandbox::new(scratch.path())?;

    let registry = Arc::new(ToolRegistry::new(BaseTools::linked(
        &Flags::new().with(TOOL_SEARCH_FLAG),
    )?));
    let _github = registry_examples::demo_search::register_github(&registry)?;
    // Tool search on: every imported tool deferred, `tool_search`
    // answering in the format's way, found tools loaded into the
    // executor's session.
    let executor = registry
        .executor()
        .mode(PermissionMode::Default)
        .context(sandbox.install(ToolContext::new()))
        .tool_search(DeferralPolicy::Always, provider.into())
        .build();
    let (pool, session) = (executor.pool(), executor.session());

    // The tools sent with this request and the next: the session's render.
    let view = pool.for_session(session);
    let (tools, key) = match provider {
        Provider::Anthropic => (view.render_anthropic(AnthropicOptions::new()), "messages"),
        Provider::OpenAiChat => (String::new(), "messages"),
        _ => (view.render_openai_responses(), "input"),
    };
    let next = provider.respond(&executor, &response).await?;
    // Chat appends what was discovered: render after the turn.
    let tools = if provider == Provider::OpenAiChat {
        pool.for_session(session).render_openai_chat()
    } else {
        tools
    };
    let skipped: Vec<String> = next.skipped.iter().map(ToString::to_string).collect();
    Ok(json!({
        "tools": serde_json::from_str::<Value>(&tools)?,
        key: next.into_items(),
        "provider_ran": skipped,
    }))
}
