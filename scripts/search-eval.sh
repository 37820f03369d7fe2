#!/usr/bin/env bash
# Prints the tool-search evaluation: recall@1, recall@5 and MRR@5 of the
# lexical index and of plain BM25, per slice, with paired bootstrap
# intervals, on the dev split (tuned on) and the held-out split (never
# tuned on; its queries are never printed). With REGISTRY_EMBED_MODEL_DIR
# set to a model directory (potion-base-8M in CI; any model
# `registry_embed::load` reads), also the hybrid (words and meaning) on
# both. With REGISTRY_EMBED_COMPARE=name=dir,... the model comparison on
# the dev split. `-v` lists the dev split's misses, and every dev query
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
if [[ -n "${REGISTRY_EMBED_COMPARE:-}" ]]; then
    cargo test -q --release -p registry-embed --test it -- search_models:: --nocapture 2>&1 | quiet
fi
