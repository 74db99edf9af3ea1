#!/usr/bin/env bash
# Benchmark the playbook commands at N rules (default 5,000) against a baseline in the same run.
#
#   bench/playbook.sh                 # 5,000 rules, 30 runs per command
#   bench/playbook.sh 1000 50         # 1,000 rules, 50 runs
#   CM=path/to/cm bench/playbook.sh   # an already built binary (default: cargo build --release)
#
# Targets (issue 2): `cm mark` and `cm playbook add` median <= 10 ms, `cm playbook list --json`
# <= 50 ms, peak RSS <= 30 MB. Each command is timed alternately with a baseline (A B A B):
# `/bin/true` (process start) and `cm --version` (our binary's start, no store). Medians, the
# ratio to `cm --version`, and the peak RSS of each command are printed as a Markdown table.
set -euo pipefail

n="${1:-5000}"
runs="${2:-30}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "${CM:-}" ]; then
    (cd "$root" && cargo build --release --quiet)
    CM="$root/target/release/cm"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" CASS_MEMORY_HOME="$work/data"
mkdir -p "$HOME"

python3 "$root/bench/gen_playbook.py" "$n" --format yaml >"$work/playbook.yaml"
"$CM" init --quiet >/dev/null
"$CM" playbook import "$work/playbook.yaml" --quiet >/dev/null
count="$("$CM" playbook list --all --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["count"])')"

CM="$CM" RUNS="$runs" COUNT="$count" python3 - <<'PY'
import os, statistics, subprocess, time

cm = os.environ["CM"]
runs = int(os.environ["RUNS"])
count = os.environ["COUNT"]

def run(argv):
    """Wall time (ms) and peak RSS (KB) of one process."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    ms = (time.perf_counter() - start) * 1000
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode()
    p.stderr.close()
    if p.returncode != 0:
        raise SystemExit(f"{argv} failed ({p.returncode}): {err}")
    return ms, usage.ru_maxrss

ids = subprocess.run([cm, "playbook", "list", "--quiet"], capture_output=True, text=True,
                     check=True).stdout.split()
target = ids[len(ids) // 2]
stamp = int(time.time())
commands = [
    ("cm mark ID --helpful", lambda i: [cm, "mark", target, "--helpful" if i % 4 else "--harmful"], 10),
    ("cm playbook add TEXT", lambda i: [cm, "playbook", "add", f"Benchmark rule {stamp} number {i}"], 10),
    ("cm playbook list --json", lambda i: [cm, "playbook", "list", "--json"], 50),
    ("cm playbook get ID --json", lambda i: [cm, "playbook", "get", target, "--json"], None),
]
baselines = [("/bin/true", lambda i: ["/bin/true"]), ("cm --version", lambda i: [cm, "--version"])]

# Warm the page cache and the binary.
for argv in [c[1] for c in commands] + [b[1] for b in baselines]:
    run(argv(0))

print(f"{count} rules, {runs} runs per command, alternating each command with both baselines.\n")
print("| command | median ms | p90 ms | target | ratio to `cm --version` | peak RSS MB |")
print("|---|---|---|---|---|---|")
base_samples = {name: [] for name, _ in baselines}
rows = []
for name, argv, target_ms in commands:
    samples, rss = [], 0
    for i in range(runs):
        for bname, bargv in baselines:          # A
            base_samples[bname].append(run(bargv(i))[0])
        ms, kb = run(argv(i))                   # B
        samples.append(ms)
        rss = max(rss, kb)
    rows.append((name, samples, rss, target_ms))
version_median = statistics.median(base_samples["cm --version"])
for name, samples, rss, target_ms in rows:
    med = statistics.median(samples)
    p90 = sorted(samples)[int(len(samples) * 0.9) - 1]
    verdict = "" if target_ms is None else (f"<= {target_ms} {'ok' if med <= target_ms else 'MISSED'}")
    print(f"| `{name}` | {med:.2f} | {p90:.2f} | {verdict} | {med / version_median:.1f}x | "
          f"{rss / 1024:.1f} {'ok' if rss <= 30 * 1024 else 'MISSED'} |")
for bname, samples in base_samples.items():
    print(f"| `{bname}` (baseline) | {statistics.median(samples):.2f} | "
          f"{sorted(samples)[int(len(samples) * 0.9) - 1]:.2f} |  |  |  |")
load = os.getloadavg()
print(f"\nload average during the run: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
PY
