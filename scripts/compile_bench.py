#!/usr/bin/env python3
"""Compile time of N tools: our #[tool], rmcp's #[tool_router], and the floor.

Usage: scripts/compile-bench.sh [--lines-only] N [N ...]   (default: 50 200)

For each N it generates, under target/compile-bench/ (never committed), a
small workspace of three crates holding the same N tools:

- floor: the N input structs (serde + schemars derives, 2-3 documented
  fields) and N plain async fns with the same bodies; no tool macro;
- ours:  the same, each tool declared with registry_core's #[tool] and
  `impl Tool`;
- rmcp:  the same, written the idiomatic rmcp 3.11 way: one server with a
  #[tool_router] impl of N #[tool] methods taking Parameters<Input>, and
  #[tool_handler] on its ServerHandler.

Dependencies are built first (and once per mode); then only the generated
crate is rebuilt, after touching its source, three times per mode
(incremental, and CARGO_INCREMENTAL=0), and the median is reported with
each macro's cost over the floor. The three crates are timed in turn,
round by round, and the machine's load average is sampled before every
timed build and printed beside the row, with wall-clock ratios to the
floor: a row measured under load says so. Debug profile: the
edit-compile loop.

Wall-clock times on a shared machine move a lot; when cargo-llvm-lines is
installed (`cargo install cargo-llvm-lines`), the lines of LLVM IR each
crate generates are reported too: a deterministic measure of the code the
macros make the compiler produce. `--lines-only` skips the timed builds
and reports only those counts: the quick loop while cutting generated code.
"""

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "target" / "compile-bench"
RUNS = 3
CRATES = ("floor", "ours", "rmcp")

FIELDS = [
    ("path", "String", "Path of the file, relative to the workspace."),
    ("offset", "Option<u32>", "First line to read, 1-based."),
    ("follow", "bool", "Whether to follow symbolic links."),
]


def input_struct(i: int) -> str:
    # Two or three fields, as the issue's catalogs have.
    fields = FIELDS if i % 2 == 0 else FIELDS[:2]
    lines = [
        f"/// The input of tool {i}.",
        "#[derive(serde::Deserialize, schemars::JsonSchema)]",
        f"pub struct Input{i} {{",
    ]
    for name, ty, doc in fields:
        lines.append(f"    /// {doc}")
        if ty == "bool":
            lines.append("    #[serde(default)]")
        lines.append(f"    pub {name}: {ty},")
    lines.append("}")
    return "\n".join(lines)


def body(i: int) -> str:
    extra = " if input.follow { 1 } else { 0 }" if i % 2 == 0 else " 0"
    return (
        f'format!("tool {i}: {{}} from {{}} ({{}})", input.path, '
        f"input.offset.unwrap_or(1),{extra})"
    )


def description(i: int) -> str:
    return f"Tool number {i}: read a file and report where it starts."


def gen_floor(n: int) -> str:
    out = ["//! The floor: inputs and bodies, no tool macro.", ""]
    for i in range(n):
        out += [
            input_struct(i),
            "",
            f"/// {description(i)}",
            f"pub async fn tool_{i}(input: Input{i}) -> String {{",
            f"    {body(i)}",
            "}",
            "",
        ]
    return "\n".join(out)


def gen_ours(n: int) -> str:
    out = ["//! N tools declared with registry_core's #[tool].", ""]
    for i in range(n):
        ro = ", read_only = true" if i % 2 == 0 else ""
        out += [
            input_struct(i),
            "",
            f"/// {description(i)}",
            f'#[registry_core::tool(name = "tool_{i}"{ro})]',
            f"pub struct Tool{i};",
            "",
            f"impl registry_core::Tool for Tool{i} {{",
            f"    type Input = Input{i};",
            "    type Output = String;",
            "    type Error = std::convert::Infallible;",
            "",
            "    async fn call(",
            "        &self,",
            f"        input: Input{i},",
            "        _cx: &registry_core::ToolContext,",
            "    ) -> Result<String, Self::Error> {",
            f"        Ok({body(i)})",
            "    }",
            "}",
            "",
        ]
    return "\n".join(out)


def gen_rmcp(n: int) -> str:
    out = [
        "//! N tools written the idiomatic rmcp way.",
        "",
        "use rmcp::handler::server::router::tool::ToolRouter;",
        "use rmcp::handler::server::wrapper::Parameters;",
        "use rmcp::{ServerHandler, tool, tool_handler, tool_router};",
        "",
    ]
    for i in range(n):
        out += [input_struct(i), ""]
    out += [
        "/// The server holding every tool.",
        "#[derive(Clone)]",
        "pub struct Server {",
        "    #[allow(dead_code)]",
        "    tool_router: ToolRouter<Self>,",
        "}",
        "",
        "impl Server {",
        "    /// A server with every tool routed.",
        "    pub fn new() -> Self {",
        "        Self { tool_router: Self::tool_router() }",
        "    }",
        "}",
        "",
        "impl Default for Server {",
        "    fn default() -> Self {",
        "        Self::new()",
        "    }",
        "}",
        "",
        "#[tool_router]",
        "impl Server {",
    ]
    for i in range(n):
        ann = ", annotations(read_only_hint = true)" if i % 2 == 0 else ""
        out += [
            f'    #[tool(description = "{description(i)}"{ann})]',
            f"    async fn tool_{i}(&self, Parameters(input): Parameters<Input{i}>) -> String {{",
            f"        {body(i)}",
            "    }",
            "",
        ]
    out += [
        "}",
        "",
        "#[tool_handler]",
        "impl ServerHandler for Server {}",
        "",
    ]
    return "\n".join(out)


def manifest(name: str) -> str:
    core = (ROOT / "registry-core").as_posix()
    deps = {
        "floor": "",
        "ours": f'registry-core = {{ path = "{core}" }}\n',
        "rmcp": 'rmcp = { version = "3.11", default-features = false, '
        'features = ["server", "macros"] }\n',
    }[name]
    return (
        f'[package]\nname = "cb_{name}"\nversion = "0.0.0"\nedition = "2024"\n'
        f"publish = false\n\n[dependencies]\n"
        f'serde = {{ version = "1", features = ["derive"] }}\n'
        f'schemars = "1"\n{deps}'
    )


def generate(n: int) -> Path:
    ws = OUT / f"n{n}"
    ws.mkdir(parents=True, exist_ok=True)
    members = ", ".join(f'"{c}"' for c in CRATES)
    write(ws / "Cargo.toml", f'[workspace]\nresolver = "3"\nmembers = [{members}]\n')
    # The repository's lock file, so shared dependencies resolve to the
    # versions the repository tests with.
    lock = ROOT / "Cargo.lock"
    if lock.exists() and not (ws / "Cargo.lock").exists():
        shutil.copy(lock, ws / "Cargo.lock")
    sources = {"floor": gen_floor, "ours": gen_ours, "rmcp": gen_rmcp}
    for name in CRATES:
        write(ws / name / "Cargo.toml", manifest(name))
        write(ws / name / "src" / "lib.rs", sources[name](n))
    return ws


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def cargo(ws: Path, crate: str, incremental: bool) -> float:
    # One target directory for every N: dependencies are built once.
    env = dict(
        os.environ,
        CARGO_INCREMENTAL="1" if incremental else "0",
        CARGO_TARGET_DIR=str(OUT / "target"),
    )
    env.pop("RUSTFLAGS", None)
    start = time.monotonic()
    subprocess.run(
        ["cargo", "build", "-q", "-p", f"cb_{crate}"],
        cwd=ws,
        env=env,
        check=True,
    )
    return time.monotonic() - start


def touch(ws: Path, crate: str) -> None:
    src = ws / crate / "src" / "lib.rs"
    now = time.time()
    os.utime(src, (now, now))


def llvm_lines(ws: Path, crate: str) -> int | None:
    """Total lines of LLVM IR for the crate, or None without cargo-llvm-lines."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(OUT / "target"))
    try:
        run = subprocess.run(
            ["cargo", "llvm-lines", "-p", f"cb_{crate}", "--lib"],
            cwd=ws,
            env=env,
            capture_output=True,
            text=True,
        )
    except FileNotFoundError:
        return None
    for line in run.stdout.splitlines():
        if line.rstrip().endswith("(TOTAL)"):
            return int(line.split()[0])
    return None


def measure(n: int, timed: bool = True) -> dict:
    ws = generate(n)
    results = {}
    for incremental in (True, False) if timed else ():
        mode = "incremental" if incremental else "CARGO_INCREMENTAL=0"
        # Dependencies (and a first build of each crate) in this mode.
        for crate in CRATES:
            cargo(ws, crate, incremental)
        # Rounds of floor, ours, rmcp in turn, so a burst of load on the
        # shared machine falls on all three rather than on one.
        times = {crate: [] for crate in CRATES}
        loads = []
        for _ in range(RUNS):
            for crate in CRATES:
                touch(ws, crate)
                loads.append(os.getloadavg()[0])
                times[crate].append(cargo(ws, crate, incremental))
        loads.append(os.getloadavg()[0])
        results[(mode, "load")] = (min(loads), max(loads))
        for crate in CRATES:
            results[(mode, crate)] = statistics.median(times[crate])
            print(
                f"  n={n} {mode:<20} {crate:<6} "
                + " ".join(f"{t:.2f}" for t in times[crate])
                + f"  median {results[(mode, crate)]:.2f} s",
                file=sys.stderr,
            )
    for crate in CRATES:
        results[("llvm-lines", crate)] = llvm_lines(ws, crate)
    return results


# The goal: our cost over the floor at most half of rmcp's.
GOAL = 0.5


def report(all_results: dict) -> None:
    print(
        f"\n{os.cpu_count()} CPUs; load is the 1-minute load average, lowest and "
        "highest, sampled before every timed build of the mode"
    )
    print(
        "\n| N | mode | load | floor | ours (over floor; × floor) | rmcp (over floor; × floor) "
        f"| ours ÷ rmcp, over floor (goal ≤ {GOAL:.2f}) |"
    )
    print("|---|---|---|---|---|---|---|")
    for n, results in all_results.items():
        for mode in ("incremental", "CARGO_INCREMENTAL=0"):
            floor = results[(mode, "floor")]
            ours = results[(mode, "ours")]
            rmcp = results[(mode, "rmcp")]
            low, high = results[(mode, "load")]
            # A cost within the noise (rmcp at or under the floor) has no
            # meaningful ratio.
            if rmcp > floor:
                ratio = (ours - floor) / (rmcp - floor)
                verdict = "met" if ratio <= GOAL else f"missed by {ratio - GOAL:.2f}"
                ratio = f"{ratio:.2f}: {verdict}"
            else:
                ratio = "- (rmcp within the floor's noise)"
            print(
                f"| {n} | {mode} | {low:.1f}–{high:.1f} | {floor:.2f} s "
                f"| {ours:.2f} s ({ours - floor:+.2f}; {ours / floor:.2f}×) "
                f"| {rmcp:.2f} s ({rmcp - floor:+.2f}; {rmcp / floor:.2f}×) | {ratio} |"
            )


def report_lines(all_results: dict) -> None:
    rows = [
        (n, [results.get(("llvm-lines", c)) for c in CRATES])
        for n, results in all_results.items()
    ]
    if any(None in lines for _, lines in rows):
        print("\n(cargo-llvm-lines is not installed: no LLVM IR line counts)")
        return
    print("\n| N | LLVM IR lines: floor | ours (over floor) | rmcp (over floor) | ours ÷ rmcp, over floor |")
    print("|---|---|---|---|---|")
    for n, (floor, ours, rmcp) in rows:
        print(
            f"| {n} | {floor:,} | {ours:,} (+{ours - floor:,}) | {rmcp:,} (+{rmcp - floor:,}) "
            f"| {(ours - floor) / (rmcp - floor):.2f} |"
        )


def main() -> None:
    args = sys.argv[1:]
    timed = "--lines-only" not in args
    args = [a for a in args if a != "--lines-only"]
    try:
        sizes = [int(a) for a in args] or [50, 200]
    except ValueError:
        sys.exit(f"compile-bench: expected numbers of tools (and --lines-only), got {args}")
    if any(n < 1 for n in sizes):
        sys.exit("compile-bench: N must be a positive number of tools")
    all_results = {}
    for n in sizes:
        print(f"compile-bench: N = {n} (generated under {OUT / f'n{n}'})", file=sys.stderr)
        all_results[n] = measure(n, timed)
    if timed:
        report(all_results)
    report_lines(all_results)


if __name__ == "__main__":
    main()
