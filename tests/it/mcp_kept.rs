//! What the MCP server keeps between calls (sessions' arousal) follows the store: a session
//! another process indexes while the server runs is seen as it now is by the next call. Driven
//! over stdio with raw JSON-RPC lines, so it needs no client SDK.

use crate::harness::Env;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

pub(crate) struct StdioServer {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    next: u64,
}

impl StdioServer {
    pub(crate) fn start(env: &Env) -> StdioServer {
        let mut child = env
            .command(crate::harness::CM)
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start cm mcp");
        let input = child.stdin.take();
        let output = BufReader::new(child.stdout.take().unwrap());
        let mut s = StdioServer {
            child,
            input,
            output,
            next: 0,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "it", "version": "1"}}),
        );
        s.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, msg: Value) {
        self.send_line(&msg.to_string());
    }

    /// One line as it is, for a test of what the server does with bad input.
    pub(crate) fn send_line(&mut self, line: &str) {
        let input = self.input.as_mut().expect("stdin is open");
        writeln!(input, "{line}").unwrap();
        input.flush().unwrap();
    }

    /// The next message the server writes.
    pub(crate) fn read(&mut self) -> Value {
        let mut line = String::new();
        assert!(
            self.output.read_line(&mut line).unwrap() > 0,
            "cm mcp closed"
        );
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not one JSON line: {line}"))
    }

    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let msg = self.read();
            if msg["id"] == id {
                return msg;
            }
        }
    }

    /// Close stdin: what the server still wrote, and its exit code.
    pub(crate) fn close(mut self) -> (Vec<Value>, Option<i32>) {
        drop(self.input.take());
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut self.output, &mut rest);
        let rest = rest
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}")))
            .collect();
        (rest, self.child.wait().unwrap().code())
    }

    /// `cm_context`'s first history snippet's arousal.
    fn arousal(&mut self, task: &str) -> f64 {
        let answer = self.request(
            "tools/call",
            json!({"name": "cm_context", "arguments": {"task": task}}),
        );
        let data = &answer["result"]["structuredContent"];
        data["historySnippets"][0]["arousal"]
            .as_f64()
            .unwrap_or_else(|| panic!("no history snippet: {answer:#}"))
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn line(uuid: &str, kind: &str, text: &str, at: &str) -> String {
    let message = if kind == "user" {
        json!({"role": "user", "content": text})
    } else {
        json!({"role": "assistant", "content": [{"type": "text", "text": text}]})
    };
    json!({"type": kind, "uuid": uuid, "sessionId": "s1", "cwd": "/app", "timestamp": at,
        "message": message})
    .to_string()
        + "\n"
}

#[test]
fn a_session_indexed_by_another_process_is_seen_by_the_next_call() {
    let env = Env::builder().now("2026-05-31T00:00:00Z").build();
    env.git_repo();
    env.add("Check the retry budget before adding retries to the worker");
    let session = env.home.join(".claude/projects/-app/s1.jsonl");
    std::fs::create_dir_all(session.parent().unwrap()).unwrap();
    let calm = line(
        "u1",
        "user",
        "the worker retry budget runs out on timeouts",
        "2026-05-30T10:00:00Z",
    ) + &line(
        "a1",
        "assistant",
        "I read the worker retry budget settings.",
        "2026-05-30T10:01:00Z",
    );
    std::fs::write(&session, &calm).unwrap();
    env.stdout_of(&["history", "index"]);

    let mut server = StdioServer::start(&env);
    let task = "worker retry budget timeouts";
    assert_eq!(server.arousal(task), 0.0);
    // Kept: the same again.
    assert_eq!(server.arousal(task), 0.0);

    // Another process indexes the session grown by a breakthrough while the server runs.
    let grown = calm
        + &line(
            "a2",
            "assistant",
            "Finally it works: the root cause was the worker retry budget.",
            "2026-05-30T10:02:00Z",
        );
    std::fs::write(&session, grown).unwrap();
    env.stdout_of(&["history", "index"]);
    let after = server.arousal(task);
    let fresh = env.data_of(&["context", task]);
    assert_eq!(
        fresh["historySnippets"][0]["arousal"].as_f64(),
        Some(after),
        "{fresh:#}"
    );
    assert!(after > 0.0, "{after}");
}
