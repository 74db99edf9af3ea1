//! `cm mcp` over a real stdio pipe: a line that is not JSON gets JSON-RPC's parse error
//! (-32700, id null) and the server goes on answering (issue 26 item 13).

use crate::harness::{CM, Env};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Stdio};

fn send(stdin: &mut ChildStdin, line: &str) {
    stdin.write_all(line.as_bytes()).unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin.flush().unwrap();
}

#[test]
fn a_line_that_is_not_json_is_answered_with_a_parse_error_and_serving_goes_on() {
    let env = Env::new();
    let mut child = env
        .command(CM)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start cm mcp");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || -> Value {
        let line = lines.next().expect("cm mcp closed stdout").unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not one JSON line: {line}"))
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    send(&mut stdin, &init.to_string());
    assert_eq!(next()["id"], 1);
    send(
        &mut stdin,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    send(&mut stdin, "this is not json");
    send(&mut stdin, r#"{"jsonrpc":"2.0","id":2,"method":"pi"#);
    send(
        &mut stdin,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
    );
    let mut parse_errors = 0;
    loop {
        let msg = next();
        if msg["id"] == 3 {
            assert!(
                msg["result"]["tools"]
                    .as_array()
                    .is_some_and(|t| !t.is_empty()),
                "{msg}"
            );
            break;
        }
        assert_eq!(msg["id"], Value::Null, "{msg}");
        assert_eq!(msg["jsonrpc"], "2.0");
        assert_eq!(msg["error"]["code"], -32700, "{msg}");
        parse_errors += 1;
    }
    // Both unparsable lines are answered, whatever the order against tools/list.
    send(&mut stdin, r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#);
    loop {
        let msg = next();
        if msg["id"] == 4 {
            break;
        }
        assert_eq!(msg["error"]["code"], -32700, "{msg}");
        parse_errors += 1;
    }
    assert_eq!(parse_errors, 2);
    drop(stdin);
    assert!(lines.next().is_none(), "nothing more once stdin closes");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
}
