#!/usr/bin/env bash
# Runs the cargo-fuzz targets under fuzz/ (see fuzz/bodies/src/lib.rs for
# what each one checks).
#
#   scripts/fuzz.sh                      every target for 60 s each
#   scripts/fuzz.sh --time 300 shell     one target for 5 minutes
#   scripts/fuzz.sh --runs 10000000      every target for 10 million runs
#   scripts/fuzz.sh --dev --time 15      unoptimised: builds in half the time,
#                                        runs slower (the CI smoke run)
#
# Works on the stable toolchain: libFuzzer's instrumentation flags are
# nightly-only, and RUSTC_BOOTSTRAP=1 lets stable rustc take them.
# cargo-fuzz itself is installed, pinned, under ~/.cache/registry-tools.
#
# Each target starts from its checked-in seeds (fuzz/corpus/<target>,
# never written to) and a working corpus it grows under
# target/fuzz-corpus/<target>. A crash stops the script with the input
# saved under target/fuzz-artifacts/<target>/: fix it, then check the
# input in as fuzz/regressions/<target>/<name>, where `cargo test`
# replays it from then on. The summary gives executions per target.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_FUZZ_VERSION=0.13.2
TARGETS=(prepare rules shell mcp_frames lock input_deser tool_search)

limit=(-max_total_time=60)
profile=()
chosen=()
while [ $# -gt 0 ]; do
    case "$1" in
        --time) limit=(-max_total_time="$2"); shift 2 ;;
        --runs) limit=(-runs="$2"); shift 2 ;;
        --dev) profile=(--dev); shift ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
        *) chosen+=("$1"); shift ;;
    esac
done
[ ${#chosen[@]} -gt 0 ] || chosen=("${TARGETS[@]}")

# cargo-fuzz is a tool, not part of the build: installed once per machine
# and version into the user's cache (a fresh checkout, as CI makes, would
# otherwise compile it again: 2 to 3 minutes on 2 cores).
FUZZ_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/registry-tools/cargo-fuzz-$CARGO_FUZZ_VERSION"
FUZZ_BIN="$FUZZ_ROOT/bin"
if ! "$FUZZ_BIN/cargo-fuzz" --version 2>/dev/null | grep -q " $CARGO_FUZZ_VERSION\$"; then
    echo "== installing cargo-fuzz $CARGO_FUZZ_VERSION into $FUZZ_ROOT"
    cargo install --quiet --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION" --root "$FUZZ_ROOT"
fi
export PATH="$FUZZ_BIN:$PATH"
export RUSTC_BOOTSTRAP=1
# The fuzz crate's own build directory, beside the workspace's.
export CARGO_TARGET_DIR="$PWD/target/fuzz-build"

# No sanitizer: the code under test is safe Rust (overflow and debug
# assertions stay on, `cargo fuzz` builds with them), and without
# AddressSanitizer the build is half as long and every run twice as fast.
BUILD_FLAGS=(--sanitizer none --debug-assertions "${profile[@]}")

echo "== building the fuzz targets"
(cd fuzz && cargo fuzz build "${BUILD_FLAGS[@]}")

summary=()
for target in "${chosen[@]}"; do
    work="$PWD/target/fuzz-corpus/$target"
    artifacts="$PWD/target/fuzz-artifacts/$target/"
    mkdir -p "$work" "$artifacts"
    log="$PWD/target/fuzz-artifacts/$target.log"
    echo "== fuzzing $target (${limit[*]})"
    status=0
    (cd fuzz && cargo fuzz run "${BUILD_FLAGS[@]}" "$target" "$work" "corpus/$target" -- \
        "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$artifacts" -print_final_stats=1) >"$log" 2>&1 || status=$?
    # A crashed run prints no final stats: `|| true`, so the report below
    # is printed rather than the script ending on a failed grep.
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' | tail -1 || true)
    if [ "$status" -ne 0 ]; then
        tail -40 "$log"
        echo "!!! $target failed after ${runs:-?} runs: the input is in $artifacts (log: $log)" >&2
        exit 1
    fi
    summary+=("$(printf '%-12s %12s runs in %6s s, no crash' "$target" "${runs:-?}" "${secs:-?}")")
done

echo "== fuzz summary"
printf '%s\n' "${summary[@]}"
