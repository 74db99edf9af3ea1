//! The diary's lines, from real-looking Claude Code sessions (tests/fixtures/diary): a session
//! the user stopped is not a success, no line is listed twice, and the user's request is not
//! listed as something the session accomplished.

use crate::harness::{Env, fixture_path};
use crate::reflect::NOW;
use serde_json::Value;

/// Reflect on one fixture session, installed where Claude Code keeps it; its diary entry.
fn diary_of(fixture: &str, project: &str, session_id: &str) -> Value {
    let env = Env::builder().now(NOW).build();
    let dir = env.home.join(".claude/projects").join(project);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{session_id}.jsonl"));
    std::fs::copy(fixture_path(&format!("diary/{fixture}.jsonl")), &path).unwrap();
    let d = crate::reflect::reflect(&env, &[path.to_str().unwrap()]);
    let entry = d["sessions"][0]["diary"].clone();
    assert!(entry.is_object(), "{d}");
    // What the diary command shows is what reflection stored.
    let shown = env.data_of(&["diary", "show", session_id]);
    assert_eq!(shown["entry"]["status"], entry["status"], "{shown}");
    entry
}

fn lines(entry: &Value, section: &str) -> Vec<String> {
    entry[section]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect()
}

fn key(line: &str) -> String {
    line.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches('.')
        .to_lowercase()
}

#[test]
fn a_session_the_user_stopped_is_not_a_success() {
    let e = diary_of(
        "stopped-migration",
        "-home-dev-ledger-api",
        "5d0c7a1e-93b2-4f6e-8a41-2c7e9b0d3f15",
    );
    // The last test run passed, but the user's last word was "no no no, stop".
    assert_eq!(e["status"], "failure", "{e}");
    for a in lines(&e, "accomplishments") {
        assert!(!a.starts_with("Rename the `total` column"), "{e}");
    }
}

#[test]
fn each_line_once_and_the_request_is_no_accomplishment() {
    let e = diary_of(
        "repeated-lines",
        "-home-dev-storefront",
        "7e2b4c9d-15a3-4d8f-b6e0-9a1c3f5d7b28",
    );
    assert_eq!(e["status"], "success", "{e}");
    let mut seen: Vec<String> = Vec::new();
    for section in [
        "accomplishments",
        "decisions",
        "challenges",
        "keyLearnings",
        "preferences",
    ] {
        for l in lines(&e, section) {
            let k = key(&l);
            assert!(!seen.contains(&k), "{l:?} is listed twice: {e:#}");
            seen.push(k);
        }
    }
    let failed: Vec<(String, String)> = e["failedCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["command"].as_str().unwrap().to_string(),
                c["error"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut unique = failed.clone();
    unique.dedup();
    assert_eq!(failed, unique, "{e:#}");
    assert_eq!(failed.len(), 1, "{e:#}");
    let done = lines(&e, "accomplishments");
    assert!(
        done.iter()
            .all(|a| !a.starts_with("Make the promo banner dismissible")),
        "the request is listed as done: {done:?}"
    );
    // What was done is still there.
    assert!(
        done.iter().any(|a| a.contains("src/hooks/useDismissed.ts")),
        "{done:?}"
    );
    assert!(done.iter().any(|a| a.contains("passes")), "{done:?}");
    assert!(
        lines(&e, "preferences")
            .iter()
            .any(|p| p.contains("src/hooks")),
        "{e:#}"
    );
}
