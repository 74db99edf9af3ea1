#!/usr/bin/env bash
# Install the real agent CLIs the agent tests (tests/it/agents/) drive, pinned, from the npm
# registry, into target/agent-clis/ (or $CM_AGENT_CLIS_DIR):
#   - Claude Code 2.1.197 and 2.1.332 (both ship a native binary in a platform package; 2.1.332
#     declares Node >= 22 but never runs on node, so npm only warns on Node 20),
#   - Gemini CLI 0.61.0 (runs on Node >= 20), Codex 0.171.0 (a native binary).
# An install already in place is kept. Exits non-zero when an install fails, so CI fails instead
# of the tests skipping; without node/npm on PATH it says so and exits 0 (the tests then skip and
# name the missing CLI).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dest="${CM_AGENT_CLIS_DIR:-target/agent-clis}"
PACKAGES=(
    "claude-2.1.197 @anthropic-ai/claude-code 2.1.197 claude"
    "claude-2.1.332 @anthropic-ai/claude-code 2.1.332 claude"
    "gemini-0.61.0 @google/gemini-cli 0.61.0 gemini"
    "codex-0.171.0 @openai/codex 0.171.0 codex"
)

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "agent clis: no node/npm on PATH, so no agent CLIs (the agent tests skip and say so)"
    exit 0
fi
mkdir -p "$dest"

installed() { # dir package version
    grep -q "\"version\": \"$3\"" "$dest/$1/node_modules/$2/package.json" 2>/dev/null
}

npm_install() { # dir spec
    mkdir -p "$dest/$1"
    (cd "$dest/$1" && [ -f package.json ] || echo '{"private":true}' >package.json)
    (cd "$dest/$1" && npm install --no-audit --no-fund --loglevel=error "$2" >/dev/null)
}

for entry in "${PACKAGES[@]}"; do
    read -r dir package version bin <<<"$entry"
    if installed "$dir" "$package" "$version" && [ -x "$dest/$dir/node_modules/.bin/$bin" ]; then
        echo "agent clis: $package $version already in $dest/$dir"
        continue
    fi
    npm_install "$dir" "$package@$version" \
        || { echo "agent clis: npm install $package@$version failed" >&2; exit 1; }
    echo "agent clis: installed $package $version in $dest/$dir"
done
