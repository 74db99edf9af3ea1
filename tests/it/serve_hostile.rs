//! `cm serve` against hostile local clients, over real HTTP (raw sockets, no SDK): sessions
//! opened and never closed are bounded and expire, clients trickling their bodies hold no place
//! a working client needs and are dropped at the body deadline, and no request can make the
//! server read its own data directory (the token file) as a transcript.

use crate::harness::{CM, Env};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::Duration;

struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(env: &Env, args: &[&str]) -> Server {
        let mut child = env
            .command(CM)
            .args(["serve", "--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start cm serve");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let first = lines.next().and_then(|l| l.ok()).unwrap_or_default();
        let addr = first
            .split_once("http://")
            .and_then(|(_, rest)| rest.split_once('/'))
            .map(|(a, _)| a.to_string())
            .unwrap_or_else(|| panic!("cm serve said: {first}"));
        std::thread::spawn(move || for _ in lines {});
        Server { child, addr }
    }

    fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        s
    }

    /// POST `body` to /mcp; (status, session id header, JSON-RPC answer if any).
    fn post(&self, body: &Value, session: Option<&str>) -> (u16, Option<String>, Value) {
        let text = body.to_string();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\nConnection: close\r\nContent-Length: {}\r\n",
            self.addr,
            text.len()
        );
        if let Some(id) = session {
            head.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
        }
        let mut s = self.connect();
        s.write_all(format!("{head}\r\n{text}").as_bytes()).unwrap();
        read_response(&mut s)
    }

    fn initialize(&self) -> String {
        let (status, id, _) = self.post(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "it", "version": "1"}}}),
            None,
        );
        assert_eq!(status, 200);
        let id = id.expect("a session id");
        let (status, _, _) = self.post(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            Some(&id),
        );
        assert_eq!(status, 202);
        id
    }

    fn call(&self, session: &str, tool: &str, args: Value) -> (u16, Value) {
        let (status, _, v) = self.post(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": tool, "arguments": args}}),
            Some(session),
        );
        (status, v)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Status, `mcp-session-id`, and the JSON-RPC message of the body (plain or one SSE event).
fn read_response(s: &mut TcpStream) -> (u16, Option<String>, Value) {
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let session = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("mcp-session-id")
            .then(|| v.trim().to_string())
    });
    let json = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:").map(str::trim).or(Some(l.trim())))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.is_object())
        .unwrap_or(Value::Null);
    (status, session, json)
}

#[test]
fn sessions_are_capped_and_an_unused_one_expires() {
    let env = Env::new();
    let server = Server::start(&env, &["--max-sessions", "10", "--session-idle", "2"]);
    let ids: Vec<String> = (0..40).map(|_| server.initialize()).collect();
    // The oldest were closed to make room; the newest works.
    let (status, _) = server.call(&ids[0], "guard_check", json!({"command": "ls"}));
    assert_eq!(status, 404, "the first of 40 sessions is still open");
    let (status, v) = server.call(&ids[39], "guard_check", json!({"command": "ls"}));
    assert_eq!(status, 200, "{v}");
    // Left unused (each look uses it again, so wait well past the idle time first), it is
    // closed too.
    let closed = (1..=4).any(|round| {
        std::thread::sleep(Duration::from_secs(3 * round));
        server
            .call(&ids[39], "guard_check", json!({"command": "ls"}))
            .0
            == 404
    });
    assert!(closed, "a session left unused is never closed");
}

#[test]
fn clients_trickling_bodies_lock_no_one_out_and_are_dropped() {
    let env = Env::new();
    let server = Server::start(&env, &["--max-concurrent", "4"]);
    // More slow clients than there are places: headers sent, the body never finishes.
    let mut slow: Vec<TcpStream> = (0..12)
        .map(|_| {
            let mut s = server.connect();
            let head = format!(
                "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{{\"jsonrpc\":",
                server.addr
            );
            s.write_all(head.as_bytes()).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let id = server.initialize();
    let (status, v) = server.call(&id, "guard_check", json!({"command": "ls -la"}));
    assert_eq!(status, 200, "{v}");
    assert!(v["result"].is_object(), "{v}");
    // At the body deadline each slow client is answered 408 and dropped.
    let (status, _, v) = read_response(&mut slow[0]);
    assert_eq!(status, 408, "{v}");
    assert_eq!(v["error"]["data"]["code"], "BODY_TIMEOUT", "{v}");
}

#[test]
fn the_data_directory_is_never_read_as_a_transcript() {
    let env = Env::new();
    env.add("Run the migrations before the seed script");
    std::fs::write(
        env.data.join("mcp-token"),
        "0123456789abcdef0123456789abcdef\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(env.data.join("mcp-token"), env.cwd.join("notes.jsonl")).unwrap();
    let server = Server::start(&env, &[]);
    let id = server.initialize();
    for session in [
        env.data.join("mcp-token").display().to_string(),
        env.data.join("cm.db").display().to_string(),
        "notes.jsonl".to_string(),
    ] {
        let (_, v) = server.call(
            &id,
            "memory_reflect",
            json!({"session": session, "dryRun": false}),
        );
        assert_eq!(
            v["error"]["data"]["code"], "PATH_IN_DATA_DIR",
            "{session}: {v}"
        );
    }
    // The command line refuses it too.
    let out = env
        .cm(&[
            "reflect",
            "--session",
            env.data.join("mcp-token").to_str().unwrap(),
        ])
        .json()
        .run()
        .code(3);
    out.error_code("PATH_IN_DATA_DIR");
    let (_, v) = server.call(&id, "memory_search", json!({"query": "0123456789abcdef"}));
    assert!(!v.to_string().contains("0123456789abcdef0123"), "{v}");
}

/// CPU time (user + system, in clock ticks) the process `pid` has used.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (which is in parentheses): state is field 3; utime and
    // stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
}

/// A workspace playbook that takes seconds to check (a thousand rules full of commands, each
/// judged by the guard) once kept the worker checking it long after the client was answered
/// `TIMEOUT`: with one worker, every later request timed out too. The work now stops at the
/// request's deadline: the process goes quiet and the next request is served.
#[test]
fn work_stops_at_the_request_timeout() {
    let env = Env::builder().workdir("shop").build();
    env.git_repo();
    env.stdout_of(&["init"]);
    let cmds: Vec<String> = (0..20)
        .map(|i| format!("`bash -c 'eval \"echo $(echo $(echo x{i}))\"'`"))
        .collect();
    let mut yaml = String::from("schemaVersion: 2\nbullets:\n");
    let mut i = 0;
    while yaml.len() < 1 << 20 {
        let content = format!("Upload service tests: run {}", cmds.join(" "));
        yaml.push_str(&format!(
            "- id: b-{i}\n  content: {}\n  category: testing\n",
            serde_json::to_string(&content).unwrap()
        ));
        i += 1;
    }
    std::fs::create_dir_all(env.cwd.join(".cass")).unwrap();
    std::fs::write(env.cwd.join(".cass/playbook.yaml"), yaml).unwrap();
    let server = Server::start(&env, &["--request-timeout", "1", "--workers", "1"]);
    let id = server.initialize();
    let (_, v) = server.call(&id, "cm_context", json!({"task": "upload service tests"}));
    assert_eq!(v["error"]["data"]["code"], "TIMEOUT", "{v}");
    // The one worker comes free (what the playbook's parse took before the deadline is not
    // interruptible, so allow it a few tries).
    let served = (0..8).any(|_| {
        let (status, v) = server.call(&id, "guard_check", json!({"command": "ls -la"}));
        status == 200 && v["result"].is_object()
    });
    assert!(
        served,
        "the worker is still busy with the timed-out request"
    );
    // And the process is quiet: no thread goes on checking rules.
    let pid = server.child.id();
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(2));
    let used = cpu_ticks(pid) - before;
    assert!(used < 50, "{used} ticks of CPU in 2 s of idling");
}
