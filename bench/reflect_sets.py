#!/usr/bin/env python3
"""Score `cm reflect` on every development corpus at once, one line per set.

Runs `bench/reflect_corpus.py` on each set below that exists (two at a time) and prints, per
set: lessons learned as a correct rule, in the top 3 of `cm context` for the later task, rules
made, rules from lesson-free sessions, the share of rules that state a lesson, replayed shell
lines, duplicates merged, rules in the top 3 for an unrelated task, and learned/top-3/lessons by
kind. All of these are development sets (tuned on); a held-out set is scored once, by hand.

usage: bench/reflect_sets.py [--bin target/debug/cm] [--only NAME,...] [--save DIR]
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "tests", "fixtures")
SHARED = os.path.join(ROOT, "..", "shared", "data", "reflect-dev")
# name -> (HOME of the sessions, key, seed playbook or None)
SETS = {
    "test4": (os.path.join(FIX, "reflect-heldout4", "test4", "home"), os.path.join(FIX, "reflect-heldout4", "test4", "key.jsonl"), None),
    "test3": (os.path.join(FIX, "reflect-heldout3", "test3", "home"), os.path.join(FIX, "reflect-heldout3", "test3", "key.jsonl"), None),
    "test2": (os.path.join(FIX, "reflect-heldout2", "test2", "home"), os.path.join(FIX, "reflect-heldout2", "test2", "key.jsonl"), None),
    "dev2": (os.path.join(FIX, "reflect-heldout2", "dev2", "home"), os.path.join(FIX, "reflect-heldout2", "dev2", "key.jsonl"), None),
    "reflect-dev": (os.path.join(SHARED, "home"), os.path.join(SHARED, "key.jsonl"), os.path.join(SHARED, "seed.yaml")),
    "heldout-dev": (os.path.join(FIX, "reflect-heldout", "dev", "home"), os.path.join(FIX, "reflect-heldout", "dev", "key.jsonl"), None),
    "mechanisms": (os.path.join(FIX, "reflect", "mechanisms", "home"), os.path.join(FIX, "reflect", "mechanisms", "key.jsonl"), None),
}


def score(name, binary, save):
    home, key, seed = SETS[name]
    argv = [sys.executable, os.path.join(ROOT, "bench", "reflect_corpus.py"), "--bin", binary,
            "--home", home, "--key", key, "--json"] + (["--seed", seed] if seed else [])
    out = subprocess.run(argv, capture_output=True, text=True)
    if out.returncode != 0:
        return name, None, out.stderr.strip()[-400:]
    if save:
        with open(os.path.join(save, name + ".json"), "w", encoding="utf-8") as f:
            f.write(out.stdout)
    return name, json.loads(out.stdout), None


def line(name, d):
    s = d["summary"]
    kinds = " ".join("%s %d/%d/%d" % (k, v["learned"], v["top3"], v["lessons"]) for k, v in s["byKind"].items())
    return ("%-12s learned %d/%d (%.1f%%)  top3 %d (%.1f%%)  rules %d  lesson-free %d  states %.1f%%  "
            "shell %.1f%%  merged %d  unrelated-top3 %d  | %s" % (
                name, s["learned"], s["lessons"], s["learnedPct"], s["top3"], s["top3Pct"], s["rulesAdded"],
                s["rulesFromLessonFree"], s["statesLessonPct"], s["replayedShellPct"], s["duplicatesMerged"],
                s["unrelatedTop3"], kinds))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "debug", "cm"))
    ap.add_argument("--only", help="comma-separated set names (%s)" % ", ".join(SETS))
    ap.add_argument("--save", help="write each set's full JSON answer into this directory")
    a = ap.parse_args()
    names = [n for n in (a.only.split(",") if a.only else SETS) if os.path.isfile(SETS[n][1])]
    if a.save:
        os.makedirs(a.save, exist_ok=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda n: score(n, a.bin, a.save), names))
    failed = 0
    for name, d, err in results:
        if d is None:
            failed += 1
            print("%-12s FAILED: %s" % (name, err))
        else:
            print(line(name, d))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
