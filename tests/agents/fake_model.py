#!/usr/bin/env python3
"""A fake model server on 127.0.0.1 for driving the agents' real CLIs in tests.

It speaks just enough of three APIs for a CLI to run one scripted tool call and finish:
  - Anthropic Messages (Claude Code): POST /v1/messages, streaming (SSE) or not;
  - Gemini generateContent / streamGenerateContent (Gemini CLI): POST .../models/M:ACTION;
  - OpenAI Responses (Codex): POST /v1/responses, streaming (SSE).

The scenario (a JSON file, argument 1) says what the "model" does, one step per turn:
  {"action": "shell", "command": "rm -rf target"}      run a shell command
  {"action": "write", "path": "/abs/file", "content": "..."}   write a file
  {"action": "call", "name": "write_stdin", "arguments": {...}}   call a tool by name; the
      string "$SESSION" in an argument becomes the number of the last "session ID N" a tool
      output reported (Codex's open terminal sessions)
  {"action": "text"}                                   just answer
or {"steps": [action, action, ...]}: step N is taken once the conversation holds N tool results.
The tool is the CLI's own (Bash / run_shell_command / exec_command or shell; Write / write_file /
apply_patch), named as the request's tool list names it. Past the last step (or when the request
offers no tools), the answer is the text "done." Every request is
appended, as one JSON line {path, body}, to the log file (argument 2); the chosen port is written
to the port file (argument 3) once the server listens. Stops by itself after --lifetime seconds
(default 600), so a test that dies never leaves it running.
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCENARIO = {}
LOG = None
LOG_LOCK = threading.Lock()
DONE_TEXT = "done."
COUNTER = [0]
COUNTER_LOCK = threading.Lock()


def fresh_id(prefix):
    """A new id per answer: CLIs key tool calls and messages by id."""
    with COUNTER_LOCK:
        COUNTER[0] += 1
        return "{}_fake_{}".format(prefix, COUNTER[0])


def log_request(path, body):
    with LOG_LOCK:
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps({"path": path, "body": body}) + "\n")


def step(results):
    """The action for a conversation holding `results` tool results (None: answer in text)."""
    steps = SCENARIO.get("steps") or [SCENARIO]
    if results >= len(steps):
        return {"action": "text"}
    return steps[results]


def tool_names_anthropic(body):
    return [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]


def tool_results_anthropic(body):
    n = 0
    for m in body.get("messages") or []:
        content = m.get("content")
        if isinstance(content, list):
            n += sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
    return n


def anthropic_action(body):
    """(name, input) for a tool call, or None for text."""
    names = tool_names_anthropic(body)
    act = step(tool_results_anthropic(body))
    action = act.get("action", "text")
    if action == "text" or not names:
        return None
    if action == "shell" and "Bash" in names:
        return "Bash", {"command": act["command"], "description": "Run the command"}
    if action == "write" and "Write" in names:
        return "Write", {"file_path": act["path"], "content": act.get("content", "")}
    if action == "call" and act["name"] in names:
        return act["name"], act.get("arguments", {})
    return None


def anthropic_events(body, model):
    call = anthropic_action(body)
    msg = {"id": fresh_id("msg"), "type": "message", "role": "assistant", "model": model,
           "content": [], "stop_reason": None, "stop_sequence": None,
           "usage": {"input_tokens": 10, "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": msg}
    if call:
        name, args = call
        yield "content_block_start", {"type": "content_block_start", "index": 0,
                                      "content_block": {"type": "tool_use", "id": fresh_id("toolu"),
                                                        "name": name, "input": {}}}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0,
                                      "delta": {"type": "input_json_delta",
                                                "partial_json": json.dumps(args)}}
        stop = "tool_use"
    else:
        yield "content_block_start", {"type": "content_block_start", "index": 0,
                                      "content_block": {"type": "text", "text": ""}}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0,
                                      "delta": {"type": "text_delta", "text": DONE_TEXT}}
        stop = "end_turn"
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": stop, "stop_sequence": None},
                            "usage": {"output_tokens": 5}}
    yield "message_stop", {"type": "message_stop"}


def anthropic_message(body, model):
    call = anthropic_action(body)
    if call:
        content = [{"type": "tool_use", "id": fresh_id("toolu"), "name": call[0], "input": call[1]}]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": DONE_TEXT}]
        stop = "end_turn"
    return {"id": fresh_id("msg"), "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}


def gemini_action(body):
    names = []
    for t in body.get("tools") or []:
        for d in t.get("functionDeclarations") or []:
            names.append(d.get("name"))
    results = 0
    for c in body.get("contents") or []:
        for p in c.get("parts") or []:
            if isinstance(p, dict) and "functionResponse" in p:
                results += 1
    act = step(results)
    action = act.get("action", "text")
    if action == "shell" and "run_shell_command" in names:
        return {"name": "run_shell_command",
                "args": {"command": act["command"], "description": "Run the command"}}
    if action == "write" and "write_file" in names:
        return {"name": "write_file",
                "args": {"file_path": act["path"], "content": act.get("content", "")}}
    if action == "call" and act["name"] in names:
        return {"name": act["name"], "args": act.get("arguments", {})}
    return None


def from_schema(schema):
    """A minimal value that satisfies a (Gemini or JSON) schema: the CLI's side requests (model
    routing, next-speaker checks) ask for JSON and retry until they get it."""
    if not isinstance(schema, dict):
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        return {k: from_schema(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 50
    if kind == "boolean":
        return False
    return "fake"


def gemini_response(body):
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if config.get("responseMimeType") == "application/json" and schema:
        return {"candidates": [{"content": {"role": "model",
                                            "parts": [{"text": json.dumps(from_schema(schema))}]},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                  "totalTokenCount": 15}}
    call = gemini_action(body)
    part = {"functionCall": call} if call else {"text": DONE_TEXT}
    return {"candidates": [{"content": {"role": "model", "parts": [part]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                              "totalTokenCount": 15},
            "modelVersion": "gemini-fake"}


def responses_tools(body):
    out = {}
    for t in body.get("tools") or []:
        if isinstance(t, dict):
            out[t.get("name") or t.get("type")] = t
    return out


def responses_action(body):
    results = sum(1 for item in body.get("input") or []
                  if isinstance(item, dict) and item.get("type") in (
                      "function_call_output", "custom_tool_call_output",
                      "local_shell_call_output"))
    tools = responses_tools(body)
    act = step(results)
    action = act.get("action", "text")
    n = results + 1
    if action == "call" and act["name"] in tools:
        args = json.dumps(act.get("arguments", {}))
        if '"$SESSION"' in args:
            import re
            found = re.findall(r"session ID (\d+)", json.dumps(body.get("input") or []))
            args = args.replace('"$SESSION"', found[-1] if found else "0")
        return {"type": "function_call", "name": act["name"],
                "arguments": args, "call_id": "call_fake_%d" % n}
    if action == "shell":
        cmd = act["command"]
        if "exec_command" in tools:
            return {"type": "function_call", "name": "exec_command",
                    "arguments": json.dumps({"cmd": cmd}), "call_id": "call_fake_%d" % n}
        if "shell" in tools:
            return {"type": "function_call", "name": "shell",
                    "arguments": json.dumps({"command": ["bash", "-lc", cmd]}),
                    "call_id": "call_fake_%d" % n}
        if "shell_command" in tools:
            return {"type": "function_call", "name": "shell_command",
                    "arguments": json.dumps({"command": cmd}), "call_id": "call_fake_%d" % n}
    if action == "write" and "apply_patch" in tools:
        lines = act.get("content", "").splitlines() or [""]
        patch = "*** Begin Patch\n*** Add File: {}\n{}\n*** End Patch\n".format(
            act["path"], "\n".join("+" + l for l in lines))
        if tools["apply_patch"].get("type") == "custom":
            return {"type": "custom_tool_call", "name": "apply_patch", "input": patch,
                    "call_id": "call_fake_%d" % n}
        return {"type": "function_call", "name": "apply_patch",
                "arguments": json.dumps({"input": patch}), "call_id": "call_fake_%d" % n}
    return None


def responses_events(body):
    resp_id = fresh_id("resp")
    yield "response.created", {"type": "response.created",
                               "response": {"id": resp_id, "status": "in_progress"}}
    call = responses_action(body)
    if call:
        item = dict(call, id=fresh_id("fc"), status="completed")
    else:
        item = {"type": "message", "role": "assistant", "id": fresh_id("msg"), "status": "completed",
                "content": [{"type": "output_text", "text": DONE_TEXT, "annotations": []}]}
    yield "response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                         "item": item}
    yield "response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                        "item": item}
    yield "response.completed", {
        "type": "response.completed",
        "response": {"id": resp_id, "status": "completed", "output": [item],
                     "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                               "output_tokens": 5,
                               "output_tokens_details": {"reasoning_tokens": 0},
                               "total_tokens": 15}}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if self.headers.get("Content-Encoding") == "zstd" or self.headers.get("Content-Encoding") == "gzip":
            try:
                import gzip
                raw = gzip.decompress(raw)
            except Exception:
                pass
        try:
            return json.loads(raw or b"{}")
        except Exception:
            return {"_raw": raw.decode("utf-8", "replace")}

    def send_json(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_sse(self, events, named=True):
        chunks = []
        for name, data in events:
            if named:
                chunks.append("event: {}\ndata: {}\n\n".format(name, json.dumps(data)))
            else:
                chunks.append("data: {}\n\n".format(json.dumps(data)))
        payload = "".join(chunks).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        log_request(self.path, None)
        path = self.path.split("?")[0]
        if path.endswith("/models"):
            return self.send_json({"data": [], "models": [], "object": "list"})
        self.send_json({})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body = self.read_body()
        log_request(self.path, body)
        path = self.path.split("?")[0]
        if path.endswith("/messages/count_tokens"):
            return self.send_json({"input_tokens": 10})
        if path.endswith("/messages"):
            model = body.get("model", "claude-fake")
            if body.get("stream"):
                return self.send_sse(anthropic_events(body, model))
            return self.send_json(anthropic_message(body, model))
        if ":streamGenerateContent" in path:
            return self.send_sse([("", gemini_response(body))], named=False)
        if ":generateContent" in path:
            return self.send_json(gemini_response(body))
        if ":countTokens" in path:
            return self.send_json({"totalTokens": 10})
        if path.endswith("/responses"):
            return self.send_sse(responses_events(body))
        self.send_json({"error": {"message": "fake model server: unknown path " + path}}, 404)


def main():
    global SCENARIO, LOG
    if len(sys.argv) < 4:
        sys.exit("usage: fake_model.py SCENARIO.json LOG.jsonl PORTFILE [--lifetime S]")
    with open(sys.argv[1], encoding="utf-8") as f:
        SCENARIO = json.load(f)
    LOG = sys.argv[2]
    lifetime = 600.0
    if "--lifetime" in sys.argv:
        lifetime = float(sys.argv[sys.argv.index("--lifetime") + 1])
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(sys.argv[3] + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.replace(sys.argv[3] + ".tmp", sys.argv[3])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    time.sleep(lifetime)
    server.shutdown()


if __name__ == "__main__":
    main()
