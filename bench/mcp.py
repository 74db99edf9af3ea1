#!/usr/bin/env python3
"""Benchmark `cm serve` (MCP over Streamable HTTP) on a store of 5,000 rules and ~250,000
indexed messages.

    bench/mcp.py [--bin target/release/cm] [--data DIR] [--records 205000] [--calls 300]
                 [--clients 200] [--per-client 50] [--max-concurrent 16]

Builds the store in a temp dir (bench/gen_corpus.py sessions indexed by `cm history index`,
bench/gen_rules.py rules added), or tops up --data DIR to 5,000 rules. Then, against one warm
server:

1. RSS at rest: VmRSS of the server after start, before any request, and again after the
   latency and load phases once it has been idle for 8 s (every client ended its session).
2. Latency: --calls sequential `cm_context` calls (history on), each with the next of 20
   realistic tasks (TASKS; the first is bench/context.sh's)
   from one client over one keep-alive connection, after 30 warm-up calls; p50/p90/p99. In
   the same run, as baselines: the protocol floor (`tools/list` on the same connection) and
   the command line (`cm context --json`, a process per call).
3. Load: --clients concurrent clients (threads, each its own connection and MCP session),
   --per-client `cm_context` calls each. A call refused as overloaded (HTTP 503 with
   Retry-After, or JSON-RPC -32000 OVERLOADED) is counted and retried after 50-150 ms; any
   other answer than a result is an error. Reports calls, overload refusals, errors,
   throughput and the latency of the successful calls.

The client is the standard library's http.client: raw JSON-RPC, so the figures are the server's
and HTTP's, not a client SDK's.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TASK = "auth token refresh timeout in the http client"
# Calls cycle through these (realistic tasks in the corpus's vocabulary), so nothing a call
# computes from its task can be reused by the next one.
TASKS = [
    TASK,
    "fix the flaky database migration test that times out on the lock",
    "the docker image build fails with permission denied on the cache directory",
    "add a retry with backoff to the http client when the server returns 503",
    "parse the toml config and validate the schema before the server starts",
    "memory leak in the async worker thread pool under load",
    "rebase the feature branch onto main and resolve the merge conflict in the parser",
    "the ci pipeline job fails on the release artifact upload step",
    "segfault in the child process when stdin is closed early",
    "react component state is lost after the modal form renders again",
    "pytest fixture import error after the package version upgrade",
    "benchmark the query latency and profile the heap allocation with a flamegraph",
    "tls certificate error when the client connects to the kubernetes ingress",
    "unwrap panic on a None option in the session index iterator",
    "login fails because the user password hash column is missing after the migration",
    "add a flag to the cli to print the json output to stdout",
    "the search returns stale results from the cache after a commit",
    "deploy the service container and check the pod logs for warnings",
    "borrow checker lifetime error when returning a string from the closure",
    "the regression came in with the last dependency upgrade: bisect and revert it",
]
PROTOCOL = "2025-11-25"


def rss_kb(pid, field="VmRSS"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def rss_text(pid):
    """VmRSS, and how much of it is the store's file mapped in (SQLite's mmap: page cache
    shared with every process, not memory the server holds for itself)."""
    return f"{rss_kb(pid) / 1024:.1f} MB (anonymous {rss_kb(pid, 'RssAnon') / 1024:.1f} MB, file-backed {rss_kb(pid, 'RssFile') / 1024:.1f} MB)"


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


class Client:
    """One MCP session over one keep-alive HTTP connection."""

    def __init__(self, host, port):
        self.conn = http.client.HTTPConnection(host, port, timeout=120)
        self.headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        self.next_id = 0
        self.refused = 0
        while True:  # the documented overload (503, Retry-After) is retried
            status, _, hdrs = self.post({"method": "initialize", "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
            if status != 503:
                break
            self.refused += 1
            time.sleep(random.uniform(0.05, 0.15))
        assert status == 200, status
        sid = hdrs.get("mcp-session-id")
        self.headers["mcp-protocol-version"] = PROTOCOL
        if sid:
            self.headers["mcp-session-id"] = sid
        self.post({"method": "notifications/initialized"}, notify=True)

    def post(self, msg, notify=False):
        body = {"jsonrpc": "2.0", **msg}
        if not notify:
            self.next_id += 1
            body["id"] = self.next_id
        self.conn.request("POST", "/mcp", json.dumps(body), self.headers)
        r = self.conn.getresponse()
        raw = r.read()
        hdrs = {k.lower(): v for k, v in r.getheaders()}
        if notify or not raw:
            return r.status, None, hdrs
        if hdrs.get("content-type", "").startswith("application/json"):
            return r.status, json.loads(raw), hdrs
        answer = None
        for line in raw.decode().splitlines():
            if line.startswith("data:") and line[5:].strip():
                m = json.loads(line[5:])
                if "id" in m:
                    answer = m
        return r.status, answer, hdrs

    def reconnect(self):
        self.conn.close()
        self.conn = http.client.HTTPConnection(self.conn.host, self.conn.port, timeout=120)

    def close(self):
        """End the session, as a client does when it is done (HTTP DELETE)."""
        try:
            self.conn.request("DELETE", "/mcp", headers=self.headers)
            self.conn.getresponse().read()
        except Exception:
            pass
        self.conn.close()

    def call(self, name, args):
        return self.post({"method": "tools/call", "params": {"name": name, "arguments": args}})


def outcome(status, answer):
    if status == 503:
        return "overloaded" if answer and answer["error"]["data"]["code"] == "OVERLOADED" else "error"
    if status != 200 or answer is None:
        return "error"
    if "result" in answer:
        return "ok"
    err = answer.get("error", {})
    if err.get("code") == -32000 and err.get("data", {}).get("code") == "OVERLOADED":
        return "overloaded"
    return "error"


def build_store(cm, work, records, data):
    env = dict(os.environ, HOME=os.path.join(work, "home"), CASS_MEMORY_HOME=data, NO_COLOR="1")
    os.makedirs(env["HOME"], exist_ok=True)
    subprocess.run([cm, "init"], env=env, check=True, stdout=subprocess.DEVNULL)
    stats = json.loads(subprocess.run([cm, "history", "stats", "--json"], env=env, capture_output=True, text=True).stdout)
    have = (stats.get("data") or {}).get("messages", 0)
    if have < 1000 and records > 0:
        print(f"generating ~{records} session records and indexing them (once) ...", file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_corpus.py"), env["HOME"], "--records", str(records)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([cm, "history", "index", "--json"], env=env, check=True, stdout=subprocess.DEVNULL)
    total = json.loads(subprocess.run([cm, "stats", "--json"], env=env, capture_output=True, text=True).stdout)["data"]["total"]
    # 5,000 generated rules hold 4,999 once curation has merged a pair: such a store is kept.
    if total < 4990:
        rules = os.path.join(work, "rules.json")
        with open(rules, "w") as f:
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_rules.py"), "5000"], stdout=f, check=True)
        subprocess.run([cm, "playbook", "add", "--file", rules, "--json"], env=env, check=True, stdout=subprocess.DEVNULL)
    return env


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "cm"))
    ap.add_argument("--data")
    ap.add_argument("--records", type=int, default=205000)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--per-client", type=int, default=50)
    ap.add_argument("--max-concurrent", type=int, default=16)
    a = ap.parse_args()
    cm = os.path.abspath(a.bin)
    work = tempfile.mkdtemp(prefix="cm-mcp-bench-")
    try:
        data = a.data or os.path.join(work, "data")
        env = build_store(cm, work, a.records, data)
        ws = os.path.join(work, "app")
        os.makedirs(os.path.join(ws, ".git"), exist_ok=True)
        with open(os.path.join(ws, ".git", "HEAD"), "w") as f:
            f.write("ref: refs/heads/fix/auth-token-refresh\n")
        hist = json.loads(subprocess.run([cm, "history", "stats", "--json"], env=env, capture_output=True, text=True, cwd=ws).stdout)["data"]
        rules = json.loads(subprocess.run([cm, "stats", "--json"], env=env, capture_output=True, text=True, cwd=ws).stdout)["data"]["total"]
        print(f"store: {rules} rules, {hist.get('messages')} indexed messages")
        # Build the term index once, as the first `cm context` after a bulk import does.
        subprocess.run([cm, "context", "warm up", "--json"], env=env, cwd=ws, stdout=subprocess.DEVNULL, check=True)
        srv = subprocess.Popen([cm, "serve", "--port", "0", "--root", ws, "--max-concurrent", str(a.max_concurrent)], env=env, cwd=ws, stderr=subprocess.PIPE, text=True)
        try:
            first = srv.stderr.readline()
            threading.Thread(target=lambda: [None for _ in srv.stderr], daemon=True).start()
            url = first.split(" at ", 1)[1].strip()
            hostport = url.split("//", 1)[1].split("/", 1)[0]
            host, port = hostport.rsplit(":", 1)
            time.sleep(1.0)
            rss_start = rss_text(srv.pid)

            c = Client(host, int(port))
            for i in range(3):
                assert outcome(*c.call("cm_context", {"task": TASKS[i]})[:2]) == "ok"
            time.sleep(2)
            print(f"server RSS at rest after 3 calls: {rss_text(srv.pid)}")
            for i in range(30):
                assert outcome(*c.call("cm_context", {"task": TASKS[i % len(TASKS)]})[:2]) == "ok"
            ctx_ms, list_ms = [], []
            for i in range(a.calls):
                t = time.perf_counter()
                st, ans, _ = c.call("cm_context", {"task": TASKS[i % len(TASKS)]})
                ctx_ms.append((time.perf_counter() - t) * 1000)
                assert outcome(st, ans) == "ok", ans
                t = time.perf_counter()
                c.post({"method": "tools/list"})
                list_ms.append((time.perf_counter() - t) * 1000)
            cli_ms = []
            for i in range(max(10, a.calls // 10)):
                t = time.perf_counter()
                subprocess.run([cm, "context", TASKS[i % len(TASKS)], "--json"], env=env, cwd=ws, stdout=subprocess.DEVNULL, check=True)
                cli_ms.append((time.perf_counter() - t) * 1000)
            print(f"{'case':40} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8}")
            for name, xs in [("cm_context over HTTP (warm server)", ctx_ms), ("tools/list over HTTP (protocol floor)", list_ms), ("cm context --json (a process per call)", cli_ms)]:
                print(f"{name:40} {statistics.median(xs):8.2f} {pct(xs, 90):8.2f} {pct(xs, 99):8.2f}")
            print(f"ratio cm context CLI / cm_context over HTTP: {statistics.median(cli_ms) / statistics.median(ctx_ms):.1f}x")

            counts = {"ok": 0, "overloaded": 0, "error": 0}
            errors, lat, lock = [], [], threading.Lock()
            barrier = threading.Barrier(a.clients)

            def client_loop(k):
                try:
                    cl = Client(host, int(port))
                except Exception as e:  # a refused connection is an error too
                    with lock:
                        counts["error"] += a.per_client
                        errors.append(repr(e))
                    barrier.abort()
                    return
                with lock:
                    counts["overloaded"] += cl.refused
                try:
                    barrier.wait(timeout=120)
                except threading.BrokenBarrierError:
                    pass
                for i in range(a.per_client):
                    task = TASKS[(i + k) % len(TASKS)]
                    while True:
                        t = time.perf_counter()
                        try:
                            st, ans, _ = cl.call("cm_context", {"task": task})
                            kind = outcome(st, ans)
                        except Exception as e:
                            kind, ans = "error", repr(e)
                            cl.reconnect()
                        with lock:
                            counts[kind] += 1
                            if kind == "ok":
                                lat.append((time.perf_counter() - t) * 1000)
                            elif kind == "error" and len(errors) < 5:
                                errors.append(str(ans)[:300])
                        if kind != "overloaded":
                            break
                        time.sleep(random.uniform(0.05, 0.15))
                cl.close()

            t0 = time.perf_counter()
            threads = [threading.Thread(target=client_loop, args=(k,)) for k in range(a.clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - t0
            print(f"load: {a.clients} clients x {a.per_client} calls: {counts['ok']} answered, {counts['overloaded']} overload refusals (retried), {counts['error']} other errors, {wall:.1f} s, {counts['ok'] / wall:.0f} calls/s; answered p50 {statistics.median(lat):.1f} ms, p99 {pct(lat, 99):.1f} ms" if lat else f"load: {counts}")
            for e in errors:
                print("  error:", e)
            c.close()
            time.sleep(8)
            print(f"server RSS at rest after start: {rss_start}")
            print(f"server RSS at rest after the load (idle 8 s): {rss_text(srv.pid)}")
            with open("/proc/loadavg") as f:
                print("load average during the run:", " ".join(f.read().split()[:3]))
            if counts["error"]:
                sys.exit(1)
        finally:
            srv.terminate()
            srv.wait(timeout=10)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
