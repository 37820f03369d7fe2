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
    Flags, PermissionContext, PermissionMode, ToolContext, ToolRegistry,
    catalog::try_all_base_tools,
    provider::{NextRequest, ProviderError, anthropic, openai_chat, openai_responses},
    render::{AnthropicOptions, ProviderFormat},
    search::{ResultShape, TOOL_SEARCH_FLAG, ToolSearchIndex, ToolSearchScope},
    session::{DeferralPolicy, Session},
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
    let format = match provider.as_str() {
        "anthropic" => ProviderFormat::Anthropic,
        "openai-chat" => ProviderFormat::OpenAiChat,
        "openai-responses" => ProviderFormat::OpenAiResponses,
        other => {
            eprintln!("agent_loop: unknown provider `{other}`");
            return usage();
        }
    };
    match run(format, file).await {
        Ok(request) => {
            println!("{}", registry_core::text::to_canonical_pretty(&request));
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

async fn run(format: ProviderFormat, file: &str) -> Result<Value, Box<dyn std::error::Error>> {
    let text =
        std::fs::read_to_string(file).map_err(|err| format!("cannot read `{file}`: {err}"))?;
    let response: Value =
        serde_json::from_str(&text).map_err(|err| format!("`{file}` is not JSON: {err}"))?;

    let scratch = tempfile::tempdir()?;
    std::fs::write(scratch.path().join("a.rs"), "fn a() {}\n")?;
    std::fs::write(scratch.path().join("b.rs"), "fn b() {}\n")?;
    std::fs::write(scratch.path().join("screen.png"), PNG)?;
    let sandbox = Sandbox::new(scratch.path())?;

    let registry = Arc::new(ToolRegistry::new(try_all_base_tools(
        &Flags::new().with(TOOL_SEARCH_FLAG),
    )?));
    let _github = registry_examples::demo_search::register_github(&registry)?;
    let index = Arc::new(ToolSearchIndex::new(&registry));
    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    let session = Arc::new(Session::new());
    session.decide_deferral(&pool, DeferralPolicy::Always, format);
    let shape = match format {
        ProviderFormat::Anthropic => ResultShape::ToolReferences,
        other => ResultShape::Definitions(other),
    };
    let scope = ToolSearchScope::new(index, &registry, &pool, shape);
    let executor = registry
        .executor()
        .mode(PermissionMode::Default)
        .session(Arc::clone(&session))
        .context(sandbox.install(ToolContext::new()).with(scope))
        .build();

    // The tools sent with this request and the next: the session's render.
    let view = pool.for_session(&session);
    let (tools, key, next): (String, &str, Result<NextRequest, ProviderError>) = match format {
        ProviderFormat::Anthropic => (
            view.render_anthropic(AnthropicOptions::new()),
            "messages",
            anthropic::respond(&executor, &response).await,
        ),
        ProviderFormat::OpenAiChat => (
            String::new(),
            "messages",
            openai_chat::respond(&executor, &response).await,
        ),
        _ => (
            view.render_openai_responses(),
            "input",
            openai_responses::respond(&executor, &response).await,
        ),
    };
    let next = next?;
    // Chat appends what was discovered: render after the turn.
    let tools = if format == ProviderFormat::OpenAiChat {
        pool.for_session(&session).render_openai_chat()
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
