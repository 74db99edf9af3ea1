"""Loads and validates the paraphrase suite (tests/fixtures/paraphrase), for
bench/paraphrase_eval.py.

`problems(projects)` lists every violation: the structure of each project.json, the sizes the
suite promises (per set: projects, triples; per project: 2 to 5 sessions), the word rules (a
follow-up task shares at most one content word with its rule, takes no six-word run from the
rule's session, and shares at least two content words with that session, so it resembles the
situation the rule came from), and the session files (JSON lines, Claude Code records with the
fields cm reads, one session id per file, the project's cwd, up to date with their scenarios).
"""
import importlib.util
import json
import os

from paraphrase_words import content_stems, copied_phrase, shared_content
from reflect_common import ROOT, session_text

SUITE = os.path.join(ROOT, "tests", "fixtures", "paraphrase")
SETS = ("dev", "heldout")
MINIMUM = {"dev": (8, 40), "heldout": (3, 12), "dev2": (6, 30), "heldout2": (12, 65), "heldout3": (12, 65), "heldout4": (12, 65)}  # projects, triples
CATEGORIES = ("debugging", "testing", "architecture", "workflow", "documentation", "integration",
              "collaboration", "git", "security", "performance", "general")
TRIPLE_KEYS = ("id", "rule", "category", "session", "task", "unrelated")
MAX_SHARED_WITH_RULE = 1
MIN_SHARED_WITH_SESSION = 2
ENVELOPE = ("parentUuid", "isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch",
            "uuid", "timestamp")


def load(sets, suite=SUITE):
    """[project] for the named sets of a suite: project.json's fields plus `set` and `dir`."""
    out = []
    for s in sets:
        root = os.path.join(suite, s)
        for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
            path = os.path.join(root, name, "project.json")
            if not os.path.isfile(path):
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    project = json.load(f)
                if not isinstance(project, dict):
                    raise ValueError("not a JSON object")
            except ValueError as e:
                project = {"loadError": "%s: %s" % (os.path.relpath(path, ROOT), e)}
            project.update(set=s, dir=os.path.dirname(path))
            out.append(project)
    return out


def triples_of(project):
    t = project.get("triples")
    return [x for x in t if isinstance(x, dict)] if isinstance(t, list) else []


def session_files(project):
    return sorted(f for f in os.listdir(project["dir"]) if f.endswith(".jsonl"))


def session_problems(path, cwd):
    """What keeps one file from being a Claude Code session cm indexes whole; and its id."""
    bad, ids, prompts = [], set(), 0
    rel = os.path.relpath(path, ROOT)
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                rec = json.loads(line)
            except ValueError as e:
                bad.append("%s:%d: not JSON (%s)" % (rel, n, e))
                continue
            kind = rec.get("type")
            if kind not in ("user", "assistant"):
                if kind not in ("summary", "file-history-snapshot"):
                    bad.append("%s:%d: unexpected record type %r" % (rel, n, kind))
                continue
            missing = [k for k in ENVELOPE if k not in rec]
            msg = rec.get("message")
            if missing or not isinstance(msg, dict) or msg.get("role") != kind or "content" not in msg:
                bad.append("%s:%d: %s record lacks %s" % (rel, n, kind, ", ".join(missing) or "a message"))
                continue
            if rec["cwd"] != cwd:
                bad.append("%s:%d: cwd %s, the project's is %s" % (rel, n, rec["cwd"], cwd))
            ids.add(rec["sessionId"])
            prompts += kind == "user" and isinstance(msg["content"], str)
    if len(ids) != 1:
        bad.append("%s: %d session ids, want 1" % (rel, len(ids)))
    if not prompts:
        bad.append("%s: no user prompt" % rel)
    return bad, next(iter(ids), None)


def triple_problems(project, t, texts):
    where = "%s/%s %s" % (project["set"], project.get("name"), t.get("id"))
    missing = [k for k in TRIPLE_KEYS if not isinstance(t.get(k), str) or not t.get(k).strip()]
    if missing:
        return ["%s: missing or empty %s" % (where, ", ".join(missing))]
    bad = []
    if t["category"] not in CATEGORIES:
        bad.append("%s: category %r is not built in" % (where, t["category"]))
    if t["session"] not in texts:
        return bad + ["%s: session %s is not a file of the project" % (where, t["session"])]
    shared = shared_content(t["rule"], t["task"])
    if len(shared) > MAX_SHARED_WITH_RULE:
        bad.append("%s: the task shares %d content words with the rule (%s), at most %d allowed"
                   % (where, len(shared), ", ".join(shared), MAX_SHARED_WITH_RULE))
    session = texts[t["session"]]
    copied = copied_phrase(t["task"], session)
    if copied:
        bad.append("%s: the task copies %r from its session" % (where, copied))
    resembles = content_stems(t["task"]) & content_stems(session)
    if len(resembles) < MIN_SHARED_WITH_SESSION:
        bad.append("%s: the task shares %d content words with its session (%s), at least %d wanted"
                   % (where, len(resembles), ", ".join(sorted(resembles)), MIN_SHARED_WITH_SESSION))
    if content_stems(t["task"]) == content_stems(t["unrelated"]):
        bad.append("%s: the unrelated task says the same as the follow-up" % where)
    return bad


def problems(projects, sets, suite=SUITE):
    bad, seen_ids, seen_sessions, seen_names = [], {}, {}, {}
    # Every suite is built by the paraphrase suite's builder, told which sets to look at.
    spec = importlib.util.spec_from_file_location("paraphrase_build", os.path.join(SUITE, "build.py"))
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    builder.SETS = tuple(sets)
    bad += ["%s: stale, run tests/fixtures/paraphrase/build.py" % p
            for p in builder.stale_files(suite)]
    for s in sets:
        mine = [p for p in projects if p["set"] == s]
        want_p, want_t = MINIMUM[s]
        n_triples = sum(len(triples_of(p)) for p in mine)
        if len(mine) < want_p or n_triples < want_t:
            bad.append("%s: %d projects and %d triples, at least %d and %d wanted" % (s, len(mine), n_triples, want_p, want_t))
        if not any(set(session_files(p)) - {t.get("session") for t in triples_of(p)} for p in mine):
            bad.append("%s: no session without a lesson (noise)" % s)
    for p in projects:
        where = "%s/%s" % (p["set"], os.path.basename(p["dir"]))
        if "loadError" in p:
            bad.append(p["loadError"])
            continue
        if p.get("name") != os.path.basename(p["dir"]):
            bad.append("%s: name %r differs from its directory" % (where, p.get("name")))
        if not isinstance(p.get("cwd"), str) or not p["cwd"].startswith("/"):
            bad.append("%s: cwd must be an absolute path" % where)
            continue
        for key, value in (("name", p.get("name")), ("cwd", p["cwd"])):
            if (key, value) in seen_names:
                bad.append("%s: %s %s is also %s's" % (where, key, value, seen_names[(key, value)]))
            seen_names[(key, value)] = where
        files = session_files(p)
        if not 2 <= len(files) <= 5:
            bad.append("%s: %d sessions, 2 to 5 wanted" % (where, len(files)))
        texts = {}
        for f in files:
            path = os.path.join(p["dir"], f)
            found, sid = session_problems(path, p["cwd"])
            bad += found
            if sid in seen_sessions:
                bad.append("%s/%s: session id %s is also %s's" % (where, f, sid, seen_sessions[sid]))
            seen_sessions[sid] = "%s/%s" % (where, f)
            texts[f] = session_text(path) if not found else ""
        if not isinstance(p.get("triples"), list) or not p["triples"]:
            bad.append("%s: no triples" % where)
            continue
        for t in p["triples"]:
            if not isinstance(t, dict):
                bad.append("%s: a triple is not an object" % where)
                continue
            if t.get("id") in seen_ids:
                bad.append("%s: id %s is also %s's" % (where, t.get("id"), seen_ids[t.get("id")]))
            seen_ids[t.get("id")] = where
            bad += triple_problems(p, t, texts)
    return bad


def summary(projects):
    """Counts per set, and how many content words each task shares with its rule and session."""
    out = {}
    for p in projects:
        s = out.setdefault(p["set"], {"projects": 0, "triples": 0, "sessions": 0, "noiseSessions": 0,
                                      "sharedWithRule": {}})
        s["projects"] += 1
        s["triples"] += len(p["triples"])
        files = session_files(p)
        s["sessions"] += len(files)
        s["noiseSessions"] += len(set(files) - {t["session"] for t in p["triples"]})
        for t in p["triples"]:
            k = str(len(shared_content(t["rule"], t["task"])))
            s["sharedWithRule"][k] = s["sharedWithRule"].get(k, 0) + 1
    return out
