//! `cm mcp` over a real stdio pipe: a line that is not JSON gets JSON-RPC's parse error
//! (-32700, id null) and the server goes on answering (issue 26 item 13).

use crate::harness::Env;
use crate::mcp_kept::StdioServer;
use serde_json::{Value, json};

#[test]
fn a_line_that_is_not_json_is_answered_with_a_parse_error_and_serving_goes_on() {
    let env = Env::new();
    let mut mcp = StdioServer::start(&env);
    mcp.send_line("this is not json");
    mcp.send_line(r#"{"jsonrpc":"2.0","id":2,"method":"pi"#);
    mcp.send_line(r#"{"jsonrpc":"2.0","id":"list","method":"tools/list"}"#);
    mcp.send_line(r#"{"jsonrpc":"2.0","id":"ping","method":"ping"}"#);
    let mut seen = Vec::new();
    while seen
        .iter()
        .filter(|m: &&Value| m["id"] != Value::Null)
        .count()
        < 2
    {
        seen.push(mcp.read());
    }
    // The parse errors come before, between or after the answers, as the lines were read.
    let (rest, code) = mcp.close();
    assert_eq!(code, Some(0));
    seen.extend(rest);
    let (errors, answers): (Vec<Value>, Vec<Value>) =
        seen.into_iter().partition(|m| m["id"] == Value::Null);
    assert_eq!(answers.len(), 2, "{answers:?}");
    let answer = |id: &str| answers.iter().find(|m| m["id"] == id).unwrap();
    assert!(
        answer("list")["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    assert_eq!(
        answer("ping"),
        &json!({"jsonrpc": "2.0", "id": "ping", "result": {}})
    );
    assert_eq!(
        errors.len(),
        2,
        "one parse error per unparsable line: {errors:?}"
    );
    for e in &errors {
        assert_eq!(e["jsonrpc"], "2.0");
        assert_eq!(e["error"]["code"], -32700, "{e}");
    }
}
