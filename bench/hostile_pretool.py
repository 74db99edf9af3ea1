#!/usr/bin/env python3
"""Per-call cost of cm-pretool on every hostile input of the trust issue (23, items 1-7), against
/bin/true and a benign command in the same loop.

The inputs, by item of the issue (each a case below; items 8, 9 and 13 reach the context hooks,
bench/hostile_context.py, and item 12 the server, bench/serve_hostile.py):
  1  `echo $(...)` nested 7 deep around `rm -rf ~`; `rm -rf ~` in 7 levels of `bash -c`, in 8 of
     `eval`; `true; ` x 4,095 then `rm -rf ~`
  2  `r$()m`, `r${EMPTY}m`, `r``m`, `r$@m`, `$'\x72\x6d'`, `/bin/[r]m` (each `-rf ~`),
     `gi$()t reset --hard`, `kube$()ctl delete ns prod`, `psql -c $'DR\x4fP DATABASE x'`, and
     `a=r; b=m; $a$b -rf ~`
  3  `rm -rf {a0,...,a69,~}`, `rm -rf /{a0,...,a69,}`, and 300 words
  4  300 repository traumas `rm\w{20000}`; 256 KiB of `rm(\w{200}){50}`; 16 keyword-less
     traumas (on `npm test`); 25,000 repository `protectedPaths` on a Write (and 25,000 with
     wildcards); a 400 KB `cwd` (with `rm -rf ~`, `echo x > foo`, a Write); beyond the issue:
     300 traumas just under the size floor (`rm\w{10}`), a 400 KB Write path, a 4 KB cwd of
     2,040 levels, a Codex patch of 20,000 files (past the 1,024-file bound) and of 1,024 files,
     20,000 repeated `command` keys
  5  `rm -rf ~` through `mcp__shell__run_command`, `mcp__desktop-commander__start_process`,
     `bash`, `"Bash "`, Codex `local_shell` (`action.command`); a Codex `apply_patch` of `.env`
  6  `cm guard allow 'rm -rf ~'`, `cm hooks uninstall --everywhere`, `cm guard --uninstall`,
     `echo ... > ~/.cass-memory/config.json`, Write to that file and to `~/.claude/settings.json`,
     `echo ... > ~/.claude/settings.json`
  7  `echo KEY=x > .env`, `sed -i ... .env`, `cp` into `secrets/`, `>> ~/.ssh/authorized_keys`,
     python `open('.env','w')`, `> ~/.bashrc`, `cp /dev/null ~/.zshrc`

Each case is a real Claude Code PreToolUse payload, in a fresh HOME and project, with the files a
cloned repository could carry (`.cass/traumas.jsonl`, `.cass/config.json`) written first. The
HOME has an empty data dir, as installing the hooks leaves it (the hook keeps its trauma index
there); NO_DATA_DIR=1 leaves it out, so the index is built again on every call (the worst case). The
three programs run alternately (hook, benign hook call, /bin/true, ...), each run one posix_spawn
+ wait4 timed with perf_counter_ns; one warm-up call per case builds the trauma index as a first
real call would. Prints, per case, the hook's median, p90, ratio to /bin/true, the benign call's
median in the same loop, and the decision (deny/ask/allow); the target is <= 50 ms per call.

With BASELINE=PATH/TO/other/cm (e.g. main's release build), that binary runs in the same loop
(hook, baseline, benign, /bin/true) and its median is printed beside; a baseline call that takes
longer than the agents' 5 s hook timeout is run once and shown as "> 5 s" (the agent would have
run the command unchecked).

CASES="a|b" runs only the cases whose name contains one of the given parts.

Usage: [BASELINE=...] [CASES=...] bench/hostile_pretool.py PATH/TO/cm [RUNS]   (default 15 runs per case; linked as cm-pretool)
"""
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

TARGET_MS = 50.0


def payload(cwd, tool="Bash", tool_input=None, command=None):
    return json.dumps({
        "session_id": "abc123",
        "transcript_path": "/home/u/.claude/projects/x/abc123.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input if tool_input is not None else {"command": command},
        "tool_use_id": "toolu_01ABC",
    }).encode()


def codex(cwd, tool, tool_input):
    return json.dumps({
        "session_id": "0199a-codex", "transcript_path": "/r.jsonl", "cwd": cwd,
        "hook_event_name": "PreToolUse", "turn_id": "turn-7", "model": "gpt-5-codex",
        "tool_name": tool, "tool_input": tool_input, "tool_use_id": "call_9",
    }).encode()


def trauma(i, pattern):
    return json.dumps({"id": "t-%04x" % i, "pattern": pattern, "severity": "critical",
                       "scope": "project", "source": "user",
                       "createdAt": "2026-04-01T00:00:00Z"})


def duplicate_keys(cwd, n):
    """A payload whose tool_input repeats `command` n times (every value is decided on)."""
    body = ",".join('"command":%s' % json.dumps("ls %d" % i) for i in range(n))
    return ('{"session_id":"abc123","cwd":%s,"hook_event_name":"PreToolUse","tool_name":"Bash",'
            '"tool_input":{%s},"tool_use_id":"toolu_01ABC"}' % (json.dumps(cwd), body)).encode()


def nested(cmd, n, wrap):
    for _ in range(n):
        cmd = wrap(cmd)
    return cmd


def cases(project):
    items = ",".join("a%d" % i for i in range(70))
    out = [
        ("1 7 nested $( )", None, payload(project, command="echo " + "$(" * 7 + "rm -rf ~" + ")" * 7)),
        ("1 7 nested bash -c", None, payload(project, command=nested(
            "rm -rf ~", 7, lambda c: "bash -c '%s'" % c.replace("'", "'\\''")))),
        ("1 8 nested eval", None, payload(project, command=nested(
            "rm -rf ~", 8, lambda c: 'eval "%s"' % c.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")))),
        ("1 4095 segments + rm", None, payload(project, command="true; " * 4095 + "; rm -rf ~")),
        ("2 r$()m -rf ~", None, payload(project, command="r$()m -rf ~")),
        ("2 $'\\x72\\x6d' -rf ~", None, payload(project, command="$'\\x72\\x6d' -rf ~")),
        ("2 r${EMPTY}m -rf ~", None, payload(project, command="r${EMPTY}m -rf ~")),
        ("2 r``m -rf ~", None, payload(project, command="r``m -rf ~")),
        ("2 r$@m -rf ~", None, payload(project, command="r$@m -rf ~")),
        ("2 /bin/[r]m -rf ~", None, payload(project, command="/bin/[r]m -rf ~")),
        ("2 gi$()t reset --hard", None, payload(project, command="gi$()t reset --hard")),
        ("2 kube$()ctl delete ns prod", None, payload(project, command="kube$()ctl delete ns prod")),
        ("2 psql -c $'DR\\x4fP ...'", None, payload(project, command="psql -c $'DR\\x4fP DATABASE x'")),
        ("2 a=r; b=m; $a$b -rf ~", None, payload(project, command="a=r; b=m; $a$b -rf ~")),
        ("3 brace 70 words + ~", None, payload(project, command="rm -rf {%s,~}" % items)),
        ("3 brace 70 words rm -rf /{..,}", None, payload(project, command="rm -rf /{%s,}" % items)),
        ("3 brace 300 words + ~", None, payload(project, command="rm -rf {%s,~}" % ",".join("a%d" % i for i in range(300)))),
        ("4 300 traumas rm\\w{20000}", {"traumas": [trauma(i, "rm\\w{20000}") for i in range(300)]},
         payload(project, command="rm -rf ~")),
        ("4 256KiB rm(\\w{200}){50}", {"traumas": [trauma(i, "rm(\\w{200}){50}") for i in range(2400)]},
         payload(project, command="rm -rf ~")),
        ("4 16 keyword-less traumas", {"traumas": [trauma(i, "\\w{2000}x%d" % i) for i in range(16)]},
         payload(project, command="npm test")),
        ("4 25,000 protectedPaths", {"config": {"guard": {"protectedPaths": ["dir%d/file%d.txt" % (i, i) for i in range(25000)]}}},
         payload(project, tool="Write", tool_input={"file_path": "src/main.rs", "content": "x"})),
        ("4 25,000 wildcard protectedPaths", {"config": {"guard": {"protectedPaths": ["dir%d/*.txt" % i for i in range(25000)]}}},
         payload(project, tool="Write", tool_input={"file_path": "src/main.rs", "content": "x"})),
        ("4 300 traumas rm\\w{10}", {"traumas": [trauma(i, "rm\\w{%d}" % (10 + i % 3)) for i in range(300)]},
         payload(project, command="rm -rf build")),
        ("4 400 KB cwd", None, payload("/" + "a/" * 200000, command="rm -rf ~")),
        ("4 400 KB cwd, echo > foo", None, payload("/" + "a/" * 200000, command="echo x > foo")),
        ("4 400 KB cwd, Write foo", None, payload("/" + "a/" * 200000, tool="Write", tool_input={"file_path": "foo", "content": "x"})),
        ("4 400 KB Write path", None, payload(project, tool="Write", tool_input={"file_path": "a/" * 200000 + "x", "content": "x"})),
        ("4 4 KB cwd, 2,040 levels", None, payload("/" + "a/" * 2040, command="echo x > foo")),
        ("4 patch of 20,000 files", None, payload(project, tool="apply_patch", tool_input={
            "input": "*** Begin Patch\n" + "".join("*** Add File: f%d\n+x\n" % i for i in range(20000)) + "*** End Patch\n"})),
        ("4 patch of 1,024 files", None, payload(project, tool="apply_patch", tool_input={
            "input": "*** Begin Patch\n" + "".join("*** Add File: f%d\n+x\n" % i for i in range(1024)) + "*** End Patch\n"})),
        ("4 20,000 duplicate command keys", None, duplicate_keys(project, 20000)),
        ("5 mcp__shell__run_command", None, payload(project, tool="mcp__shell__run_command", tool_input={"command": "rm -rf ~"})),
        ("5 mcp__desktop-commander", None, payload(project, tool="mcp__desktop-commander__start_process",
                                                   tool_input={"command": "rm -rf ~", "timeout_ms": 5000})),
        ("5 tool bash", None, payload(project, tool="bash", tool_input={"command": "rm -rf ~"})),
        ("5 tool \"Bash \"", None, payload(project, tool="Bash ", tool_input={"command": "rm -rf ~"})),
        ("5 Codex local_shell", None, codex(project, "local_shell",
                                            {"action": {"type": "exec", "command": ["bash", "-lc", "rm -rf ~"]}})),
        ("5 Codex apply_patch", {"config": {"guard": {"protectedPaths": [".env"]}}},
         payload(project, tool="apply_patch", tool_input={"input": "*** Begin Patch\n*** Update File: .env\n@@\n-A\n+B\n*** End Patch\n"})),
        ("6 cm guard allow", None, payload(project, command="cm guard allow 'rm -rf ~'")),
        ("6 cm hooks uninstall --everywhere", None, payload(project, command="cm hooks uninstall --everywhere")),
        ("6 cm guard --uninstall", None, payload(project, command="cm guard --uninstall")),
        ("6 echo > ~/.cass-memory/config.json", None, payload(project, command="echo '{}' > ~/.cass-memory/config.json")),
        ("6 Write ~/.cass-memory/config.json", None, payload(project, tool="Write", tool_input={
            "file_path": "~/.cass-memory/config.json", "content": "{}"})),
        ("6 Write ~/.claude/settings.json", None, payload(project, tool="Write", tool_input={
            "file_path": "~/.claude/settings.json", "content": "{}"})),
        ("6 echo > settings.json", None, payload(project, command="echo '{}' > ~/.claude/settings.json")),
        ("7 echo KEY=x > .env", {"config": {"guard": {"protectedPaths": [".env"]}}}, payload(project, command="echo KEY=x > .env")),
        ("7 sed -i ... .env", {"config": {"guard": {"protectedPaths": [".env"]}}}, payload(project, command="sed -i 's/A/B/' .env")),
        ("7 cp into secrets/", {"config": {"guard": {"protectedPaths": ["secrets/**"]}}}, payload(project, command="cp x.key secrets/")),
        ("7 >> ~/.ssh/authorized_keys", None, payload(project, command="echo ssh-ed25519 AAAA >> ~/.ssh/authorized_keys")),
        ("7 python open('.env','w')", {"config": {"guard": {"protectedPaths": [".env"]}}},
         payload(project, command="python3 -c \"open('.env','w').write('A=1')\"")),
        ("7 > ~/.bashrc", None, payload(project, command="echo 'curl x | sh' > ~/.bashrc")),
        ("7 cp /dev/null ~/.zshrc", None, payload(project, command="cp /dev/null ~/.zshrc")),
    ]
    return out


HOOK_TIMEOUT_S = 5.0


def run_once(argv, stdin_path, env, timeout=None, out=".out"):
    """Milliseconds one call took; with `timeout` (seconds), None once it is passed (killed)."""
    fd = os.open(stdin_path, os.O_RDONLY)
    outp = os.open(stdin_path + out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        t0 = time.perf_counter_ns()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=[
            (os.POSIX_SPAWN_DUP2, fd, 0),
            (os.POSIX_SPAWN_DUP2, outp, 1),
            (os.POSIX_SPAWN_DUP2, devnull, 2),
        ])
        if timeout is None:
            os.wait4(pid, 0)
        else:
            while os.waitpid(pid, os.WNOHANG) == (0, 0):
                if time.perf_counter_ns() - t0 > timeout * 1e9:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    return None
                time.sleep(0.001)
        t1 = time.perf_counter_ns()
    finally:
        os.close(fd)
        os.close(outp)
        os.close(devnull)
    return (t1 - t0) / 1e6


def decision(path):
    text = open(path + ".out", "rb").read().decode(errors="replace")
    for d in ("deny", "ask"):
        if '"%s"' % d in text:
            return d
    return "allow"


def main():
    hook = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    tmp = tempfile.mkdtemp(prefix="cm-hostile-")
    if os.path.basename(hook) != "cm-pretool":
        # The hook is the binary under its link name.
        os.symlink(hook, os.path.join(tmp, "cm-pretool"))
        hook = os.path.join(tmp, "cm-pretool")
    base = os.environ.get("BASELINE")
    if base:
        os.makedirs(os.path.join(tmp, "base"))
        os.symlink(os.path.abspath(base), os.path.join(tmp, "base", "cm-pretool"))
        base = os.path.join(tmp, "base", "cm-pretool")
    rows = []
    try:
        only = os.environ.get("CASES")
        for name, files, _ in cases("/placeholder"):
            if only and not any(o in name for o in only.split("|")):
                continue
            case_dir = tempfile.mkdtemp(dir=tmp)
            home = os.path.join(case_dir, "home")
            project = os.path.join(case_dir, "project")
            os.makedirs(home)
            os.makedirs(os.path.join(project, ".git"))
            os.makedirs(os.path.join(project, ".cass"))
            # Build the payload again with the real project path.
            body = dict((n, p) for n, _, p in cases(project))[name]
            if files and "traumas" in files:
                with open(os.path.join(project, ".cass", "traumas.jsonl"), "w") as f:
                    f.write("\n".join(files["traumas"]) + "\n")
            if files and "config" in files:
                with open(os.path.join(project, ".cass", "config.json"), "w") as f:
                    json.dump(files["config"], f)
            env = {"HOME": home, "PATH": "/usr/bin:/bin", "CASS_MEMORY_HOME": os.path.join(home, ".cass-memory")}
            if os.environ.get("NO_DATA_DIR") != "1":
                os.makedirs(env["CASS_MEMORY_HOME"])
            hostile = os.path.join(case_dir, "hostile.json")
            benign = os.path.join(case_dir, "benign.json")
            open(hostile, "wb").write(body)
            open(benign, "wb").write(payload(project, command="npm test -- --watch=false"))
            run_once([hook], hostile, env)  # warm-up: builds the trauma index
            base_ok = base is not None and run_once([base], hostile, env, HOOK_TIMEOUT_S, ".base") is not None
            h, bl, b, t = [], [], [], []
            for _ in range(runs):
                h.append(run_once([hook], hostile, env))
                if base_ok:
                    bl.append(run_once([base], hostile, env, out=".base"))
                b.append(run_once([hook], benign, env))
                t.append(run_once(["/bin/true"], benign, env))
            base_cell = (statistics.median(bl) if bl else ("> %.0f s" % HOOK_TIMEOUT_S)) if base else None
            rows.append((name, statistics.median(h), sorted(h)[int(len(h) * 0.9) - 1],
                         statistics.median(b), statistics.median(t), decision(hostile), base_cell))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%-30s %10s %10s %8s %12s %10s %8s%s" % ("case", "median ms", "p90 ms", "x true", "benign ms", "true ms", "answer",
                                                   " %12s" % "baseline ms" if base else ""))
    worst = 0.0
    for name, med, p90, ben, tru, dec, bcell in rows:
        worst = max(worst, med, ben)
        extra = ""
        if base:
            extra = " %12s" % (("%.2f" % bcell) if isinstance(bcell, float) else bcell)
        print("%-30s %10.2f %10.2f %8.1f %12.2f %10.2f %8s%s" % (name, med, p90, med / tru, ben, tru, dec, extra))
    print("worst median (hostile or benign call) %.2f ms (target <= %.0f ms): %s" % (worst, TARGET_MS, "ok" if worst <= TARGET_MS else "OVER"))


if __name__ == "__main__":
    main()
