//! Secrets planted in real session logs never come back out, and look-alikes stay findable.
//!
//! The corpus (`tests/fixtures/secrets/corpus.json`) holds fake secrets of about fifty kinds in
//! the contexts they appear in (an `.env` line, a JSON credential, a curl header, a database URL,
//! a key block) and decoys that resemble them but are not secret (commit ids, UUIDs, lockfile
//! hashes, a base64 image, an image digest). Each goes into a Claude Code session (as what the
//! user said, a shell command the assistant ran, and a tool's output) and a Codex rollout; then
//! everything a user or an agent can read is checked: search (human and JSON), the session
//! view, context, the store's files, and the playbook's list and export of rules that quoted
//! them. No secret anywhere; every decoy verbatim in the session view and found by search.

use crate::harness::{Env, fixture_text};
use serde_json::{Value, json};

struct Case {
    text: String,
    marked: String,
    label: String,
}

fn load() -> (Vec<Case>, Vec<Case>) {
    let v: Value = serde_json::from_str(&fixture_text("secrets/corpus.json")).unwrap();
    let read = |key: &str, prefix: &str| -> Vec<Case> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let t = c["text"].as_str().unwrap();
                let (a, rest) = t.split_once("{{").unwrap();
                let (mid, b) = rest.split_once("}}").unwrap();
                Case {
                    // A marker word per case, so each can be searched for on its own.
                    text: format!("{prefix}{i:03} {a}{mid}{b}"),
                    marked: mid.to_string(),
                    label: format!("{prefix}{i:03} {}", c["kind"].as_str().unwrap_or("decoy")),
                }
            })
            .collect()
    };
    (read("secrets", "zsecret"), read("decoys", "zdecoy"))
}

const SESSION: &str = "7a1e0f3c-5b2d-4c6e-9f80-112233445566";

fn claude_session(env: &Env, cases: &[&Case]) {
    let dir = env.home.join(".claude/projects/-home-u-ocelot");
    std::fs::create_dir_all(&dir).unwrap();
    let mut lines = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let ts = format!("2026-08-10T12:{:02}:{:02}.000Z", i / 60, i % 60);
        let line = match i % 3 {
            0 => {
                json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/home/u/ocelot",
                "sessionId": SESSION, "type": "user", "message": {"role": "user", "content": c.text},
                "uuid": format!("u{i}"), "timestamp": ts})
            }
            1 => {
                json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/home/u/ocelot",
                "sessionId": SESSION, "type": "assistant", "message": {"id": format!("msg_{i}"), "type": "message",
                "role": "assistant", "model": "m", "content": [{"type": "tool_use", "id": format!("toolu_{i}"),
                "name": "Bash", "input": {"command": c.text}}], "stop_reason": "tool_use", "stop_sequence": null,
                "usage": {"input_tokens": 1, "output_tokens": 1}}, "uuid": format!("u{i}"), "timestamp": ts})
            }
            _ => {
                json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/home/u/ocelot",
                "sessionId": SESSION, "type": "user", "message": {"role": "user", "content": [{"tool_use_id":
                format!("toolu_{}", i - 1), "type": "tool_result", "content": c.text}]},
                "uuid": format!("u{i}"), "timestamp": ts})
            }
        };
        lines.push(line.to_string());
    }
    std::fs::write(
        dir.join(format!("{SESSION}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
}

fn codex_rollout(env: &Env, cases: &[&Case]) {
    let dir = env.home.join(".codex/sessions/2026/08/11");
    std::fs::create_dir_all(&dir).unwrap();
    let mut lines = vec![
        json!({"timestamp": "2026-08-11T09:00:00.000Z", "type": "session_meta", "payload": {
        "id": "0199b2c3-d4e5-7f60-8a9b-0c1d2e3f4a5b", "timestamp": "2026-08-11T09:00:00.000Z",
        "cwd": "/home/u/ocelot", "originator": "codex_cli_rs", "cli_version": "0.128.0"}}),
    ];
    for (i, c) in cases.iter().enumerate() {
        let ts = format!("2026-08-11T09:{:02}:{:02}.000Z", i / 60, i % 60);
        lines.push(if i % 2 == 0 {
            json!({"timestamp": ts, "type": "response_item", "payload": {"type": "function_call",
                "name": "exec_command", "arguments": json!({"cmd": c.text}).to_string(), "call_id": format!("call_{i}")}})
        } else {
            json!({"timestamp": ts, "type": "response_item", "payload": {"type": "function_call_output",
                "call_id": format!("call_{}", i - 1), "output": c.text}})
        });
    }
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(
        dir.join("rollout-2026-08-11T09-00-00-0199b2c3.jsonl"),
        text.join("\n") + "\n",
    )
    .unwrap();
}

fn stdout(env: &Env, args: &[&str]) -> String {
    let out = env.cm(args).run();
    assert!(
        out.code == 0,
        "{args:?} exited {}: {}{}",
        out.code,
        out.stdout,
        out.stderr
    );
    out.stdout
}

#[test]
fn no_secret_reaches_any_output_or_the_store_and_decoys_stay_findable() {
    let (secrets, decoys) = load();
    assert!(secrets.len() >= 60, "corpus has {} secrets", secrets.len());
    let env = Env::new();
    let all: Vec<&Case> = secrets.iter().chain(&decoys).collect();
    claude_session(&env, &all);
    codex_rollout(&env, &all);
    let report = env.cm(&["history", "index"]).json().run().ok().data();
    assert!(
        report["redactions"].as_u64().unwrap() >= 2 * secrets.len() as u64,
        "{report}"
    );

    // Everything a user or an agent can read back.
    let mut seen = String::new();
    for c in &all {
        let marker = c.text.split_whitespace().next().unwrap();
        seen.push_str(&stdout(&env, &["history", "search", marker]));
        seen.push_str(&stdout(&env, &["history", "search", marker, "--json"]));
    }
    seen.push_str(&stdout(&env, &["history", "show", SESSION]));
    let show_json = stdout(&env, &["history", "show", SESSION, "--json"]);
    seen.push_str(&show_json);
    seen.push_str(&stdout(&env, &["history", "sessions", "--json"]));
    for task in ["deploy the ocelot service", "rotate the ocelot credentials"] {
        seen.push_str(&stdout(&env, &["context", task, "--json"]));
        seen.push_str(&stdout(&env, &["context", task, "--format", "markdown"]));
    }
    // Rules that quoted a secret: refused whole (exit 3, `RULE_REFUSED`), never stored redacted;
    // whatever is stored is listed and exported without it.
    for c in secrets.iter().take(20) {
        let rule = format!("When deploying ocelot, use {}", c.text);
        let out = env.cm(&["playbook", "add", &rule]).run();
        assert!(
            out.code == 0 || out.stderr.contains("refused"),
            "{}",
            out.stderr
        );
    }
    seen.push_str(&stdout(&env, &["playbook", "list", "--json"]));
    seen.push_str(&stdout(&env, &["playbook", "export"]));
    seen.push_str(&stdout(&env, &["playbook", "export", "--format", "json"]));
    // The store's own files (the WAL too), as bytes.
    let mut store = Vec::new();
    for name in ["cm.db", "cm.db-wal"] {
        store.extend(std::fs::read(env.data.join(name)).unwrap_or_default());
    }
    let store = String::from_utf8_lossy(&store).into_owned();

    let leaks: Vec<&str> = secrets
        .iter()
        .filter(|c| seen.contains(&c.marked) || store.contains(&c.marked))
        .map(|c| c.label.as_str())
        .collect();
    assert!(
        leaks.is_empty(),
        "{} of {} secrets leaked: {leaks:?}",
        leaks.len(),
        secrets.len()
    );

    // Decoys: verbatim in the session view, and found by searching for them.
    let view: Value = serde_json::from_str(show_json.trim()).unwrap();
    let view = view.to_string();
    for d in &decoys {
        assert!(
            view.contains(&serde_json::to_string(&d.marked).unwrap()[1..d.marked.len() + 1]),
            "decoy {} redacted or lost",
            d.label
        );
        let marker = d.text.split_whitespace().next().unwrap();
        let hits = env
            .cm(&["history", "search", marker])
            .json()
            .run()
            .ok()
            .data();
        assert!(
            !hits["hits"].as_array().unwrap().is_empty(),
            "decoy {} not found",
            d.label
        );
    }
    // A commit id is found by itself, not only by the marker word.
    let sha = &decoys[0].marked;
    let hits = env.cm(&["history", "search", sha]).json().run().ok().data();
    assert!(
        !hits["hits"].as_array().unwrap().is_empty(),
        "no hit for {sha}"
    );
}
