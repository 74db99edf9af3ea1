//! `cm serve --verbose` writes one line per request on stderr (issue 26 item 4): the JSON-RPC
//! method, the tool, the status and the time, and nothing of the arguments. Driven over raw
//! HTTP against the real server.

use crate::harness::{CM, Env};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

/// POST one JSON-RPC message; the whole answer (headers and body), the connection closed.
fn post(addr: &str, session: Option<&str>, body: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let session = session
        .map(|id| format!("mcp-session-id: {id}\r\n"))
        .unwrap_or_default();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n{session}connection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer
}

#[test]
fn verbose_logs_each_request_with_its_method_tool_status_and_time() {
    let env = Env::new();
    env.add("Check the token expiry before debugging auth token refresh timeouts");
    let mut child = env
        .command(CM)
        .args(["serve", "--port", "0", "--verbose"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, lines) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let first = lines.recv_timeout(Duration::from_secs(60)).unwrap();
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|u| u.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("cm serve said: {first}"))
        .to_string();
    let init = post(
        &addr,
        None,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"it","version":"1"}}}"#,
    );
    let session = init
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .unwrap_or_else(|| panic!("no session: {init}"))
        .trim()
        .to_string();
    post(
        &addr,
        Some(&session),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let answer = post(
        &addr,
        Some(&session),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cm_context","arguments":{"task":"debug the auth token refresh"}}}"#,
    );
    assert!(answer.contains("token expiry"), "{answer}");
    let mut logged = Vec::new();
    while !logged.iter().any(|l: &String| l.contains("tools/call")) {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no tools/call line in {logged:?}"));
        logged.push(line);
    }
    let _ = child.kill();
    let _ = child.wait();
    let call = logged.iter().find(|l| l.contains("tools/call")).unwrap();
    assert!(
        call.starts_with("cm serve: POST tools/call cm_context -> 200 in ")
            && call.ends_with(" ms"),
        "{call}"
    );
    assert!(
        logged
            .iter()
            .any(|l| l.starts_with("cm serve: POST initialize -> 200 in ")),
        "{logged:?}"
    );
    assert!(
        !logged.iter().any(|l| l.contains("debug the auth")),
        "arguments are never logged: {logged:?}"
    );
}
