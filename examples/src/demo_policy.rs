//! The demo's policy across a conversation: the Rule of Two stopping a
//! prompt-injected turn at its third property, and a turn that waits for
//! a person, sealed into bytes and resumed.
//!
//! Nothing printed varies between runs: no turn id, no path of the
//! scratch sandbox.

use std::path::Path;
use std::sync::Arc;

use registry_core::execute::{DurableError, SuspendedTurn, TurnOutcome};
use registry_core::permission::Approval;
use registry_core::{PermissionContext, ToolCall, ToolRegistry, catalog::BaseTools};
use serde_json::json;

use crate::sandbox::Sandbox;

/// The demo key for sealing suspended turns (a runtime keeps 32 random
/// bytes of its own).
const DEMO_KEY: &[u8] = b"demo key: 32 bytes, never reused";

/// Prints both scenes.
pub async fn print_policy(tools: &BaseTools, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::write(dir.join("secret.txt"), "API_KEY=sk-live-4f9a\n")?;
    let registry = Arc::new(ToolRegistry::new(tools.clone()));
    let _pool = registry.assemble_tool_pool(&PermissionContext::new());

    println!();
    println!("== Across a conversation: the Rule of Two ==");
    println!();
    if tools.resolve("web_fetch").is_some() {
        print_rule_of_two(&registry, dir).await?;
    } else {
        println!("  (this build has no `web_fetch`, the scene's untrusted page: feature `web`)");
    }
    print_waiting_turn(&registry, dir).await
}

/// A page that asks the agent to send a secret out, then the secret: the
/// read is the third property.
async fn print_rule_of_two(
    registry: &Arc<ToolRegistry>,
    dir: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    println!("a page asks the agent to send a secret out; allow rules for all three tools;");
    println!("each call is its own turn. The page brings untrusted input, and `web_fetch`");
    println!("reaches the world (the URL can carry data): reading the secret would be the third.");
    let mut rules = PermissionContext::new();
    for tool in ["web_fetch", "read_file", "write_file"] {
        rules.add_rule(
            registry_core::permission::RuleSource::User,
            registry_core::permission::RuleBehavior::Allow,
            tool,
        )?;
    }
    let executor = Arc::clone(registry)
        .executor()
        .permissions(rules)
        .context(Sandbox::new(dir)?.context())
        .build();
    executor.session().discover("web_fetch");
    let turns = [
        ToolCall::new(
            "toolu_21",
            "web_fetch",
            json!({ "url": "https://example.com/issue/7" }),
        ),
        ToolCall::new("toolu_22", "read_file", json!({ "path": "secret.txt" })),
        ToolCall::new(
            "toolu_23",
            "write_file",
            json!({ "path": "public/leak.txt", "content": "API_KEY=sk-live-4f9a\n" }),
        ),
    ];
    for call in turns {
        let line = format!("{} {}", call.name, call.input);
        let result = executor.run_turn(vec![call]).await.remove(0);
        let outcome = match result.refusal() {
            Some(refusal) => format!("refused ({:?}): {}", refusal.by, refusal.reason),
            None if result.is_error() => format!("error: {}", result.content()),
            None => "ran".to_owned(),
        };
        println!("  {line}");
        println!("    {outcome}");
    }
    println!(
        "  the conversation holds: {}",
        executor.session().exposures()
    );
    Ok(())
}

/// A durable turn suspended at a write nobody approves now, sealed,
/// opened and resumed; a second resume is refused.
async fn print_waiting_turn(
    registry: &Arc<ToolRegistry>,
    dir: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    println!();
    println!("== A turn that waits for a person ==");
    println!();
    let executor = Arc::clone(registry)
        .executor()
        .context(Sandbox::new(dir)?.context())
        .build();
    let calls = vec![
        ToolCall::new("toolu_31", "list_dir", json!({})),
        ToolCall::new(
            "toolu_32",
            "write_file",
            json!({ "path": "notes.txt", "content": "deployed\n" }),
        ),
    ];
    let TurnOutcome::Suspended(turn) = executor.run_turn_durable(calls).await else {
        return Err("the write asks and nobody answers now: the turn should wait".into());
    };
    for pending in turn.pending() {
        println!(
            "  waiting: {} {} ({})",
            pending.tool, pending.input, pending.reason
        );
    }
    let sealed = turn.seal(DEMO_KEY)?;
    println!("  sealed into bytes a store keeps; the process may exit now");
    let turn = SuspendedTurn::open(&sealed, DEMO_KEY)?;
    let answers = turn
        .pending()
        .iter()
        .map(|pending| pending.answer(Approval::AllowOnce))
        .collect();
    let TurnOutcome::Finished(results) = executor.resume(turn.clone(), answers).await? else {
        return Err("every waiting call has its answer".into());
    };
    println!("  resumed with \"allow\":");
    for result in &results {
        let first = result.content().lines().next().unwrap_or_default();
        println!("    {}: {first}", result.id());
    }
    // The error names the turn's id, which differs per run: not printed.
    match executor.resume(turn, Vec::new()).await {
        Err(DurableError::Stale { .. }) => {
            println!("  resumed again: refused (stale: it was resumed already; nothing ran)")
        }
        Err(err) => return Err(err.into()),
        Ok(_) => return Err("a turn resumes once".into()),
    }
    Ok(())
}
