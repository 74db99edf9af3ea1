#!/usr/bin/env python3
"""Growth benchmark: search, context and the context hooks on an index grown the way users grow it.

Starts from an empty data dir (`cm init`, one rule), then runs up to ROUNDS rounds of: write one
Claude Code session of 100-1,000 messages (bench/gen_corpus.py's generator, fixed seed), run
`cm-postsession` with the SessionEnd payload Claude Code sends, and wait until its detached
indexer has committed the whole file. After the first session the store is analysed, as stores
written by earlier versions were (their `PRAGMA optimize` took statistics from the one-session
index). 5,000 rules are added once the index passes 1,000 messages; with --cite N, instead, every
round adds N rules citing the session it just indexed (`playbook add --session`, as rules learned
from a session carry it), until there are 5,000: every rule then has an evidence vocabulary and a
place, built while the index grows.

At 1k, 10k, 50k, 100k and 250k messages it times, interleaved with the baselines `/bin/true` and
`cm --version` (A B A B, so load on the machine hits all alike):
  - `cm history search` over 30 fixed queries (6 each: rare, common, mixed, all-stopword,
    no-match), p50 and p99;
  - `cm context TASK --json`, p50 (and p99);
  - the session-start hook and the prompt hook, p50 and p99;
and the slowest single call of each. It also reports how often the bounded ranking's top 10
equals the exhaustive ranking's (`--exhaustive`) for the same 30 queries (overlap@10).

usage: bench/growth.py [--rounds 500] [--target 250000] [--reps 3] [--stale] [--cite N] [--bin target/release/cm]
                       [--keep DIR] [--json OUT]
       bench/growth.py --existing DATA [--home HOME] [--baseline BIN] [--baseline-data DATA2] [--args ARGS]
                       [--baseline-args ARGS] [--extra QUERY]... [--reps 5] [--bin target/release/cm] [--json OUT]
  --existing: grow nothing; time the 30 queries (and overlap@10) on the index in DATA (HOME defaults to
           DATA/../home, where a kept growth run leaves it), interleaved with the --baseline binary
           (A B A B: each query runs under both, in a shuffled order, every rep) on DATA2 (default DATA:
           give a copy when the binaries' schemas differ, since a store a newer cm migrated is refused
           by an older one). --args / --baseline-args add flags to each side's search (--no-feedback);
           --extra times more queries, reported on their own.
  --stale: before each checkpoint, put back statistics that say every table has one row (the
           worst case: shows that no plan depends on them).
Targets (issue): search <= 10 ms p50 / 50 ms p99; context <= 20 ms p50; session-start and prompt
hooks <= 15 ms p50 / 60 ms p99; no single call over 200 ms at any size.
"""
import argparse
import importlib.util
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid as uuidlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKPOINTS = [1_000, 10_000, 50_000, 100_000, 250_000]
TARGETS = {"search": (10, 50), "context": (20, None), "session-start": (15, 60), "prompt": (15, 60)}
MAX_CALL_MS = 200

spec = importlib.util.spec_from_file_location("gen_corpus", os.path.join(ROOT, "bench", "gen_corpus.py"))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)


def queries(tx):
    """30 queries over the generator's vocabulary: words by Zipf rank (low rank = common)."""
    w = tx.words
    rare = [w[r] for r in (2400, 2900, 3300, 3800, 4200, 4700, 5100, 5500, 5900, 5300, 4500, 3500)]
    common = [w[r] for r in range(10, 60)]
    q = []
    for i in range(6):
        q.append(("rare", "%s %s" % (rare[2 * i], rare[2 * i + 1])))
    for i in range(6):
        q.append(("common", " ".join(common[i * 3:i * 3 + 3])))
    for i in range(6):
        q.append(("mixed", "%s %s %s" % (common[20 + i], rare[i], common[30 + i])))
    for s in ["what is it", "how did we do that", "why was it not there", "is this the one",
              "what about them", "can we do it again"]:
        q.append(("stopword", s))
    for s in ["zzqv plorbex", "quuxalot frindle", "xyzzy9 wompt", "nopeword", "glarbnik snorf",
              "vexillum9 zorbtrax"]:
        q.append(("nomatch", s))
    return q


TASKS = [
    "fix the auth token refresh timeout in the http client",
    "the flaky test in the ci pipeline fails again",
    "profile the hot path allocation in the parser",
    "rebase the release branch onto main",
    "rotate the tls certificate before the deploy",
]
PROMPTS = [
    "the oauth token refresh timeout in CI again",
    "why does the integration test database leak connections",
    "add a retry budget to the webhook client",
    "the release branch changelog is out of date",
    "csrf check fails on the session cookie",
]


def env_for(home, data):
    e = dict(os.environ, HOME=home, CASS_MEMORY_HOME=data, NO_COLOR="1")
    for k in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "CM_HOOK_BUDGET_MS", "CM_NOW"):
        e.pop(k, None)
    return e


def run(argv, env, stdin=None, cwd=None):
    t = time.perf_counter()
    p = subprocess.run(argv, env=env, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    ms = (time.perf_counter() - t) * 1000
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(argv), p.stderr.decode()[-2000:]))
    return ms, p.stdout, p.stderr


def wait_indexed(db, path, timeout=60):
    """Until the file's row says it was read to its end."""
    size = os.path.getsize(path)
    end = time.time() + timeout
    while time.time() < end:
        try:
            c = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=1)
            row = c.execute("SELECT offset FROM episodic_files WHERE path = ?", (path,)).fetchone()
            c.close()
            if row and row[0] >= size:
                return
        except sqlite3.Error:
            pass
        time.sleep(0.01)
    sys.exit("the indexer did not finish %s within %ds" % (path, timeout))


def messages(db):
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    n = c.execute("SELECT count(*) FROM episodic_messages").fetchone()[0]
    c.close()
    return n


def make_stale(db):
    c = sqlite3.connect(db)
    tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    if "sqlite_stat1" not in tables:
        c.execute("ANALYZE sqlite_master")
    rows = c.execute("SELECT tbl, idx, stat FROM sqlite_stat1").fetchall()
    c.execute("DELETE FROM sqlite_stat1")
    for tbl, idx, stat in rows:
        c.execute("INSERT INTO sqlite_stat1 VALUES (?, ?, ?)", (tbl, idx, " ".join("1" for _ in stat.split())))
    c.commit()
    c.close()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def checkpoint(cm, env, ws, qs, reps):
    """Time every case, interleaved with the baselines; return {case: [ms...]} and overlap."""
    start = json.dumps({"session_id": "bench", "transcript_path": "/t.jsonl", "cwd": ws,
                        "hook_event_name": "SessionStart", "source": "startup"}).encode()
    calls = []
    for _, q in qs:
        calls.append(("search", [cm, "history", "search", q, "--json"], None))
    for t in TASKS:
        calls.append(("context", [cm, "context", t, "--json"], None))
    for _ in range(6):
        calls.append(("session-start", [cm, "hook", "session-start"], start))
    for p in PROMPTS:
        payload = json.dumps({"session_id": "bench", "cwd": ws, "hook_event_name": "UserPromptSubmit",
                              "prompt": p}).encode()
        calls.append(("prompt", [cm, "hook", "prompt"], payload))
    times = {k: [] for k in ("search", "context", "session-start", "prompt", "/bin/true", "cm --version")}
    cuts = 0
    for _ in range(reps):
        order = list(calls)
        random.Random(len(times["search"])).shuffle(order)
        for kind, argv, stdin in order:
            ms, _, err = run(argv, env, stdin, cwd=ws)
            times[kind].append(ms)
            if b"deadline cut" in err:
                cuts += 1
            times["/bin/true"].append(run(["/bin/true"], env)[0])
            times["cm --version"].append(run([cm, "--version"], env)[0])
    same = 0
    for _, q in qs:
        a = json.loads(run([cm, "history", "search", q, "--json"], env)[1])["data"]["hits"]
        b = json.loads(run([cm, "history", "search", q, "--json", "--exhaustive"], env)[1])["data"]["hits"]
        key = lambda h: (h["source_path"], h["line_number"])
        sa, sb = {key(h) for h in a}, {key(h) for h in b}
        same += len(sa & sb) / max(1, len(sb)) if sb else 1.0
    return times, same / len(qs), cuts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=500)
    ap.add_argument("--target", type=int, default=250_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--stale", action="store_true")
    ap.add_argument("--cite", type=int, default=0, help="rules added per round, each citing that round's session")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "cm"))
    ap.add_argument("--keep", help="work here and keep it")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--existing", help="time search on this data dir instead of growing one")
    ap.add_argument("--home", help="with --existing: the HOME of the run that grew it")
    ap.add_argument("--baseline", help="with --existing: the binary to compare with")
    ap.add_argument("--baseline-data", help="with --existing: the baseline's copy of the data dir")
    ap.add_argument("--args", default="", help="with --existing: flags added to every search")
    ap.add_argument("--baseline-args", default="", help="with --existing: flags added to the baseline's searches")
    ap.add_argument("--extra", action="append", default=[], help="with --existing: another query to time")
    a = ap.parse_args()
    cm = os.path.abspath(a.bin)
    if not os.path.exists(cm):
        sys.exit("build first: cargo build --release")
    if a.existing:
        return existing(cm, a)
    tmp = a.keep or tempfile.mkdtemp(prefix="cm-growth-")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    home, data, ws = os.path.join(tmp, "home"), os.path.join(tmp, "data"), os.path.join(tmp, "home", "app")
    os.makedirs(os.path.join(ws, ".git"))
    with open(os.path.join(ws, ".git", "HEAD"), "w") as f:
        f.write("ref: refs/heads/fix/auth-token-refresh\n")
    env = env_for(home, data)
    db = os.path.join(data, "cm.db")
    post = os.path.join(tmp, "cm-postsession")
    os.symlink(cm, post)
    run([cm, "init"], env)
    run([cm, "playbook", "add", "Set an explicit timeout and retry with backoff on OAuth token refresh requests",
         "--category", "integration"], env)
    rng = random.Random(11)
    tx = gen.Text(rng)
    qs = queries(tx)
    project = os.path.join(home, ".claude", "projects", ws.replace("/", "-"))
    os.makedirs(project)
    t0, results, pending = 1780000000.0, [], list(CHECKPOINTS)
    rules_added = False
    build_s, n = 0.0, 0
    pool, cited = [], 1
    if a.cite:
        pool = json.loads(subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_rules.py"), "4999"],
                                         capture_output=True, text=True, check=True).stdout)
        rules_added = True
    for rnd in range(a.rounds):
        sid = str(uuidlib.UUID(int=rng.getrandbits(128), version=4))
        path = os.path.join(project, sid + ".jsonl")
        want = rng.randint(100, 1000)
        with open(path, "w") as f:
            gen.claude_session(rng, tx, f, max(2, int(want / 1.4)), t0 + rnd * 3600, ws, sid)
        payload = json.dumps({"session_id": sid, "transcript_path": path, "cwd": ws,
                              "hook_event_name": "SessionEnd", "reason": "exit"}).encode()
        t = time.perf_counter()
        run([post], env, payload)
        wait_indexed(db, path)
        build_s += time.perf_counter() - t
        if rnd == 0:
            sqlite3.connect(db).execute("ANALYZE").connection.commit()
        n = messages(db)
        if a.cite and pool:
            batch = os.path.join(tmp, "batch.json")
            with open(batch, "w") as f:
                json.dump(pool[:a.cite], f)
            del pool[:a.cite]
            run([cm, "playbook", "add", "--file", batch, "--session", path, "--json"], env)
            cited += a.cite
        if n >= 1_000 and not rules_added:
            rules = os.path.join(tmp, "rules.json")
            with open(rules, "w") as f:
                subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_rules.py"), "4999"], stdout=f, check=True)
            run([cm, "playbook", "add", "--file", rules, "--json"], env)
            run([cm, "context", "warm up", "--json"], env)
            rules_added = True
        while pending and n >= pending[0]:
            size = pending.pop(0)
            if a.stale:
                make_stale(db)
            times, overlap, cuts = checkpoint(cm, env, ws, qs, a.reps)
            row = {"messages": n, "checkpoint": size, "round": rnd + 1, "overlap_at_10": round(overlap, 3),
                   "rules": 5000 if not a.cite else min(cited, 5000),
                   "hook_cuts": cuts, "index_wait_s": round(build_s, 1)}
            for k, xs in times.items():
                row[k] = {"p50": round(statistics.median(xs), 2), "p99": round(pct(xs, 99), 2),
                          "max": round(max(xs), 2), "n": len(xs)}
            results.append(row)
            print(summary_line(row), flush=True)
        if n >= a.target:
            break
    print_table(results, a)
    with open("/proc/loadavg") as f:
        print("load average at the end:", " ".join(f.read().split()[:3]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)


def timed(argv, env, cwd):
    """(wall ms, CPU ms (user + sys, from wait4), stdout) of one call."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=cwd)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    ms = (time.perf_counter() - t) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(argv), err.decode()[-2000:]))
    return ms, (ru.ru_utime + ru.ru_stime) * 1000, out


def existing(cm, a):
    """Search on a kept index, the binary against a baseline, interleaved (A B A B)."""
    data = os.path.abspath(a.existing)
    home = os.path.abspath(a.home or os.path.join(data, "..", "home"))
    ws = os.path.join(home, "app")
    if not os.path.exists(os.path.join(data, "cm.db")):
        sys.exit("no index at %s" % data)
    sides = [("A", cm, data, a.args.split())]
    if a.baseline:
        sides.append(("B", os.path.abspath(a.baseline), os.path.abspath(a.baseline_data or data),
                      a.baseline_args.split()))
    qs = queries(gen.Text(random.Random(11)))
    cases = [(kind, q) for kind, q in qs] + [("extra", q) for q in a.extra]
    cwd = ws if os.path.isdir(ws) else home
    times = {(s[0], i): [] for s in sides for i in range(len(cases))}
    cpu = {(s[0], i): [] for s in sides for i in range(len(cases))}
    for s in sides:  # warm the page cache and open (or migrate) each side's store once
        run([s[1], "history", "search", "warm up", "--json"] + s[3], env_for(home, s[2]), cwd=cwd)
    for rep in range(a.reps):
        order = list(range(len(cases)))
        random.Random(rep).shuffle(order)
        for i in order:
            for name, binary, d, extra in (sides if rep % 2 == 0 else sides[::-1]):
                argv = [binary, "history", "search", cases[i][1], "--json"] + extra
                wall, used, _ = timed(argv, env_for(home, d), cwd)
                times[(name, i)].append(wall)
                cpu[(name, i)].append(used)
    true_ms = statistics.median(run(["/bin/true"], env_for(home, data))[0] for _ in range(20))
    overlap = {}
    for name, binary, d, extra in sides:
        env, same = env_for(home, d), 0.0
        for _, q in qs:
            x = json.loads(run([binary, "history", "search", q, "--json"] + extra, env, cwd=cwd)[1])["data"]["hits"]
            y = json.loads(run([binary, "history", "search", q, "--json", "--exhaustive"], env, cwd=cwd)[1])["data"]["hits"]
            key = lambda h: (h["source_path"], h["line_number"])
            sx, sy = {key(h) for h in x}, {key(h) for h in y}
            same += len(sx & sy) / max(1, len(sy)) if sy else 1.0
        overlap[name] = round(same / len(qs), 3)
    n30 = range(len(qs))
    result = {"data": data, "reps": a.reps, "bin/true": round(true_ms, 2), "sides": {}}
    for name, binary, d, extra in sides:
        xs = [t for i in n30 for t in times[(name, i)]]
        cs = [t for i in n30 for t in cpu[(name, i)]]
        per = {}
        for kind in ("rare", "common", "mixed", "stopword", "nomatch"):
            per[kind] = round(statistics.median(t for i in n30 if cases[i][0] == kind for t in times[(name, i)]), 2)
        result["sides"][name] = {
            "bin": binary, "data": d, "args": extra, "p50": round(statistics.median(xs), 2),
            "cpu_p50": round(statistics.median(cs), 2),
            "question_p50": round(statistics.median(
                t for i in n30 if len(cases[i][1].split()) >= 3 for t in times[(name, i)]), 2),
            "p99": round(pct(xs, 99), 2), "max": round(max(xs), 2), "per_kind": per, "overlap_at_10": overlap[name],
            "extra": {cases[i][1]: round(statistics.median(times[(name, i)]), 2) for i in range(len(qs), len(cases))},
        }
    print("search on %s, %d reps of %d queries, /bin/true %.2f ms" % (data, a.reps, len(qs), true_ms))
    print("wall p50 / p99 / max ms; CPU (user + sys) p50; wall p50 of the queries of 3+ words and by kind")
    print("| side | binary | args | p50 | p99 | max | CPU p50 | 3+ words | rare | common | mixed | stopword | nomatch | overlap@10 |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in result["sides"].items():
        print("| %s | %s | %s | %.1f | %.1f | %.0f | %.1f | %.1f | %s | %.2f |" % (
            name, r["bin"], " ".join(r["args"]) or "-", r["p50"], r["p99"], r["max"], r["cpu_p50"], r["question_p50"],
            " | ".join("%.1f" % r["per_kind"][k] for k in ("rare", "common", "mixed", "stopword", "nomatch")),
            r["overlap_at_10"]))
    for q in a.extra:
        print("extra %r: %s" % (q, ", ".join("%s %.1f ms" % (n, r["extra"][q]) for n, r in result["sides"].items())))
    if "B" in result["sides"]:
        A, B = result["sides"]["A"], result["sides"]["B"]
        print("A / B: p50 %.2f, p99 %.2f, CPU p50 %.2f, 3+ words p50 %.2f" % (
            A["p50"] / B["p50"], A["p99"] / B["p99"], A["cpu_p50"] / B["cpu_p50"], A["question_p50"] / B["question_p50"]))
    p50, p99 = TARGETS["search"]
    A = result["sides"]["A"]
    print("target (p50 <= %d, p99 <= %d ms): %s" % (p50, p99, "met" if A["p50"] <= p50 and A["p99"] <= p99 else "missed"))
    with open("/proc/loadavg") as f:
        print("load average at the end:", " ".join(f.read().split()[:3]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)


def summary_line(r):
    return "%7d messages, %d rules (round %d): search %.1f/%.1f ms, context %.1f, session-start %.1f/%.1f, prompt %.1f/%.1f, max %.0f ms, overlap@10 %.2f" % (
        r["messages"], r["rules"], r["round"], r["search"]["p50"], r["search"]["p99"], r["context"]["p50"],
        r["session-start"]["p50"], r["session-start"]["p99"], r["prompt"]["p50"], r["prompt"]["p99"],
        max(r[k]["max"] for k in TARGETS), r["overlap_at_10"])


def print_table(results, a):
    print()
    print("Growth benchmark%s%s: p50 / p99 ms (max), baselines in the same run" % (
        " (statistics reset to one row before each checkpoint)" if a.stale else "",
        " (%d rules per round citing its session)" % a.cite if a.cite else ""))
    print("| messages | search | context | session-start | prompt | /bin/true | cm --version | slowest call | overlap@10 | hook cuts |")
    print("|---:|---|---|---|---|---|---|---:|---:|---:|")
    for r in results:
        cell = lambda k: "%.1f / %.1f (%.0f)" % (r[k]["p50"], r[k]["p99"], r[k]["max"])
        print("| %d | %s | %s | %s | %s | %.2f | %.2f | %.0f | %.2f | %d |" % (
            r["messages"], cell("search"), cell("context"), cell("session-start"), cell("prompt"),
            r["/bin/true"]["p50"], r["cm --version"]["p50"], max(r[k]["max"] for k in TARGETS),
            r["overlap_at_10"], r["hook_cuts"]))
    bad = []
    for r in results:
        for k, (p50, p99) in TARGETS.items():
            if r[k]["p50"] > p50:
                bad.append("%d: %s p50 %.1f > %d" % (r["messages"], k, r[k]["p50"], p50))
            if p99 and r[k]["p99"] > p99:
                bad.append("%d: %s p99 %.1f > %d" % (r["messages"], k, r[k]["p99"], p99))
            if r[k]["max"] > MAX_CALL_MS:
                bad.append("%d: %s max %.1f > %d" % (r["messages"], k, r[k]["max"], MAX_CALL_MS))
    print("targets: " + ("all met" if not bad else "missed: " + "; ".join(bad)))


if __name__ == "__main__":
    main()
