//! What the hostile-server tests share (`hostile_mcp.rs` over stdio,
//! `hostile_mcp_http.rs` over streamable HTTP): each case runs in a child
//! process of its own (the test binary, run again on that one test), so
//! its peak resident memory is its own and not its neighbours': the child
//! imports a polite server first, resets its peak
//! (`/proc/self/clear_refs`), runs the case, calls the polite server
//! again, and reports how far its peak rose. The parent holds it to
//! [`MAX_GROWTH`] and the case to [`CASE_LIMIT`].

#![allow(dead_code)]

use std::future::Future;
use std::process::Command;
use std::time::{Duration, Instant};

use registry_core::ToolContext;
use registry_core::catalog::PluginRegistry;
use registry_core::mcp::{McpError, McpImport, McpServerConfig};
use serde_json::json;

/// The longest description an imported tool keeps, in characters.
pub(crate) const MAX_DESCRIPTION_CHARS: usize = 2048;

/// The most a case's peak resident memory may rise over what it was
/// before the hostile import.
pub(crate) const MAX_GROWTH: u64 = 64 << 20;

/// The longest a case may take, hostile import, outcome and all.
pub(crate) const CASE_LIMIT: Duration = Duration::from_secs(5);

/// Set in the child that runs one case.
pub(crate) const CHILD: &str = "REGISTRY_HOSTILE_CASE_CHILD";

pub(crate) const SERVER: &str = env!("CARGO_BIN_EXE_hostile-mcp-server");

pub(crate) fn server(name: &str, case: &str) -> McpServerConfig {
    McpServerConfig::command(name, SERVER, [case])
}

/// A field of `/proc/self/status`, in bytes.
pub(crate) fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

/// Calls `tool` of `registry` with `{"text": text}`.
pub(crate) async fn call(
    registry: &PluginRegistry,
    tool: &str,
    text: &str,
) -> Result<String, String> {
    let handle = registry
        .get(tool)
        .ok_or_else(|| format!("`{tool}` is not registered"))?;
    handle
        .call_json(json!({ "text": text }), &ToolContext::new())
        .await
        .map(|out| out.as_str().to_owned())
        .map_err(|err| err.to_string())
}

/// Runs `case` in a child process and holds it to the limits; in the
/// child, runs it and reports.
pub(crate) fn hostile<F, Fut>(test: &str, case: F)
where
    F: FnOnce(PluginRegistry) -> Fut,
    Fut: Future<Output = ()>,
{
    if std::env::var_os(CHILD).is_some() {
        return run_child(case);
    }
    let output = Command::new(std::env::current_exe().expect("the test binary"))
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("the child runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "case `{test}` failed:\n{stdout}\n{stderr}"
    );
    let report = stdout
        .lines()
        .find_map(|line| line.split_once("HOSTILE-CASE ").map(|(_, report)| report))
        .unwrap_or_else(|| panic!("case `{test}` reported nothing:\n{stdout}\n{stderr}"));
    let field = |name: &str| -> u64 {
        report
            .split(' ')
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in `{report}`"))
    };
    let growth = field("growth");
    eprintln!("{test}: {report}");
    assert!(
        growth < MAX_GROWTH,
        "case `{test}` raised peak memory by {} MiB (limit {} MiB)",
        growth >> 20,
        MAX_GROWTH >> 20
    );
}

pub(crate) fn run_child<F, Fut>(case: F)
where
    F: FnOnce(PluginRegistry) -> Fut,
    Fut: Future<Output = ()>,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let registry = PluginRegistry::new();
        let polite = McpImport::connect(&registry, server("polite", "polite"))
            .await
            .expect("the polite server imports");
        assert_eq!(
            call(&registry, "mcp__polite__echo", "before").await,
            Ok("echo: before".to_owned())
        );
        // From here on the peak is the case's own.
        std::fs::write("/proc/self/clear_refs", "5").expect("peak RSS resets");
        let before = status_bytes("VmRSS");
        let start = Instant::now();
        tokio::time::timeout(CASE_LIMIT, case(registry.clone()))
            .await
            .unwrap_or_else(|_| panic!("the case did not end within {CASE_LIMIT:?}"));
        let elapsed = start.elapsed();
        let peak = status_bytes("VmHWM");
        assert!(
            polite.is_connected(),
            "the polite server is still connected"
        );
        assert_eq!(
            call(&registry, "mcp__polite__echo", "after").await,
            Ok("echo: after".to_owned()),
            "the polite server still answers"
        );
        println!(
            "HOSTILE-CASE growth={} before={} peak={} elapsed_ms={}",
            peak.saturating_sub(before),
            before,
            peak,
            elapsed.as_millis()
        );
    });
}

/// The import of the stdio server's `case` fails, with an error that
/// says `why`.
pub(crate) async fn refused(
    registry: &PluginRegistry,
    name: &str,
    case: &str,
    why: &[&str],
) -> McpError {
    refused_by(registry, server(name, case), why).await
}

/// The import of `config` fails, with an error that says `why`, and
/// leaves nothing registered.
pub(crate) async fn refused_by(
    registry: &PluginRegistry,
    config: McpServerConfig,
    why: &[&str],
) -> McpError {
    let name = config.name().to_owned();
    let err = McpImport::connect(registry, config)
        .await
        .expect_err("the hostile import fails");
    let text = err.to_string();
    for word in why {
        assert!(text.contains(word), "`{word}` not in: {text}");
    }
    assert!(
        !registry
            .tools()
            .iter()
            .any(|t| t.name().starts_with(&format!("mcp__{name}__"))),
        "nothing of the failed import stays registered"
    );
    err
}

/// The server `huge`'s tool `huge` is imported with its 10 MB description
/// cut, saying so, and its `echo` still answers.
pub(crate) async fn huge_description_is_cut(registry: &PluginRegistry) {
    let huge = registry
        .get("mcp__huge__huge")
        .expect("the tool is imported, its description cut");
    let description = huge.spec().description();
    assert!(description.chars().count() <= MAX_DESCRIPTION_CHARS);
    assert!(
        description.contains("cut"),
        "the cut is said: {description}"
    );
    assert_eq!(
        call(registry, "mcp__huge__echo", "hi").await,
        Ok("echo: hi".to_owned())
    );
}
