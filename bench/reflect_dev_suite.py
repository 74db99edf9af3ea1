#!/usr/bin/env python3
"""The reflection development corpus as a paraphrase suite, so `bench/paraphrase_eval.py` can
score recall on its follow-up and unrelated tasks (issue 25).

`../shared/data/reflect-dev/key.jsonl` gives, for each lesson, the session(s) it was learned
from, the ideal rule (`lesson`), a later task where it matters (`followup_task`, worded about the
goal) and an unrelated task in the same project. This writes `OUT/dev/<project>/project.json`
(one triple per lesson: the rule cites its first session) beside a copy of every session of the
project, the layout `paraphrase_eval.py --suite OUT --set dev` reads. Lesson-free sessions are
copied too (they are the project's other history). It is a development set.

usage: bench/reflect_dev_suite.py OUT [--data ../shared/data/reflect-dev]
"""
import argparse
import json
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(data, out):
    projects_dir = os.path.join(data, "home", ".claude", "projects")
    with open(os.path.join(data, "key.jsonl"), encoding="utf-8") as f:
        key = [json.loads(line) for line in f if line.strip()]
    shutil.rmtree(os.path.join(out, "dev"), ignore_errors=True)
    projects = {}
    for row in key:
        slug = row["sessions"][0].split("/")[0]
        p = projects.setdefault(row["project"], {"slug": slug, "triples": []})
        if row["kind"] == "none" or not row.get("followup_task"):
            continue
        p["triples"].append({
            "id": row["id"], "rule": row["lesson"], "category": "general",
            "session": os.path.basename(row["sessions"][0]),
            "task": row["followup_task"], "unrelated": row["unrelated_task"]})
    for name, p in sorted(projects.items()):
        src = os.path.join(projects_dir, p["slug"])
        dest = os.path.join(out, "dev", name)
        os.makedirs(dest)
        cwd = None
        for f in sorted(os.listdir(src)):
            if f.endswith(".jsonl"):
                shutil.copyfile(os.path.join(src, f), os.path.join(dest, f))
                if cwd is None:
                    with open(os.path.join(src, f), encoding="utf-8") as s:
                        cwd = next(json.loads(l)["cwd"] for l in s if '"cwd"' in l)
        with open(os.path.join(dest, "project.json"), "w", encoding="utf-8") as f:
            json.dump({"name": name, "cwd": cwd, "stack": "", "triples": p["triples"]}, f, indent=1)
    return sum(len(p["triples"]) for p in projects.values()), len(projects)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "reflect-dev"))
    a = ap.parse_args()
    triples, projects = build(a.data, a.out)
    print("%d triples in %d projects under %s/dev" % (triples, projects, a.out))


if __name__ == "__main__":
    main()
