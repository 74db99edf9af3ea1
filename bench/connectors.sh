#!/usr/bin/env bash
# Connector throughput: parse a generated 100k-line Claude Code transcript and a 100k-line Codex
# rollout (fixed seed) with the release build and print messages/s (median of RUNS parses).
# This is the connectors' share of the index's end-to-end budget (>= 50,000 messages/s cold).
#
# usage: bench/connectors.sh [LINES] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${1:-100000}
RUNS=${2:-5}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 bench/gen_sessions.py claude "$LINES" "$TMP/claude.jsonl"
python3 bench/gen_sessions.py codex "$LINES" "$TMP/codex.jsonl"
cargo build --release --quiet --example connectors_bench
BIN=target/release/examples/connectors_bench
# Warm the page cache once so both agents are measured the same way.
cat "$TMP"/*.jsonl >/dev/null
"$BIN" claude "$TMP/claude.jsonl" "$RUNS"
"$BIN" codex "$TMP/codex.jsonl" "$RUNS"
