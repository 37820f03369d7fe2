#!/usr/bin/env bash
# Prints the tool-search evaluation: recall@1, recall@5 and MRR@5 of the
# lexical index and of plain BM25, per slice, with paired bootstrap
# intervals, on the dev split (tuned on) and the held-out split (never
# tuned on; its queries are never printed). With REGISTRY_EMBED_MODEL_DIR
# set to an all-MiniLM-L6-v2 directory, also the hybrid (words and
# meaning) on both. `-v` lists the dev split's misses, and every dev query
# where BM25 ranks better.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "-v" ]]; then export SEARCH_EVAL_VERBOSE=1; fi
quiet() { grep -v '^running\|^test result\|^$\|^\.$'; }
cargo test -q -p registry-core --test it search_eval:: -- --nocapture 2>&1 | quiet
cargo test -q -p registry-core --test it search_heldout:: -- --nocapture 2>&1 | quiet
if [[ -n "${REGISTRY_EMBED_MODEL_DIR:-}" ]]; then
    cargo test -q -p registry-embed --test it -- search_dev:: search_heldout:: --nocapture 2>&1 | quiet
else
    echo "(set REGISTRY_EMBED_MODEL_DIR for the hybrid numbers)"
fi
