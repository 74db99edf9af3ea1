#!/usr/bin/env bash
# Where Aho-Corasick wins: the secret scanner's hint literals (one automaton vs a substring
# search per literal) and the guard's keyword scan with thousands of user traumas (first-byte
# index vs automaton, build included, as each hook process pays it). Medians of repeated runs.
# Usage: bench/literals.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --quiet --bench literals
