#!/usr/bin/env python3
"""Episodic memory benchmarks: cold indexing, no-change re-index, search, post-session hook.

Generates its corpora with bench/gen_corpus.py (fixed seed) in a temp dir, runs the release
binary with HOME and CASS_MEMORY_HOME pointing there, and prints medians with a baseline measured
in the same run (A B A B). Peak RSS comes from wait4() rusage, CPU time likewise.

usage: bench/episodic.py [--records 205000] [--reindex-files 5000] [--runs 3] [--searches 15]
       [--keep DIR] [--bin target/release/cm]

The defaults produce ~250,000 indexed messages (Claude Code lines with several content blocks
give several messages).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

QUERIES = [
    "borrow checker error in the parser",
    "why does the migration fail with a timeout",
    "cargo test session offset",
    "permission denied when writing the cache directory",
    "kubernetes ingress certificate",
    "flamegraph allocation heap",
    "how did we fix the deadlock in the thread pool",
    "rebase conflict",
    "react component state render",
    "sqlite schema column",
    "login password header",
    "pytest fixture mock patch",
    "segfault signal",
    "docker image release pipeline",
    "retry latency",
]


def run(cmd, env, stdin=None):
    """Run cmd; return (wall seconds, user+sys seconds, peak RSS KB, stdout)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if stdin is not None:
        p.stdin.write(stdin)
        p.stdin.close()
    out = p.stdout.read()
    p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("command failed (%d): %s" % (p.returncode, " ".join(cmd)))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, out


def env_for(home, data):
    e = dict(os.environ)
    e.update(HOME=home, CASS_MEMORY_HOME=data, NO_COLOR="1")
    e.pop("CLAUDE_CONFIG_DIR", None)
    e.pop("CODEX_HOME", None)
    return e


def gen(home, records, sessions=0):
    cmd = [sys.executable, os.path.join(ROOT, "bench", "gen_corpus.py"), home, "--records", str(records)]
    if sessions:
        cmd += ["--sessions", str(sessions)]
    print("generating:", " ".join(cmd[1:]), flush=True)
    out = subprocess.check_output(cmd)
    return json.loads(out)


def med(xs):
    return statistics.median(xs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=205000)
    ap.add_argument("--reindex-files", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--searches", type=int, default=15)
    ap.add_argument("--keep", help="generate corpora here and keep them (reused when present)")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "cm"))
    a = ap.parse_args()
    cm = os.path.abspath(a.bin)
    if not os.path.exists(cm):
        sys.exit("build first: cargo build --release")
    tmp = a.keep or tempfile.mkdtemp(prefix="cm-episodic-bench-")
    os.makedirs(tmp, exist_ok=True)
    results = {}
    try:
        # 1. Cold indexing at ~250k messages.
        big = os.path.join(tmp, "big")
        if not os.path.isdir(big):
            gen(big, a.records)
        walls, cpus, rss, msgs = [], [], [], 0
        for i in range(a.runs):
            data = os.path.join(tmp, "data-cold-%d" % i)
            shutil.rmtree(data, ignore_errors=True)
            # Warm the page cache the same way for every run.
            subprocess.run(["sh", "-c", "cat $(find %s -name '*.jsonl') > /dev/null" % big])
            w, c, r, out = run([cm, "history", "index", "--json"], env_for(big, data))
            d = json.loads(out)["data"]
            msgs = d["messagesAdded"]
            walls.append(w)
            cpus.append(c)
            rss.append(r)
            print("cold index run %d: %d messages, %.2fs wall, %.2fs cpu, %.0f MB peak RSS (parse %dms, write %dms)"
                  % (i + 1, msgs, w, c, r / 1024, d["parseMs"], d["writeMs"]), flush=True)
        results["cold"] = {
            "messages": msgs,
            "wall_s": med(walls),
            "cpu_s": med(cpus),
            "msgs_per_s": msgs / med(walls),
            "msgs_per_cpu_s": msgs / med(cpus),
            "peak_rss_mb": max(rss) / 1024,
        }
        data = os.path.join(tmp, "data-cold-0")
        env = env_for(big, data)

        # 2. Search on the big index, baseline `cm --version` alternating.
        run([cm, "history", "search", "warm up", "--json"], env)
        s_times, s_cpu, b_times, b_cpu, t_times = [], [], [], [], []
        for _ in range(max(1, a.searches // len(QUERIES) + 1)):
            for q in QUERIES:
                w, c, _, _ = run([cm, "history", "search", q, "--json", "--limit", "10"], env)
                s_times.append(w)
                s_cpu.append(c)
                w, c, _, _ = run([cm, "--version"], env)
                b_times.append(w)
                b_cpu.append(c)
                t_times.append(run(["/bin/true"], env)[0])
        results["search"] = {
            "queries": len(s_times),
            "median_ms": med(s_times) * 1000,
            "p90_ms": sorted(s_times)[int(len(s_times) * 0.9)] * 1000,
            "cpu_median_ms": med(s_cpu) * 1000,
            "baseline_cm_version_ms": med(b_times) * 1000,
            "baseline_cm_version_cpu_ms": med(b_cpu) * 1000,
            "baseline_true_ms": med(t_times) * 1000,
        }
        print("search: median %.2f ms (p90 %.2f, cpu %.2f ms), cm --version %.2f ms (cpu %.2f), /bin/true %.2f ms" % (
            results["search"]["median_ms"], results["search"]["p90_ms"], results["search"]["cpu_median_ms"],
            results["search"]["baseline_cm_version_ms"], results["search"]["baseline_cm_version_cpu_ms"],
            results["search"]["baseline_true_ms"]), flush=True)

        # 3. Re-index with nothing changed over N session files.
        many = os.path.join(tmp, "many")
        if not os.path.isdir(many):
            gen(many, a.reindex_files * 20, a.reindex_files)
        mdata = os.path.join(tmp, "data-many")
        shutil.rmtree(mdata, ignore_errors=True)
        menv = env_for(many, mdata)
        _, _, _, out = run([cm, "history", "index", "--json"], menv)
        seen = json.loads(out)["data"]["filesSeen"]
        r_times, r_cpu, rb_times = [], [], []
        for _ in range(10):
            w, c, _, out = run([cm, "history", "index", "--json"], menv)
            d = json.loads(out)["data"]
            assert d["messagesAdded"] == 0 and d["filesUnchanged"] == seen, d
            r_times.append(w)
            r_cpu.append(c)
            rb_times.append(run([cm, "--version"], menv)[0])
        results["reindex"] = {
            "files": seen,
            "median_ms": med(r_times) * 1000,
            "cpu_median_ms": med(r_cpu) * 1000,
            "baseline_cm_version_ms": med(rb_times) * 1000,
        }
        print("re-index, nothing changed, %d files: median %.1f ms (cpu %.1f ms; cm --version %.2f ms)" % (
            seen, results["reindex"]["median_ms"], results["reindex"]["cpu_median_ms"],
            results["reindex"]["baseline_cm_version_ms"]), flush=True)

        # 4. The post-session hook: returns before the detached indexer does its work.
        link = os.path.join(tmp, "cm-postsession")
        if not os.path.exists(link):
            os.symlink(cm, link)
        transcript = subprocess.check_output(
            ["sh", "-c", "find %s/.claude -name '*.jsonl' | head -1" % many]).decode().strip()
        payload = json.dumps({"session_id": "x", "transcript_path": transcript,
                              "hook_event_name": "SessionEnd", "reason": "exit"}).encode()
        h_times, ht_times = [], []
        for _ in range(20):
            h_times.append(run([link], menv, stdin=payload)[0])
            ht_times.append(run(["/bin/true"], menv)[0])
            time.sleep(0.05)
        results["postsession"] = {
            "median_ms": med(h_times) * 1000,
            "max_ms": max(h_times) * 1000,
            "baseline_true_ms": med(ht_times) * 1000,
        }
        print("cm-postsession: median %.2f ms, max %.2f ms (/bin/true %.2f ms)" % (
            results["postsession"]["median_ms"], results["postsession"]["max_ms"],
            results["postsession"]["baseline_true_ms"]), flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    try:
        load = os.getloadavg()
        results["loadavg"] = [round(x, 2) for x in load]
    except OSError:
        pass
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
