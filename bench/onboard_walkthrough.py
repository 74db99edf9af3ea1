#!/usr/bin/env python3
"""The onboarding walkthrough of docs/onboarding.md, run for real: a fresh HOME holding 20 past
sessions of three agents (16 Claude Code sessions from tests/fixtures/reflect, 2 Codex rollouts
and 2 Gemini CLI chats from tests/fixtures/episodic), an installed cm, then the loop an agent
runs: status, gaps, sample --fill-gaps, read --template, write the rules it extracted with
`cm playbook add --file F --session PATH`, mark-done, until the playbook holds >= 10 rules.

The "agent" here writes the rule a reader of each session would (for the Claude sessions the
fixture manifest's reference rule; for the others one per session, below): cm makes no LLM call
on this path, and the script shows what every step printed.

Usage: bench/onboard_walkthrough.py [--bin PATH] [--install] [--check] [--quiet]
  --install   build and install with ./install.sh --dest into the throwaway home (slow: a
              release build); default: use --bin (target/release/cm)
  --check     exit 1 unless the playbook ends with >= 10 rules credited to sessions of all
              three agents
"""

import argparse, json, os, shutil, subprocess, sys, tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
FIX = os.path.join(REPO, "tests", "fixtures")

# What an agent reading the non-Claude sessions would write (one rule per session).
OTHER_RULES = {
    "codex": [
        {"content": "Run the test suite with `cargo test` before reporting a change as done in /home/u/proj.", "category": "testing", "tags": ["rust"]},
        {"content": "Check `git status` for stray build output before committing in /home/u/proj.", "category": "git", "tags": ["git"]},
    ],
    "gemini": [
        {"content": "Run `npm test -- --ci` (never watch mode) in CI so Jest exits after the run.", "category": "testing", "tags": ["jest", "ci"]},
        {"content": "When Jest does not exit after the run in CI, look for open handles with `npm test -- --detectOpenHandles`.", "category": "debugging", "tags": ["jest"]},
    ],
}


def build_home(home):
    """20 sessions: 16 Claude Code, 2 Codex, 2 Gemini CLI."""
    manifest = json.load(open(os.path.join(FIX, "reflect", "manifest.json")))
    claude = [s for s in manifest["sessions"] if s.get("rule")][:16]
    rules = {}
    for s in claude:
        d = os.path.join(home, ".claude", "projects", s["workspace"].replace("/", "-"))
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(FIX, "reflect", s["file"]), os.path.join(d, s["sessionId"] + ".jsonl"))
        rules[s["sessionId"]] = [{"content": s["rule"], "category": category_of(s), "tags": [s["project"]]}]
    codex_src = os.path.join(FIX, "episodic", "codex", ".codex")
    shutil.copytree(codex_src, os.path.join(home, ".codex"))
    gem_src = os.path.join(FIX, "episodic", "gemini", ".gemini")
    shutil.copytree(gem_src, os.path.join(home, ".gemini"))
    # The broken chat of the fixture stays out; a second, well-formed one joins the first.
    for root, _, files in os.walk(os.path.join(home, ".gemini")):
        for f in files:
            if "broken" in f:
                os.remove(os.path.join(root, f))
            elif f.startswith("session-") and f.endswith(".json"):
                doc = json.load(open(os.path.join(root, f)))
                doc["sessionId"] = "7c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
                doc["startTime"] = doc["lastUpdated"] = "2026-08-14T09:00:00.000Z"
                json.dump(doc, open(os.path.join(root, "session-2026-08-14T09-00-7c2d3e4f.json"), "w"))
    return rules


def category_of(s):
    r = s["rule"].lower()
    for word, cat in [("test", "testing"), ("commit", "git"), ("lint", "workflow"), ("error", "debugging"), ("log", "debugging"), ("flag", "workflow")]:
        if word in r:
            return cat
    return "architecture"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(REPO, "target", "release", "cm"))
    ap.add_argument("--install", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="cm-onboard-")
    home = os.path.join(root, "home")
    os.makedirs(home)
    env = dict(os.environ, HOME=home, CASS_MEMORY_HOME=os.path.join(home, ".cass-memory"), CM_NOW="2026-11-25T12:00:00Z")
    # The toolchain stays where it is (the throwaway HOME holds no rustup).
    real = os.path.expanduser("~")
    env.setdefault("RUSTUP_HOME", os.path.join(real, ".rustup"))
    env.setdefault("CARGO_HOME", os.path.join(real, ".cargo"))
    for k in ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_DIR", "CASS_MEMORY_LLM"]:
        env.pop(k, None)
    shown = []

    def step(cmd, show=True, input=None):
        out = subprocess.run(cmd, env=env, cwd=home, capture_output=True, text=True, input=input)
        text = (out.stdout + out.stderr).rstrip()
        if show:
            printable = " ".join(c if " " not in c else repr(c) for c in cmd).replace(root, "~tmp")
            lines = text.replace(root, "~tmp").splitlines()
            body = "\n".join(lines[:18] + (["  ... (%d more lines)" % (len(lines) - 18)] if len(lines) > 18 else []))
            shown.append(f"$ {printable}\n{body}")
            if not args.quiet:
                print(shown[-1] + "\n")
        if out.returncode != 0:
            sys.exit(f"step failed ({out.returncode}): {' '.join(cmd)}\n{text}")
        return out.stdout

    try:
        if args.install:
            dest = os.path.join(home, ".local", "bin")
            step([os.path.join(REPO, "install.sh"), "--dest", dest, "--no-init", "--quiet"])
            cm = os.path.join(dest, "cm")
        else:
            cm = os.path.abspath(args.bin)
        rules_for = build_home(home)
        step([cm, "init"])
        step([cm, "history", "index"])
        step([cm, "onboard", "status"])
        step([cm, "onboard", "gaps"])
        credited = set()
        rounds = 0
        while rounds < 30:
            rounds += 1
            sample = json.loads(step([cm, "onboard", "sample", "--fill-gaps", "--limit", "3", "--json"], show=rounds == 1))
            items = sample["data"].get("sessions") or sample["data"].get("samples") or []
            if not items:
                break
            pick = items[0]
            path = pick.get("sourcePath") or pick.get("path") or pick["sessionId"]
            first = rounds == 1
            if first:
                step([cm, "onboard", "sample", "--fill-gaps", "--limit", "3"])
                step([cm, "onboard", "read", path, "--template"])
            agent, sid = pick["agent"], pick["sessionId"]
            rules = rules_for.get(sid)
            if rules is None and agent in OTHER_RULES and OTHER_RULES[agent]:
                rules = [OTHER_RULES[agent].pop(0)]
            if rules:
                f = os.path.join(root, f"rules-{rounds}.json")
                json.dump(rules, open(f, "w"))
                step([cm, "playbook", "add", "--file", f, "--session", path], show=first or rounds <= 3)
                credited.add(agent)
            step([cm, "onboard", "mark-done", path], show=first)
        final = json.loads(step([cm, "onboard", "status", "--json"], show=False))
        step([cm, "onboard", "status"])
        step([cm, "onboard", "gaps"])
        listing = json.loads(step([cm, "playbook", "list", "--json"], show=False))
        n = len(listing["data"]["bullets"])
        d = final["data"]
        summary = {"sessionsIndexed": d.get("sessionsIndexed"), "sessionsProcessed": d.get("sessionsProcessed"), "rules": n, "agentsCredited": sorted(credited), "rounds": rounds}
        print("summary:", json.dumps(summary))
        if args.check and (n < 10 or len(credited) < 3):
            sys.exit(f"walkthrough ended with {n} rules from {sorted(credited)}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
