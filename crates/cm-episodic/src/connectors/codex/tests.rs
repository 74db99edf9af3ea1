use super::*;
use crate::model::{Message, MessageKind, Role};
use std::io::Write;

const META: &str = r#"{"timestamp":"2026-08-10T20:05:50.101Z","type":"session_meta","payload":{"id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","timestamp":"2026-08-10T20:05:50.000Z","cwd":"/home/u/proj","originator":"codex_cli_rs","cli_version":"0.128.0","source":"cli","model_provider":"openai","git":{"commit_hash":"4f1c2e9","branch":"main","repository_url":"git@github.com:u/proj.git"}}}"#;
const TURN: &str = r#"{"timestamp":"2026-08-10T20:05:51.000Z","type":"turn_context","payload":{"cwd":"/home/u/proj","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write"},"model":"gpt-5-codex","effort":"medium","summary":"auto"}}"#;
const ENV: &str = r#"{"timestamp":"2026-08-10T20:05:51.005Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/home/u/proj</cwd>\n</environment_context>"}]}}"#;
const DEV: &str = r#"{"timestamp":"2026-08-10T20:05:51.006Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>sandboxed</permissions instructions>"}]}}"#;
const PROMPT: &str = r#"{"timestamp":"2026-08-10T20:05:51.010Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run the tests"}]}}"#;
const PROMPT_EV: &str = r#"{"timestamp":"2026-08-10T20:05:51.011Z","type":"event_msg","payload":{"type":"user_message","message":"run the tests","images":[]}}"#;
const REASON: &str = r#"{"timestamp":"2026-08-10T20:05:52.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Running cargo test**"}],"content":null,"encrypted_content":"gAAAAABo-opaque"}}"#;
const REASON_EV: &str = r#"{"timestamp":"2026-08-10T20:05:52.001Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"**Running cargo test**"}}"#;
const CALL: &str = r#"{"timestamp":"2026-08-10T20:05:52.101Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cargo test\",\"workdir\":\"/home/u/proj\"}","call_id":"call_abc123"}}"#;
const OUTPUT: &str = r#"{"timestamp":"2026-08-10T20:05:58.400Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_abc123","output":"test result: ok. 12 passed; 0 failed"}}"#;
const REPLY: &str = r#"{"timestamp":"2026-08-10T20:05:59.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"All 12 tests pass."}]}}"#;
const REPLY_EV: &str = r#"{"timestamp":"2026-08-10T20:05:59.001Z","type":"event_msg","payload":{"type":"agent_message","message":"All 12 tests pass."}}"#;
const TOKENS: &str = r#"{"timestamp":"2026-08-10T20:05:59.200Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":null}}"#;

fn file_at(path: PathBuf) -> SourceFile {
    SourceFile {
        agent: SLUG,
        path,
        kind: SourceKind::Lines,
        parent_session_id: None,
    }
}

fn parse_lines(lines: &[&str]) -> ParseOutput {
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("rollout-2026-08-10T20-05-50-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    parse_file(&file_at(path), &ResumePoint::default(), u64::MAX).unwrap()
}

fn summary(m: &[Message]) -> Vec<(u64, Role, MessageKind, &str)> {
    m.iter()
        .map(|m| (m.line_number, m.role, m.kind, m.text.as_str()))
        .collect()
}

#[test]
fn both_logs_yield_each_text_once() {
    let out = parse_lines(&[
        META, TURN, ENV, DEV, PROMPT, PROMPT_EV, REASON, REASON_EV, CALL, OUTPUT, REPLY, REPLY_EV,
        TOKENS,
    ]);
    assert_eq!(
        summary(&out.messages),
        vec![
            (
                3,
                Role::User,
                MessageKind::Scaffolding,
                "<environment_context>\n  <cwd>/home/u/proj</cwd>\n</environment_context>"
            ),
            (
                4,
                Role::System,
                MessageKind::Scaffolding,
                "<permissions instructions>sandboxed</permissions instructions>"
            ),
            (5, Role::User, MessageKind::Text, "run the tests"),
            (
                7,
                Role::Assistant,
                MessageKind::Thinking,
                "**Running cargo test**"
            ),
            (
                9,
                Role::Assistant,
                MessageKind::ToolCall,
                "cargo test\n/home/u/proj"
            ),
            (
                10,
                Role::Tool,
                MessageKind::ToolResult,
                "test result: ok. 12 passed; 0 failed"
            ),
            (11, Role::Assistant, MessageKind::Text, "All 12 tests pass."),
        ]
    );
    let call = &out.messages[4];
    assert_eq!(call.tool_name.as_deref(), Some("exec_command"));
    assert_eq!(
        call.tool_args.as_deref(),
        Some(r#"{"cmd":"cargo test","workdir":"/home/u/proj"}"#)
    );
    assert_eq!(out.messages[5].tool_name.as_deref(), Some("exec_command"));
    assert!(!out.messages[5].is_error);
    let m = &out.messages[2];
    assert_eq!(m.session_id, "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    assert_eq!(m.workspace.as_deref(), Some("/home/u/proj"));
    assert_eq!(m.git_branch.as_deref(), Some("main"));
    assert_eq!(m.model.as_deref(), Some("gpt-5-codex"));
    assert_eq!(m.timestamp.as_deref(), Some("2026-08-10T20:05:51.010Z"));
    let s = &out.sessions[0];
    assert_eq!(s.started_at.as_deref(), Some("2026-08-10T20:05:50.000Z"));
    assert_eq!(s.ended_at.as_deref(), Some("2026-08-10T20:05:59.200Z"));
    assert!(out.skipped.is_empty());
}

#[test]
fn a_prompt_really_sent_twice_is_kept_twice_in_either_order() {
    let out = parse_lines(&[META, PROMPT_EV, PROMPT, PROMPT, PROMPT_EV]);
    let users: Vec<u64> = out
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.line_number)
        .collect();
    assert_eq!(users, vec![2, 4]);
}

#[test]
fn the_twin_is_recognised_across_a_resume() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-x.jsonl");
    std::fs::write(&path, format!("{META}\n{TURN}\n{PROMPT}\n")).unwrap();
    let file = file_at(path.clone());
    let first = parse_file(&file, &ResumePoint::default(), u64::MAX).unwrap();
    assert_eq!(first.messages.len(), 1);
    let state = first.next.state.as_ref().unwrap().to_string();
    assert!(!state.contains("run the tests"), "state must not hold text");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(f, "{PROMPT_EV}\n{CALL}").unwrap();
    write!(f, "{}", &OUTPUT[..40]).unwrap();
    let second = parse_file(&file, &first.next, u64::MAX).unwrap();
    assert_eq!(summary(&second.messages).len(), 1, "only the call is new");
    assert_eq!(second.messages[0].line_number, 5);
    assert_eq!(
        second.messages[0].session_id,
        "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    );
    assert_eq!(
        second.messages[0].workspace.as_deref(),
        Some("/home/u/proj")
    );
    assert_eq!(second.next.line, 6);
    writeln!(f, "{}", &OUTPUT[40..]).unwrap();
    let third = parse_file(&file, &second.next, u64::MAX).unwrap();
    assert_eq!(third.messages.len(), 1);
    assert_eq!(third.messages[0].line_number, 6);
    assert_eq!(third.messages[0].tool_name.as_deref(), Some("exec_command"));
}

#[test]
fn tool_outputs_in_every_shape_report_failure() {
    let wrapped = r#"{"timestamp":"2026-08-10T20:06:00.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"{\"output\":\"error[E0308]: mismatched types\",\"metadata\":{\"exit_code\":101,\"duration_seconds\":1.2}}"}}"#;
    let nested = r#"{"timestamp":"2026-08-10T20:06:01.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":{"content":[{"type":"input_text","text":"permission denied"}],"success":false}}}"#;
    let exec = r#"{"timestamp":"2026-08-10T20:06:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c4","output":"Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\nls: cannot access 'x'"}}"#;
    let ok = r#"{"timestamp":"2026-08-10T20:06:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c5","output":"{\"output\":\"fine\",\"metadata\":{\"exit_code\":0}}"}}"#;
    let patch = r#"{"timestamp":"2026-08-10T20:06:04.000Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"c6","name":"apply_patch","input":"*** Begin Patch\n*** Update File: src/lib.rs\n*** End Patch"}}"#;
    let out = parse_lines(&[META, wrapped, nested, exec, ok, patch]);
    let flags: Vec<(&str, bool)> = out
        .messages
        .iter()
        .map(|m| (m.text.as_str(), m.is_error))
        .collect();
    assert_eq!(
        flags[..4],
        [
            ("error[E0308]: mismatched types", true),
            ("permission denied", true),
            (
                "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\nls: cannot access 'x'",
                true
            ),
            ("fine", false),
        ]
    );
    let p = &out.messages[4];
    assert_eq!(p.kind, MessageKind::ToolCall);
    assert_eq!(p.tool_name.as_deref(), Some("apply_patch"));
    assert!(p.text.starts_with("*** Begin Patch\n"));
}

#[test]
fn cwd_changes_and_subagent_parents_are_followed() {
    let sub_meta = r#"{"timestamp":"2026-08-10T21:00:00.000Z","type":"session_meta","payload":{"id":"child-1","cwd":"/home/u/proj","source":{"subagent":{"thread_spawn":{"parent_thread_id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","depth":1}}}}}"#;
    let moved = r#"{"timestamp":"2026-08-10T21:00:01.000Z","type":"turn_context","payload":{"cwd":"/home/u/other","model":"gpt-5"}}"#;
    let out = parse_lines(&[
        sub_meta,
        PROMPT,
        moved,
        REPLY,
        "{\"type\":\"future_thing\"}",
        "[1,2",
    ]);
    assert_eq!(out.messages[0].workspace.as_deref(), Some("/home/u/proj"));
    assert_eq!(out.messages[1].workspace.as_deref(), Some("/home/u/other"));
    assert_eq!(out.messages[1].model.as_deref(), Some("gpt-5"));
    assert!(out.messages.iter().all(|m| m.session_id == "child-1"
        && m.parent_session_id.as_deref() == Some("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")));
    let skipped: Vec<u64> = out.skipped.iter().map(|s| s.line).collect();
    assert_eq!(skipped, vec![5, 6]);
}

#[test]
fn the_session_id_falls_back_to_the_file_name() {
    assert_eq!(
        id_from_file_name(Path::new(
            "rollout-2026-08-10T20-05-50-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
        )),
        "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    );
    assert_eq!(id_from_file_name(Path::new("odd.jsonl")), "odd");
}

#[test]
fn rollouts_from_before_the_envelope_are_read() {
    let lines = [
        r#"{"id":"legacy-1","timestamp":"2025-05-02T10:00:00.000Z","instructions":null,"git":{"commit_hash":"abc","branch":"dev","repository_url":null}}"#,
        r#"{"record_type":"state"}"#,
        r#"{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"why is ci red"}]}"#,
        r#"{"type":"function_call","id":"fc_1","name":"shell","arguments":"{\"command\":[\"make\",\"lint\"]}","call_id":"call_1"}"#,
        r#"{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"lint: 3 errors\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.4}}"}"#,
        r#"{"record_type":"state"}"#,
    ];
    let out = parse_lines(&lines);
    assert_eq!(
        summary(&out.messages),
        vec![
            (3, Role::User, MessageKind::Text, "why is ci red"),
            (4, Role::Assistant, MessageKind::ToolCall, "make\nlint"),
            (5, Role::Tool, MessageKind::ToolResult, "lint: 3 errors"),
        ]
    );
    assert!(out.messages[2].is_error);
    assert_eq!(
        out.messages[0].timestamp.as_deref(),
        Some("2025-05-02T10:00:00.000Z")
    );
    assert!(
        out.messages
            .iter()
            .all(|m| m.session_id == "legacy-1" && m.git_branch.as_deref() == Some("dev"))
    );
    assert!(out.skipped.is_empty());
}

#[test]
fn editor_context_is_scaffolding_and_the_request_is_paired() {
    let ide = "# Context from my IDE setup:\n\n## Active file: src/main.rs\n\n## My request for Codex:\nfix the overflow";
    let resp = serde_json::json!({"timestamp":"2026-08-10T20:05:51.010Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":ide}]}}).to_string();
    let ev_full = serde_json::json!({"timestamp":"2026-08-10T20:05:51.011Z","type":"event_msg","payload":{"type":"user_message","message":ide}}).to_string();
    let ev_bare = serde_json::json!({"timestamp":"2026-08-10T20:05:51.012Z","type":"event_msg","payload":{"type":"user_message","message":"fix the overflow"}}).to_string();
    for ev in [&ev_full, &ev_bare] {
        let out = parse_lines(&[META, &resp, ev]);
        assert_eq!(
            summary(&out.messages),
            vec![
                (
                    2,
                    Role::User,
                    MessageKind::Scaffolding,
                    "# Context from my IDE setup:\n\n## Active file: src/main.rs"
                ),
                (2, Role::User, MessageKind::Text, "fix the overflow"),
            ]
        );
    }
}

/// Random sessions in which every prompt and reply appears in both logs (in either order, with
/// other records between the copies) or, for older writers, in one log only: each is kept once,
/// in order, and reading the file in random pieces changes nothing.
#[test]
fn random_sessions_keep_every_text_once() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let words = ["run the tests", "continue", "fix it", "yes", "ship it"];
    let dir = tempfile::tempdir().unwrap();
    for case in 0..200 {
        // Older writers persisted one log only; which one is a property of the file.
        let both_logs = rnd(4) != 0;
        let only_response = rnd(2) == 0;
        let mut lines = vec![META.to_string()];
        let mut expected = Vec::new();
        for turn in 0..(1 + rnd(12)) {
            let (channel, text) = if rnd(2) == 0 {
                ("user", words[rnd(words.len() as u64) as usize].to_string())
            } else {
                ("assistant", format!("reply {}", rnd(3)))
            };
            let resp = if channel == "user" {
                serde_json::json!({"timestamp":"2026-08-10T20:05:51.010Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":text}]}})
            } else {
                serde_json::json!({"timestamp":"2026-08-10T20:05:51.010Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":text}]}})
            };
            let ev_type = if channel == "user" {
                "user_message"
            } else {
                "agent_message"
            };
            let ev = serde_json::json!({"timestamp":"2026-08-10T20:05:51.011Z","type":"event_msg","payload":{"type":ev_type,"message":text}});
            let noise = format!(
                r#"{{"timestamp":"2026-08-10T20:05:52.000Z","type":"event_msg","payload":{{"type":"token_count","info":null,"turn":{turn}}}}}"#
            );
            let mut copies = if both_logs {
                vec![resp.to_string(), ev.to_string()]
            } else {
                vec![if only_response {
                    resp.to_string()
                } else {
                    ev.to_string()
                }]
            };
            if rnd(2) == 0 {
                copies.reverse();
            }
            let first = copies.remove(0);
            lines.push(first);
            expected.push((channel == "user", text));
            for _ in 0..rnd(3) {
                lines.push(noise.clone());
            }
            lines.extend(copies);
        }
        let path = dir.path().join(format!("rollout-{case}.jsonl"));
        let data = lines.join("\n") + "\n";
        std::fs::write(&path, &data).unwrap();
        let file = file_at(path.clone());
        let whole = parse_file(&file, &ResumePoint::default(), u64::MAX).unwrap();
        let got: Vec<(bool, String)> = whole
            .messages
            .iter()
            .map(|m| (m.role == Role::User, m.text.clone()))
            .collect();
        assert_eq!(got, expected, "case {case}: {data}");

        // The same file arriving in random pieces.
        std::fs::write(&path, b"").unwrap();
        let (mut from, mut pieces, mut written) = (ResumePoint::default(), Vec::new(), 0);
        while written < data.len() {
            let end = (written + 1 + rnd(300) as usize).min(data.len());
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            f.write_all(&data.as_bytes()[written..end]).unwrap();
            written = end;
            let out = parse_file(&file, &from, u64::MAX).unwrap();
            pieces.extend(out.messages);
            from = out.next;
        }
        assert_eq!(pieces, whole.messages, "case {case} in pieces");
    }
}

#[test]
fn a_text_only_one_log_showed_long_ago_does_not_swallow_a_new_one() {
    let reply = |n: u32| {
        format!(
            r#"{{"timestamp":"2026-08-10T20:05:59.001Z","type":"event_msg","payload":{{"type":"agent_message","message":"Done.","n":{n}}}}}"#
        )
    };
    let late = r#"{"timestamp":"2026-08-10T20:09:00.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}"#;
    let mut lines = vec![META.to_string(), reply(1)];
    lines.extend(std::iter::repeat_n(TOKENS.to_string(), 70));
    lines.push(late.to_string());
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let out = parse_lines(&refs);
    let lines: Vec<u64> = out.messages.iter().map(|m| m.line_number).collect();
    assert_eq!(lines, vec![2, 73]);
}
