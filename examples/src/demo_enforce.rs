//! The demo's enforcement section: what this machine's kernel enforces for
//! commands ([`registry_sandbox::probe`]), then model calls no reading of
//! their text can vouch for, run for real in `bypass` under rules that
//! forbid their effect, with what happened to the files.

use std::path::Path;
use std::sync::Arc;

use registry_core::permission::RuleOfTwo;
use registry_core::permission::{RuleBehavior, RuleSource};
use registry_core::{
    PermissionContext, PermissionMode, ToolCall, ToolRegistry, catalog::BaseTools,
};
use serde_json::json;

use crate::Sandbox;
use crate::tools::run_command::Shell;

/// The calls shown: each would destroy `victim.txt` or print `secret.txt`.
const CALLS: &[&str] = &[
    // bash evaluates the subscript; no program is visible in the text.
    "ls && [[ -v 'x[$(rm -f victim.txt)]' ]]",
    // an interpreter runs a program the text only hands it.
    "python3 -c 'import os; os.system(\"rm -f victim.txt\")'",
    // no rm at all: the path rule holds for every program.
    "mv victim.txt moved.txt || : > victim.txt",
    "cat secret.txt",
];

/// Prints the section; `dir` is a scratch directory the calls run in.
/// Runs without a tracing subscriber: the demo's `--trace` file is about
/// its main turn.
pub async fn print_enforcement(
    tools: &BaseTools,
    dir: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    use tracing::instrument::WithSubscriber;
    section(tools, dir)
        .with_subscriber(tracing::subscriber::NoSubscriber::default())
        .await
}

async fn section(tools: &BaseTools, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    println!();
    println!("== What the kernel enforces for commands ==");
    println!();
    for line in registry_sandbox::probe().to_string().lines() {
        println!("  {line}");
    }
    let mut rules = PermissionContext::new();
    for rule in [
        "run_command(rm:*)",
        "edit_file(victim.txt)",
        "read_file(secret.txt)",
    ] {
        rules.add_rule(RuleSource::Project, RuleBehavior::Deny, rule)?;
    }
    println!();
    println!(
        "deny rules: run_command(rm:*), edit_file(victim.txt), read_file(secret.txt); mode: bypass; shell: bash"
    );
    let registry = Arc::new(ToolRegistry::new(tools.clone()));
    let root = dir.join("enforce");
    for command in CALLS {
        std::fs::create_dir_all(&root)?;
        std::fs::write(root.join("victim.txt"), "precious\n")?;
        std::fs::write(root.join("secret.txt"), "TOPSECRET\n")?;
        let executor = Arc::clone(&registry)
            .executor()
            .permissions(rules.clone())
            .mode(PermissionMode::Bypass)
            // Bypass mode runs a shell only when named unattended: the
            // Rule of Two would otherwise stop every write.
            .rule_of_two(RuleOfTwo::new().allow_unattended("run_command"))
            .context(Sandbox::new(&root)?.context().with(Shell::Bash))
            .build();
        let call = ToolCall::new("call", "run_command", json!({ "command": command }));
        let result = executor.run_turn(vec![call]).await;
        let text = result[0].content();
        let outcome = text.lines().next().unwrap_or_default();
        let victim = std::fs::read_to_string(root.join("victim.txt")).unwrap_or_default();
        println!();
        println!("$ {command}");
        println!("  {}", outcome.chars().take(160).collect::<String>());
        println!(
            "  victim.txt: {}; secret printed: {}",
            if victim == "precious\n" {
                "intact"
            } else {
                "DAMAGED"
            },
            if text.contains("TOPSECRET") {
                "YES"
            } else {
                "no"
            }
        );
        std::fs::remove_dir_all(&root)?;
    }
    Ok(())
}
