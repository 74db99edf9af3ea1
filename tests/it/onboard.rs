//! `cm onboard`: a fixture home with Claude Code, Codex and Gemini CLI sessions is indexed, then
//! onboarded the way an agent would: status, gaps, a gap-targeted sample, reading a session
//! with the extraction template, adding its rules with `--session`, marking another done,
//! progress surviving a new process, and reset.

use crate::harness::{Env, copy_tree, fixture_path};
use serde_json::Value;

const NOW: &str = "2026-08-20T00:00:00Z";

fn home() -> Env {
    let env = Env::builder().now(NOW).build();
    for agent in ["claude", "codex", "gemini"] {
        copy_tree(&fixture_path(&format!("episodic/{agent}")), &env.home);
    }
    env
}

fn indexed() -> Env {
    let env = home();
    env.data_of(&["history", "index"]);
    env
}

fn session_of(sample: &Value, agent: &str, title_part: &str) -> String {
    sample["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["agent"] == agent && s["title"].as_str().unwrap_or("").contains(title_part))
        .unwrap_or_else(|| panic!("no {agent} session about {title_part} in {sample}"))["path"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn status_is_degraded_with_the_fix_before_anything_is_indexed() {
    let env = home();
    let st = env.data_of(&["onboard", "status"]);
    assert_eq!(st["sessionsIndexed"], 0);
    assert_eq!(st["degraded"]["history"]["code"], "EMPTY_INDEX");
    assert!(
        st["degraded"]["history"]["fix"]
            .as_str()
            .unwrap()
            .contains("cm history index")
    );
    assert_eq!(st["nextStep"], "cm history index");
    let sample = env.data_of(&["onboard", "sample"]);
    assert_eq!(sample["count"], 0);
    assert_eq!(sample["degraded"]["history"]["code"], "EMPTY_INDEX");
    let err = env
        .cm(&["onboard", "read", "nothing.jsonl"])
        .json()
        .run()
        .code(5);
    err.error_code("EMPTY_INDEX");
}

#[test]
fn gaps_follow_the_thresholds_over_the_ten_categories() {
    let env = indexed();
    for i in 0..11 {
        env.data_of(&[
            "playbook",
            "add",
            &format!("Testing rule number {i} about fixtures"),
            "--category",
            "testing",
        ]);
    }
    for i in 0..3 {
        env.data_of(&[
            "playbook",
            "add",
            &format!("Git rule number {i} about branches"),
            "--category",
            "git",
        ]);
    }
    env.data_of(&[
        "playbook",
        "add",
        "Profile before optimising the hot loop",
        "--category",
        "performance",
    ]);
    let g = env.data_of(&["onboard", "gaps"]);
    assert_eq!(g["categories"].as_array().unwrap().len(), 10);
    assert_eq!(g["wellCovered"], serde_json::json!(["testing"]));
    assert_eq!(g["adequate"], serde_json::json!(["git"]));
    assert_eq!(g["underrepresented"], serde_json::json!(["performance"]));
    assert_eq!(g["critical"].as_array().unwrap().len(), 7);
    let human = env.stdout_of(&["onboard", "gaps"]);
    assert!(human.contains("well-covered"), "{human}");
}

#[test]
fn the_onboarding_loop_across_three_agents() {
    let env = indexed();
    let st = env.data_of(&["onboard", "status"]);
    assert_eq!(st["sessionsIndexed"], 6);
    assert_eq!(st["sessionsProcessed"], 0);
    assert_eq!(st["degraded"], Value::Null);
    assert_eq!(st["nextStep"], "cm onboard sample --fill-gaps");
    assert_eq!(st["gaps"]["critical"].as_array().unwrap().len(), 10);

    // Every agent's sessions are sampled, best first, each scored +3 per critical category.
    let sample = env.data_of(&["onboard", "sample", "--fill-gaps", "--limit", "20"]);
    let agents: std::collections::BTreeSet<&str> = sample["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["agent"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["claude", "codex", "gemini"].into());
    let totals: Vec<f64> = sample["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["score"]["total"].as_f64().unwrap())
        .collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "{totals:?}");
    for s in sample["sessions"].as_array().unwrap() {
        assert_eq!(
            s["score"]["gap"].as_u64().unwrap() as usize,
            3 * s["topics"].as_array().unwrap().len(),
            "{s}"
        );
    }
    let gemini = session_of(&sample, "gemini", "npm test");
    let claude = session_of(&sample, "claude", "Fix add");

    // Reading a session: metadata, topics, gaps, focus and the extraction template.
    let read = env.data_of(&["onboard", "read", &gemini, "--template"]);
    let m = &read["metadata"];
    assert_eq!(m["agent"], "gemini");
    assert_eq!(m["workspace"], "/home/u/webapp");
    assert_eq!(m["messageCount"], 7);
    assert_eq!(m["errors"], 1);
    assert_eq!(m["topicHints"], serde_json::json!(["testing", "workflow"]));
    assert!(
        read["context"]["suggestedFocus"]
            .as_str()
            .unwrap()
            .contains("NO rules")
    );
    assert_eq!(
        read["context"]["playbookGaps"]["critical"]
            .as_array()
            .unwrap()
            .len(),
        10
    );
    assert!(
        read["sessionContent"]
            .as_str()
            .unwrap()
            .contains("Jest did not exit")
    );
    let fmt = &read["extractionFormat"];
    assert_eq!(fmt["categories"].as_array().unwrap().len(), 10);
    assert_eq!(fmt["examples"][0]["category"], "testing");
    assert!(
        fmt["addCommand"]
            .as_str()
            .unwrap()
            .contains(&format!("--session {gemini}"))
    );
    let plain = env.data_of(&["onboard", "read", &gemini]);
    assert!(plain.get("extractionFormat").is_none());

    // Its rules, added with --session, cite it and credit it.
    let rules = env.write(
        "rules.json",
        r#"[{"content": "Close database handles in afterAll so Jest exits after the run", "category": "testing"},
            {"content": "Run npm test with --ci on CI so watch mode never keeps the job alive", "category": "workflow"},
            {"content": "Pass --runInBand when Jest workers hang in the container", "category": "testing"}]"#,
    );
    let added = env.data_of(&[
        "playbook",
        "add",
        "--file",
        rules.to_str().unwrap(),
        "--session",
        &gemini,
    ]);
    for b in added["bullets"].as_array().unwrap() {
        assert_eq!(b["sourceSessions"], serde_json::json!([gemini]), "{b}");
    }
    let st = env.data_of(&["onboard", "status"]);
    assert_eq!(st["sessionsProcessed"], 1);
    assert_eq!(st["sessionsCreditedByRules"], 1);
    assert_eq!(st["rulesFromSessions"], 3);
    assert_eq!(st["rules"], 3);
    let reread = env.data_of(&["onboard", "read", &gemini]);
    assert_eq!(reread["metadata"]["processed"], true);
    assert_eq!(reread["metadata"]["rulesCiting"], 3);
    assert!(
        reread["context"]["relatedRules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["content"].as_str().unwrap().contains("afterAll"))
    );

    // Testing holds two rules now (underrepresented, +2): the Claude debugging session (debugging
    // critical +3, testing +2) outranks the rest.
    let sample = env.data_of(&["onboard", "sample", "--fill-gaps"]);
    assert!(
        sample["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["path"] != gemini.as_str())
    );
    assert_eq!(sample["skippedProcessed"], 1);
    assert_eq!(sample["sessions"][0]["path"], claude.as_str());
    assert_eq!(sample["sessions"][0]["score"]["gap"], 3 + 2);

    // Marking a session done survives a new process; reset needs --yes and keeps the credit.
    let done = env.data_of(&["onboard", "mark-done", &claude]);
    assert_eq!(done["alreadyMarked"], false);
    let again = env.data_of(&["onboard", "mark-done", &claude]);
    assert_eq!(again["alreadyMarked"], true);
    let st = env.data_of(&["onboard", "status"]);
    assert_eq!(st["sessionsProcessed"], 2);
    assert_eq!(st["sessionsMarkedDone"], 1);
    assert_eq!(st["startedAt"], "2026-08-20T00:00:00.000Z");
    let with = env.data_of(&["onboard", "sample", "--include-processed", "--limit", "20"]);
    assert_eq!(with["count"], 6);
    let only_codex = env.data_of(&[
        "onboard",
        "sample",
        "--agent",
        "codex",
        "--days",
        "30",
        "--workspace",
        "/",
    ]);
    assert!(
        only_codex["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["agent"] == "codex")
    );
    env.cm(&["onboard", "reset"])
        .json()
        .run()
        .code(3)
        .error_code("CONFIRMATION_REQUIRED");
    assert_eq!(env.data_of(&["onboard", "status"])["sessionsMarkedDone"], 1);
    assert_eq!(env.data_of(&["onboard", "reset", "--yes"])["removed"], 1);
    let st = env.data_of(&["onboard", "status"]);
    assert_eq!(st["sessionsMarkedDone"], 0);
    assert_eq!(st["sessionsProcessed"], 1);
}

#[test]
fn read_bounds_a_long_session_and_names_the_cut() {
    let env = Env::builder().now(NOW).build();
    let dir = env.home.join(".claude/projects/-home-u-long");
    std::fs::create_dir_all(&dir).unwrap();
    let mut lines = Vec::new();
    for i in 0..120 {
        let (role, text) = if i == 60 {
            (
                "user",
                "No, that is wrong: keep the old migration untouched".to_string(),
            )
        } else if i % 2 == 0 {
            ("user", format!("step {i}: continue with the refactor"))
        } else {
            ("assistant", format!("done with step {i}"))
        };
        lines.push(
            serde_json::json!({
                "type": role, "sessionId": "long-1", "cwd": "/home/u/long",
                "timestamp": format!("2026-08-01T10:{:02}:{:02}Z", i / 60, i % 60),
                "uuid": format!("u{i}"),
                "message": {"role": role, "content": text}
            })
            .to_string(),
        );
    }
    let path = dir.join("long-1.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    env.data_of(&["history", "index"]);
    let read = env.data_of(&["onboard", "read", path.to_str().unwrap()]);
    let cut = &read["cut"];
    assert_eq!(cut["messagesTotal"], 120);
    assert_eq!(cut["messagesShown"], 31);
    assert_eq!(cut["messagesOmitted"], 89);
    assert!(
        cut["note"]
            .as_str()
            .unwrap()
            .contains("89 message(s) left out")
    );
    assert!(
        read["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["correction"] == true)
    );
    assert!(
        read["sessionContent"]
            .as_str()
            .unwrap()
            .contains("[... 89 message(s) left out ...]")
    );
    assert_eq!(read["metadata"]["corrections"], 1);
}

#[test]
fn the_documented_walkthrough_reaches_ten_rules_from_three_agents() {
    // The same path docs/onboarding.md shows, driven by its script against this build.
    let out = std::process::Command::new("python3")
        .arg(crate::harness::repo_path("bench/onboard_walkthrough.py"))
        .args(["--bin", crate::harness::CM, "--check", "--quiet"])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    let summary: serde_json::Value = serde_json::from_str(
        text.lines()
            .find_map(|l| l.strip_prefix("summary: "))
            .expect("a summary line"),
    )
    .unwrap();
    assert!(summary["rules"].as_u64().unwrap() >= 10, "{summary}");
    assert_eq!(
        summary["agentsCredited"],
        serde_json::json!(["claude", "codex", "gemini"])
    );
    assert_eq!(summary["sessionsIndexed"], 20);
}

#[test]
fn read_and_mark_done_without_a_store_create_none() {
    let env = Env::builder().now(NOW).build();
    for sub in ["read", "mark-done"] {
        let e = env
            .cm(&["onboard", sub, "0a1b2c3d"])
            .json()
            .run()
            .code(5)
            .error_code("NO_STORE");
        assert!(
            e["hint"].as_str().unwrap().contains("cm history index"),
            "{e}"
        );
        assert!(!env.db().exists(), "`cm onboard {sub}` created a store");
        assert!(
            !env.db().parent().unwrap().exists(),
            "`cm onboard {sub}` created the data directory"
        );
    }
}
