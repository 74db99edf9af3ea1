#!/usr/bin/env python3
"""Generate a realistic Claude Code or Codex session log of N lines with a fixed seed.

Record shapes follow docs/SESSIONS.md: Claude user/assistant lines with thinking, tool_use and
tool_result blocks, usage blocks and bookkeeping records; Codex rollouts with session_meta,
turn_context, duplicated prompts and replies (response_item + event_msg), reasoning summaries,
function calls and outputs, token counts.

usage: gen_sessions.py claude|codex LINES OUT [--seed S]
"""
import json
import random
import sys

WORDS = (
    "the index parser offset line session cargo test build failing passes error fix module "
    "connector resume append truncate search query token budget memory rule playbook agent "
    "workspace branch commit review patch file path struct trait impl async thread lock sqlite "
    "schema migration hook guard command output warning panic unwrap borrow lifetime"
).split()


def words(rng, lo, hi):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def ts(i):
    s = 1786363200 + i * 3
    return "2026-08-%02dT%02d:%02d:%02d.%03dZ" % (10 + s // 86400 % 10, s // 3600 % 24, s // 60 % 60, s % 60, i % 1000)


def claude(rng, n, out):
    sid = "3f2a6b1c-0c1e-4f8a-9d2b-%012x" % rng.getrandbits(48)
    env = {"isSidechain": False, "userType": "external", "cwd": "/home/u/proj", "sessionId": sid,
           "version": "2.1.19", "gitBranch": "main"}
    parent = None
    pending = None
    for i in range(n):
        uuid = "%08x-1111-4222-8333-%012x" % (i, rng.getrandbits(48))
        r = rng.random()
        rec = dict(env, parentUuid=parent, uuid=uuid, timestamp=ts(i))
        if pending:
            body = "\n".join("%d\t%s" % (k, words(rng, 4, 14)) for k in range(rng.randint(3, 60)))
            rec.update(type="user", message={"role": "user", "content": [
                {"tool_use_id": pending, "type": "tool_result", "content": body,
                 "is_error": rng.random() < 0.05}]},
                toolUseResult={"type": "text", "file": {"filePath": "/home/u/proj/src/lib.rs", "numLines": 40}})
            pending = None
        elif r < 0.15:
            rec.update(type="user", message={"role": "user", "content": words(rng, 5, 40)})
        elif r < 0.2:
            out.write(json.dumps({"type": "file-history-snapshot", "messageId": uuid,
                                  "snapshot": {"trackedFileBackups": {}, "timestamp": ts(i)},
                                  "isSnapshotUpdate": False}) + "\n")
            continue
        else:
            blocks = []
            if rng.random() < 0.4:
                blocks.append({"type": "thinking", "thinking": words(rng, 10, 60), "signature": "EqQBCkYIBxgCKkB" * 8})
            if rng.random() < 0.5:
                pending = "toolu_%016x" % rng.getrandbits(64)
                blocks.append({"type": "tool_use", "id": pending, "name": rng.choice(["Read", "Bash", "Edit", "Grep"]),
                               "input": {"command": "cargo test -p %s" % rng.choice(WORDS), "description": words(rng, 3, 8)}})
            else:
                blocks.append({"type": "text", "text": words(rng, 10, 120)})
            rec.update(type="assistant", requestId="req_%016x" % rng.getrandbits(64), message={
                "id": "msg_%016x" % rng.getrandbits(64), "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5-20250929", "content": blocks, "stop_reason": "tool_use",
                "stop_sequence": None, "usage": {"input_tokens": 1200, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 900, "cache_creation": {"ephemeral_5m_input_tokens": 0,
                "ephemeral_1h_input_tokens": 0}, "output_tokens": 45, "service_tier": "standard"}})
        parent = uuid
        out.write(json.dumps(rec, separators=(",", ":")) + "\n")


def codex(rng, n, out):
    sid = "0199a1b2-c3d4-7e5f-8a9b-%012x" % rng.getrandbits(48)
    line = lambda i, t, p: out.write(json.dumps({"timestamp": ts(i), "type": t, "payload": p}, separators=(",", ":")) + "\n")
    line(0, "session_meta", {"id": sid, "timestamp": ts(0), "cwd": "/home/u/proj", "originator": "codex_cli_rs",
                             "cli_version": "0.128.0", "source": "cli", "model_provider": "openai",
                             "git": {"commit_hash": "4f1c2e9", "branch": "main", "repository_url": "git@github.com:u/proj.git"}})
    i = 1
    while i < n:
        step = rng.random()
        if step < 0.1:
            line(i, "turn_context", {"cwd": "/home/u/proj", "approval_policy": "on-request",
                                     "sandbox_policy": {"type": "workspace-write"}, "model": "gpt-5-codex",
                                     "effort": "medium", "summary": "auto"}); i += 1
            text = words(rng, 5, 40)
            line(i, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}); i += 1
            line(i, "event_msg", {"type": "user_message", "message": text, "images": []}); i += 1
        elif step < 0.3:
            text = words(rng, 8, 50)
            line(i, "response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}],
                                      "content": None, "encrypted_content": "gAAAAABo" + "x" * 300}); i += 1
            line(i, "event_msg", {"type": "agent_reasoning", "text": text}); i += 1
        elif step < 0.7:
            call = "call_%016x" % rng.getrandbits(64)
            args = json.dumps({"cmd": "cargo test %s" % rng.choice(WORDS), "workdir": "/home/u/proj"})
            line(i, "response_item", {"type": "function_call", "name": "exec_command", "arguments": args, "call_id": call}); i += 1
            body = "\n".join(words(rng, 4, 14) for _ in range(rng.randint(2, 50)))
            out_s = json.dumps({"output": body, "metadata": {"exit_code": rng.choice([0, 0, 0, 1]), "duration_seconds": 1.5}}) \
                if rng.random() < 0.5 else body
            line(i, "response_item", {"type": "function_call_output", "call_id": call, "output": out_s}); i += 1
        elif step < 0.85:
            text = words(rng, 10, 120)
            line(i, "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}); i += 1
            line(i, "event_msg", {"type": "agent_message", "message": text}); i += 1
        else:
            line(i, "event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 5000,
                 "cached_input_tokens": 4000, "output_tokens": 300, "reasoning_output_tokens": 100, "total_tokens": 5300},
                 "model_context_window": 272000}, "rate_limits": None}); i += 1


def main():
    args = sys.argv[1:]
    seed = 42
    if "--seed" in args:
        k = args.index("--seed")
        seed = int(args[k + 1])
        del args[k:k + 2]
    if len(args) != 3 or args[0] not in ("claude", "codex"):
        sys.exit(__doc__)
    rng = random.Random(seed)
    with open(args[2], "w") as out:
        (claude if args[0] == "claude" else codex)(rng, int(args[1]), out)


if __name__ == "__main__":
    main()
