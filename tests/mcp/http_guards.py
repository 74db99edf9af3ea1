"""The HTTP gate of `cm serve`, checked with raw requests (httpx2, installed with the SDK).

    http_guards.py URL [TOKEN]

With TOKEN (a server on a non-loopback bind): a request without it or with a wrong one gets
401 with WWW-Authenticate: Bearer; with it the checks below run. Always: an oversized body gets
413, a foreign Origin 403, another path 404, and a burst of concurrent tool calls against a
server started with --max-concurrent 1 gets only successes and the documented overload (HTTP 503
with Retry-After, or JSON-RPC error -32000 with data.code OVERLOADED). Prints one JSON object
{"ok", "checks", "failures"}; exits 1 when a check failed.
"""

import asyncio
import json
import sys

import httpx2

url = sys.argv[1]
token = sys.argv[2] if len(sys.argv) > 2 else None
checks, failures = [], []
BASE = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "guards", "version": "1"}}}


def check(name, cond, detail=""):
    (checks if cond else failures).append(name if cond else f"{name}: {detail}")


def auth(extra=None):
    h = dict(BASE)
    if token:
        h["Authorization"] = f"Bearer {token}"
    h.update(extra or {})
    return h


def rpc_messages(resp):
    """The JSON-RPC messages of a response, plain JSON or an SSE stream."""
    if resp.headers.get("content-type", "").startswith("application/json"):
        return [resp.json()]
    out = []
    for line in resp.text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            out.append(json.loads(line[5:]))
    return out


async def session(client):
    r = await client.post(url, headers=auth(), json=INIT)
    sid = r.headers.get("mcp-session-id")
    h = auth({"mcp-protocol-version": "2025-11-25"})
    if sid:
        h["mcp-session-id"] = sid
    await client.post(url, headers=h, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    return h


async def main():
    async with httpx2.AsyncClient(timeout=60) as client:
        if token:
            r = await client.post(url, headers=BASE, json=INIT)
            check("no token: 401", r.status_code == 401, r.status_code)
            check("no token: WWW-Authenticate Bearer", r.headers.get("www-authenticate") == "Bearer", dict(r.headers))
            check("no token: a JSON-RPC error body", r.json().get("error", {}).get("data", {}).get("code") == "UNAUTHORIZED", r.text)
            r = await client.post(url, headers={**BASE, "Authorization": "Bearer " + "x" * len(token)}, json=INIT)
            check("wrong token: 401", r.status_code == 401, r.status_code)
        r = await client.post(url, headers=auth(), json=INIT)
        check("initialize: 200", r.status_code == 200, f"{r.status_code} {r.text[:200]}")
        big = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "cm_context", "arguments": {"task": "x" * (2 * 1024 * 1024)}}}
        r = await client.post(url, headers=auth(), json=big)
        check("oversized body: 413", r.status_code == 413, r.status_code)
        r = await client.post(url, headers=auth({"Origin": "http://evil.example"}), json=INIT)
        check("foreign Origin: 403", r.status_code == 403, f"{r.status_code} {r.text[:200]}")
        r = await client.post(url, headers=auth({"Origin": "http://localhost:3000"}), json=INIT)
        check("loopback Origin: 200", r.status_code == 200, r.status_code)
        r = await client.post(url.replace("/mcp", "/other"), headers=auth(), json=INIT)
        check("another path: 404", r.status_code == 404, r.status_code)

        h = await session(client)
        call = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "cm_context", "arguments": {"task": "auth token refresh timeout"}}}

        async def one(i):
            r = await client.post(url, headers=h, json={**call, "id": 100 + i})
            if r.status_code == 503:
                ok = r.headers.get("retry-after") == "1" and r.json()["error"]["data"]["code"] == "OVERLOADED"
                return "overloaded" if ok else f"bad 503: {r.text[:200]}"
            if r.status_code != 200:
                return f"HTTP {r.status_code}: {r.text[:200]}"
            msgs = [m for m in rpc_messages(r) if "id" in m]
            if not msgs:
                return f"no answer: {r.text[:200]}"
            m = msgs[-1]
            if "result" in m:
                return "ok"
            err = m.get("error", {})
            if err.get("code") == -32000 and err.get("data", {}).get("code") == "OVERLOADED" and err["data"].get("retryable"):
                return "overloaded"
            return f"error {err}"

        results = await asyncio.gather(*(one(i) for i in range(40)))
        kinds = {k: results.count(k) for k in set(results)}
        check("a burst gets answers and the documented overload only", set(kinds) <= {"ok", "overloaded"}, kinds)
        check("a burst is partly served", kinds.get("ok", 0) >= 1, kinds)
        check("a burst past the limit is partly refused", kinds.get("overloaded", 0) >= 1, kinds)
    print(json.dumps({"ok": not failures, "checks": checks, "failures": failures}))
    sys.exit(0 if not failures else 1)


asyncio.run(main())
