//! The three deferral policies over the search world's pool: what each
//! defers, and what `Auto` measures.

use super::world;
use crate::permission::PermissionContext;
use crate::pool::ToolPool;
use crate::render::ProviderFormat;
use crate::session::{DeferralPolicy, Session};

/// The decision `policy` makes for `pool` in a fresh session.
fn decided(
    pool: &ToolPool,
    policy: DeferralPolicy,
    format: ProviderFormat,
) -> std::sync::Arc<crate::session::deferral::Deferral> {
    let session = Session::new();
    session.decide_deferral(pool, policy, format);
    session.deferral().expect("a decision was made")
}

#[test]
fn the_three_policies() {
    let w = world();
    let pool = w.pool(&PermissionContext::new());
    let deferred = |policy| {
        let d = decided(&pool, policy, ProviderFormat::Anthropic);
        d.deferred().map(str::to_owned).collect::<Vec<_>>()
    };
    let all = [
        "deploy_site",
        "mcp__github__create_issue",
        "mcp__github__list_pull_requests",
        "mcp__github__merge_pull_request",
        "mcp__slack__list_channels",
        "mcp__slack__post_message",
    ];
    // Always: declared `defer` and every MCP import; never `always_load`,
    // an eager built-in, or tool_search.
    assert_eq!(deferred(DeferralPolicy::Always), all);
    assert!(deferred(DeferralPolicy::Never).is_empty());
    // Auto: measured in the provider format's bytes against the threshold.
    let measured =
        decided(&pool, DeferralPolicy::Never, ProviderFormat::Anthropic).deferrable_bytes();
    assert_eq!(measured, 0, "never measures nothing");
    let bytes =
        decided(&pool, DeferralPolicy::Always, ProviderFormat::Anthropic).deferrable_bytes();
    assert!(bytes > 0);
    let roomy = DeferralPolicy::Auto {
        threshold_bytes: bytes,
    };
    assert!(
        deferred(roomy).is_empty(),
        "at the threshold nothing is deferred"
    );
    let tight = DeferralPolicy::Auto {
        threshold_bytes: bytes - 1,
    };
    assert_eq!(deferred(tight), all);
    // Formats weigh differently: the OpenAI strict schema is larger.
    let openai =
        decided(&pool, DeferralPolicy::Always, ProviderFormat::OpenAiChat).deferrable_bytes();
    assert_ne!(openai, bytes);
}
