#!/usr/bin/env python3
"""Per-call cost of the cm-pretool hook, process start to exit, against /bin/true.

For each case, a documented Claude Code PreToolUse payload is fed on stdin to `cm-pretool` and,
alternately in the same loop (A B A B ...), to /bin/true. Each run is one posix_spawn + wait4,
timed with perf_counter_ns. Peak RSS comes from `/usr/bin/time -f %M` over a few separate
runs (wait4's figure for a posix_spawn child includes the parent's pages shared before exec).
Reports medians, the ratio to /bin/true, p90, and the largest peak RSS seen.

With BASELINE=PATH/TO/another/cm-pretool (an older build), that binary joins the same loop
(A B C A B C ...) and its median and ratio are printed beside, so a change is measured against
the code before it under the same load.

Usage: bench/pretool.py PATH/TO/cm-pretool [RUNS]   (bench/pretool.sh builds and calls this)
"""
import json
import os
import statistics
import sys
import tempfile
import time

CASES = [
    ("allow, no keyword", "npm test -- --watch=false"),
    ("allow, keyword (git status)", "git status"),
    ("deny, git reset --hard", "git reset --hard"),
    ("deny, python -c rmtree", "python3 -c \"import shutil; shutil.rmtree('/')\""),
]


def payload(command, cwd):
    return json.dumps({
        "session_id": "abc123",
        "transcript_path": "/home/u/.claude/projects/-home-u-app/abc123.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run it", "timeout": 120000,
                       "run_in_background": False},
        "tool_use_id": "toolu_01ABC",
    }).encode()


def run_once(argv, stdin_path, env):
    fd = os.open(stdin_path, os.O_RDONLY)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        t0 = time.perf_counter_ns()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=[
            (os.POSIX_SPAWN_DUP2, fd, 0),
            (os.POSIX_SPAWN_DUP2, devnull, 1),
        ])
        _, status, usage = os.wait4(pid, 0)
        t1 = time.perf_counter_ns()
    finally:
        os.close(fd)
        os.close(devnull)
    return (t1 - t0) / 1e6, os.waitstatus_to_exitcode(status)


def peak_rss_mb(hook, stdin_path, env, runs=5):
    import subprocess
    worst = 0
    for _ in range(runs):
        with open(stdin_path, "rb") as fin:
            r = subprocess.run(["/usr/bin/time", "-f", "%M", hook], stdin=fin, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        worst = max(worst, int(r.stderr.decode().strip().splitlines()[-1]))
    return worst / 1024.0


def main():
    hook = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    tmp = tempfile.mkdtemp(prefix="cm-bench-")
    home = os.path.join(tmp, "home")
    project = os.path.join(tmp, "project")
    os.makedirs(home)
    os.makedirs(os.path.join(project, ".git"))
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "CASS_MEMORY_HOME": os.path.join(home, ".cass-memory")}
    print(f"cm-pretool: {hook} ({os.path.getsize(os.path.realpath(hook)) / 1e6:.1f} MB binary), {runs} runs per case, A B A B with /bin/true")
    base = os.environ.get("BASELINE")
    base_cols = f" {'base median':>12} {'base ratio':>10}" if base else ""
    print(f"{'case':32} {'cm median':>10} {'true median':>12} {'ratio':>6} {'cm p90':>8} {'peak RSS':>9}{base_cols}  output")
    worst_ratio = 0.0
    worst_median = 0.0
    worst_rss = 0.0
    for name, command in CASES:
        path = os.path.join(tmp, "payload.json")
        with open(path, "wb") as f:
            f.write(payload(command, project))
        # What the hook prints (checked once, outside the timing).
        out_path = os.path.join(tmp, "out.txt")
        import subprocess
        with open(path, "rb") as fin:
            out = subprocess.run([hook], stdin=fin, capture_output=True, env=env).stdout.decode()
        decision = "deny" if '"permissionDecision":"deny"' in out else ("allow" if out == "" else "??")
        for _ in range(20):  # warm the page cache
            run_once([hook], path, env)
            run_once(["/bin/true"], path, env)
        a, b, c = [], [], []
        for _ in range(runs):
            t, _ = run_once([hook], path, env)
            a.append(t)
            t, _ = run_once(["/bin/true"], path, env)
            b.append(t)
            if base:
                t, _ = run_once([base], path, env)
                c.append(t)
        rss = [peak_rss_mb(hook, path, env)]
        ma, mb = statistics.median(a), statistics.median(b)
        p90 = sorted(a)[int(len(a) * 0.9)]
        ratio = ma / mb
        worst_ratio = max(worst_ratio, ratio)
        worst_median = max(worst_median, ma)
        worst_rss = max(worst_rss, max(rss))
        extra = ""
        if base:
            mc = statistics.median(c)
            extra = f" {mc:10.3f}ms {mc / mb:10.2f}"
        print(f"{name:32} {ma:9.3f}ms {mb:10.3f}ms {ratio:6.2f} {p90:7.3f}ms {max(rss):7.1f}MB{extra}  {decision}")
    ok = worst_median <= 1.5 and worst_ratio <= 2.0 and worst_rss <= 8.0
    print(f"targets (median <= 1.5 ms, <= 2x /bin/true, peak RSS <= 8 MB): {'met' if ok else 'MISSED'}"
          f" (worst median {worst_median:.3f} ms, worst ratio {worst_ratio:.2f}, peak RSS {worst_rss:.1f} MB)")


if __name__ == "__main__":
    main()
