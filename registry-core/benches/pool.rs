//! Assembly and render of pools of 100, 1,000 and 10,000 tools, cold (a
//! fresh pool's first render; its tools were rendered by earlier
//! iterations, so this is the concatenation of their cached definitions,
//! see `render::cache`) and cached (the same pool rendered again). The
//! first render of never-rendered tools is `render/ours_fresh` in the
//! `peers` bench.
//!
//! `cargo bench -p registry-core --bench pool`
//!
//! A tenth of each pool is built-in: the three `#[tool]` structs below plus
//! runtime-built tools put in a list with the hidden
//! `BaseTools::__from_handles` (thousands of `#[tool]` structs would need
//! generated code). The rest are runtime plugins, each with its own owner,
//! registered in a scrambled order so assembly really sorts.
//!
//! Under `cargo test --benches` divan runs every benchmark once.

use divan::{Bencher, black_box};
use registry_core::{
    Flags, PermissionContext, Tool, ToolBuilder, ToolContext, ToolHandle, ToolOutput, ToolRegistry,
    catalog::BaseTools, pool::ToolPool, render::AnthropicOptions, tool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

fn main() {
    divan::main();
}

const SIZES: &[usize] = &[100, 1_000, 10_000];

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct PathInput {
    /// Path relative to the workspace.
    path: String,
    /// First line, 1-based.
    offset: Option<u32>,
}

/// Read a file.
#[tool(name = "read_file", concurrency_safe = true, read_only = true)]
struct ReadFile;

impl Tool for ReadFile {
    type Input = PathInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: PathInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.path)
    }
}

/// Write a file.
#[tool(name = "write_file", destructive = true)]
struct WriteFile;

impl Tool for WriteFile {
    type Input = PathInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: PathInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.path)
    }
}

/// List a directory.
#[tool(name = "list_dir", read_only = true, defer)]
struct ListDir;

impl Tool for ListDir {
    type Input = PathInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: PathInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.path)
    }
}

/// A runtime tool with a realistic small schema.
fn bench_tool(name: String, i: usize) -> ToolHandle {
    ToolBuilder::new(name, format!("Tool number {i}.\nDoes one thing."))
        .input_schema(json!({
            "type": "object",
            "properties": {
                "query": { "type": "string", "description": "What to look for." },
                "limit": { "type": "integer", "minimum": 1 },
                "mode": { "type": "string", "enum": ["fast", "exact"] }
            },
            "required": ["query"]
        }))
        .read_only(i.is_multiple_of(2))
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .expect("bench tool")
}

/// What a pool of `n` tools is assembled from.
struct Fixture {
    registry: ToolRegistry,
    cx: PermissionContext,
}

impl Fixture {
    fn new(n: usize) -> Self {
        // A tenth built-in (the mix): the three `#[tool]`s above plus
        // runtime-built ones, so narrowing and the built-in name lookup are
        // measured at scale too.
        let declared = BaseTools::linked(&Flags::new()).expect("bench catalog");
        let builtin_count = n / 10;
        let mut builtins: Vec<ToolHandle> = declared.iter().cloned().collect();
        for k in builtins.len()..builtin_count {
            builtins.push(bench_tool(format!("builtin_{k:05}"), k));
        }
        let registry =
            ToolRegistry::new(BaseTools::__from_handles(builtins).expect("bench built-ins"));
        let count = n - registry.base().len();
        for k in 0..count {
            // A fixed permutation of 0..count (7919 is prime, so coprime
            // with every count here): registration order is not name order.
            let i = (k * 7919) % count;
            registry
                .plugins()
                .register(
                    format!("owner_{i:05}"),
                    bench_tool(format!("plugin_{i:05}"), i),
                )
                .unwrap()
                .detach();
        }
        Fixture {
            registry,
            cx: PermissionContext::new(),
        }
    }

    fn pool(&self) -> ToolPool {
        self.registry.assemble_tool_pool(&self.cx)
    }
}

#[divan::bench(args = SIZES)]
fn assemble(bencher: Bencher, n: usize) {
    let fixture = Fixture::new(n);
    assert_eq!(fixture.pool().len(), n);
    bencher.bench(|| fixture.pool());
}

/// The renders benchmarked, by name.
fn render(pool: &ToolPool, format: &str) -> std::sync::Arc<str> {
    match format {
        "anthropic" => pool.render_anthropic(AnthropicOptions::new().with_cache_control(true)),
        "openai_chat" => pool.render_openai_chat(),
        "mcp" => pool.render_mcp_tools_list(),
        "prompt" => pool.render_prompt_catalog(),
        other => unreachable!("no format {other}"),
    }
}

fn bench_cold(bencher: Bencher, n: usize, format: &'static str) {
    let fixture = Fixture::new(n);
    bencher
        .with_inputs(|| fixture.pool())
        .bench_local_refs(|pool| render(pool, format));
}

fn bench_cached(bencher: Bencher, n: usize, format: &'static str) {
    let pool = Fixture::new(n).pool();
    render(&pool, format);
    bencher.bench_local(|| render(black_box(&pool), format));
}

mod cold {
    use super::*;

    #[divan::bench(args = SIZES)]
    fn anthropic(bencher: Bencher, n: usize) {
        bench_cold(bencher, n, "anthropic");
    }

    #[divan::bench(args = SIZES)]
    fn openai_chat(bencher: Bencher, n: usize) {
        bench_cold(bencher, n, "openai_chat");
    }

    #[divan::bench(args = SIZES)]
    fn mcp(bencher: Bencher, n: usize) {
        bench_cold(bencher, n, "mcp");
    }

    #[divan::bench(args = SIZES)]
    fn prompt(bencher: Bencher, n: usize) {
        bench_cold(bencher, n, "prompt");
    }
}

mod cached {
    use super::*;

    #[divan::bench(args = SIZES)]
    fn anthropic(bencher: Bencher, n: usize) {
        bench_cached(bencher, n, "anthropic");
    }

    #[divan::bench(args = SIZES)]
    fn openai_chat(bencher: Bencher, n: usize) {
        bench_cached(bencher, n, "openai_chat");
    }

    #[divan::bench(args = SIZES)]
    fn mcp(bencher: Bencher, n: usize) {
        bench_cached(bencher, n, "mcp");
    }

    #[divan::bench(args = SIZES)]
    fn prompt(bencher: Bencher, n: usize) {
        bench_cached(bencher, n, "prompt");
    }
}
