#!/usr/bin/env python3
"""Add generated rules in small batches, each citing one indexed session (`playbook add --file F
--session PATH`), so every rule carries an evidence vocabulary and a place, as learned rules do.

usage: bench/cite_sessions.py CM RULES_JSON [--per-session N] [--sessions M]
Runs in the environment it is given (HOME, CASS_MEMORY_HOME); the index must hold sessions.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cm")
    ap.add_argument("rules")
    ap.add_argument("--per-session", type=int, default=10)
    ap.add_argument("--sessions", type=int, default=500)
    args = ap.parse_args()
    out = subprocess.run([args.cm, "history", "sessions", "--json", "--limit", str(args.sessions)],
                         capture_output=True, text=True, check=True).stdout
    sessions = [s["sourcePath"] for s in json.loads(out)["data"]["sessions"] if s.get("sourcePath")]
    if not sessions:
        sys.exit("no indexed sessions to cite: index some first")
    rules = json.load(open(args.rules))
    with tempfile.TemporaryDirectory() as tmp:
        batch = os.path.join(tmp, "batch.json")
        for i in range(0, len(rules), args.per_session):
            with open(batch, "w") as f:
                json.dump(rules[i:i + args.per_session], f)
            session = sessions[(i // args.per_session) % len(sessions)]
            subprocess.run([args.cm, "playbook", "add", "--file", batch, "--session", session, "--json"],
                           stdout=subprocess.DEVNULL, check=True)
    print("%d rules citing %d sessions" % (len(rules), min(len(sessions), -(-len(rules) // args.per_session))))


if __name__ == "__main__":
    main()
