//! Bounded memory: a 100 MiB argument, a 100 MiB tool result and a 100 MiB
//! command line each take the registry's path from the text a provider
//! sent to the result a runtime gets, and none may grow the process's peak
//! resident memory by more than four times its size; a catalog of 10,000
//! imported tools stays under a stated budget.
//!
//! Each scenario runs alone in a child process (see `measure`), once with
//! its payload and once with a tiny one: the difference of the two peaks
//! is what the payload cost, with the fixed base (test harness, runtime,
//! registry, allocator) measured, not guessed. Memory only: nothing here
//! is timed.
//!
//! `REGISTRY_MEMORY_MIB` sets the payload size (default 100), for a quick
//! run or a bigger one; the bound is the same multiple at every size.
//!
//! A test binary of its own, not a module of `tests/it`: its scenarios
//! declare `#[tool]`s (`store_note`, `build_log`), and `#[tool]` always
//! registers in the linked catalog, so in the shared binary they would
//! join the catalog that `catalog` and `catalog_lock` check exactly.

#![cfg(target_os = "linux")]

registry_core::link!(registry_examples);

mod measure;
mod payload;
mod scenarios;

use measure::{MIB, Measured, measure};

/// How many times its own size a payload may add to the peak.
const BOUND: f64 = 4.0;

/// The payload of a tiny run, which measures the base.
const TINY: usize = 1024;

/// The payload size: 100 MiB unless `REGISTRY_MEMORY_MIB` says otherwise.
fn payload_bytes() -> usize {
    std::env::var("REGISTRY_MEMORY_MIB")
        .ok()
        .and_then(|mib| mib.parse::<usize>().ok())
        .unwrap_or(100)
        * MIB
}

/// Runs `scenario` and checks its growth against [`BOUND`].
fn within_bound(scenario: &str) -> Measured {
    let measured = measure(scenario, TINY, payload_bytes());
    assert!(
        measured.ratio() <= BOUND,
        "{scenario}: {measured}; the bound is {BOUND}x"
    );
    measured
}

/// The child's entry: runs the scenario it was started for; does nothing
/// in an ordinary run of the tests.
#[test]
fn child() {
    if let Some(request) = measure::request() {
        scenarios::run(&request.scenario, request.bytes);
        measure::done();
    }
}

#[test]
fn a_typed_tools_argument_through_a_messages_response() {
    within_bound("argument");
}

#[test]
fn an_imported_tools_argument_through_a_chat_response() {
    within_bound("imported_argument");
}

#[test]
fn a_tool_result_spilled_to_a_file() {
    within_bound("result_spilled");
}

#[test]
fn a_tool_result_cut_to_its_cap() {
    within_bound("result_cut");
}

#[test]
fn a_command_line_through_the_shell_tool() {
    within_bound("command");
}

/// Tools in the big catalog.
const CATALOG_TOOLS: usize = 10_000;

/// What the catalog of [`CATALOG_TOOLS`] may add to the peak.
const CATALOG_BUDGET: u64 = 256 * MIB as u64;

#[test]
fn a_catalog_of_ten_thousand_tools_stays_in_its_budget() {
    let measured = measure("catalog", 10, CATALOG_TOOLS);
    let per_tool = measured.growth() / (CATALOG_TOOLS as u64 - 10);
    eprintln!("memory: catalog: {per_tool} bytes per tool");
    assert!(
        measured.growth() <= CATALOG_BUDGET,
        "catalog of {CATALOG_TOOLS} tools: {measured}; the budget is {} MiB",
        CATALOG_BUDGET / MIB as u64
    );
}
