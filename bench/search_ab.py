#!/usr/bin/env python3
"""`cm history search` latency of two binaries on the same store, interleaved (A B A B).

Runs every query of bench/episodic.py (QUERIES) with each binary in turn, ROUNDS times, and
prints the median wall and CPU time (user + sys from wait4) of each, their ratio, and the same
split by lookups (fewer than 3 terms: not widened) and questions (3 or more: widened by the
association layer and the feedback pass, lifted by sessions, lent by neighbours).

usage: bench/search_ab.py DATA_DIR [--home HOME] [--a BASELINE_BIN] [--b target/release/cm]
                          [--rounds 5]
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from episodic import QUERIES, ROOT, run  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--home", default=None, help="HOME for the runs (default: the current one)")
    ap.add_argument("--a", required=True, help="baseline binary")
    ap.add_argument("--b", default=os.path.join(ROOT, "target", "release", "cm"))
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    env = dict(os.environ, CASS_MEMORY_HOME=os.path.abspath(a.data), NO_COLOR="1")
    if a.home:
        env["HOME"] = a.home
    bins = {"a": os.path.abspath(a.a), "b": os.path.abspath(a.b)}
    times = {(k, c): {"wall": [], "cpu": []} for k in bins for c in ("lookup", "question")}
    for _ in range(a.rounds):
        for q in QUERIES:
            kind = "question" if len(q.split()) >= 3 else "lookup"
            for k, cm in bins.items():
                w, c, _, _ = run([cm, "history", "search", q, "--json", "--limit", "10"], env)
                times[(k, kind)]["wall"].append(w * 1000)
                times[(k, kind)]["cpu"].append(c * 1000)
    print("binaries: a=%s b=%s, %d rounds x %d queries" % (bins["a"], bins["b"], a.rounds, len(QUERIES)))
    for kind in ("lookup", "question", "all"):
        row = []
        for m in ("wall", "cpu"):
            med = {}
            for k in bins:
                v = times[(k, kind)][m] if kind != "all" else times[(k, "lookup")][m] + times[(k, "question")][m]
                med[k] = statistics.median(v)
            row.append("%s a %.2f ms, b %.2f ms (x%.3f)" % (m, med["a"], med["b"], med["b"] / med["a"]))
        print("%-9s %s" % (kind, "; ".join(row)))


if __name__ == "__main__":
    main()
