#!/usr/bin/env bash
# Prints the tool-search evaluation report: recall@1, recall@5 and MRR of
# the index and of a plain BM25 baseline, on the dev and held-out query
# sets (registry-core/tests/search_eval). `-v` also lists every dev-set
# query whose first result is wrong; held-out queries are never listed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "-v" ]]; then export SEARCH_EVAL_VERBOSE=1; fi
cargo test -q -p registry-core --test search_eval -- --nocapture 2>&1 | grep -v '^running\|^test result\|^$'
