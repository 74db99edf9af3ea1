#!/usr/bin/env python3
"""Per-family figures for the guard's evasion corpus (tests/fixtures/guard/evasion.txt).

Each command is decided by the real binary, `cm guard check --json CMD`, run in a throwaway HOME
with a project directory as its working directory (the same decision the pre-tool hook makes for
a payload with that `cwd`). Prints, per family, how many destructive commands were blocked (or
safe commands allowed), then the commands that went the wrong way.

Usage: bench/guard_corpus.py PATH/TO/cm [CORPUS]   (bench/guard_corpus.sh builds and calls this)
"""
import json
import os
import subprocess
import sys
import tempfile


def families(path):
    out = []
    block = None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if block is not None:
            if line == ">>>":
                out[-1][2].append("\n".join(block))
                block = None
            else:
                block.append(line)
        elif line == "<<<":
            block = []
        elif line.startswith("# family: "):
            out.append((line[len("# family: "):], True, []))
        elif line.startswith("# safe: "):
            out.append((line[len("# safe: "):], False, []))
        elif line.strip() and not line.startswith("#"):
            out[-1][2].append(line)
    return out


def main():
    cm = os.path.abspath(sys.argv[1])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "tests/fixtures/guard/evasion.txt")
    tmp = tempfile.mkdtemp(prefix="cm-guard-corpus-")
    home = os.path.join(tmp, "home")
    project = os.path.join(home, "work", "app")
    os.makedirs(os.path.join(project, ".git"))
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "CASS_MEMORY_HOME": os.path.join(tmp, "data"),
           "CM_NOW": "2026-06-01T00:00:00Z"}
    rows, wrong = [], []
    tot_d = tot_b = tot_s = tot_fb = 0
    for name, dangerous, cmds in families(corpus):
        denied = 0
        for c in cmds:
            r = subprocess.run([cm, "guard", "check", "--json", c], cwd=project, env=env,
                               capture_output=True, text=True)
            decision = json.loads(r.stdout)["data"]["decision"]
            deny = decision == "deny"
            denied += deny
            if deny != dangerous:
                wrong.append(f"  [{name}] {'allowed' if dangerous else 'BLOCKED'}: {c!r}")
        if dangerous:
            tot_d += len(cmds)
            tot_b += denied
            rows.append((name, "destructive", len(cmds), denied, 100.0 * denied / len(cmds)))
        else:
            tot_s += len(cmds)
            tot_fb += denied
            rows.append((name, "safe", len(cmds), denied, 100.0 * (len(cmds) - denied) / len(cmds)))
    print(f"{'family':<14} {'kind':<12} {'commands':>8} {'blocked':>8} {'correct':>8}")
    for name, kind, n, b, pct in rows:
        print(f"{name:<14} {kind:<12} {n:>8} {b:>8} {pct:>7.1f}%")
    print(f"{'all':<14} {'destructive':<12} {tot_d:>8} {tot_b:>8} {100.0 * tot_b / tot_d:>7.1f}%")
    print(f"{'all':<14} {'safe':<12} {tot_s:>8} {tot_fb:>8} {100.0 * (tot_s - tot_fb) / tot_s:>7.1f}%")
    if wrong:
        print("\nwent the wrong way:")
        print("\n".join(wrong))
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
