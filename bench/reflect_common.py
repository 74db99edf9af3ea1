"""Shared by bench/reflect_eval.py and bench/reflect_perf.py: the fixture manifest, a private
HOME laid out as Claude Code lays out its projects, and a runner for the real `cm` binary.

Every run gets its own HOME and CASS_MEMORY_HOME under a temp dir; variables that would let cm
read the real machine's sessions or call an LLM (CLAUDE_CONFIG_DIR, CODEX_HOME, provider API
keys) are removed, so reflection takes the deterministic path.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "reflect")
DEFAULT_BIN = os.path.join(ROOT, "target", "release", "cm")
STRIPPED_ENV = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
                "CM_NOW", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                "OLLAMA_HOST", "OPENAI_BASE_URL")


def load_manifest():
    with open(os.path.join(FIXTURES, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def project_slug(cwd):
    """Claude Code's directory name for a working directory: / . \\ : become -."""
    return re.sub(r"[/.\\:]", "-", cwd)


def install_sessions(home, entries, source_dir=FIXTURES):
    """Copy session files into HOME/.claude/projects/<slug>/<session id>.jsonl; return
    {manifest file: installed path}."""
    placed = {}
    for e in entries:
        proj = os.path.join(home, ".claude", "projects", project_slug(e["workspace"]))
        os.makedirs(proj, exist_ok=True)
        dest = os.path.join(proj, e["sessionId"] + ".jsonl")
        shutil.copyfile(os.path.join(source_dir, e["file"]), dest)
        placed[e["file"]] = dest
    return placed


class CmError(Exception):
    def __init__(self, argv, code, stdout, stderr):
        self.argv, self.code, self.stdout, self.stderr = argv, code, stdout, stderr
        try:
            self.json = json.loads(stdout)
        except ValueError:
            self.json = None
        super().__init__("`cm %s` exited %d: %s" % (" ".join(argv), code, self.message()))

    def message(self):
        err = (self.json or {}).get("error") or {}
        return err.get("message") or self.stderr.strip()[-400:] or self.stdout.strip()[-400:]

    def is_unknown_command(self):
        text = (self.message() + " " + self.stderr).lower()
        return self.code == 2 and ("unrecognized subcommand" in text or "unknown command" in text
                                   or "invalid value" in text and "reflect" in text)


class Cm:
    """The real binary in a private world (HOME, CASS_MEMORY_HOME, optional pinned clock)."""

    def __init__(self, binary, tmp, now=None):
        self.binary = os.path.abspath(binary)
        if not os.path.exists(self.binary):
            sys.exit("no cm binary at %s: build it first (cargo build --release) or pass --bin" % self.binary)
        self.home = os.path.join(tmp, "home")
        self.data = os.path.join(tmp, "data")
        self.cwd = os.path.join(tmp, "work")
        for d in (self.home, self.cwd):
            os.makedirs(d, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in STRIPPED_ENV}
        env.update(HOME=self.home, CASS_MEMORY_HOME=self.data, NO_COLOR="1")
        if now:
            env["CM_NOW"] = now
        self.env = env

    def run(self, *args, check=True):
        """Run `cm ARGS --json`; return (seconds, parsed JSON). Raise CmError on failure."""
        argv = ["--json"] + list(args)  # first, so a task after `--` stays whole
        t = time.perf_counter()
        p = subprocess.run([self.binary] + argv, env=self.env, cwd=self.cwd, capture_output=True, text=True)
        took = time.perf_counter() - t
        if check and p.returncode != 0:
            raise CmError(argv, p.returncode, p.stdout, p.stderr)
        try:
            out = json.loads(p.stdout)
        except ValueError:
            raise CmError(argv, p.returncode or -1, p.stdout, "stdout is not one JSON object\n" + p.stderr)
        return took, out

    def data_of(self, *args):
        return self.run(*args)[1].get("data") or {}

    def bullets(self):
        """Every rule (live or not) as the list command reports it, by id."""
        data = self.data_of("playbook", "list", "--all")
        items = data.get("bullets") if isinstance(data, dict) else data
        return {b["id"]: b for b in items or []}


def session_text(path):
    """All searchable text of a Claude Code session file: prompts, replies, thinking, tool
    inputs and tool results (what a reflector reads), one string."""
    parts = []

    def walk(v):
        if isinstance(v, str):
            parts.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for k, x in v.items():
                if k not in ("signature", "id", "tool_use_id", "type"):
                    walk(x)

    with open(path, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") in ("user", "assistant"):
                walk(rec["message"].get("content"))
    return "\n".join(parts)
