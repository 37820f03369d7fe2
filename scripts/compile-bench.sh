#!/bin/sh
# Compile time of N tools: our #[tool] vs rmcp's #[tool_router] vs the floor.
# Usage: scripts/compile-bench.sh [--lines-only] [N ...]   (default: 50 200)
# Generated crates live under target/compile-bench/; see compile_bench.py.
set -eu
exec python3 "$(dirname "$0")/compile_bench.py" "$@"
