"""Self-check of the reflection fixture set (tests/fixtures/reflect): the manifest against the
session files, before anything is run. Used by bench/reflect_eval.py (`--self-check` alone runs
only this).

What it holds the set to:
- every session file is listed once and every listed file exists; 15-80 records each, every
  line JSON, the envelope's sessionId and cwd those of the manifest;
- >= 20 sessions with a lesson or inline feedback, >= 3 lessons of each kind (a-e), >= 10
  lesson-free sessions; sessions of one kind-d lesson (the same error in several sessions) share
  a workspace, a rule, `expect` and `later_task`, and there are at least two of them;
- each `expect` item (a phrase, or a list of phrases any one of which will do) occurs in the
  text of every session of its lesson (a reflector reading the session can find it), and
  `later_task` shares none of the expect words (whole words, nor
  the pieces of a word such as `tidepool` in `tidepool/queries`, after light stemming);
- each inline feedback names a rule of the seed playbook and the session really says so
  (`[cass: helpful ID]`, `[cass: harmful ID]`, or `Following ID` for helpful).
"""
import collections
import json
import os
import re

from reflect_common import FIXTURES, session_text

LESSON_KINDS = ("a", "b", "c", "d")


def stem(word):
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + repl
    return word


def words(text):
    """Whole words (whitespace-separated, outer punctuation stripped) and their alphanumeric
    pieces of two or more characters, all lowercased and stemmed."""
    out = set()
    for token in text.lower().split():
        token = token.strip(".,;:!?\"'()[]{}")
        if token:
            out.add(stem(token))
        out.update(stem(p) for p in re.findall(r"[a-z0-9]+", token) if len(p) >= 2)
    return out


def alternatives(item):
    """An `expect` item is one phrase or a list of phrases, any of which satisfies it."""
    return item if isinstance(item, list) else [item]


def satisfied(expect, text):
    """Every expect item has a phrase in `text` (case-insensitive)."""
    text = text.lower()
    return all(any(p.lower() in text for p in alternatives(item)) for item in expect)


def lessons(manifest):
    """{lesson id: [entries]} for kinds a-d, in manifest order."""
    groups = collections.OrderedDict()
    for e in manifest["sessions"]:
        if e["kind"] in LESSON_KINDS:
            groups.setdefault(e["lesson"], []).append(e)
    return groups


def check(manifest):
    """Problems found, as sentences (empty: the set is consistent)."""
    problems = []
    entries = manifest["sessions"]
    listed = [e["file"] for e in entries]
    on_disk = sorted("sessions/" + f for f in os.listdir(os.path.join(FIXTURES, "sessions")) if f.endswith(".jsonl"))
    for f in sorted(set(on_disk) - set(listed)):
        problems.append("%s is not in manifest.json" % f)
    for f in sorted(set(listed) - set(on_disk)):
        problems.append("manifest.json lists %s, which does not exist" % f)
    for f, n in collections.Counter(listed).items():
        if n > 1:
            problems.append("%s is listed %d times" % (f, n))
    ids = collections.Counter(e["sessionId"] for e in entries)
    problems += ["session id %s is used by %d files" % (i, n) for i, n in ids.items() if n > 1]

    texts = {}
    for e in entries:
        path = os.path.join(FIXTURES, e["file"])
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        if len(lines) != e["records"]:
            problems.append("%s has %d records, the manifest says %d (run build.py)" % (e["file"], len(lines), e["records"]))
        if not 15 <= len(lines) <= 80:
            problems.append("%s has %d records (want 15-80)" % (e["file"], len(lines)))
        for n, line in enumerate(lines, 1):
            try:
                rec = json.loads(line)
            except ValueError as err:
                problems.append("%s:%d is not JSON: %s" % (e["file"], n, err))
                continue
            if rec.get("type") in ("user", "assistant"):
                if rec.get("sessionId") != e["sessionId"] or rec.get("cwd") != e["workspace"]:
                    problems.append("%s:%d: sessionId/cwd differ from the manifest" % (e["file"], n))
        texts[e["file"]] = session_text(path).lower()

    kinds = collections.Counter()
    for lesson, group in lessons(manifest).items():
        kinds[group[0]["kind"]] += 1
        first = group[0]
        for e in group[1:]:
            for key in ("kind", "workspace", "rule", "expect", "later_task"):
                if e[key] != first[key]:
                    problems.append("lesson %s: %s differs between %s and %s" % (lesson, key, first["file"], e["file"]))
        if first["kind"] == "d" and len(group) < 2:
            problems.append("lesson %s (kind d) has %d session; the same error needs 2 or more" % (lesson, len(group)))
        if first["kind"] != "d" and len(group) > 1:
            problems.append("lesson %s (kind %s) spans %d sessions" % (lesson, first["kind"], len(group)))
        if not first["expect"]:
            problems.append("lesson %s has no expect words" % lesson)
        for e in group:
            for item in e["expect"]:
                if not satisfied([item], texts.get(e["file"], "")):
                    problems.append("%s: expect phrase %r is not in the session's text" % (e["file"], item))
        shared = words(" ".join(p for item in first["expect"] for p in alternatives(item))) & words(first["later_task"])
        if shared:
            problems.append("lesson %s: later_task shares expect words %s" % (lesson, sorted(shared)))

    with open(os.path.join(FIXTURES, manifest["seedPlaybook"]), encoding="utf-8") as fh:
        seed_ids = {b["id"] for b in json.load(fh)["bullets"]}
    feedback_sessions = [e for e in entries if e["kind"] == "e"]
    kinds["e"] = len(feedback_sessions)
    for e in feedback_sessions:
        for fb in e["feedback"]:
            if fb["rule"] not in seed_ids:
                problems.append("%s: feedback on %s, which the seed playbook lacks" % (e["file"], fb["rule"]))
            said = "[cass: %s %s]" % (fb["type"], fb["rule"]) in texts.get(e["file"], "") or (
                fb["type"] == "helpful" and ("following %s" % fb["rule"]) in texts.get(e["file"], ""))
            if not said:
                problems.append("%s: the session never marks %s %s" % (e["file"], fb["rule"], fb["type"]))
    for kind in LESSON_KINDS + ("e",):
        if kinds[kind] < 3:
            problems.append("only %d lessons of kind %s (want >= 3)" % (kinds[kind], kind))
    with_lesson = sum(1 for e in entries if e["kind"])
    free = sum(1 for e in entries if not e["kind"])
    if with_lesson < 20:
        problems.append("only %d sessions with a lesson (want >= 20)" % with_lesson)
    if free < 10:
        problems.append("only %d lesson-free sessions (want >= 10)" % free)
    return problems


def summary(manifest):
    groups = lessons(manifest)
    kinds = collections.Counter(g[0]["kind"] for g in groups.values())
    kinds["e"] = sum(1 for e in manifest["sessions"] if e["kind"] == "e")
    return {"sessions": len(manifest["sessions"]), "lessons": len(groups),
            "lessonSessions": sum(len(g) for g in groups.values()),
            "feedbackSessions": kinds["e"], "lessonFree": sum(1 for e in manifest["sessions"] if not e["kind"]),
            "byKind": dict(sorted(kinds.items()))}
