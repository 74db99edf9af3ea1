#!/usr/bin/env bash
# Build the release binary and print the evasion corpus's figures per family (bench/guard_corpus.py).
# Usage: bench/guard_corpus.sh [CORPUS]
set -euo pipefail
cd "$(dirname "$0")/.."
cm=$(scripts/build-release.sh --quiet)
python3 bench/guard_corpus.py "$cm" "$@"
