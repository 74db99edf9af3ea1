//! The paraphrase suite (`tests/fixtures/paraphrase`, issue 13) stays valid: its own check
//! (`bench/paraphrase_eval.py --check`: sizes, at most one content word shared by a follow-up
//! task and its rule, sessions built from their scenarios) passes, refuses a task worded like
//! its rule, and every session indexes whole with the real indexer, as one session in its
//! project's workspace. How well context ranks the suite's rules is measured by the script,
//! not asserted here.

use crate::harness::{Env, copy_tree, fixture_path, repo_path};
use crate::reflect_fixtures::slug;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

const SETS: [&str; 2] = ["dev", "heldout"];

fn python_available(env: &Env) -> bool {
    let ok = env
        .command("python3")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("python3 not available; skipping");
    }
    ok
}

fn check(env: &Env, extra: &[&str]) -> crate::harness::Out {
    let script = repo_path("bench/paraphrase_eval.py");
    let mut args = vec![script.to_str().unwrap(), "--check"];
    args.extend_from_slice(extra);
    env.run_program("python3", &args).run()
}

fn read_json(path: &PathBuf) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// (project.json, project dir) of every project of both sets.
fn projects() -> Vec<(Value, PathBuf)> {
    let mut out = Vec::new();
    for set in SETS {
        let root = fixture_path("paraphrase").join(set);
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
            .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("project.json").is_file())
            .collect();
        dirs.sort();
        out.extend(
            dirs.into_iter()
                .map(|d| (read_json(&d.join("project.json")), d)),
        );
    }
    out
}

#[test]
fn the_suite_passes_its_own_check() {
    let env = Env::new();
    if !python_available(&env) {
        return;
    }
    let out = check(&env, &[]).ok();
    let summary: Value =
        serde_json::from_str(&out.stdout).expect("the check prints a JSON summary");
    assert!(
        summary["dev"]["triples"].as_u64().unwrap() >= 40,
        "{summary}"
    );
    assert!(
        summary["dev"]["projects"].as_u64().unwrap() >= 8,
        "{summary}"
    );
    assert!(
        summary["heldout"]["triples"].as_u64().unwrap() >= 12,
        "{summary}"
    );
    assert!(
        summary["heldout"]["projects"].as_u64().unwrap() >= 3,
        "{summary}"
    );
}

#[test]
fn the_check_refuses_a_task_worded_like_its_rule() {
    let env = Env::new();
    if !python_available(&env) {
        return;
    }
    let suite = env.root.join("suite");
    copy_tree(&fixture_path("paraphrase"), &suite);
    let (project, dir) = projects().into_iter().next().unwrap();
    let rel = dir.strip_prefix(fixture_path("paraphrase")).unwrap();
    let mut edited = project.clone();
    let rule = edited["triples"][0]["rule"].as_str().unwrap().to_string();
    edited["triples"][0]["task"] = Value::String(rule);
    std::fs::write(
        suite.join(rel).join("project.json"),
        serde_json::to_string_pretty(&edited).unwrap(),
    )
    .unwrap();
    let suite_arg = suite.to_str().unwrap();
    let out = check(&env, &["--suite", suite_arg]).code(1);
    assert!(
        out.stderr.contains("content words with the rule"),
        "{}",
        out.stderr
    );
}

#[test]
fn every_suite_session_indexes_whole_in_its_workspace() {
    let env = Env::new();
    let mut want: BTreeMap<String, String> = BTreeMap::new(); // session id -> cwd
    for (project, dir) in projects() {
        let cwd = project["cwd"].as_str().unwrap().to_string();
        let dest = env.home.join(".claude/projects").join(slug(&cwd));
        std::fs::create_dir_all(&dest).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let first: Value = text
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .find(|v| v.get("sessionId").is_some())
                .unwrap_or_else(|| panic!("{}: no session id", path.display()));
            let id = first["sessionId"].as_str().unwrap().to_string();
            std::fs::write(dest.join(format!("{id}.jsonl")), text).unwrap();
            assert!(want.insert(id, cwd.clone()).is_none(), "{}", path.display());
        }
    }
    let report = env.data_of(&["history", "index"]);
    assert_eq!(report["recordsSkipped"], 0, "skipped records: {report}");
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    assert_eq!(report["filesNew"], want.len(), "{report}");
    let listed = env.data_of(&["history", "sessions", "--limit", "1000"]);
    assert_eq!(listed["count"], want.len(), "{listed}");
    for s in listed["sessions"].as_array().unwrap() {
        let id = s["sessionId"].as_str().unwrap();
        assert_eq!(
            s["workspace"].as_str(),
            want.get(id).map(String::as_str),
            "{s}"
        );
        assert!(s["messageCount"].as_u64().unwrap() >= 4, "{s}");
    }
}
