#!/usr/bin/env bash
# Measure cm-precommit on a 1,000-line staged diff in a temporary git repository, against
# `git diff --cached -U0` alone (the floor: cm-precommit runs exactly that diff) in the same run.
#
#   bash bench/precommit.sh            # builds the release binary first
#   RUNS=50 CM_BIN=/path/to/cm bash bench/precommit.sh
#
# Prints median and p90 in milliseconds for: the baseline, cm-precommit on a clean diff
# (no findings, exit 0), and cm-precommit on the same diff plus planted secrets and a
# file-scoped trauma (exit 1). Runs alternate A B C A B C so machine noise hits all alike.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-40}
if [[ -z "${CM_BIN:-}" ]]; then
    (cd "$here" && cargo build --release --quiet)
    CM_BIN="$here/target/release/cm"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" CASS_MEMORY_HOME="$work/data"
mkdir -p "$HOME" "$CASS_MEMORY_HOME" "$work/bin"
ln -s "$CM_BIN" "$work/bin/cm-precommit"

python3 - "$work" "$runs" <<'PY'
import os, random, resource, statistics, subprocess, sys, time

work, runs = sys.argv[1], int(sys.argv[2])
random.seed(7)

def repo(name, planted):
    d = os.path.join(work, name)
    os.makedirs(d)
    git = lambda *a: subprocess.run(["git", *a], cwd=d, check=True, capture_output=True)
    git("init", "-q", ".")
    git("config", "user.email", "bench@example.invalid")
    git("config", "user.name", "bench")
    # 10 files x 100 added lines = 1,000 added lines of ordinary code, with the words the
    # secret detector's quick check looks for (token, password, auth) so its regexes run.
    words = ["token", "password_field", "auth", "config", "user", "session", "cache", "retry"]
    for f in range(10):
        lines = []
        for i in range(100):
            w = random.choice(words)
            kind = i % 5
            if kind == 0:
                lines.append(f"def {w}_{i}(request, {w}_value=None):")
            elif kind == 1:
                lines.append(f"    {w} = get_{w}(request)  # refresh the {w} when it expires")
            elif kind == 2:
                lines.append(f"    if not {w}: raise ValueError('missing {w} for user')")
            elif kind == 3:
                lines.append(f"    log.info('checked %s in %d ms', {w}, elapsed_{i})")
            else:
                lines.append(f"    return {{'{w}': {w}, 'ok': True, 'n': {i}}}")
        with open(os.path.join(d, f"mod_{f}.py"), "w") as fh:
            fh.write("\n".join(lines) + "\n")
    if planted:
        with open(os.path.join(d, "settings.env"), "w") as fh:
            fh.write("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7QWERTYU\n")
            fh.write("GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n")
        with open(os.path.join(d, "drop.sql"), "w") as fh:
            fh.write("DROP TABLE users;\n")
        os.makedirs(os.path.join(d, ".cass"))
        with open(os.path.join(d, ".cass", "traumas.jsonl"), "w") as fh:
            fh.write('{"id":"t-00000001","pattern":"(?i)drop\\\\s+table","files":"*.sql","createdAt":"2026-01-01T00:00:00Z"}\n')
    git("add", ".")
    added = subprocess.run(["git", "diff", "--cached", "-U0"], cwd=d, capture_output=True, text=True).stdout
    n = sum(1 for l in added.splitlines() if l.startswith("+") and not l.startswith("+++"))
    return d, n

clean, n_clean = repo("clean", False)
dirty, n_dirty = repo("dirty", True)
pre = os.path.join(work, "bin", "cm-precommit")
cases = [
    ("baseline: git diff --cached -U0", ["git", "diff", "--cached", "-U0", "--no-color"], clean, 0),
    (f"cm-precommit, clean ({n_clean} added lines)", [pre], clean, 0),
    (f"cm-precommit, findings ({n_dirty} added lines)", [pre], dirty, 1),
]
times = {c[0]: [] for c in cases}
cpu = {c[0]: [] for c in cases}
for _ in range(3):  # warm-up: page cache, lazy statics
    for name, cmd, cwd, want in cases:
        subprocess.run(cmd, cwd=cwd, capture_output=True)
for _ in range(runs):
    for name, cmd, cwd, want in cases:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        r = subprocess.run(cmd, cwd=cwd, capture_output=True)
        times[name].append((time.perf_counter() - t) * 1000)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[name].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
        if r.returncode != want:
            sys.exit(f"{name}: exit {r.returncode}, expected {want}\n{r.stderr.decode()}")
import re
r = subprocess.run([pre], cwd=dirty, capture_output=True, text=True)
found = [l for l in r.stderr.splitlines() if re.match(r"^[^ ].*:\d+: ", l)]
print(f"findings in the planted diff: {len(found)}")
for l in found:
    print("   ", l)
base = statistics.median(times[cases[0][0]])
base_cpu = statistics.median(cpu[cases[0][0]])
print(f"runs per case: {runs}; load average (1 min): {os.getloadavg()[0]:.2f}")
print("wall clock (process start to exit) and CPU time (user+sys, git child included)")
for name, _, _, _ in cases:
    v = sorted(times[name])
    med = statistics.median(v)
    p90 = v[int(len(v) * 0.9) - 1]
    c = statistics.median(cpu[name])
    print(
        f"{name:46s} wall median {med:6.2f} ms  p90 {p90:6.2f} ms  ratio {med / base:4.2f}x"
        f" | cpu median {c:5.2f} ms  ratio {c / base_cpu:4.2f}x"
    )
PY
