#!/usr/bin/env bash
# Install the real MCP clients the integration tests (tests/it/mcp.rs) drive:
#   - the official Python SDK (PyPI `mcp`) in a venv at target/mcp-venv;
#   - the MCP Inspector CLI (npm `@modelcontextprotocol/inspector`) under target/mcp-inspector,
#     when node and npm are on PATH.
# Pinned versions; an install already in place is kept. Exits non-zero when an install fails,
# so CI fails instead of skipping the tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
MCP_PY_VERSION=2.3.0
INSPECTOR_VERSION=2.12.0

venv=target/mcp-venv
if "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP_PY_VERSION')" 2>/dev/null; then
    echo "mcp clients: Python SDK mcp $MCP_PY_VERSION already in $venv"
else
    rm -rf "$venv"
    python3 -m venv "$venv" || { echo "mcp clients: python3 -m venv failed (install python3-venv)" >&2; exit 1; }
    "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_PY_VERSION" \
        || { echo "mcp clients: pip install mcp==$MCP_PY_VERSION failed" >&2; exit 1; }
    echo "mcp clients: installed the Python SDK mcp $MCP_PY_VERSION in $venv"
fi

if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    dir=target/mcp-inspector
    bin="$dir/node_modules/.bin/mcp-inspector"
    if [ -x "$bin" ] && grep -q "\"version\": \"$INSPECTOR_VERSION\"" "$dir/node_modules/@modelcontextprotocol/inspector/package.json" 2>/dev/null; then
        echo "mcp clients: MCP Inspector $INSPECTOR_VERSION already in $dir"
    else
        mkdir -p "$dir"
        (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null) \
            || { echo "mcp clients: npm install @modelcontextprotocol/inspector@$INSPECTOR_VERSION failed" >&2; exit 1; }
        echo "mcp clients: installed the MCP Inspector $INSPECTOR_VERSION in $dir"
    fi
else
    echo "mcp clients: no node/npm on PATH, so no MCP Inspector (its test skips and says so)"
fi
