#!/usr/bin/env python3
"""Write N realistic-looking playbook rules as a JSON array for `cm playbook add --file`.

Deterministic (fixed seed): rules are built from per-category vocabularies so that BM25 sees a
realistic spread of common and rare terms. Usage: gen_rules.py N > rules.json
"""
import json
import random
import sys

CATS = {
    "debugging": ["stack trace", "breakpoint", "panic", "segfault", "log level", "race condition", "heap dump", "core file"],
    "testing": ["fixture", "mock", "snapshot test", "flaky test", "coverage", "property test", "integration test", "test database"],
    "architecture": ["module boundary", "dependency injection", "event bus", "service layer", "cache layer", "adapter", "domain model"],
    "workflow": ["pull request", "release branch", "changelog", "code review", "ci pipeline", "build cache", "lockfile"],
    "documentation": ["readme", "api docs", "doc comment", "decision record", "runbook", "example snippet"],
    "integration": ["http client", "retry budget", "rate limit", "webhook", "json schema", "grpc stream", "timeout"],
    "collaboration": ["reviewer", "pairing", "handoff note", "issue template", "standup", "ownership"],
    "git": ["rebase", "merge commit", "force push", "stash", "bisect", "submodule", "tag"],
    "security": ["auth token", "secret rotation", "csrf", "sql injection", "tls certificate", "password hash", "session cookie"],
    "performance": ["allocation", "query plan", "index scan", "hot path", "profiling", "batch size", "connection pool"],
}
VERBS = ["Always check", "Never skip", "Prefer", "Avoid", "Verify", "Document", "Measure", "Pin", "Isolate", "Log"]
TAILS = ["before merging", "in production", "when the build fails", "after a migration", "for every release",
         "on the staging cluster", "during incident response", "when tests are flaky", "in the monorepo", "for new services"]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    rnd = random.Random(42)
    cats = list(CATS)
    out = []
    for i in range(n):
        cat = cats[i % len(cats)]
        a, b = rnd.sample(CATS[cat], 2)
        other = rnd.choice(CATS[rnd.choice(cats)])
        text = f"{rnd.choice(VERBS)} the {a} and the {b} {rnd.choice(TAILS)}; see {other} notes (rule {i})"
        out.append({"content": text, "category": cat, "tags": [a.split()[0], cat[:4]]})
    json.dump(out, sys.stdout)


main()
