#!/usr/bin/env python3
"""Retrieval quality of `cm history search` on LoCoMo conversations: recall@5 and recall@10.

Each conversation session becomes one Claude Code transcript
(`~/.claude/projects/-home-u-locomo-<conv>/<uuid>.jsonl`): one line per turn, the first speaker as
`user`, the second as `assistant`, text written as "<speaker>: <text>" (with the shared photo's
caption appended when a turn has one), timestamps from the session's date, 30 s apart. The
files are indexed with `cm history index` in a temp data dir; every question (categories 1-4;
5 is adversarial, with no answer in the conversation) is asked with
`cm history search QUESTION --json --limit 10 --workspace /home/u/locomo-<conv>`. A question
counts as found at k when one of its evidence turns (dia_id -> file + line) is among the first
k hits.

With `--mix N` the conversations are indexed first and then about N generated messages
(bench/gen_corpus.py, fixed seed) on top, so they are the oldest part of a large index: the worst
case for a ranking that bounds its work by recency. `--modes` runs the questions once per ranking
mode on the same index: `bounded` (the default search), `exhaustive` (`--exhaustive`: every match
scored), and either with `-bm25` appended for BM25 alone (`--no-coverage`).

usage: bench/locomo_eval.py [--data /work/shared/data/locomo] [--bin target/release/cm]
                            [--markdown] [--misses N] [--no-speaker]
                            [--mix 250000] [--modes bounded,exhaustive]
"""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def session_time(s):
    # "1:56 pm on 8 May, 2023"
    return datetime.datetime.strptime(s.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=datetime.timezone.utc)


def write_conversation(home, conv_id, conv, speaker=True):
    cwd = "/home/u/locomo-%s" % conv_id
    proj = os.path.join(home, ".claude", "projects", cwd.replace("/", "-"))
    os.makedirs(proj, exist_ok=True)
    where = {}  # dia_id -> (path, line)
    a, b = conv["speaker_a"], conv["speaker_b"]
    n = 1
    while "session_%d" % n in conv:
        turns = conv["session_%d" % n]
        t0 = session_time(conv["session_%d_date_time" % n])
        sid = str(uuid.UUID(int=(int(conv_id) << 64) + n, version=4))
        path = os.path.join(proj, sid + ".jsonl")
        parent = None
        with open(path, "w") as f:
            for i, turn in enumerate(turns):
                text = "%s: %s" % (turn["speaker"], turn["text"]) if speaker else turn["text"]
                if turn.get("blip_caption"):
                    text += " [shares a photo: %s]" % turn["blip_caption"]
                ts = (t0 + datetime.timedelta(seconds=30 * i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
                u = str(uuid.UUID(int=(int(conv_id) << 80) + (n << 16) + i, version=4))
                env = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd,
                       "sessionId": sid, "version": "2.1.19", "gitBranch": "main", "uuid": u, "timestamp": ts}
                if turn["speaker"] == a:
                    env.update(type="user", message={"role": "user", "content": text})
                else:
                    env.update(type="assistant", message={
                        "id": "msg_%d_%d" % (n, i), "type": "message", "role": "assistant",
                        "model": "locomo", "content": [{"type": "text", "text": text}],
                        "stop_reason": "end_turn", "stop_sequence": None,
                        "usage": {"input_tokens": 1, "output_tokens": 1}})
                f.write(json.dumps(env) + "\n")
                where[turn["dia_id"]] = (path, i + 1)
                parent = u
        n += 1
    return cwd, where


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "locomo"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "cm"))
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--misses", type=int, default=0, help="print this many missed questions")
    ap.add_argument("--no-speaker", action="store_true", help="do not prefix turns with the speaker's name")
    ap.add_argument("--mix", type=int, default=0, help="index about this many generated messages after the conversations")
    ap.add_argument("--modes", default="bounded", help="comma-separated: bounded, exhaustive, bounded-bm25, exhaustive-bm25, "
                    "or any of them with +lexical (none of the layers below), +no-neighbours, +no-expand, +no-session-prior, +no-feedback or +no-dates (several may be joined with +)")
    ap.add_argument("--per-conv", action="store_true", help="also report recall per conversation (tuning on one, holding out the others)")
    a = ap.parse_args()
    modes = [m.strip() for m in a.modes.split(",") if m.strip()]
    for m in modes:
        base, _, extra = m.partition("+")
        if base not in ("bounded", "exhaustive", "bounded-bm25", "exhaustive-bm25") or \
                any(x not in ("", "lexical", "no-neighbours", "no-expand", "no-session-prior", "no-feedback", "no-dates")
                    for x in extra.split("+")):
            sys.exit("unknown mode: " + m)
    cm = os.path.abspath(a.bin)
    tmp = tempfile.mkdtemp(prefix="cm-locomo-")
    try:
        home, data = os.path.join(tmp, "home"), os.path.join(tmp, "data")
        env = dict(os.environ, HOME=home, CASS_MEMORY_HOME=data, NO_COLOR="1")
        env.pop("CLAUDE_CONFIG_DIR", None)
        convs = []
        for name in sorted(os.listdir(a.data)):
            if not name.endswith(".json"):
                continue
            doc = json.load(open(os.path.join(a.data, name)))
            conv = doc.get("conversation", doc)
            cwd, where = write_conversation(home, name[:-5], conv, not a.no_speaker)
            convs.append((name[:-5], cwd, where, doc["qa"]))
        out = subprocess.run([cm, "history", "index", "--json"], env=env, capture_output=True, check=True)
        indexed = json.loads(out.stdout)["data"]["messagesAdded"]
        mixed = 0
        if a.mix:
            gen_home = os.path.join(tmp, "gen")
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_corpus.py"), gen_home,
                            "--records", str(int(a.mix * 0.84))], check=True, capture_output=True)
            for sub in (".claude", ".codex"):
                src = os.path.join(gen_home, sub)
                for root, _, files in os.walk(src):
                    rel = os.path.relpath(root, gen_home)
                    os.makedirs(os.path.join(home, rel), exist_ok=True)
                    for f in files:
                        os.rename(os.path.join(root, f), os.path.join(home, rel, f))
            out = subprocess.run([cm, "history", "index", "--json"], env=env, capture_output=True, check=True)
            mixed = json.loads(out.stdout)["data"]["messagesAdded"]
        print("indexed %d turns from %d conversations%s" % (
            indexed, len(convs), ", then %d generated messages" % mixed if mixed else ""))
        for mode in modes:
            evaluate(cm, env, convs, mode, a)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def evaluate(cm, env, convs, mode, a):
    flags = []
    base, _, extra = mode.partition("+")
    if base.startswith("exhaustive"):
        flags.append("--exhaustive")
    if base.endswith("-bm25"):
        flags.append("--no-coverage")
    extra = extra.split("+")
    if "lexical" in extra or "no-neighbours" in extra:
        flags.append("--no-neighbours")
    if "lexical" in extra or "no-expand" in extra:
        flags.append("--no-expand")
    if "lexical" in extra or "no-session-prior" in extra:
        flags.append("--no-session-prior")
    if "lexical" in extra or "no-feedback" in extra:
        flags.append("--no-feedback")
    if "lexical" in extra or "no-dates" in extra:
        flags.append("--no-dates")
    stats = {c: {"n": 0, 5: 0, 10: 0} for c in CATEGORIES}
    per_conv = {}
    misses = []
    for conv_id, cwd, where, qa in convs:
        for q in qa:
            cat = q.get("category")
            if cat not in CATEGORIES:
                continue
            evidence = {where[e] for e in q.get("evidence", []) if e in where}
            if not evidence:
                continue
            r = subprocess.run([cm, "history", "search", "--json", "--limit", "10", "--workspace", cwd]
                               + flags + ["--", q["question"]], env=env, capture_output=True, check=True)
            hits = json.loads(r.stdout)["data"]["hits"]
            ranks = [i for i, h in enumerate(hits) if (h["source_path"], h["line_number"]) in evidence]
            first = ranks[0] if ranks else None
            stats[cat]["n"] += 1
            pc = per_conv.setdefault(conv_id, {"n": 0, 5: 0, 10: 0})
            pc["n"] += 1
            for k in (5, 10):
                if first is not None and first < k:
                    stats[cat][k] += 1
                    pc[k] += 1
            if first is None:
                misses.append((conv_id, q["question"], q.get("evidence")))
    rows = []
    tot = {"n": 0, 5: 0, 10: 0}
    for c, name in CATEGORIES.items():
        s = stats[c]
        for k in tot:
            tot[k] += s[k]
        rows.append((name, s["n"], s[5] / max(1, s["n"]), s[10] / max(1, s["n"])))
    rows.append(("all (1-4)", tot["n"], tot[5] / max(1, tot["n"]), tot[10] / max(1, tot["n"])))
    print("mode: %s" % mode)
    if a.markdown:
        print("| category | questions | recall@5 | recall@10 |\n|---|---:|---:|---:|")
        for name, n, r5, r10 in rows:
            print("| %s | %d | %.3f | %.3f |" % (name, n, r5, r10))
    else:
        for name, n, r5, r10 in rows:
            print("%-12s n=%4d  recall@5=%.3f  recall@10=%.3f" % (name, n, r5, r10))
    if a.per_conv:
        for conv_id, s in sorted(per_conv.items()):
            print("conversation %s: n=%d recall@5=%.3f recall@10=%.3f" % (
                conv_id, s["n"], s[5] / max(1, s["n"]), s[10] / max(1, s["n"])))
    for m in misses[: a.misses]:
        print("miss:", m)


if __name__ == "__main__":
    main()
