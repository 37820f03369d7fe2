//! This crate against its peer, rmcp's `#[tool_router]`, on the same work,
//! in one process, with a report of medians and ratios at the end.
//!
//! `cargo bench -p registry-core --features mcp --bench peers`
//!
//! - `dispatch`: one call of the same trivial `{a, b} -> a + b` tool,
//!   from a parsed JSON object of arguments to the tool's text: the floor
//!   (`serde_json::from_value` of a copy of the map, then the function),
//!   our `prepare` + `run`, our executor's whole path (resolve, parse,
//!   classify, plan, permission pipeline, run, cap), and rmcp's
//!   `ToolRouter::call`. Every variant clones the same argument map. The
//!   futures are polled once, in place, inside a tokio runtime's context
//!   (`ready`): none of them waits on anything, and a `block_on` per call
//!   would add the same ~200 ns of scheduler to every row.
//! - `render/<n>`: for catalogs of 10, 100 and 1,000 generated tools (and
//!   10,000 for ours), the same definitions in both frameworks:
//!   - `ours_fresh`: tools never rendered before (built in the setup, not
//!     timed), assembled into a pool and rendered as an MCP `tools/list`
//!     result: the first render a process ever does;
//!   - `ours_cold`: a new pool of tools rendered before (the case after a
//!     plugin came or went, or a permission rule changed): assembly plus a
//!     render that concatenates each tool's cached definition;
//!   - `ours_cached`: the same pool rendered again;
//!   - `rmcp_list_all`: `ToolRouter::list_all()`, and
//!     `rmcp_list_all_json`: the same, serialized as a `tools/list`
//!     result.
//!
//! Each timed body is one `#[inline(never)]` function (`floor_once`,
//! `prepare_run_once`, `executor_once`, `rmcp_once`, `ours_cold_once`), so
//! callgrind gives deterministic instructions per call on a noisy machine:
//!
//! ```text
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!     --toggle-collect='*_once*' target/release/deps/peers-* --bench --profile-time 2 dispatch
//! callgrind_annotate --inclusive=yes /tmp/cg.out | grep _once
//! ```
//!
//! (divide each inclusive count by the function's call count, which
//! `callgrind_annotate --tree=caller` shows).
//!
//! Criterion options pass through (`-- dispatch`, `-- --sample-size 20`).
//! Under `cargo test --benches` every benchmark runs once and nothing is
//! reported.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

use criterion::{BatchSize, BenchmarkId, Criterion};
use registry_core::{
    Executor, PermissionContext, Tool, ToolBuilder, ToolCall, ToolContext, ToolHandle, ToolOutput,
    ToolRegistry, catalog::BaseTools, pool::ToolPool, tool,
};
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, JsonObject, ListToolsResult, NumberOrString};
use rmcp::service::{RequestContext, RoleServer, RunningService};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Catalog sizes both frameworks are measured at.
const SIZES: &[usize] = &[10, 100, 1_000];
/// Catalog sizes only this crate is measured at (the issue's 10 ms goal).
const OURS_ONLY: &[usize] = &[10_000];

fn main() {
    let dir = criterion_dir();
    let mut c = Criterion::default()
        .output_directory(&dir)
        .configure_from_args();
    dispatch(&mut c);
    render(&mut c);
    c.final_summary();
    // Under `cargo test --benches` (no `--bench`) criterion runs each
    // benchmark once and measures nothing; the files left by an earlier
    // run must not be reported as this one's.
    if std::env::args().any(|arg| arg == "--bench") {
        report::print(&dir);
    }
}

/// Where criterion writes its estimates (and the report reads them):
/// `$CARGO_TARGET_DIR/criterion`, else the workspace's `target/criterion`.
fn criterion_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("criterion")
}

// ---------------------------------------------------------------- the tool

/// The same input for both frameworks.
#[derive(Deserialize, JsonSchema)]
struct AddInput {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

/// The body both frameworks call.
fn add(input: &AddInput) -> String {
    (input.a + input.b).to_string()
}

/// Add two numbers.
#[tool(name = "add", concurrency_safe = true, read_only = true)]
struct Add;

impl Tool for Add {
    type Input = AddInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: AddInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(add(&input))
    }
}

/// The idiomatic rmcp server holding the same tool.
#[derive(Clone)]
struct Calculator;

#[rmcp::tool_router]
impl Calculator {
    /// Add two numbers.
    #[rmcp::tool(description = "Add two numbers.")]
    async fn add(&self, Parameters(input): Parameters<AddInput>) -> String {
        add(&input)
    }
}

impl rmcp::ServerHandler for Calculator {}

fn arguments() -> JsonObject {
    match json!({ "a": 2, "b": 40 }) {
        Value::Object(map) => map,
        _ => unreachable!("an object literal"),
    }
}

/// Polls a future that never waits, once, in place.
fn ready<F: std::future::Future>(future: F) -> F::Output {
    futures_util::FutureExt::now_or_never(future).expect("the dispatch benches never wait")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// An rmcp server served over an in-memory pipe, for its `Peer`: a
/// `RequestContext` (which `ToolRouter::call` takes) cannot be made
/// without one. The client end is kept open and never written to.
fn rmcp_server(
    rt: &tokio::runtime::Runtime,
) -> (
    RunningService<RoleServer, Calculator>,
    tokio::io::DuplexStream,
) {
    rt.block_on(async {
        let (server_end, client_end) = tokio::io::duplex(4096);
        let running = rmcp::service::serve_directly(Calculator, server_end, None);
        (running, client_end)
    })
}

// ---------------------------------------------------------------- dispatch

/// The floor: serde straight into the input type, then the body.
#[inline(never)]
fn floor_once(args: &JsonObject) -> String {
    ready(async {
        let input: AddInput = serde_json::from_value(Value::Object(args.clone())).unwrap();
        add(&input)
    })
}

/// `prepare` + `run`: the handle's own path.
#[inline(never)]
fn prepare_run_once(cx: &ToolContext, tool: &ToolHandle, args: &JsonObject) -> ToolOutput {
    ready(async {
        let call = tool.prepare(Value::Object(args.clone())).unwrap();
        call.run(cx).await.unwrap()
    })
}

/// A turn of one call through the executor.
#[inline(never)]
fn executor_once(exec: &Executor, args: &JsonObject) -> Vec<registry_core::ToolCallResult> {
    ready(exec.run_turn(vec![ToolCall::new(
        "call_1",
        "add",
        Value::Object(args.clone()),
    )]))
}

/// rmcp's router, as its server would call it.
#[inline(never)]
fn rmcp_once(
    router: &ToolRouter<Calculator>,
    context: &RequestContext<RoleServer>,
    args: &JsonObject,
) -> rmcp::model::CallToolResponse {
    ready(async {
        let params = CallToolRequestParams::new("add").with_arguments(args.clone());
        let call = ToolCallContext::new(&Calculator, params, context.clone());
        router.call(call).await.unwrap()
    })
}

fn executor() -> Executor {
    let base = BaseTools::__from_handles(vec![ToolHandle::new(Add)]).expect("bench tools");
    let registry = Arc::new(ToolRegistry::new(base));
    let cx = PermissionContext::new();
    let _pool = registry.assemble_tool_pool(&cx);
    registry.executor().permissions(cx).build()
}

fn dispatch(c: &mut Criterion) {
    let rt = runtime();
    let args = arguments();
    let cx = ToolContext::new();
    let handle = ToolHandle::new(Add);
    let exec = executor();
    let router = Calculator::tool_router();
    let (server, _client) = rmcp_server(&rt);
    let context = RequestContext::new(NumberOrString::Number(1), server.peer().clone());
    let _runtime = rt.enter();

    // Every path computes the same answer before anything is timed.
    assert_eq!(floor_once(&args), "42");
    assert_eq!(prepare_run_once(&cx, &handle, &args).into_string(), "42");
    assert_eq!(executor_once(&exec, &args)[0].content(), "42");
    let rmcp_text = format!("{:?}", rmcp_once(&router, &context, &args));
    assert!(rmcp_text.contains("\"42\""), "{rmcp_text}");

    let mut group = c.benchmark_group("dispatch");
    group.bench_function("floor", |b| b.iter(|| floor_once(black_box(&args))));
    group.bench_function("ours_prepare_run", |b| {
        b.iter(|| prepare_run_once(&cx, &handle, black_box(&args)))
    });
    group.bench_function("ours_executor", |b| {
        b.iter(|| executor_once(&exec, black_box(&args)))
    });
    group.bench_function("rmcp_router_call", |b| {
        b.iter(|| rmcp_once(&router, &context, black_box(&args)))
    });
    group.finish();
    drop(_runtime);
    rt.block_on(async { drop(server.cancel().await) });
}

// ---------------------------------------------------------------- render

/// The input schema every generated tool has (a realistic small one).
fn catalog_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": { "type": "string", "description": "What to look for." },
            "limit": { "type": "integer", "minimum": 1 },
            "mode": { "type": "string", "enum": ["fast", "exact"] }
        },
        "required": ["query"]
    })
}

fn tool_name(i: usize) -> String {
    format!("tool_{i:05}")
}

fn tool_description(i: usize) -> String {
    format!("Tool number {i}.\nDoes one thing.")
}

/// Our catalog of `n` tools: a tenth built in, the rest plugins with an
/// owner each, registered in a scrambled order so assembly really sorts.
struct Catalog {
    registry: ToolRegistry,
    cx: PermissionContext,
}

impl Catalog {
    fn new(n: usize) -> Self {
        let ours = |i: usize| {
            ToolBuilder::new(tool_name(i), tool_description(i))
                .input_schema(catalog_schema())
                .read_only(i.is_multiple_of(2))
                .build(|_, _| async { Ok(ToolOutput::text("")) })
                .expect("catalog tool")
        };
        let builtins = n / 10;
        let registry = ToolRegistry::new(
            BaseTools::__from_handles((0..builtins).map(ours).collect())
                .expect("catalog built-ins"),
        );
        let plugins = registry.plugins();
        let count = n - builtins;
        for k in 0..count {
            // 7919 is prime: a fixed permutation of 0..count.
            let i = builtins + (k * 7919) % count;
            plugins
                .register(format!("owner_{i:05}"), ours(i))
                .expect("catalog plugin")
                .detach();
        }
        Catalog {
            registry,
            cx: PermissionContext::new(),
        }
    }

    fn pool(&self) -> ToolPool {
        self.registry.assemble_tool_pool(&self.cx)
    }
}

/// The same catalog as rmcp routes, with the same read-only hints. Each
/// tool holds its own schema, as ours do (and as a real server's tools
/// do: one input type each); one `Arc` shared by every tool would keep a
/// single schema hot in the cache for the whole render.
fn rmcp_router(n: usize) -> ToolRouter<Calculator> {
    let mut router = ToolRouter::new();
    for i in 0..n {
        let Value::Object(schema) = catalog_schema() else {
            unreachable!("an object literal")
        };
        let mut attr = rmcp::model::Tool::new(tool_name(i), tool_description(i), Arc::new(schema));
        if i.is_multiple_of(2) {
            attr = attr.annotate(rmcp::model::ToolAnnotations::new().read_only(true));
        }
        router.add_route(ToolRoute::new_dyn(attr, |_| {
            Box::pin(async { Err(rmcp::ErrorData::internal_error("not called", None)) })
        }));
    }
    router
}

#[inline(never)]
fn ours_cold_once(catalog: &Catalog) -> Arc<str> {
    catalog.pool().render_mcp_tools_list()
}

#[inline(never)]
fn rmcp_json_once(router: &ToolRouter<Calculator>) -> String {
    serde_json::to_string(&ListToolsResult::with_all_items(router.list_all())).unwrap()
}

fn render(c: &mut Criterion) {
    let mut group = c.benchmark_group("render");
    for &n in SIZES.iter().chain(OURS_ONLY) {
        let catalog = Catalog::new(n);
        assert_eq!(catalog.pool().len(), n);
        group.bench_function(BenchmarkId::new("ours_fresh", n), |b| {
            // Building fresh tools is setup, and dropping them teardown
            // (`iter_batched_ref`: the catalog is dropped outside the
            // timing); only assembly and the first render are timed.
            b.iter_batched_ref(
                || Catalog::new(n),
                |fresh| ours_cold_once(fresh),
                BatchSize::PerIteration,
            )
        });
        ours_cold_once(&catalog);
        group.bench_function(BenchmarkId::new("ours_cold", n), |b| {
            b.iter(|| ours_cold_once(black_box(&catalog)))
        });
        let pool = catalog.pool();
        pool.render_mcp_tools_list();
        group.bench_function(BenchmarkId::new("ours_cached", n), |b| {
            b.iter(|| black_box(&pool).render_mcp_tools_list())
        });
        if OURS_ONLY.contains(&n) {
            continue;
        }
        let router = rmcp_router(n);
        assert_eq!(router.list_all().len(), n);
        group.bench_function(BenchmarkId::new("rmcp_list_all", n), |b| {
            b.iter(|| black_box(&router).list_all())
        });
        group.bench_function(BenchmarkId::new("rmcp_list_all_json", n), |b| {
            b.iter(|| rmcp_json_once(black_box(&router)))
        });
    }
    group.finish();
}

// ---------------------------------------------------------------- report

mod report {
    //! Reads the medians criterion just wrote and prints them side by
    //! side with their ratios.

    use std::path::Path;

    use super::{OURS_ONLY, SIZES};

    /// The median of one benchmark in nanoseconds, if it was measured.
    fn median(dir: &Path, group: &str, id: &str) -> Option<f64> {
        let path = dir.join(group).join(id).join("new/estimates.json");
        let text = std::fs::read_to_string(path).ok()?;
        let estimates: serde_json::Value = serde_json::from_str(&text).ok()?;
        estimates["median"]["point_estimate"].as_f64()
    }

    fn time(ns: f64) -> String {
        if ns >= 1e6 {
            format!("{:.2} ms", ns / 1e6)
        } else if ns >= 1e3 {
            format!("{:.2} µs", ns / 1e3)
        } else {
            format!("{ns:.0} ns")
        }
    }

    fn ratio(a: Option<f64>, b: Option<f64>) -> String {
        match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
            _ => "-".into(),
        }
    }

    fn cell(ns: Option<f64>) -> String {
        ns.map_or_else(|| "-".into(), time)
    }

    pub(super) fn print(dir: &Path) {
        let d = |id: &str| median(dir, "dispatch", id);
        let floor = d("floor");
        if floor.is_none() {
            println!("peers report: no measurements under {}", dir.display());
            return;
        }
        println!("\npeers report (criterion medians)\n");
        println!("| dispatch, one call | median | × floor | × rmcp |");
        println!("|---|---|---|---|");
        let rmcp = d("rmcp_router_call");
        for (label, id) in [
            ("floor: from_value + direct call", "floor"),
            ("ours: prepare + run", "ours_prepare_run"),
            ("ours: executor, full path", "ours_executor"),
            ("rmcp: ToolRouter::call", "rmcp_router_call"),
        ] {
            let ns = d(id);
            println!(
                "| {label} | {} | {} | {} |",
                cell(ns),
                ratio(ns, floor),
                ratio(ns, rmcp)
            );
        }

        println!(
            "\n| render, n tools | ours fresh | ours cold (new pool) | ours cached | rmcp list_all | rmcp list_all→JSON | cold ÷ rmcp JSON | µs/tool cold |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        for &n in SIZES.iter().chain(OURS_ONLY) {
            let r = |id: &str| median(dir, "render", &format!("{id}/{n}"));
            let cold = r("ours_cold");
            let json = r("rmcp_list_all_json");
            println!(
                "| {n} | {} | {} | {} | {} | {} | {} | {} |",
                cell(r("ours_fresh")),
                cell(cold),
                cell(r("ours_cached")),
                cell(r("rmcp_list_all")),
                cell(json),
                ratio(cold, json),
                cold.map_or_else(|| "-".into(), |ns| format!("{:.3}", ns / n as f64 / 1e3)),
            );
        }
    }
}
