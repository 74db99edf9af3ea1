#!/usr/bin/env bash
# Benchmark `cm context` and the session-start and prompt hooks against baselines measured in the
# same run (/bin/true, `cm --version`). Usage:
#   bench/context.sh [DATA_DIR]
# DATA_DIR: a pre-built cm data directory (e.g. with 250,000 indexed messages, as left by
# `bench/episodic.py --keep DIR` in DIR/data-cold-0); it is topped up to 5,000 generated rules when
# it holds fewer. Without it a temp directory gets the 5,000 rules alone. Env: RUNS (default 40), CM (default
# target/release/cm, built if missing), BASELINE (another binary timed in the same rounds on the
# same store, e.g. main's build), CITE=1 (the rules are added ten at a time, each batch citing
# one indexed session, so every rule has an evidence vocabulary and a place: bench/cite_sessions.py).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-40}
CM=${CM:-$PWD/target/release/cm}
[ -x "$CM" ] || cargo build --release
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home"
mkdir -p "$HOME" "$WORK/app/.git"
echo 'ref: refs/heads/fix/auth-token-refresh' > "$WORK/app/.git/HEAD"
if [ $# -ge 1 ]; then
  export CASS_MEMORY_HOME="$1"
  have=$("$CM" stats --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["total"])')
  # A cited top-up merges the odd duplicate rule (4,999 of 5,000): only a store well short of it
  # is topped up again.
  if [ "$have" -lt 4900 ]; then
    python3 bench/gen_rules.py 5000 > "$WORK/rules.json"
    if [ "${CITE:-0}" = 1 ]; then
      python3 bench/cite_sessions.py "$CM" "$WORK/rules.json"
    else
      "$CM" playbook add --file "$WORK/rules.json" --json >/dev/null
    fi
  fi
else
  export CASS_MEMORY_HOME="$WORK/data"
  "$CM" init >/dev/null
  python3 bench/gen_rules.py 5000 > "$WORK/rules.json"
  "$CM" playbook add --file "$WORK/rules.json" --json >/dev/null
fi
cd "$WORK/app"
# Warm up: build the term index once (what the first `cm context` after a bulk import pays).
"$CM" context "warm up" --json >/dev/null
# The workspace where the most rules were learned (their sessions' cwd), if any: session start
# there injects its house rules, the worst case for that hook.
HOUSE_WS=$(python3 -c '
import sqlite3, sys
try:
    c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
    row = c.execute("SELECT value, count(*) FROM rule_places WHERE kind = ? GROUP BY value ORDER BY 2 DESC LIMIT 1", ("workspace",)).fetchone()
    print(row[0] if row else "")
except Exception:
    print("")
' "$CASS_MEMORY_HOME/cm.db")
echo "rules: $("$CM" stats --json | python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; print(d.get("total", d.get("count", "?")))' 2>/dev/null || echo '?')"
python3 - "$CM" "$RUNS" "$WORK/app" "$HOUSE_WS" "${BASELINE:-}" <<'PY'
import json, resource, statistics, subprocess, sys, time
cm, runs, ws, house, baseline = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
start = json.dumps({"session_id": "b", "transcript_path": "/t.jsonl", "cwd": ws, "hook_event_name": "SessionStart", "source": "startup"})
gated = json.dumps({"session_id": "b", "cwd": ws, "hook_event_name": "UserPromptSubmit", "prompt": "ok thanks, continue"})
passing = json.dumps({"session_id": "b", "cwd": ws, "hook_event_name": "UserPromptSubmit", "prompt": "the auth token refresh hits a timeout in the http client"})
cases = [
    ("/bin/true", ["/bin/true"], None),
    ("cm --version", [cm, "--version"], None),
    ("cm context --json", [cm, "context", "auth token refresh timeout in the http client", "--json"], None),
    ("cm context --json --no-history", [cm, "context", "auth token refresh timeout in the http client", "--json", "--no-history"], None),
    ("cm similar", [cm, "similar", "rotate the auth token secret"], None),
    ("hook session-start", [cm, "hook", "session-start"], start),
    ("hook prompt (gated)", [cm, "hook", "prompt"], gated),
    ("hook prompt (retrieves)", [cm, "hook", "prompt"], passing),
]
if house:
    # A workspace with rules of its own: house rules at session start, and its rules' places.
    cases += [
        ("hook session-start (house rules)", [cm, "hook", "session-start"],
         json.dumps({"session_id": "b", "transcript_path": "/t.jsonl", "cwd": house, "hook_event_name": "SessionStart", "source": "startup"})),
        ("cm context --json (that workspace)", [cm, "context", "auth token refresh timeout in the http client", "--json", "--workspace", house], None),
        ("hook prompt (that workspace, short)", [cm, "hook", "prompt"],
         json.dumps({"session_id": "b", "cwd": house, "hook_event_name": "UserPromptSubmit", "prompt": "install axios"})),
    ]
# With BASELINE=BIN every cm case runs under that binary too, in the same rounds (same store).
if baseline:
    cases += [("baseline: " + name, [baseline] + argv[1:], stdin) for name, argv, stdin in cases
              if argv[0] == cm]
# Interleaved rounds (every case once per round) after three warm-up rounds, so load changes on
# the machine hit every case alike.
# CPU time (user + system of the child) beside the wall time: on a loaded machine the wall time
# of a call is mostly waiting for a core.
times = {name: [] for name, _, _ in cases}
cpu = {name: [] for name, _, _ in cases}
for rnd in range(runs + 3):
    for name, argv, stdin in cases:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(argv, input=(stdin or "").encode(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if rnd >= 3:
            times[name].append((time.perf_counter() - t) * 1000)
            cpu[name].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
res = {name: statistics.median(t) for name, t in times.items()}
low = {name: min(t) for name, t in times.items()}
cpu_med = {name: statistics.median(t) for name, t in cpu.items()}
base = res["/bin/true"]
ver = res["cm --version"]
print(f"{'case':34} {'median ms':>10} {'min ms':>8} {'CPU ms':>7} {'x /bin/true':>12} {'x cm --version':>15}")
for name, m in res.items():
    print(f"{name:34} {m:10.2f} {low[name]:8.2f} {cpu_med[name]:7.2f} {m / base:12.1f} {m / ver:15.1f}")
if baseline:
    print(f"\n{'case':34} {'this ms':>10} {'baseline ms':>12} {'ratio':>7} {'this CPU':>9} {'baseline CPU':>13}")
    for name, m in res.items():
        if "baseline: " + name in res:
            b = res["baseline: " + name]
            print(f"{name:34} {m:10.2f} {b:12.2f} {m / b:7.2f} {cpu_med[name]:9.2f} {cpu_med['baseline: ' + name]:13.2f}")
with open("/proc/loadavg") as f:
    print("load average during the run:", " ".join(f.read().split()[:3]))
PY
