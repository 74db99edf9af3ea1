#!/usr/bin/env python3
"""How well `cm reflect` learns from sessions: the fixture set of tests/fixtures/reflect.

In a throwaway HOME and CASS_MEMORY_HOME: import the seed playbook, copy every fixture session
into the Claude Code projects layout, `cm history index` (every file indexed, no record
skipped), `cm reflect` (all sessions at once, or one `--session` at a time with --per-session),
then `cm reflect` again, which must change nothing. Reported:

- lessons learned: a rule added by reflection contains every `expect` item of the lesson and
  its provenance names one of the lesson's sessions (or no fixture session at all); a kind-d
  lesson spans several sessions and counts once;
- lessons surfaced: that rule is in the top 3 of `cm context "<later_task>" --workspace W`;
- rules from lesson-free sessions: added rules whose provenance names a lesson-free session,
  plus (when a rule names no fixture session at all) added rules that match no lesson;
- secrets: no rule holds a secret that sits in a fixture session (the test database URL);
- inline feedback: each `[cass: helpful|harmful ID]` / "Following ID" became exactly one event
  of that type on that rule, no other seed rule got any, and the second run added none.

Targets (--check exits 1 when one is missed): >= 80% learned, >= 80% surfaced in the top 3,
0 rules from lesson-free sessions, inline feedback exactly once, no secret in a rule. Exit 2
when the binary has no `cm reflect` yet (everything before it is still checked and reported).

--reference calibrates the set instead: it adds each lesson's reference rule (the manifest's
`rule`, scoped to its workspace) and the inline marks by hand, without `cm reflect`. All 17
reach the top 3 that way, so a miss in a real run is the reflector's, not an unreachable task.

usage: bench/reflect_eval.py [--bin target/release/cm] [--check] [--per-session] [--reference]
                             [--self-check] [--keep DIR] [--now RFC3339|''] [--top 3]
"""
import argparse
import collections
import json
import os
import shutil
import sys
import tempfile
import zlib

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reflect_common import DEFAULT_BIN, FIXTURES, Cm, CmError, install_sessions, load_manifest  # noqa: E402
import reflect_fixture_check as fixture_check  # noqa: E402
import reflect_report as report  # noqa: E402

# Secrets that sit in the fixture sessions (the indexer redacts them); no rule may carry them.
SECRETS = ("harbor:harbor@",)
# The day after the newest fixture session: reflection and context see the sessions as recent.
DEFAULT_NOW = "2026-11-26T12:00:00Z"


def index_all(cm, manifest):
    """Index the installed sessions; return (report dict, problems)."""
    data = cm.data_of("history", "index")
    n = len(manifest["sessions"])
    problems = []
    if data.get("recordsSkipped", 0) != 0 or data.get("skippedFiles"):
        problems.append("history index skipped records: %s" % json.dumps(data.get("skippedFiles"))[:600])
    if data.get("errors"):
        problems.append("history index errors: %s" % json.dumps(data["errors"])[:600])
    if data.get("filesNew") != n:
        problems.append("history index saw %s new files, want %d" % (data.get("filesNew"), n))
    return data, problems


def reflect(cm, manifest, placed, per_session, reference=None):
    """One reflection pass; return (seconds, [reflect data objects])."""
    if reference:
        return reference_pass(cm, manifest, placed, reference) if reference != "done" else (0.0, [])
    if not per_session:
        took, out = cm.run("reflect")
        return took, [out.get("data") or {}]
    total, outs = 0.0, []
    for e in sorted(manifest["sessions"], key=lambda e: e["started"]):  # the order they happened
        took, out = cm.run("reflect", "--session", placed[e["file"]])
        total += took
        outs.append(out.get("data") or {})
    return total, outs


def reference_pass(cm, manifest, placed, tmp):
    """Calibration instead of `cm reflect`: the playbook changes an ideal reflector would make
    (each lesson's reference rule from the manifest, scoped to its workspace with its sessions
    as provenance, and each inline mark as `cm mark`). Shows that the later tasks reach their
    rules through `cm context`; says nothing about `cm reflect`."""
    bullets = []
    for lesson, group in fixture_check.lessons(manifest).items():
        bullets.append({"id": "b-%06x" % (zlib.crc32(lesson.encode()) & 0xFFFFFF), "content": group[0]["rule"],
                        "scope": "workspace", "scopeKey": group[0]["workspace"],
                        "sourceSessions": [placed[e["file"]] for e in group], "sourceAgents": ["claude"]})
    path = os.path.join(tmp, "reference-rules.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"bullets": bullets}, f)
    took, _ = cm.run("playbook", "import", path)
    for e in manifest["sessions"]:
        for fb in e.get("feedback") or []:
            took += cm.run("mark", fb["rule"], "--" + fb["type"], "--session", placed[e["file"]])[0]
    return took, [{"sessions": manifest["sessions"]}]


def allow_claude(cm):
    """Let reflection read Claude Code sessions where the binary asks for consent per agent
    (`privacy allow`); a binary without that command needs none. Returns what happened."""
    try:
        cm.run("privacy", "allow", "claude")
        return "allowed claude"
    except CmError as err:
        if err.is_unknown_command():
            return "no privacy command"
        return "privacy allow failed: %s" % err.message()


def sessions_reflected(outs):
    return sum(len(d.get("sessions") or []) for d in outs)


def fingerprint(bullets):
    """What a second reflection must not change: every rule's text, counts and events."""
    return {i: (b.get("content"), b.get("helpfulCount"), b.get("harmfulCount"),
                len(b.get("feedbackEvents") or []), b.get("deprecated"), b.get("maturity"))
            for i, b in bullets.items()}


def event_counts(bullet):
    """(helpful, harmful) events on a rule: its feedback events when listed, else its counts."""
    events = bullet.get("feedbackEvents")
    if isinstance(events, list) and (events or "helpfulCount" not in bullet):
        c = collections.Counter(ev.get("type") for ev in events)
        return c["helpful"], c["harmful"]
    return bullet.get("helpfulCount", 0), bullet.get("harmfulCount", 0)


def provenance_sessions(bullet, manifest):
    """Fixture files whose session the rule's provenance names (any field but its text)."""
    meta = json.dumps({k: v for k, v in bullet.items() if k != "content"})
    return {e["file"] for e in manifest["sessions"]
            if e["sessionId"] in meta or os.path.basename(e["file"])[:-6] in meta}


def matches(bullet, expect):
    return fixture_check.satisfied(expect, bullet.get("content") or "")


def evaluate(cm, manifest, before, after, top):
    added = {i: b for i, b in after.items() if i not in before}
    groups = fixture_check.lessons(manifest)
    free_files = {e["file"] for e in manifest["sessions"] if not e["kind"]}
    feedback_files = {e["file"] for e in manifest["sessions"] if e["kind"] == "e"}
    lesson_rows, claimed = [], set()
    for lesson, group in groups.items():
        first = group[0]
        files = {e["file"] for e in group}
        # A rule whose provenance names other fixture sessions only was learned elsewhere.
        found = [b for b in added.values() if matches(b, first["expect"])
                 and (provenance_sessions(b, manifest) & files or not provenance_sessions(b, manifest))]
        found.sort(key=lambda b: (not (provenance_sessions(b, manifest) & files), b["id"]))
        claimed.update(b["id"] for b in found)
        row = {"lesson": lesson, "kind": first["kind"], "sessions": len(group), "workspace": first["workspace"],
               "expect": first["expect"], "laterTask": first["later_task"], "learned": bool(found),
               "rules": [b["id"] for b in found], "rule": found[0]["content"] if found else None,
               "fromItsSessions": bool(found and provenance_sessions(found[0], manifest) & files),
               "rank": None, "top": []}
        ctx = cm.data_of("context", first["later_task"], "--workspace", first["workspace"])
        ranked = [b.get("id") for b in ctx.get("relevantBullets") or []]
        row["top"] = ranked[:top]
        ids = set(row["rules"])
        row["rank"] = next((n + 1 for n, i in enumerate(ranked) if i in ids), None)
        row["surfaced"] = row["rank"] is not None and row["rank"] <= top
        lesson_rows.append(row)

    from_free, from_feedback, off_target = [], [], []
    for b in added.values():
        names = provenance_sessions(b, manifest)
        item = {"id": b["id"], "content": b.get("content"), "sessions": sorted(names)}
        if names & free_files or (not names and b["id"] not in claimed):
            from_free.append(item)
        elif names and names <= feedback_files:
            from_feedback.append(item)
        elif b["id"] not in claimed:
            off_target.append(item)

    expected = collections.Counter()
    for e in manifest["sessions"]:
        for fb in e.get("feedback") or []:
            expected[(fb["rule"], fb["type"])] += fb["count"]
    feedback_rows = []
    for rule_id in sorted(set(before) | {rule for rule, _ in expected}):
        was, now = event_counts(before.get(rule_id, {})), event_counts(after.get(rule_id, {}))
        for n, kind in enumerate(("helpful", "harmful")):
            got = now[n] - was[n]
            want = expected.get((rule_id, kind), 0)
            if got or want:
                feedback_rows.append({"rule": rule_id, "type": kind, "want": want, "got": got, "ok": got == want})
    leaked = [{"id": b["id"], "content": b.get("content"), "sessions": sorted(provenance_sessions(b, manifest))}
              for b in after.values() if any(s in json.dumps(b) for s in SECRETS)]
    return {"lessons": lesson_rows, "added": len(added), "fromLessonFree": from_free, "secretsInRules": leaked,
            "fromFeedbackSessions": from_feedback, "offTarget": off_target, "feedback": feedback_rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=DEFAULT_BIN)
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--per-session", action="store_true", help="reflect with --session, one file at a time")
    ap.add_argument("--self-check", action="store_true", help="only check the fixture set against its manifest")
    ap.add_argument("--keep", help="work in this directory and keep it")
    ap.add_argument("--now", default=DEFAULT_NOW, help="CM_NOW for every command ('' for the real clock)")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--reference", action="store_true",
                    help="calibrate the set: add the manifest's reference rules and marks instead of running cm reflect")
    a = ap.parse_args()

    manifest = load_manifest()
    problems = fixture_check.check(manifest)
    shape = fixture_check.summary(manifest)
    print("fixture set: %(sessions)d sessions, %(lessons)d lessons in %(lessonSessions)d sessions, "
          "%(feedbackSessions)d inline-feedback sessions, %(lessonFree)d lesson-free; by kind %(byKind)s" % shape)
    if problems:
        print("fixture set is inconsistent:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    print("fixture self-check: ok")
    if a.self_check:
        return 0

    tmp = a.keep or tempfile.mkdtemp(prefix="cm-reflect-eval-")
    os.makedirs(tmp, exist_ok=True)
    try:
        cm = Cm(a.bin, tmp, now=a.now or None)
        cm.run("init")
        imported = cm.data_of("playbook", "import", os.path.join(FIXTURES, manifest["seedPlaybook"]))
        placed = install_sessions(cm.home, manifest["sessions"])
        indexed, problems = index_all(cm, manifest)
        print("history index: %s files, %s messages, %s records skipped, %s ms" % (
            indexed.get("filesNew"), indexed.get("messagesAdded"), indexed.get("recordsSkipped"),
            indexed.get("elapsedMs")))
        if problems:
            print("\n".join(problems), file=sys.stderr)
            return 1
        privacy = allow_claude(cm)
        before = cm.bullets()
        print("seed playbook: %d rules imported (%s)" % (len(before), imported.get("imported", imported.get("added", "?"))))
        try:
            took1, outs1 = reflect(cm, manifest, placed, a.per_session, tmp if a.reference else None)
        except CmError as err:
            if err.is_unknown_command():
                print("cm reflect is not in this binary (%s): %s\nEverything before it passed; "
                      "build a cm with `cm reflect` to evaluate." % (cm.binary, err.message()), file=sys.stderr)
                return 2
            raise
        after = cm.bullets()
        took2, outs2 = reflect(cm, manifest, placed, a.per_session, "done" if a.reference else None)
        again = cm.bullets()
        result = evaluate(cm, manifest, before, after, a.top)
        mode = "reference rules (no cm reflect)" if a.reference else "per-session" if a.per_session else "all"
        result["runs"] = {"mode": mode, "firstSeconds": round(took1, 3),
                          "secondSeconds": round(took2, 3), "sessionsReflected": sessions_reflected(outs1),
                          "sessionsExpected": len(manifest["sessions"]),
                          "sessionsReflectedAgain": sessions_reflected(outs2),
                          "secondRunUnchanged": fingerprint(again) == fingerprint(after),
                          "privacy": privacy, "degraded": [d.get("degraded") for d in outs1 if d.get("degraded")][:3]}
        summary = report.summarise(result, shape, a.top)
        report.print_tables(result, a.top)
        print(json.dumps(summary, indent=2))
        return 1 if a.check and not summary["targetsMet"] else 0
    except CmError as err:
        print(str(err), file=sys.stderr)
        return 1
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
