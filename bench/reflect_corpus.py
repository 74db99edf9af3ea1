#!/usr/bin/env python3
"""Score `cm reflect` on a corpus of sessions written elsewhere, with an answer key.

The corpus is a HOME holding agent sessions (Claude Code under `.claude/projects/`, Codex under
`.codex/sessions/`) and a key in the reflect-dev format (`../shared/data/reflect-dev/README.md`):
one JSON object per line with `id`, `project`, `kind` (convention, correction, preference,
error_fix, recurring, inline, none), `sessions` (paths relative to the agent's sessions dir; a
`claude:` or `codex:` prefix names the agent, none means Claude), and for lessons `lesson`,
`keywords`, `followup_task`, `unrelated_task`, for inline lessons `feedback` [{id, type}].

How it runs, as a new user's machine would: the HOME is copied to a temp dir, `cm init`, the
seed playbook imported (`--seed`), then every session, oldest first, goes through
`cm reflect --session PATH` (what the post-session hook starts), with no LLM key in reach.
CM_NOW is pinned to a day after the newest session.

What counts (all case-insensitive):
- a rule **replays shell** when it holds `2>&1`, a pipe to another command (`| tail`, `| grep`),
  "`X` rather than `Y`" (the command that happened to pass set against the one that failed), a
  backticked span over 80 characters, a one-off literal (a hex hash of 7+ characters, a
  Kubernetes pod name, a /tmp or /var/folders path), or runs past 240 characters;
- a rule is **correct** for a lesson when it holds at least 2 of the lesson's keywords (all of
  them when it has fewer than 2) and does not replay shell (`--strict` asks for every keyword);
- a lesson is **learned** when a live rule whose provenance (`sourceSessions`) names one of its
  sessions is correct for it; an inline lesson with helpful feedback is learned when that seed
  rule got a helpful mark from one of its sessions; with harmful feedback, when the seed rule got
  a harmful mark and the replacement was learned as a correct rule;
- **top-3**: a correct rule (or the seed rule of a helpful inline lesson) is among the first 3 of
  `cm context FOLLOWUP_TASK --workspace CWD` (CWD: the session's working directory); the same
  for the unrelated task is reported as a leak (lower is better);
- **rules from lesson-free sessions**: live rules made from a `none` session (the first session
  their provenance names); a rule made elsewhere that a `none` session restated (the same
  mistake again, which gives the rule a helpful mark and a source) is counted apart;
- **states a lesson**: a new live rule correct for some lesson of a session it names;
- **duplicates merged**: proposals folded into an existing rule (`duplicate`, `near-duplicate`,
  `restated`), and lessons left with more than one rule (one lesson should be one rule).

usage: bench/reflect_corpus.py --bin target/release/cm --home DIR --key FILE [--seed seed.yaml]
                               [--json] [--strict] [--keep DIR] [--top 3]
"""
import argparse
import collections
import datetime
import json
import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reflect_common import DEFAULT_BIN, Cm, CmError  # noqa: E402

TARGETS = {"learned": 85.0, "top3": 80.0, "fromLessonFree": 0, "statesLesson": 90.0, "replayedShell": 5.0}

SHELL = [re.compile(p, re.I) for p in (
    r"2>&1",
    r"\|\s*(tail|head|grep|sed|awk|sort|uniq|wc|tee|xargs|jq|less|cut)\b",
    r"`[^`]+`\s+rather than\s+`[^`]+`",
    r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b",
    r"\b[a-z0-9-]+-[a-f0-9]{8,10}-[a-z0-9]{5}\b",
    r"(^|[\s`'\"(])(/tmp/|/var/folders/|/private/var/)",
)]


def replays_shell(rule):
    if len(rule) > 240 or any(p.search(rule) for p in SHELL):
        return True
    return any(len(span) > 80 for span in re.findall(r"`([^`]*)`", rule))


def keyword_hits(rule, keywords):
    low = rule.lower()
    return sum(1 for k in keywords if k.lower() in low)


def correct(rule, keywords, strict):
    need = len(keywords) if strict else min(2, len(keywords))
    return keyword_hits(rule, keywords) >= need and not replays_shell(rule)


def session_file(home, ref):
    """(agent, absolute path) of a key's session reference."""
    agent, _, rel = ref.partition(":") if ref.split(":", 1)[0] in ("claude", "codex") else ("claude", "", ref)
    base = os.path.join(home, ".codex", "sessions") if agent == "codex" else os.path.join(home, ".claude", "projects")
    return agent, os.path.join(base, rel)


def session_facts(path):
    """(first timestamp, last timestamp, cwd) of a session file, Claude or Codex."""
    first = last = cwd = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if not isinstance(rec, dict):
                continue
            ts = rec.get("timestamp")
            payload = rec.get("payload") if isinstance(rec.get("payload"), dict) else {}
            cwd = cwd or rec.get("cwd") or payload.get("cwd")
            if isinstance(ts, str) and ts[:4].isdigit():
                first = first or ts
                last = ts
    return first or "", last or "", cwd


def parse_time(ts):
    try:
        return datetime.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None


def load_key(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def provenance(bullet):
    """Session file names (without extension) a rule's provenance names."""
    names = set()
    for s in bullet.get("sourceSessions") or []:
        names.add(os.path.splitext(os.path.basename(str(s)))[0])
    return names


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def context_ids(cm, task, workspace):
    args = ["context", task] + (["--workspace", workspace] if workspace else [])
    data = cm.data_of(*args)
    return [b.get("id") for b in data.get("relevantBullets") or []]


def run(a):
    key = load_key(a.key)
    tmp = a.keep or tempfile.mkdtemp(prefix="cm-reflect-corpus-")
    os.makedirs(tmp, exist_ok=True)
    try:
        home = os.path.join(tmp, "home")
        if os.path.exists(home):
            shutil.rmtree(home)
        shutil.copytree(a.home, home, symlinks=True)
        sessions = {}  # stem -> {agent, path, first, last, cwd}
        for row in key:
            for ref in row["sessions"]:
                agent, path = session_file(home, ref)
                if not os.path.isfile(path):
                    sys.exit("key names %s, which is not in %s" % (ref, a.home))
                first, last, cwd = session_facts(path)
                sessions[stem(path)] = {"agent": agent, "path": path, "first": first, "last": last, "cwd": cwd}
        newest = max((parse_time(s["last"]) for s in sessions.values() if parse_time(s["last"])), default=None)
        now = (newest + datetime.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ") if newest else None
        cm = Cm(a.bin, tmp, now=now)
        cm.home = home
        cm.env["HOME"] = home
        cm.run("init")
        try:
            cm.run("privacy", "allow", "claude")
            cm.run("privacy", "allow", "codex")
        except CmError:
            pass
        if a.seed:
            cm.run("playbook", "import", a.seed)
        before = cm.bullets()

        outs = {}
        for name, s in sorted(sessions.items(), key=lambda kv: (kv[1]["first"], kv[0])):
            outs[name] = cm.data_of("reflect", "--session", s["path"])
        after = cm.bullets()
        return score(a, cm, key, sessions, before, after, outs)
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def score(a, cm, key, sessions, before, after, outs):
    live_new = {i: b for i, b in after.items() if i not in before and not b.get("deprecated")}
    none_sessions = {stem(r) for row in key if row["kind"] == "none" for r in row["sessions"]}
    lessons_of = collections.defaultdict(list)  # session stem -> lesson rows
    for row in key:
        if row["kind"] != "none":
            for r in row["sessions"]:
                lessons_of[stem(r)].append(row)

    # Feedback each session applied, from its own reflect answer.
    marks = collections.defaultdict(set)  # (rule, type) -> session stems
    merged = 0
    for name, data in outs.items():
        for fb in data.get("feedback") or []:
            if fb.get("outcome") in ("applied", "already-applied"):
                marks[(fb.get("rule"), fb.get("type"))].add(name)
        for s in data.get("sessions") or []:
            for p in s.get("proposed") or []:
                if str(p.get("outcome", "")).startswith(("duplicate", "near-duplicate", "restated")):
                    merged += 1

    rows = []
    for row in key:
        if row["kind"] == "none":
            continue
        names = {stem(r) for r in row["sessions"]}
        kws = row.get("keywords") or []
        rules = [b for b in live_new.values() if provenance(b) & names and correct(b["content"], kws, a.strict)]
        fb = row.get("feedback") or []
        helpful = [f for f in fb if f.get("type") == "helpful"]
        harmful = [f for f in fb if f.get("type") == "harmful"]
        if row["kind"] == "inline" and helpful:
            learned = all(marks[(f["id"], "helpful")] & names for f in helpful)
            targets = {f["id"] for f in helpful}
        else:
            learned = bool(rules) and all(marks[(f["id"], "harmful")] & names for f in harmful)
            targets = {b["id"] for b in rules}
        cwd = next((sessions[n]["cwd"] for n in names if sessions[n]["cwd"]), None)
        rank = leak = None
        if learned and row.get("followup_task"):
            ranked = context_ids(cm, row["followup_task"], cwd)
            rank = next((n + 1 for n, i in enumerate(ranked) if i in targets), None)
        if learned and row.get("unrelated_task"):
            ranked = context_ids(cm, row["unrelated_task"], cwd)
            leak = next((n + 1 for n, i in enumerate(ranked) if i in targets), None)
        near = [b["content"] for b in live_new.values() if provenance(b) & names]
        rows.append({"id": row["id"], "kind": row["kind"], "learned": learned,
                     "top": rank is not None and rank <= a.top, "rank": rank,
                     "leak": leak is not None and leak <= a.top, "rules": len(rules),
                     "rule": rules[0]["content"] if rules else None,
                     "fromItsSessions": near[:4]})

    n = len(rows)
    learned = sum(r["learned"] for r in rows)
    top = sum(r["top"] for r in rows)
    # A rule is made by the first session it names; later ones restated it (one lesson, one rule).
    first = lambda b: provenance({"sourceSessions": (b.get("sourceSessions") or [])[:1]})  # noqa: E731
    from_free = [{"id": b["id"], "content": b["content"]} for b in live_new.values() if first(b) & none_sessions]
    restated_free = [{"id": b["id"], "content": b["content"]} for b in after.values()
                     if not first(b) & none_sessions and provenance(b) & none_sessions]
    shell = [b for b in live_new.values() if replays_shell(b["content"])]
    states = []
    for b in live_new.values():
        ks = [row.get("keywords") or [] for s in provenance(b) for row in lessons_of.get(s, [])]
        if any(k and correct(b["content"], k, a.strict) for k in ks):
            states.append(b)
    total = len(live_new)
    by_kind = collections.OrderedDict()
    for r in rows:
        k = by_kind.setdefault(r["kind"], {"lessons": 0, "learned": 0, "top3": 0})
        k["lessons"] += 1
        k["learned"] += r["learned"]
        k["top3"] += r["top"]
    pct = lambda x, d: round(100.0 * x / d, 1) if d else 0.0  # noqa: E731
    summary = {
        "sessions": len(sessions), "lessons": n,
        "learned": learned, "learnedPct": pct(learned, n),
        "top3": top, "top3Pct": pct(top, n),
        "unrelatedTop3": sum(r["leak"] for r in rows),
        "rulesAdded": total,
        "rulesFromLessonFree": len(from_free),
        "restatedInLessonFree": len(restated_free),
        "statesLessonPct": pct(len(states), total),
        "replayedShellPct": pct(len(shell), total),
        "duplicatesMerged": merged,
        "lessonsWithSeveralRules": sum(1 for r in rows if r["rules"] > 1),
        "byKind": by_kind,
        "strict": a.strict,
    }
    summary["targetsMet"] = (summary["learnedPct"] >= TARGETS["learned"] and summary["top3Pct"] >= TARGETS["top3"]
                             and not from_free and summary["statesLessonPct"] >= TARGETS["statesLesson"]
                             and summary["replayedShellPct"] <= TARGETS["replayedShell"])
    detail = {"lessons": rows, "fromLessonFree": from_free, "restatedInLessonFree": restated_free,
              "replayedShell": [b["content"] for b in shell],
              "notALesson": [b["content"] for b in live_new.values() if b not in states]}
    return summary, detail


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=DEFAULT_BIN)
    ap.add_argument("--home", required=True, help="a HOME holding the corpus's sessions")
    ap.add_argument("--key", required=True, help="the answer key (JSON lines)")
    ap.add_argument("--seed", help="playbook to import first")
    ap.add_argument("--json", action="store_true", help="print one JSON object (summary and detail)")
    ap.add_argument("--strict", action="store_true", help="a correct rule holds every keyword")
    ap.add_argument("--keep", help="work in this directory and keep it")
    ap.add_argument("--top", type=int, default=3)
    a = ap.parse_args()
    try:
        summary, detail = run(a)
    except CmError as err:
        print(str(err), file=sys.stderr)
        return 1
    if a.json:
        print(json.dumps({"summary": summary, "detail": detail}, indent=1))
        return 0
    for r in detail["lessons"]:
        mark = "learned" if r["learned"] else "MISSED "
        print("%s %-4s %-10s %-36s %s" % (mark, "top" if r["top"] else "-", r["kind"], r["id"],
                                          (r["rule"] or " | ".join(r["fromItsSessions"]) or "")[:150]))
    for label in ("fromLessonFree", "replayedShell", "notALesson"):
        items = detail[label]
        if items:
            print("\n%s (%d):" % (label, len(items)))
            for x in items:
                print("  -", (x["content"] if isinstance(x, dict) else x)[:200])
    print()
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
