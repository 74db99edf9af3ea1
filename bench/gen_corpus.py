#!/usr/bin/env python3
"""Write a HOME-like tree of realistic Claude Code and Codex session files (fixed seed).

Record shapes follow the session formats cm reads (docs: SESSIONS.md): Claude Code
`~/.claude/projects/<slug>/<uuid>.jsonl` (user/assistant lines with text, thinking, tool_use and
tool_result blocks, errors, summaries, bookkeeping records, a few subagent transcripts) and Codex
`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (session_meta, turn_context, prompts and replies in
both response_item and event_msg, reasoning, function calls and outputs, token counts).

Vocabulary is Zipf-distributed over a few thousand words (common coding words plus generated
ones), so term frequencies look like real text: a few words everywhere, most words rare. About
1% of tool outputs are long (20-120 KB) to exercise the cap.

usage: gen_corpus.py OUT_HOME --records N [--sessions S] [--seed 7]
  N: approximate number of conversation records (~ indexed messages) in total
  S: number of session files (default: N / 200)
"""
import argparse
import bisect
import itertools
import json
import os
import random
import uuid as uuidlib

CORE = (
    "the a to of and in is for it that this with on be not fix test error build file run "
    "function return value type struct trait impl module crate cargo index query session line "
    "offset parser token search branch commit merge rebase config path directory permission "
    "denied timeout retry cache database schema migration table column row lock thread async "
    "await future panic unwrap option result borrow lifetime clone string vector hash map "
    "iterator closure macro derive serde json yaml toml http request response header client "
    "server port socket tls certificate auth login user password deploy docker image container "
    "kubernetes pod service ingress log warning debug trace metric latency memory leak cpu "
    "benchmark profile flamegraph allocation heap stack overflow segfault signal process child "
    "pipe stdin stdout stderr exit code status flag option argument parse validate schema "
    "frontend react component state props hook render css layout button form input modal "
    "python pip venv pytest fixture mock patch import package version dependency upgrade "
    "regression bisect revert review comment approve ci pipeline workflow job artifact release"
).split()

SYLLABLES = "ka lo mi ren tos vel qua zen dor fi lu mar nek pol ris sut tam vor wex yal bri cto".split()


def make_vocab(rng, n):
    words = list(dict.fromkeys(CORE))
    seen = set(words)
    while len(words) < n:
        w = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    # Zipf weights: rank r gets 1/r.
    cum = list(itertools.accumulate(1.0 / (r + 1) for r in range(len(words))))
    return words, cum


class Text:
    def __init__(self, rng, vocab_size=6000):
        self.rng = rng
        self.words, self.cum = make_vocab(rng, vocab_size)
        self.total = self.cum[-1]

    def word(self):
        return self.words[bisect.bisect_left(self.cum, self.rng.random() * self.total)]

    def words_(self, lo, hi):
        return " ".join(self.word() for _ in range(self.rng.randint(lo, hi)))

    def sentence(self, lo=6, hi=18):
        s = self.words_(lo, hi)
        return s[:1].upper() + s[1:] + "."

    def para(self, lo=1, hi=5):
        return " ".join(self.sentence() for _ in range(self.rng.randint(lo, hi)))

    def path(self):
        return "src/%s/%s.rs" % (self.word(), self.word())

    def command(self):
        r = self.rng.random()
        if r < 0.3:
            return "cargo test %s" % self.word()
        if r < 0.5:
            return "rg -n '%s' src" % self.word()
        if r < 0.7:
            return "git log --oneline -n %d" % self.rng.randint(3, 30)
        return "ls %s" % os.path.dirname(self.path())

    def output(self):
        rng = self.rng
        r = rng.random()
        if r < 0.01:  # long output: build logs, big files
            n = rng.randint(300, 1500)
        elif r < 0.2:
            n = rng.randint(20, 80)
        else:
            n = rng.randint(2, 15)
        return "\n".join("%4d  %s" % (i + 1, self.words_(3, 14)) for i in range(n))

    def error(self):
        return "error[E%04d]: %s\n  --> %s:%d:%d\n%s" % (
            self.rng.randint(1, 800), self.sentence(4, 9), self.path(),
            self.rng.randint(1, 900), self.rng.randint(1, 80), self.para(1, 2))


def iso(t):
    ms = int(t * 1000) % 1000
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(t))) + ".%03dZ" % ms


def claude_session(rng, tx, out, n, t0, cwd, sid, sidechain=False, agent_id=None):
    env = {"isSidechain": sidechain, "userType": "external", "cwd": cwd, "sessionId": sid,
           "version": "2.1.19", "gitBranch": rng.choice(["main", "dev", "fix/%s" % tx.word()])}
    if agent_id:
        env["agentId"] = agent_id
    parent = None
    t = t0
    written = 0
    pending = None
    model = rng.choice(["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805"])
    while written < n:
        t += rng.uniform(1, 40)
        u = str(uuidlib.UUID(int=rng.getrandbits(128), version=4))
        rec = dict(env, parentUuid=parent, uuid=u, timestamp=iso(t))
        if pending:
            is_err = rng.random() < 0.06
            body = tx.error() if is_err else tx.output()
            rec.update(type="user", message={"role": "user", "content": [
                {"tool_use_id": pending, "type": "tool_result", "content": body, "is_error": is_err}]},
                toolUseResult={"stdout": body[:200], "stderr": "", "interrupted": False})
            pending = None
        elif written == 0 or rng.random() < 0.18:
            rec.update(type="user", message={"role": "user", "content": tx.para(1, 3)})
        else:
            blocks = []
            if rng.random() < 0.3:
                blocks.append({"type": "thinking", "thinking": tx.para(1, 3), "signature": "EqQBCkYIBxgCKkB"})
            if rng.random() < 0.7:
                blocks.append({"type": "text", "text": tx.para(1, 4)})
            if rng.random() < 0.55 or not blocks:
                pending = "toolu_%024x" % rng.getrandbits(96)
                name = rng.choice(["Bash", "Read", "Edit", "Grep"])
                inp = ({"command": tx.command(), "description": tx.sentence(3, 6)} if name == "Bash"
                       else {"file_path": cwd + "/" + tx.path()} if name == "Read"
                       else {"pattern": tx.word(), "path": cwd} if name == "Grep"
                       else {"file_path": cwd + "/" + tx.path(), "old_string": tx.words_(3, 8),
                             "new_string": tx.words_(3, 8)})
                blocks.append({"type": "tool_use", "id": pending, "name": name, "input": inp})
            rec.update(type="assistant", requestId="req_%020x" % rng.getrandbits(80), message={
                "id": "msg_%020x" % rng.getrandbits(80), "type": "message", "role": "assistant",
                "model": model, "content": blocks, "stop_reason": "tool_use" if pending else "end_turn",
                "stop_sequence": None, "usage": {"input_tokens": rng.randint(100, 9000),
                                                 "cache_creation_input_tokens": 0,
                                                 "cache_read_input_tokens": rng.randint(0, 90000),
                                                 "output_tokens": rng.randint(10, 900),
                                                 "service_tier": "standard"}})
        out.write(json.dumps(rec) + "\n")
        parent = u
        written += 1
        if rng.random() < 0.03:
            out.write(json.dumps({"type": "system", "subtype": "turn_duration", "durationMs": 1234,
                                  "timestamp": iso(t), "sessionId": sid, "uuid": u + "-sys"}) + "\n")
    out.write(json.dumps({"type": "summary", "summary": tx.sentence(3, 8), "leafUuid": parent}) + "\n")
    return written, t


def codex_session(rng, tx, out, n, t0, cwd, sid):
    t = t0

    def w(kind, payload):
        out.write(json.dumps({"timestamp": iso(t), "type": kind, "payload": payload}) + "\n")

    w("session_meta", {"id": sid, "timestamp": iso(t), "cwd": cwd, "originator": "codex_cli_rs",
                       "cli_version": "0.128.0", "source": "cli", "model_provider": "openai",
                       "base_instructions": {"text": "You are a coding agent. " + tx.para(2, 3)},
                       "git": {"commit_hash": "%07x" % rng.getrandbits(28), "branch": "main",
                               "repository_url": "git@example.com:u/proj.git"}})
    w("response_item", {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "<environment_context>\n  <cwd>%s</cwd>\n</environment_context>" % cwd}]})
    written = 0
    while written < n:
        t += rng.uniform(1, 30)
        w("turn_context", {"cwd": cwd, "approval_policy": "on-request",
                           "sandbox_policy": {"type": "workspace-write"}, "model": "gpt-5-codex",
                           "effort": "medium", "summary": "auto"})
        prompt = tx.para(1, 3)
        w("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
        w("event_msg", {"type": "user_message", "message": prompt, "images": []})
        written += 1
        for _ in range(rng.randint(1, 4)):
            if written >= n:
                break
            t += rng.uniform(0.5, 20)
            if rng.random() < 0.4:
                w("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": tx.sentence()}],
                                    "content": None, "encrypted_content": "gAAAAABo-opaque"})
                written += 1
            call = "call_%020x" % rng.getrandbits(80)
            w("response_item", {"type": "function_call", "name": "exec_command",
                                "arguments": json.dumps({"cmd": tx.command(), "workdir": cwd}), "call_id": call})
            is_err = rng.random() < 0.06
            w("response_item", {"type": "function_call_output", "call_id": call,
                                "output": tx.error() if is_err else tx.output()})
            written += 2
        reply = tx.para(1, 4)
        w("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": reply}]})
        w("event_msg", {"type": "agent_message", "message": reply})
        w("event_msg", {"type": "token_count", "info": None, "rate_limits": None})
        written += 1
    return written, t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("home")
    ap.add_argument("--records", type=int, required=True)
    ap.add_argument("--sessions", type=int, default=0)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    tx = Text(rng)
    sessions = a.sessions or max(1, a.records // 200)
    per = max(2, a.records // sessions)
    projects = ["/home/u/%s" % tx.word() + ("-%d" % i if i else "") for i in range(12)]
    t = 1780000000.0
    total = 0
    for s in range(sessions):
        n = max(2, int(per * rng.uniform(0.5, 1.5))) if sessions > 1 else per
        cwd = rng.choice(projects)
        t += rng.uniform(600, 20000)
        sid = str(uuidlib.UUID(int=rng.getrandbits(128), version=4))
        if rng.random() < 0.6:
            d = os.path.join(a.home, ".claude", "projects", cwd.replace("/", "-"))
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, sid + ".jsonl"), "w") as f:
                k, _ = claude_session(rng, tx, f, n, t, cwd, sid)
            total += k
            if rng.random() < 0.05:
                sd = os.path.join(d, sid, "subagents")
                os.makedirs(sd, exist_ok=True)
                aid = "%07x" % rng.getrandbits(28)
                with open(os.path.join(sd, "agent-%s.jsonl" % aid), "w") as f:
                    k, _ = claude_session(rng, tx, f, max(2, n // 5), t, cwd, sid, True, aid)
                total += k
        else:
            day = iso(t)[:10].split("-")
            d = os.path.join(a.home, ".codex", "sessions", *day)
            os.makedirs(d, exist_ok=True)
            name = "rollout-%s-%s.jsonl" % (iso(t)[:19].replace(":", "-"), sid)
            with open(os.path.join(d, name), "w") as f:
                k, _ = codex_session(rng, tx, f, n, t, cwd, sid)
            total += k
    print(json.dumps({"sessions": sessions, "records": total, "home": a.home}))


if __name__ == "__main__":
    main()
