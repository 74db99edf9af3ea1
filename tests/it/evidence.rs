//! A rule inherits the words and place of the sessions it came from (issue 13): a task worded
//! like the situation, not like the rule, finds it; a session indexed after its rule was added
//! still lends it its words; and the paraphrase suite's dev set keeps its figures (a regression
//! guard: the targets and the held-out figures are in docs/context.md).

use crate::harness::{CM, Env, fixture_path, repo_path};
use crate::reflect_fixtures::slug;
use serde_json::Value;

pub(crate) const REPORTD: &str = "/home/dev/reportd";
const SLUICE: &str = "/home/dev/sluice";

/// Place one fixture session as Claude Code would have written it; returns its path.
pub(crate) fn place(env: &Env, project: &str, cwd: &str, file: &str) -> String {
    let text = std::fs::read_to_string(fixture_path("paraphrase/dev").join(project).join(file))
        .expect("fixture session");
    let dir = env.home.join(".claude/projects").join(slug(cwd));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

pub(crate) fn add(env: &Env, rule: &str, session: &str) -> String {
    let d = env.data_of(&["playbook", "add", rule, "--session", session]);
    d["bullet"]["id"].as_str().unwrap().to_string()
}

fn ranked(env: &Env, task: &str, workspace: &str) -> Vec<Value> {
    let d = env.data_of(&["context", task, "--workspace", workspace, "--no-history"]);
    d["relevantBullets"].as_array().unwrap().clone()
}

#[test]
fn a_task_worded_like_the_situation_finds_the_rule_through_its_session() {
    let env = Env::builder().now("2026-12-01T12:00:00Z").build();
    env.data_of(&["init"]);
    let export = place(&env, "reportd", REPORTD, "s1-nightly-export.jsonl");
    let musl = place(&env, "sluice", SLUICE, "s1-alpine-image.jsonl");
    // Added before its session is indexed: indexing must lend it the session's words later.
    let fetch = add(
        &env,
        "Set the JDBC fetch size to 5000 on the queries in ExportRepository",
        &export,
    );
    let other = add(
        &env,
        "Build the Alpine image binary for the musl target with vendored TLS",
        &musl,
    );
    let task = "the nightly CSV export got slow again after we moved clusters, can you look?";
    assert!(
        ranked(&env, task, REPORTD).iter().all(|b| b["id"] != fetch),
        "nothing links the task to the rule before the session is indexed"
    );
    env.data_of(&["history", "index"]);
    let rules = ranked(&env, task, REPORTD);
    let first = &rules[0];
    assert_eq!(first["id"], fetch, "{rules:#?}");
    let why = first["reasoning"].as_str().unwrap();
    assert!(why.contains("its sessions mention"), "{why}");
    assert!(rules.iter().all(|b| b["id"] != other), "{rules:#?}");
    // From the other project the same rule is one learned elsewhere.
    let there = ranked(&env, task, SLUICE);
    if let Some(b) = there.iter().find(|b| b["id"] == fetch) {
        let why = b["reasoning"].as_str().unwrap();
        assert!(why.contains("learned in another workspace"), "{why}");
        assert!(b["finalScore"].as_f64() < first["finalScore"].as_f64());
    }
}

#[test]
fn another_projects_rule_needs_strong_evidence_to_rank_here() {
    let env = Env::builder().now("2026-12-01T12:00:00Z").build();
    env.data_of(&["init"]);
    let export = place(&env, "reportd", REPORTD, "s1-nightly-export.jsonl");
    let log = place(&env, "sluice", SLUICE, "s3-big-log-speed.jsonl");
    env.data_of(&["history", "index"]);
    let fetch = add(
        &env,
        "Set the JDBC fetch size to 5000 on the queries in ExportRepository",
        &export,
    );
    let reader = add(
        &env,
        "Read input through BufReader::with_capacity(1 << 20) in src/reader.rs",
        &log,
    );
    let plain = env.add("Profile the export job before tuning it");
    let ids = |task: &str, workspace: &str| -> Vec<String> {
        ranked(&env, task, workspace)
            .iter()
            .map(|b| b["id"].as_str().unwrap().to_string())
            .collect()
    };
    let task = "the export is slow";
    // Where it was learned, the rule's session lends it the task's words.
    let home = ids(task, REPORTD);
    assert!(home.contains(&fetch), "{home:?}");
    // In a project it was not learned in, the same weak match is another project's chance
    // overlap: neither it nor the other project's rule is offered, while a rule with no place
    // keeps the plain minimum.
    let new = ids(task, "/home/dev/newproj");
    assert!(!new.contains(&fetch) && !new.contains(&reader), "{new:?}");
    assert!(new.contains(&plain), "{new:?}");
}

#[test]
fn the_paraphrase_suite_keeps_its_dev_figures() {
    let env = Env::new();
    let script = repo_path("bench/paraphrase_eval.py");
    let out = env
        .run_program(
            "python3",
            &[
                script.to_str().unwrap(),
                "--bin",
                CM,
                "--set",
                "dev",
                "--json",
            ],
        )
        .run();
    let v: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    let dev = &v["figures"]["dev"];
    let top3 = dev["top3"].as_f64().unwrap();
    let unrelated = dev["unrelatedTop3"].as_f64().unwrap();
    assert!(
        top3 >= 0.8,
        "follow-up tasks with their rule in the top 3: {top3}"
    );
    assert!(
        unrelated <= 0.1,
        "unrelated tasks with the rule in the top 3: {unrelated}"
    );
}

#[test]
fn a_small_playbook_still_offers_a_rule_sharing_one_word_of_a_short_task() {
    let env = Env::new();
    env.data_of(&["init"]);
    let id = env.add("Set the fetch size on export queries");
    let d = env.data_of(&["context", "the nightly export got slow"]);
    let rules = d["relevantBullets"].as_array().unwrap();
    assert!(rules.iter().any(|b| b["id"] == id.as_str()), "{d:#}");
}
