#!/usr/bin/env bash
# A long hunt with the property tests of tests/it/fuzz.rs (and the guard's quick-reject properties
# in tests/it/guard.rs): payload parsing, command normalisation, every session connector, config and
# playbook imports, trauma files, secret redaction. Stable toolchain (proptest), release build.
# A failure is shrunk to a minimal input, printed, and saved in tests/it/*.proptest-regressions, so
# every later `cargo test` replays it first.
# Usage: bench/fuzz.sh [CASES_PER_PROPERTY]     (default 20000)
set -uo pipefail
cd "$(dirname "$0")/.."
cases="${1:-20000}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
PROPTEST_CASES="$cases" cargo test --release --test it -- \
    --test-threads="$(nproc)" fuzz::connectors:: fuzz::files:: guard::quick_reject:: fuzz::payload_ \
    fuzz::normalisation_ fuzz::secrets_ fuzz::redaction_ fuzz::a_dangerous_ 2>&1 | tee "$log" | grep -E "^test |minimal failing input|Test failed" || true
secs=$(( $(date +%s) - start ))
# A property test runs `cases` cases; the corpus-wide quick-reject test is not a property.
props=$(grep -cE "^test .* (ok|FAILED)$" "$log")
fixed=$(grep -cE "^test guard::quick_reject::every_corpus_command" "$log")
props=$(( props - fixed ))
failed=$(grep -cE "^test .* FAILED$" "$log")
echo
echo "properties: $props, cases each: $cases, executions: $(( props * cases )), findings: $failed, time: ${secs}s"
if [ "$failed" -gt 0 ]; then
    echo "findings (minimal inputs above) are saved in tests/it/*.proptest-regressions; fix them, keep the seeds."
    exit 1
fi
