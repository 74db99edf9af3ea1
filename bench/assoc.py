#!/usr/bin/env python3
"""What the offline association layer costs at ~250,000 messages: cold indexing time, store size
and search latency, each against a baseline measured in the same run.

Three configurations index the same generated corpus (bench/gen_corpus.py, fixed seed),
interleaved A B C A B C so machine load hits them alike:
- `base`: a binary built without the layer (`--base-bin`, e.g. main's release build), if given;
- `off`: this binary with `history.associations: false` (no learning, no widening);
- `on`: this binary as shipped (learning after indexing, widening short queries).
Reported per configuration: median wall and CPU seconds of `cm history index` (cold), the store's
size (the database file after a checkpoint; the layer's own tables are `on` minus `off`), and the
median of `cm history search` over the query set of bench/episodic.py on the `on` store (with
the layer, and with `--no-expand --no-neighbours`, i.e. the lexical search alone).

usage: bench/assoc.py [--records 205000] [--runs 3] [--searches 3] [--keep DIR]
                      [--bin target/release/cm] [--base-bin PATH]
"""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from episodic import QUERIES, env_for, gen, med, run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def store_mb(data):
    db = os.path.join(data, "cm.db") if os.path.exists(os.path.join(data, "cm.db")) else None
    if db is None:
        for root, _, files in os.walk(data):
            for f in files:
                if f.endswith(".db"):
                    db = os.path.join(root, f)
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    tables = {}
    try:
        for name, size in con.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
            tables[name] = size
    except sqlite3.DatabaseError:
        pass
    con.close()
    return os.path.getsize(db) / 1e6, tables


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=205000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--searches", type=int, default=3, help="rounds over the query set")
    ap.add_argument("--keep")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "cm"))
    ap.add_argument("--base-bin")
    a = ap.parse_args()
    cm = os.path.abspath(a.bin)
    tmp = a.keep or tempfile.mkdtemp(prefix="cm-assoc-bench-")
    os.makedirs(tmp, exist_ok=True)
    big = os.path.join(tmp, "big")
    if not os.path.isdir(big):
        gen(big, a.records)
    configs = [("off", cm, False), ("on", cm, True)]
    if a.base_bin:
        configs.insert(0, ("base", os.path.abspath(a.base_bin), None))
    res = {name: {"wall": [], "cpu": [], "mb": [], "tables": {}} for name, _, _ in configs}
    try:
        for i in range(a.runs):
            for name, binary, assoc in configs:
                data = os.path.join(tmp, "data-%s-%d" % (name, i))
                shutil.rmtree(data, ignore_errors=True)
                os.makedirs(data)
                if assoc is not None:
                    with open(os.path.join(data, "config.json"), "w") as f:
                        json.dump({"history": {"associations": assoc}}, f)
                subprocess.run(["sh", "-c", "cat $(find %s -name '*.jsonl') > /dev/null" % big])
                w, c, _, out = run([binary, "history", "index", "--json"], env_for(big, data))
                msgs = json.loads(out)["data"]["messagesAdded"]
                mb, tables = store_mb(data)
                r = res[name]
                r["wall"].append(w)
                r["cpu"].append(c)
                r["mb"].append(mb)
                r["tables"] = tables
                r["messages"] = msgs
                print("run %d %-4s: %d messages, cold index %.2f s wall, %.2f s cpu, store %.1f MB"
                      % (i + 1, name, msgs, w, c, mb), flush=True)
        for name, _, _ in configs:
            r = res[name]
            print("%-4s median: cold index %.2f s wall, %.2f s cpu; store %.1f MB" % (
                name, med(r["wall"]), med(r["cpu"]), med(r["mb"])))
        on, off = res["on"], res["off"]
        layer = sum(v for k, v in on["tables"].items() if k.startswith("assoc_") or "assoc_" in k)
        print("layer vs off: wall x%.3f, cpu x%.3f, store +%.1f MB (assoc tables %.1f MB)" % (
            med(on["wall"]) / med(off["wall"]), med(on["cpu"]) / med(off["cpu"]),
            med(on["mb"]) - med(off["mb"]), layer / 1e6))
        if "base" in res:
            b = res["base"]
            print("on vs base: wall x%.3f, cpu x%.3f, store +%.1f MB" % (
                med(on["wall"]) / med(b["wall"]), med(on["cpu"]) / med(b["cpu"]), med(on["mb"]) - med(b["mb"])))
        # Search latency on the `on` store: with the layer, lexical only, and the base binary.
        env = env_for(big, os.path.join(tmp, "data-on-0"))
        modes = [("layer", cm, []), ("lexical", cm, ["--no-expand", "--no-neighbours"])]
        if a.base_bin:
            benv = env_for(big, os.path.join(tmp, "data-base-0"))
            modes.append(("base", os.path.abspath(a.base_bin), []))
        times = {m: [] for m, _, _ in modes}
        cpu = {m: [] for m, _, _ in modes}
        for m, binary, flags in modes:
            run([binary, "history", "search", "warm up", "--json"], benv if m == "base" else env)
        for _ in range(a.searches):
            for q in QUERIES:
                for m, binary, flags in modes:
                    w, c, _, _ = run([binary, "history", "search", "--json", "--limit", "10"] + flags + ["--", q],
                                     benv if m == "base" else env)
                    times[m].append(w)
                    cpu[m].append(c)
        for m, _, _ in modes:
            print("search %-7s: median %.2f ms (cpu %.2f ms) over %d" % (
                m, med(times[m]) * 1000, med(cpu[m]) * 1000, len(times[m])))
        print("search layer / lexical: x%.3f" % (med(times["layer"]) / med(times["lexical"])))
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
