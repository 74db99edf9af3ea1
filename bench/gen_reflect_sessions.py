#!/usr/bin/env python3
"""Claude Code sessions for timing reflection, made from the reflection fixtures
(tests/fixtures/reflect), so the timed work is the work real sessions cause: corrections,
failed commands and their fixes, repeated errors, inline feedback.

- `many(home, n)`: n sessions, each a copy of one fixture (cycling through the set) with its own
  session id, record uuids and timestamps, in one of several workspaces per project
  (`/home/dev/<project>-<k>`), laid out under HOME/.claude/projects as Claude Code does;
- `big(path, messages)`: one session of `messages` conversation records (user and assistant
  lines), the fixtures' conversations one after the other in a single workspace, one parent
  chain, as a long working day in one terminal would write it.

usage: gen_reflect_sessions.py many HOME N | big FILE MESSAGES   [--seed 12]
"""
import argparse
import datetime
import json
import os
import random
import sys
import uuid

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reflect_common import FIXTURES, load_manifest, project_slug  # noqa: E402

START = datetime.datetime(2026, 11, 2, 8, 0, 0)


def fixture_records():
    """[(manifest entry, [records])] of every fixture session."""
    out = []
    for e in load_manifest()["sessions"]:
        with open(os.path.join(FIXTURES, e["file"]), encoding="utf-8") as f:
            out.append((e, [json.loads(line) for line in f]))
    return out


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


class Rewriter:
    """Re-identifies records: a new session id and cwd, fresh uuids (parent links kept), times
    moved to run from `start` with the original gaps."""

    def __init__(self, rng, session, cwd, start):
        self.rng, self.session, self.cwd, self.time = rng, session, cwd, start
        self.ids, self.parent, self.last_seen = {}, None, None

    def new_id(self, old):
        if old not in self.ids:
            self.ids[old] = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        return self.ids[old]

    def advance(self, ts):
        seen = datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ")
        if self.last_seen is not None:
            self.time += max(seen - self.last_seen, datetime.timedelta(milliseconds=1))
        self.last_seen = seen
        return stamp(self.time)

    def record(self, rec, chain):
        rec = json.loads(json.dumps(rec))
        kind = rec.get("type")
        if kind in ("user", "assistant"):
            rec["uuid"] = self.new_id(rec["uuid"])
            rec["parentUuid"] = self.parent if chain or rec["parentUuid"] is None else self.new_id(rec["parentUuid"])
            self.parent = rec["uuid"]
            rec["sessionId"], rec["cwd"] = self.session, self.cwd
            rec["timestamp"] = self.advance(rec["timestamp"])
        elif kind == "file-history-snapshot":
            rec["messageId"] = rec["snapshot"]["messageId"] = self.new_id(rec["messageId"])
            rec["snapshot"]["timestamp"] = stamp(self.time)
        elif kind == "summary":
            rec["leafUuid"] = self.parent
        return rec


def write(path, records):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")


def many(home, n, seed=12, workspaces_per_project=8):
    """Write n sessions under HOME; return their paths."""
    rng = random.Random(seed)
    sources = fixture_records()
    paths = []
    for i in range(n):
        entry, records = sources[i % len(sources)]
        cwd = "%s-%d" % (entry["workspace"], rng.randrange(workspaces_per_project))
        session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        start = START + datetime.timedelta(minutes=37 * i)
        w = Rewriter(rng, session, cwd, start)
        out = [w.record(r, chain=False) for r in records]
        path = os.path.join(home, ".claude", "projects", project_slug(cwd), session + ".jsonl")
        write(path, out)
        paths.append(path)
    return paths


def big(path, messages, seed=12, cwd="/home/dev/harbor"):
    """Write one session of `messages` user/assistant records; return its session id."""
    rng = random.Random(seed)
    sources = fixture_records()
    session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    w = Rewriter(rng, session, cwd, START)
    out, count, i = [], 0, 0
    while count < messages:
        _, records = sources[i % len(sources)]
        i += 1
        for rec in records:
            if rec.get("type") == "summary":
                continue
            if rec.get("type") in ("user", "assistant"):
                if count == messages:
                    break
                count += 1
            out.append(w.record(rec, chain=True))
        w.time += datetime.timedelta(minutes=3)
    out.append({"type": "summary", "summary": "A long day in harbor", "leafUuid": w.parent})
    write(path, out)
    return session


def main():
    ap = argparse.ArgumentParser(usage=__doc__.strip().splitlines()[-1].replace("usage: ", ""))
    ap.add_argument("what", choices=("many", "big"))
    ap.add_argument("where", help="HOME for many, the session file for big")
    ap.add_argument("count", type=int, help="sessions for many, conversation records for big")
    ap.add_argument("--seed", type=int, default=12)
    a = ap.parse_args()
    if a.what == "many":
        print(len(many(a.where, a.count, a.seed)), "sessions")
    else:
        print(big(a.where, a.count, a.seed))


if __name__ == "__main__":
    main()
