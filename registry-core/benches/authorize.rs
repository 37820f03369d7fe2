//! What one permission decision costs against the length of its content:
//! a shell command of 1 KiB, 1 MiB and 100 MiB, and a path of the same
//! lengths, each authorized by `PermissionPolicy::authorize` in `bypass`
//! mode against six content rules of the tool (deny, ask and allow).
//!
//! The command is read once per call, inside `authorize`, as a tool that
//! names its command with `PermissionContent::command` has it read; a
//! command over `shell_reading::MAX_COMMAND_BYTES` and a path over
//! `path::MAX_PATH_BYTES` are not read at all, so they cost what copying
//! them out of the input costs, and are decided uncheckable (denied, in
//! `bypass`, by the deny rule that cannot be checked).
//!
//! `cargo bench -p registry-core --bench authorize`
//!
//! Under `cargo test --benches` every benchmark runs once and nothing is
//! reported.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion};
use registry_core::{
    PermissionContent, PermissionContext, PermissionMode, Tool, ToolContext, ToolHandle,
    input::PreparedCall,
    permission::{Grants, PermissionPolicy, RuleBehavior, RuleSource},
    tool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// The input of both tools: one text.
#[derive(Deserialize, JsonSchema)]
struct Text {
    /// The command or the path.
    text: String,
}

/// Run a shell command.
#[tool(name = "shell")]
struct Shell;

impl Tool for Shell {
    type Input = Text;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(&self, _: Text, _: &ToolContext) -> Result<String, Self::Error> {
        Ok(String::new())
    }
    fn permission_content(&self, input: &Text) -> Option<PermissionContent> {
        Some(PermissionContent::command(input.text.clone()))
    }
}

/// Write a file.
#[tool(name = "write")]
struct Write;

impl Tool for Write {
    type Input = Text;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(&self, _: Text, _: &ToolContext) -> Result<String, Self::Error> {
        Ok(String::new())
    }
    fn permission_content(&self, input: &Text) -> Option<PermissionContent> {
        Some(PermissionContent::path(&input.text))
    }
}

const SIZES: &[(&str, usize)] = &[("1KiB", 1 << 10), ("1MiB", 1 << 20), ("100MiB", 100 << 20)];

fn rules(tool: &str) -> PermissionContext {
    let mut cx = PermissionContext::new();
    for (behavior, content) in [
        (RuleBehavior::Deny, "rm:*"),
        (RuleBehavior::Deny, "git push:*"),
        (RuleBehavior::Deny, "/etc/:*"),
        (RuleBehavior::Ask, "curl:*"),
        (RuleBehavior::Allow, "ls:*"),
        (RuleBehavior::Allow, "cat *.txt"),
    ] {
        cx.add_rule(RuleSource::Project, behavior, &format!("{tool}({content})"))
            .expect("rule");
    }
    cx
}

/// A command of about `bytes`: many `ls` commands joined by `&&`.
fn command(bytes: usize) -> String {
    let unit = "ls -la src && ";
    let mut text = unit.repeat(bytes / unit.len());
    text.push_str("ls");
    text
}

/// A path of about `bytes`.
fn path(bytes: usize) -> String {
    let unit = "dir/";
    let mut text = unit.repeat(bytes / unit.len());
    text.push_str("file.txt");
    text
}

fn authorize(
    runtime: &tokio::runtime::Runtime,
    policy: &PermissionPolicy,
    cx: &PermissionContext,
    call: &PreparedCall,
    tool_cx: &ToolContext,
) -> bool {
    runtime
        .block_on(policy.authorize(cx, &Grants::default(), call, "call-1", tool_cx))
        .is_allowed()
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let policy = PermissionPolicy::new(PermissionMode::Bypass).with_workspace("/work");
    let tool_cx = ToolContext::new().with_working_dir("/work");
    let mut group = c.benchmark_group("authorize");
    group.sample_size(10);
    for (kind, handle, make) in [
        (
            "command",
            ToolHandle::new(Shell),
            command as fn(usize) -> String,
        ),
        ("path", ToolHandle::new(Write), path),
    ] {
        let cx = rules(handle.name());
        for &(label, bytes) in SIZES {
            let call = handle
                .prepare(json!({ "text": make(bytes) }))
                .expect("input parses");
            group.bench_function(BenchmarkId::new(kind, label), |b| {
                b.iter(|| black_box(authorize(&runtime, &policy, &cx, &call, &tool_cx)));
            });
        }
    }
    group.finish();
}

fn criterion_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("criterion")
}

fn main() {
    let mut c = Criterion::default()
        .output_directory(&criterion_dir())
        .configure_from_args();
    bench(&mut c);
    c.final_summary();
}
