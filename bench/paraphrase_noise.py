"""Noise rules for bench/paraphrase_eval.py --noise N: rules no triple is about, so the suite's
rules compete with a playbook of realistic size.

The first ones are the starter playbooks' rules (what `cm init --starter NAME` seeds, read back
from a scratch store), the rest come from bench/gen_rules.py (deterministic). They are written
as `cm playbook add --file` batches.
"""
import json
import os
import subprocess
import sys

from reflect_common import ROOT, Cm


def starter_rules(binary, tmp):
    scratch = Cm(binary, os.path.join(tmp, "starters"))
    names = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "starters")) if f.endswith(".yaml"))
    for name in names:
        scratch.data_of("init", "--starter", name)
    rules = [{"content": b["content"], "category": b["category"], "tags": b.get("tags") or []}
             for b in scratch.bullets().values()]
    return sorted(rules, key=lambda r: r["content"])


def noise_rules(cm, tmp, n):
    """Paths of JSON files holding n noise rules in all (none when n is 0)."""
    if n <= 0:
        return []
    rules = starter_rules(cm.binary, tmp)[:n]
    if len(rules) < n:
        gen = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_rules.py"), str(n - len(rules))],
                             capture_output=True, text=True, check=True)
        rules += json.loads(gen.stdout)
    path = os.path.join(tmp, "noise-rules.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(rules, f)
    return [path]
