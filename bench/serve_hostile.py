#!/usr/bin/env python3
"""`cm serve` under hostile local clients: memory and latency, each against a baseline from the
same run.

    bench/serve_hostile.py [--bin target/release/cm] [--sessions 5000] [--slow 64] [--calls 40]

1. Sessions: RSS of a fresh server (baseline), after --sessions `initialize` calls that never
   close their session, and after the server has been idle past its --session-idle (3 s here).
   Without bounds every session stays in memory; with them RSS stays near the cap's worth and
   returns once the sessions expire.
2. Slow bodies: median latency of `tools/call guard_check` (own session, one connection per
   call) with no other client (baseline), then while --slow clients hold connections whose
   body never finishes. Before the fix they held every in-flight place and the call got 503;
   now it is answered as fast as the baseline. Also reports how many slow clients were dropped
   with 408 at the body deadline.

Raw JSON-RPC over http.client and sockets, so the figures are the server's, not a client SDK's.
"""
import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def mem(pid):
    """RSS split into anonymous (heap, stacks) and file-backed (the binary's pages), and threads."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile"):
                out[key] = int(value.split()[0]) / 1024
            elif key == "Threads":
                out[key] = int(value)
    return out


def mem_text(m):
    return f"{m['VmRSS']:.1f} MB (anon {m['RssAnon']:.1f}, file {m['RssFile']:.1f}, {m['Threads']} threads)"


SERVER_ENV = {}


def start(binary, data, extra):
    env = dict(os.environ, CASS_MEMORY_HOME=data, HOME=data, **SERVER_ENV)
    p = subprocess.Popen([binary, "serve", "--port", "0", *extra], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()
    addr = first.split("http://", 1)[1].split("/", 1)[0]
    host, port = addr.rsplit(":", 1)
    return p, host, int(port)


def post(host, port, body, session=None):
    c = http.client.HTTPConnection(host, port, timeout=60)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}
    if session:
        headers["Mcp-Session-Id"] = session
    c.request("POST", "/mcp", json.dumps(body), headers)
    r = c.getresponse()
    r.read()
    sid = r.getheader("mcp-session-id")
    c.close()
    return r.status, sid


def initialize(host, port):
    status, sid = post(host, port, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    post(host, port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    return status, sid


def guard_call_ms(host, port, sid):
    t = time.perf_counter()
    status, _ = post(host, port, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                  "params": {"name": "guard_check", "arguments": {"command": "ls -la"}}}, sid)
    return (time.perf_counter() - t) * 1000, status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/cm" if os.path.exists("target/release/cm") else "target/debug/cm")
    ap.add_argument("--sessions", type=int, default=5000)
    ap.add_argument("--slow", type=int, default=64)
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--max-sessions", type=int, default=64, help="the server's --max-sessions")
    ap.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE",
                    help="set in the server's environment (e.g. MALLOC_ARENA_MAX=1, to see how much of what "
                         "stays after a burst is glibc's per-thread arenas)")
    a = ap.parse_args()
    for kv in a.server_env:
        k, _, v = kv.partition("=")
        SERVER_ENV[k] = v
    data = tempfile.mkdtemp(prefix="cm-serve-hostile-")
    subprocess.run([a.bin, "init"], env=dict(os.environ, CASS_MEMORY_HOME=data, HOME=data),
                   check=True, stdout=subprocess.DEVNULL)
    print(f"binary: {a.bin}")

    # 1. Sessions.
    p, host, port = start(a.bin, data, ["--session-idle", "3", "--max-sessions", str(a.max_sessions)])
    time.sleep(0.5)
    base = mem(p.pid)
    refused = 0
    for _ in range(a.sessions):
        status, _ = initialize(host, port)
        refused += status != 200
    after = mem(p.pid)
    time.sleep(8)
    idle = mem(p.pid)
    time.sleep(12)
    idle2 = mem(p.pid)
    print(f"sessions: RSS at start {mem_text(base)}; after {a.sessions} initialize calls {mem_text(after)} "
          f"({refused} refused); idle 8 s later {mem_text(idle)}, 20 s later {mem_text(idle2)}")
    p.kill()
    p.wait()

    # 2. Slow bodies.
    p, host, port = start(a.bin, data, [])
    _, sid = initialize(host, port)
    for _ in range(5):
        guard_call_ms(host, port, sid)
    baseline = [guard_call_ms(host, port, sid) for _ in range(a.calls)]
    slow = []
    for _ in range(a.slow):
        s = socket.create_connection((host, port))
        s.sendall((f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                   "Accept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\":").encode())
        slow.append(s)
    time.sleep(0.5)
    _, sid2 = initialize(host, port)
    loaded = [guard_call_ms(host, port, sid2) for _ in range(a.calls)]
    ok = sum(1 for _, st in loaded if st == 200)
    dropped = 0
    for s in slow:
        s.settimeout(30)
        try:
            if b" 408 " in s.recv(200):
                dropped += 1
        except OSError:
            pass
        s.close()
    med = lambda xs: statistics.median(ms for ms, _ in xs)
    print(f"slow bodies: guard_check median {med(baseline):.2f} ms alone (baseline), "
          f"{med(loaded):.2f} ms beside {a.slow} slow clients ({ok}/{a.calls} answered 200); "
          f"{dropped}/{a.slow} slow clients dropped with 408 at the body deadline")
    p.kill()
    p.wait()


if __name__ == "__main__":
    sys.exit(main())
