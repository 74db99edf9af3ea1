//! Secrets planted in every field of real-shaped Claude Code, Codex and Gemini sessions
//! (`tests/fixtures/secrets/planted/`: a branch name, a working directory, a session title, tool
//! inputs and paths, thinking, credential files read or written, a base64-wrapped token,
//! passphrases said in prose) never reach the index, search, the session views, context, the
//! MCP server's answers, the diary, or the bytes of the store's files.

use crate::harness::{Env, copy_fixture, fixture_text};
use crate::mcp_kept::StdioServer;
use serde_json::json;

/// (name, value) of every planted secret.
fn planted() -> Vec<(String, String)> {
    fixture_text("secrets/planted/secrets.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, value) = l.split_once('\t').unwrap();
            (name.to_string(), value.to_string())
        })
        .collect()
}

fn stdout(env: &Env, args: &[&str]) -> String {
    let out = env.cm(args).run();
    assert_eq!(out.code, 0, "{args:?}: {}{}", out.stdout, out.stderr);
    out.stdout
}

#[test]
fn no_planted_secret_reaches_the_store_or_any_output() {
    let secrets = planted();
    assert!(secrets.len() >= 42, "{} planted", secrets.len());
    let env = Env::builder().now("2026-09-04T00:00:00Z").build();
    copy_fixture("secrets/planted/home", &env.home);
    let report = env.cm(&["history", "index"]).json().run().ok().data();
    assert!(report["redactions"].as_u64().unwrap() >= 40, "{report}");

    let mut seen = String::new();
    let sessions = stdout(&env, &["history", "sessions", "--json"]);
    seen.push_str(&sessions);
    seen.push_str(&stdout(&env, &["history", "sessions"]));
    let listed: serde_json::Value = serde_json::from_str(sessions.trim()).unwrap();
    let list = listed["data"]["sessions"].as_array().unwrap().clone();
    assert_eq!(list.len(), 3, "{listed}");
    for s in &list {
        let id = s["sessionId"]
            .as_str()
            .or(s["session_id"].as_str())
            .unwrap();
        seen.push_str(&stdout(&env, &["history", "show", id]));
        seen.push_str(&stdout(&env, &["history", "show", id, "--json"]));
    }
    for q in [
        "ocelot", "staging", "quota", "registry", "token", "password",
    ] {
        seen.push_str(&stdout(&env, &["history", "search", q, "--json"]));
        seen.push_str(&stdout(&env, &["history", "search", q]));
    }
    for task in ["fix the ocelot deploy", "log in to the staging registry"] {
        seen.push_str(&stdout(&env, &["context", task, "--json"]));
        seen.push_str(&stdout(&env, &["context", task, "--format", "markdown"]));
    }
    // The diary, written from each session as reflection reads it.
    for file in ["claude/projects", "codex/sessions", "gemini/tmp"] {
        let root = env.home.join(format!(".{file}"));
        let path = walk(&root).into_iter().next().unwrap();
        seen.push_str(&stdout(
            &env,
            &["reflect", "--session", path.to_str().unwrap(), "--json"],
        ));
    }
    let diary = stdout(&env, &["diary", "list", "--json"]);
    seen.push_str(&diary);
    // The MCP server's answers.
    let mut mcp = StdioServer::start(&env);
    for (name, args) in [
        (
            "memory_search",
            json!({"query": "ocelot staging quota registry"}),
        ),
        ("cm_context", json!({"task": "fix the ocelot deploy"})),
    ] {
        let answer = mcp.request("tools/call", json!({"name": name, "arguments": args}));
        assert!(
            answer["result"]["structuredContent"].is_object(),
            "{answer}"
        );
        seen.push_str(&answer.to_string());
    }
    let diary: serde_json::Value = serde_json::from_str(diary.trim()).unwrap();
    let entries = diary["data"]["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!entries.is_empty(), "{diary}");
    for e in &entries {
        let uri = format!("cm://diary/{}", e["id"].as_str().unwrap());
        let answer = mcp.request("resources/read", json!({"uri": uri}));
        assert!(answer["result"]["contents"].is_array(), "{answer}");
        seen.push_str(&answer.to_string());
    }
    drop(mcp);
    // The store's files, as bytes.
    let mut store = Vec::new();
    for name in ["cm.db", "cm.db-wal"] {
        store.extend(std::fs::read(env.data.join(name)).unwrap_or_default());
    }
    let store = String::from_utf8_lossy(&store).into_owned();

    let leaks: Vec<String> = secrets
        .iter()
        .filter(|(_, v)| seen.contains(v.as_str()) || store.contains(v.as_str()))
        .map(|(name, v)| {
            let at = |hay: &str| {
                hay.find(v.as_str())
                    .map(|i| hay[i.saturating_sub(120)..(i + 60).min(hay.len())].to_string())
            };
            format!("{name} (output: {:?}; store: {:?})", at(&seen), at(&store))
        })
        .collect();
    assert!(
        leaks.is_empty(),
        "{} of {} planted secrets leaked: {leaks:?}",
        leaks.len(),
        secrets.len()
    );
    // What was said around them is still there to find.
    assert!(seen.contains("bucket policy"), "the sessions were indexed");
    assert!(
        seen.contains("quota page"),
        "the Gemini session was indexed"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
