#!/usr/bin/env python3
"""Write a playbook of N realistic rules with a fixed seed, for benchmarks and tests.

Formats:
  add     a JSON array of {content, category, tags} for `cm playbook add --file`
  json    our JSON export ({"schema_version", "bullets": [...]}) with feedback history,
          for `cm playbook import`
  yaml    the same document as playbook.yaml (the original layout), for `cm playbook import`

Usage: gen_playbook.py N [--format add|json|yaml] [--seed S] [--now RFC3339] > out
"""
import argparse
import datetime as dt
import json
import random

CATEGORIES = ["debugging", "testing", "architecture", "workflow", "documentation",
              "integration", "collaboration", "git", "security", "performance", "general"]
OPENERS = ["Always", "Never", "Prefer", "Before you", "When you", "Avoid", "Check that you",
           "Make sure to", "Do not", "Remember to"]
VERBS = ["run", "check", "pin", "validate", "cache", "log", "mock", "retry", "lock", "index",
         "profile", "document", "review", "rebase", "squash", "sanitize", "escape", "stream",
         "batch", "benchmark", "vendor", "split", "inline", "rename", "migrate", "rollback"]
OBJECTS = ["the test suite", "database migrations", "auth tokens", "the lockfile",
           "feature flags", "API responses", "error messages", "the CI cache", "env variables",
           "SQL queries", "React effects", "async handlers", "the release branch",
           "goroutine leaks", "Python virtualenvs", "Docker layers", "TLS certificates",
           "rate limiters", "cron jobs", "webhook payloads", "JSON schemas", "Rust lifetimes",
           "TypeScript generics", "shell scripts", "log rotation", "the dev server",
           "integration fixtures", "pagination cursors", "retry budgets", "memory profiles"]
CONTEXTS = ["before committing", "in production code", "when tests are flaky",
            "after a dependency bump", "on every pull request", "in hot loops",
            "before a force push", "when the build is red", "for public endpoints",
            "during incident response", "in long-running jobs", "when touching payments",
            "", "", ""]
REASONS = ["it caught a regression last time", "the reviewer asked for it",
           "it saved an hour of debugging", "it broke the staging deploy",
           "the fix was easy once this was done", "it avoided a data loss"]
TAGS = ["ci", "auth", "db", "react", "rust", "python", "go", "docker", "api", "perf",
        "security", "git", "tests", "logging", "infra"]


def rule_text(rng, i):
    parts = [rng.choice(OPENERS), rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(CONTEXTS)]
    text = " ".join(p for p in parts if p)
    # A serial keeps every rule distinct (the playbook skips duplicates).
    return f"{text} (case {i})"


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def bullet(rng, i, now):
    created = now - dt.timedelta(days=rng.uniform(1, 400))
    events = []
    for k in range(rng.choice([0, 0, 1, 2, 3, 5, 8])):
        t = created + dt.timedelta(days=rng.uniform(0, (now - created).days or 1))
        kind = "harmful" if rng.random() < 0.15 else "helpful"
        ev = {"id": f"fb-{i:06d}{k:02d}", "type": kind, "timestamp": iso(min(t, now)),
              "source": rng.choice(["manual", "inline", "outcome"])}
        if rng.random() < 0.3:
            ev["reason"] = rng.choice(REASONS)
        events.append(ev)
    events.sort(key=lambda e: e["timestamp"])
    helpful = sum(e["type"] == "helpful" for e in events)
    harmful = len(events) - helpful
    maturity = "established" if helpful >= 3 and harmful * 4 < helpful + harmful else "candidate"
    return {
        "id": f"b-gen{i:09d}",
        "content": rule_text(rng, i),
        "category": rng.choice(CATEGORIES),
        "scope": "global",
        "type": "rule",
        "kind": "workflow_rule",
        "state": "active",
        "maturity": maturity,
        "helpfulCount": helpful,
        "harmfulCount": harmful,
        "feedbackEvents": events,
        "sourceSessions": [f"/home/dev/.claude/projects/app/session-{rng.randrange(10**6):06d}.jsonl"],
        "sourceAgents": [rng.choice(["claude", "codex", "gemini"])],
        "reasoning": rng.choice(REASONS),
        "tags": rng.sample(TAGS, rng.randint(0, 3)),
        "pinned": False,
        "deprecated": False,
        "createdAt": iso(created),
        "updatedAt": events[-1]["timestamp"] if events else iso(created),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int)
    ap.add_argument("--format", choices=["add", "json", "yaml"], default="json")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--now", default="2026-11-29T00:00:00Z")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    now = dt.datetime.fromisoformat(a.now.replace("Z", "+00:00")).replace(tzinfo=None)
    if a.format == "add":
        rules = []
        for i in range(a.n):
            r = {"content": rule_text(rng, i), "category": rng.choice(CATEGORIES)}
            tags = rng.sample(TAGS, rng.randint(0, 3))
            if tags:
                r["tags"] = tags
            rules.append(r)
        print(json.dumps(rules, indent=1))
        return
    bullets = [bullet(rng, i, now) for i in range(a.n)]
    if a.format == "json":
        print(json.dumps({"schema_version": 2, "name": "generated", "bullets": bullets}, indent=1))
        return
    # YAML by hand (no third-party module needed): JSON scalars are valid YAML scalars.
    out = ["schema_version: 2", "name: generated", "description: generated by bench/gen_playbook.py",
           "bullets:"]
    for b in bullets:
        first = True
        for k, v in b.items():
            prefix = "  - " if first else "    "
            first = False
            if k == "feedbackEvents" and v:
                out.append(f"{prefix}{k}:")
                for ev in v:
                    items = list(ev.items())
                    out.append(f"      - {items[0][0]}: {json.dumps(items[0][1])}")
                    for ek, evv in items[1:]:
                        out.append(f"        {ek}: {json.dumps(evv)}")
            else:
                out.append(f"{prefix}{k}: {json.dumps(v)}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
