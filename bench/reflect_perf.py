#!/usr/bin/env python3
"""Speed of deterministic reflection against the issue's targets, with a baseline from the same
run (the machine is shared and noisy: the ratio to indexing the same data says more than the
seconds).

1. One session of 2,000 conversation records (bench/gen_reflect_sessions.py big: the fixture
   conversations back to back in one workspace). Baseline: `cm history index` of it into a fresh
   data dir, median of --runs-big. Timed: `cm reflect --session FILE --json` on a copy of the
   indexed data dir (so each run reflects a session not yet reflected, with nothing left to
   index), median of --runs-big. Target <= 1 s.
2. 1,000 ordinary sessions (gen_reflect_sessions.py many: fixture copies across 40 workspaces).
   Baseline: `cm history index` of them, median of --runs-many. Timed: `cm reflect
   --max-sessions N --json` (its default takes 200 a run) on a copy of the indexed data dir,
   median of --runs-many. Target <= 60 s, with every session reflected.

The LLM path is off (no provider keys in the environment); CM_NOW is pinned after the newest
generated session. --check exits 1 when a target is missed; exit 2 when the binary has no
`cm reflect` yet (the baselines are still measured and printed).

usage: bench/reflect_perf.py [--bin target/release/cm] [--messages 2000] [--sessions 1000]
                             [--runs-big 5] [--runs-many 3] [--check] [--keep DIR]
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

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_reflect_sessions as gen  # noqa: E402
from reflect_common import DEFAULT_BIN, Cm, CmError  # noqa: E402

TARGET_BIG_S = 1.0
TARGET_MANY_S = 60.0
NOW = "2026-11-28T00:00:00Z"  # after the newest generated session (1,000 sessions 37 min apart from 2 Nov)


def run(cm, data, *args):
    """`cm ARGS --json` against data dir DATA; return (wall s, user+sys s of the child, peak RSS
    MB, JSON). Raise CmError when it fails."""
    env = dict(cm.env, CASS_MEMORY_HOME=data)
    t = time.perf_counter()
    p = subprocess.Popen([cm.binary] + list(args) + ["--json"], env=env, cwd=cm.cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise CmError(list(args), p.returncode, out.decode(), err.decode())
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, json.loads(out)


def fresh(tmp, name):
    path = os.path.join(tmp, name)
    shutil.rmtree(path, ignore_errors=True)
    return path


def baseline(cm, tmp, label, runs):
    """`cm history index` into fresh data dirs, `runs` times; the first stays as the template."""
    index = [run(cm, fresh(tmp, "%s-index-%d" % (label, i)), "history", "index") for i in range(runs)]
    indexed = index[0][3]["data"]
    result = {"messages": indexed.get("messagesAdded"), "files": indexed.get("filesNew"),
              "recordsSkipped": indexed.get("recordsSkipped"),
              "index": {"medianS": round(statistics.median(r[0] for r in index), 3),
                        "cpuS": round(statistics.median(r[1] for r in index), 3),
                        "peakRssMb": round(max(r[2] for r in index), 1), "runs": runs}}
    print("%s: %s files, %s messages, %s records skipped; cm history index median %.3f s (cpu %.3f s)" % (
        label, result["files"], result["messages"], result["recordsSkipped"], result["index"]["medianS"],
        result["index"]["cpuS"]), flush=True)
    return result


def reflection(cm, tmp, label, runs, reflect_args, result, target, sessions):
    """`cm reflect ARGS` on copies of the indexed template, `runs` times; fills `result`. The
    target counts as met only when every one of the `sessions` was reflected."""
    reflect = []
    for i in range(runs):
        data = fresh(tmp, "%s-reflect-%d" % (label, i))
        shutil.copytree(os.path.join(tmp, "%s-index-0" % label), data)
        r = run(cm, data, "reflect", *reflect_args)
        reflect.append(r)
        d = r[3].get("data") or {}
        print("  %s reflect run %d: %.3f s wall, %.3f s cpu, %.0f MB, %d sessions, %d rules added" % (
            label, i + 1, r[0], r[1], r[2], len(d.get("sessions") or []), len(d.get("added") or [])), flush=True)
    wall = statistics.median(r[0] for r in reflect)
    first = reflect[0][3].get("data") or {}
    result["reflect"] = {"medianS": round(wall, 3), "cpuS": round(statistics.median(r[1] for r in reflect), 3),
                         "peakRssMb": round(max(r[2] for r in reflect), 1), "runs": runs,
                         "sessionsReflected": len(first.get("sessions") or []),
                         "rulesAdded": len(first.get("added") or [])}
    result["ratioToIndex"] = round(wall / result["index"]["medianS"], 2) if result["index"]["medianS"] else None
    result["met"] = wall <= target and result["reflect"]["sessionsReflected"] == sessions
    if result["reflect"]["sessionsReflected"] != sessions:
        print("  %s: reflected %d of %d sessions" % (label, result["reflect"]["sessionsReflected"], sessions))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=DEFAULT_BIN)
    ap.add_argument("--messages", type=int, default=2000)
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--runs-big", type=int, default=5)
    ap.add_argument("--runs-many", type=int, default=3)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--keep", help="work in this directory and keep it")
    a = ap.parse_args()
    tmp = a.keep or tempfile.mkdtemp(prefix="cm-reflect-perf-")
    os.makedirs(tmp, exist_ok=True)
    results = {"targets": {"bigSessionS": TARGET_BIG_S, "manySessionsS": TARGET_MANY_S}}
    try:
        big_cm = Cm(a.bin, os.path.join(tmp, "big"), now=NOW)
        path = os.path.join(big_cm.home, ".claude", "projects", "-home-dev-harbor", "pending.jsonl")
        session = gen.big(path, a.messages)
        big_path = os.path.join(os.path.dirname(path), session + ".jsonl")
        os.rename(path, big_path)
        many_cm = Cm(a.bin, os.path.join(tmp, "many"), now=NOW)
        gen.many(many_cm.home, a.sessions)
        results["big"] = baseline(big_cm, tmp, "big", a.runs_big)
        results["many"] = baseline(many_cm, tmp, "many", a.runs_many)
        try:
            reflection(big_cm, tmp, "big", a.runs_big, ["--session", big_path], results["big"], TARGET_BIG_S, 1)
            reflection(many_cm, tmp, "many", a.runs_many, ["--max-sessions", str(a.sessions)], results["many"],
                       TARGET_MANY_S, a.sessions)
        except CmError as err:
            if err.is_unknown_command():
                print("cm reflect is not in this binary (%s): %s\nThe indexing baselines above were measured; "
                      "build a cm with `cm reflect` to time reflection." % (big_cm.binary, err.message()),
                      file=sys.stderr)
                return 2
            raise
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    try:
        results["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    for key, title, target in (("big", "%d-message session, cm reflect --session" % a.messages, TARGET_BIG_S),
                               ("many", "%d sessions, cm reflect" % a.sessions, TARGET_MANY_S)):
        r = results[key]
        print("%-48s median %7.3f s (target <= %g s: %s); cm history index %.3f s; ratio %sx" % (
            title, r["reflect"]["medianS"], target, "met" if r["met"] else "MISSED", r["index"]["medianS"],
            r["ratioToIndex"]))
    print(json.dumps(results, indent=2))
    return 1 if a.check and not (results["big"]["met"] and results["many"]["met"]) else 0


if __name__ == "__main__":
    sys.exit(main())
