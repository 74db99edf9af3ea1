#!/usr/bin/env bash
# Build the release binary (scripts/build-release.sh, as install.sh does), link it as cm-pretool, and time the hook per call against /bin/true.
# Usage: bench/pretool.sh [RUNS]      (default 400 runs per case)
#        BASELINE_CM=/path/to/older/cm bench/pretool.sh [RUNS]   (also time an older build, same loop)
set -euo pipefail
cd "$(dirname "$0")/.."
# Built as ./install.sh builds it (statically linked where the toolchain can).
cm=$(scripts/build-release.sh --quiet)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ln -s "$cm" "$dir/cm-pretool"
if [ -n "${BASELINE_CM:-}" ]; then
    mkdir "$dir/base"
    ln -s "$(realpath "$BASELINE_CM")" "$dir/base/cm-pretool"
    export BASELINE="$dir/base/cm-pretool"
fi
python3 bench/pretool.py "$dir/cm-pretool" "${1:-400}"
