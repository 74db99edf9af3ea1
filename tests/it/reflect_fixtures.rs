//! The reflection fixtures (`tests/fixtures/reflect`) stay what the evaluation assumes: real
//! Claude Code transcripts that the real indexer reads whole. Every session file is installed
//! where Claude Code keeps it (`~/.claude/projects/<cwd slug>/<session id>.jsonl`) in a temp
//! HOME and indexed with `cm history index`: no record skipped, no error, one session per file
//! with the manifest's workspace, branch and title, and tool failures kept as errors. The
//! manifest's own consistency (lessons, expect words, later tasks) is checked by
//! `bench/reflect_eval.py --self-check`.

use crate::harness::Env;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reflect")
}

fn manifest() -> Value {
    let path = fixtures().join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("manifest entry without {key}: {v}"))
}

/// Claude Code's directory name for a working directory.
pub(crate) fn slug(cwd: &str) -> String {
    cwd.chars()
        .map(|c| if "/.\\:".contains(c) { '-' } else { c })
        .collect()
}

/// A fresh environment with every fixture session where Claude Code keeps it, and the
/// manifest's entries.
fn installed() -> (Env, Vec<Value>) {
    let env = Env::new();
    let sessions = manifest()["sessions"].as_array().unwrap().clone();
    for s in &sessions {
        let dir = env
            .home
            .join(".claude/projects")
            .join(slug(text(s, "workspace")));
        std::fs::create_dir_all(&dir).unwrap();
        let from = fixtures().join(text(s, "file"));
        std::fs::copy(&from, dir.join(format!("{}.jsonl", text(s, "sessionId"))))
            .unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    }
    (env, sessions)
}

#[test]
fn manifest_lists_every_session_file_once() {
    let m = manifest();
    let listed: Vec<&str> = m["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| text(s, "file"))
        .collect();
    let unique: BTreeSet<&str> = listed.iter().copied().collect();
    assert_eq!(unique.len(), listed.len(), "a file is listed twice");
    let on_disk: BTreeSet<String> = std::fs::read_dir(fixtures().join("sessions"))
        .unwrap()
        .map(|e| format!("sessions/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    let listed: BTreeSet<String> = unique.iter().map(|s| s.to_string()).collect();
    assert_eq!(on_disk, listed, "session files and manifest differ");
    assert!(listed.len() >= 30, "only {} fixture sessions", listed.len());
}

#[test]
fn every_fixture_indexes_whole() {
    let (env, sessions) = installed();

    let report = env.cm(&["history", "index"]).json().run().ok().data();
    assert_eq!(report["recordsSkipped"], 0, "skipped records: {report}");
    assert_eq!(report["skippedFiles"], serde_json::json!([]), "{report}");
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    assert_eq!(report["filesNew"], sessions.len(), "{report}");
    let claude = report["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["agent"] == "claude")
        .expect("claude source");
    assert_eq!(claude["files"], sessions.len(), "{report}");

    let listed = env
        .cm(&["history", "sessions", "--limit", "1000"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(listed["count"], sessions.len(), "{listed}");
    let by_id: BTreeMap<&str, &Value> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (text(s, "sessionId"), s))
        .collect();
    for s in &sessions {
        let got = by_id
            .get(text(s, "sessionId"))
            .unwrap_or_else(|| panic!("{} was not indexed as a session", text(s, "file")));
        assert_eq!(got["agent"], "claude");
        assert_eq!(got["workspace"], s["workspace"], "{}", text(s, "file"));
        assert_eq!(got["gitBranch"], s["branch"], "{}", text(s, "file"));
        assert_eq!(got["title"], s["title"], "{}", text(s, "file"));
        assert!(got["messageCount"].as_u64().unwrap() >= 10, "{got}");
    }
}

#[test]
fn failed_tool_results_stay_errors() {
    let (env, sessions) = installed();
    env.cm(&["history", "index"]).json().run().ok();
    let mut failures = 0;
    for s in &sessions {
        let path = fixtures().join(text(s, "file"));
        let raw = std::fs::read_to_string(&path).unwrap();
        let want = raw.matches(r#""is_error":true"#).count();
        let shown = env
            .cm(&["history", "show", text(s, "sessionId")])
            .json()
            .run()
            .ok()
            .data();
        let messages = shown["messages"].as_array().unwrap();
        let got = messages.iter().filter(|m| m["isError"] == true).count();
        assert_eq!(got, want, "{}: failed tool results", text(s, "file"));
        assert!(
            messages
                .iter()
                .filter(|m| m["isError"] == true)
                .all(|m| m["role"] == "tool"),
            "{}",
            text(s, "file")
        );
        failures += want;
    }
    assert!(
        failures >= 20,
        "only {failures} failed tool results in the set"
    );
}
