"""Drive cm's MCP server with the official Python SDK (PyPI package `mcp`).

    client.py stdio CM_BINARY ROOT SESSION_FILE
    client.py http URL ROOT SESSION_FILE [TOKEN]

Initializes, lists tools, resources and templates, calls every tool, reads every resource, and
sends bad input (an unknown tool, wrong types, an unknown field, a path outside the root),
checking each answer. Prints one JSON object: {"ok": bool, "checks": [...], "failures": [...]}
and exits 1 when a check failed. ROOT is the workspace the server serves; SESSION_FILE a
session log inside it that the run reflects on.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

TOOLS = {"cm_context", "cm_feedback", "cm_outcome", "memory_search", "memory_reflect", "guard_check"}
checks, failures = [], []


def check(name, cond, detail=""):
    (checks if cond else failures).append(name if cond else f"{name}: {detail}")


def data_of(result):
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def expect_error(name, coro, rpc_code, cm_code):
    try:
        await coro
    except MCPError as e:
        got = (e.error.code, (e.error.data or {}).get("code"))
        check(name, got == (rpc_code, cm_code), f"got {got}, want {(rpc_code, cm_code)}: {e.error.message}")
        return e.error
    check(name, False, "no error")


async def exercise(session, root, session_file):
    init = await session.initialize()
    check("initialize names the server", init.server_info.name == "cm", init.server_info)
    check("initialize offers tools and resources", init.capabilities.tools is not None and init.capabilities.resources is not None)

    tools = (await session.list_tools()).tools
    names = {t.name for t in tools}
    check("tools/list has the six tools", names == TOOLS, names)
    schemas = {t.name: t.input_schema for t in tools}
    check("cm_context's schema requires task", schemas.get("cm_context", {}).get("required") == ["task"], schemas.get("cm_context"))
    check("every schema is an object schema", all(s.get("type") == "object" for s in schemas.values()))

    resources = {r.uri for r in (await session.list_resources()).resources}
    check("resources/list has playbook and stats", {"cm://playbook", "cm://stats"} <= {str(u) for u in resources}, resources)
    templates = [t.uri_template for t in (await session.list_resource_templates()).resource_templates]
    check("the diary is a resource template", templates == ["cm://diary/{id}"], templates)

    # Every tool, valid input.
    ctx = data_of(await session.call_tool("cm_context", {"task": "fix the auth token refresh timeout", "limit": 5, "history": 2, "workspace": root}))
    rules = ctx.get("relevantBullets", [])
    check("cm_context ranks the auth rule first", bool(rules) and "token" in rules[0]["content"].lower(), rules[:1])
    rule_id = rules[0]["id"] if rules else "b-none"
    fb = data_of(await session.call_tool("cm_feedback", {"bulletId": rule_id, "helpful": True, "reason": "it worked"}))
    check("cm_feedback records a helpful mark", fb.get("event", {}).get("type") == "helpful", fb)
    out = data_of(await session.call_tool("cm_outcome", {"sessionId": "s-mcp-1", "outcome": "success", "rulesUsed": [rule_id], "apply": True}))
    check("cm_outcome records and applies", out.get("outcome", {}).get("status") == "success" and out.get("applied", {}).get("count") == 1, out)
    found = data_of(await session.call_tool("memory_search", {"query": "token refresh", "scope": "both", "limit": 3}))
    check("memory_search finds the rule", any(r["id"] == rule_id for r in found.get("playbook", {}).get("rules", found.get("playbook", {}).get("results", []))) or rule_id in json.dumps(found["playbook"]), found.get("playbook"))
    check("memory_search searches the history", "hits" in found.get("history", {}), found.get("history"))
    dry = data_of(await session.call_tool("memory_reflect", {"session": session_file}))
    check("memory_reflect is a dry run by default", dry.get("dryRun") is True, dry.get("dryRun"))
    wet = data_of(await session.call_tool("memory_reflect", {"session": session_file, "dryRun": False}))
    entries = [s["diary"]["id"] for s in wet.get("sessions", []) if s.get("diary")]
    check("memory_reflect with dryRun false writes a diary entry", bool(entries), wet)
    guard = data_of(await session.call_tool("guard_check", {"command": "git reset --hard HEAD~3"}))
    check("guard_check denies a hard reset", guard.get("decision") == "deny", guard.get("decision"))
    ok = data_of(await session.call_tool("guard_check", {"command": "ls -la", "cwd": root}))
    check("guard_check allows ls", ok.get("decision") == "allow", ok.get("decision"))

    # Every resource.
    pb = json.loads((await session.read_resource("cm://playbook")).contents[0].text)
    check("cm://playbook lists the rules", any(b.get("id") == rule_id for b in pb.get("bullets", pb if isinstance(pb, list) else [])) or rule_id in json.dumps(pb), str(pb)[:200])
    st = json.loads((await session.read_resource("cm://stats")).contents[0].text)
    check("cm://stats counts the rules", st.get("total", 0) >= 1, st)
    if entries:
        d = json.loads((await session.read_resource(f"cm://diary/{entries[0]}")).contents[0].text)
        check("cm://diary/{id} reads the entry", entries[0] in json.dumps(d), str(d)[:200])

    # Bad input gets the documented errors.
    await expect_error("an unknown tool is invalid params", session.call_tool("no_such_tool", {}), -32602, "UNKNOWN_TOOL")
    await expect_error("a wrong type is invalid params", session.call_tool("cm_context", {"task": 42}), -32602, "INVALID_ARGUMENT")
    await expect_error("an unknown field is invalid params", session.call_tool("cm_context", {"task": "x", "bogus": 1}), -32602, "INVALID_ARGUMENT")
    await expect_error("a bad enum value is invalid params", session.call_tool("memory_search", {"query": "x", "scope": "everything"}), -32602, "INVALID_ARGUMENT")
    await expect_error("a missing required argument is invalid params", session.call_tool("guard_check", {}), -32602, "INVALID_ARGUMENT")
    await expect_error("a workspace outside the root is refused", session.call_tool("cm_context", {"task": "x", "workspace": "/"}), -32602, "PATH_OUTSIDE_WORKSPACE")
    await expect_error("a session file outside the root is refused", session.call_tool("memory_reflect", {"session": "/etc/passwd"}), -32602, "PATH_OUTSIDE_WORKSPACE")
    await expect_error("an empty task keeps cm's code", session.call_tool("cm_context", {"task": "  "}), -32602, "EMPTY_TASK")
    await expect_error("an unknown rule keeps cm's code", session.call_tool("cm_feedback", {"bulletId": "b-nosuch", "harmful": True}), -32602, "RULE_NOT_FOUND")
    err = await expect_error("an unknown resource is not found", session.read_resource("cm://nothing"), -32002, "RESOURCE_NOT_FOUND")
    await expect_error("an unknown diary entry is not found", session.read_resource("cm://diary/d-nosuch"), -32002, "DIARY_NOT_FOUND")
    if err is not None:
        check("errors carry a hint", bool((err.data or {}).get("hint")), err.data)


async def main():
    mode, target, root, session_file = sys.argv[1:5]
    if mode == "stdio":
        params = StdioServerParameters(command=target, args=["mcp", "--root", root], env=None)
        import os
        params.env = dict(os.environ)
        async with stdio_client(params) as (r, w):
            async with ClientSession(r, w) as session:
                await exercise(session, root, session_file)
    else:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client
        headers = {"Authorization": f"Bearer {sys.argv[5]}"} if len(sys.argv) > 5 else {}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with streamable_http_client(target, http_client=http) as streams:
                r, w = streams[0], streams[1]
                async with ClientSession(r, w) as session:
                    await exercise(session, root, session_file)
    print(json.dumps({"ok": not failures, "checks": checks, "failures": failures}))
    sys.exit(0 if not failures else 1)


asyncio.run(main())
