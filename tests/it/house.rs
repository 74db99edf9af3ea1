//! House rules (issue 25): what a workspace has taught comes back when the next session opens
//! there, whatever that session's guessed topic, and `cm context` lists it apart from the
//! matches for the task; the prompt hook brings a house rule for a short prompt naming its
//! concern, and nothing for one naming nothing known.

use crate::harness::Env;
use crate::reflect::{NOW, Transcript};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

fn session(n: u32) -> String {
    format!("{n:08x}-3333-4444-8555-666677778888")
}

/// Move a written transcript to another day, so the workspace's most recent sessions are the
/// ones the test says.
fn on_day(path: &Path, day: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, text.replace("2026-11-20T", &format!("{day}T"))).unwrap();
}

/// A workspace whose three most recent sessions were about footer styling, and a session there
/// in which the user corrected `npm install` to pnpm, ended through the real `cm-postsession`
/// (which indexes and reflects in a detached job). Returns the workspace.
fn workspace_that_learned_pnpm(env: &Env) -> String {
    env.git_repo();
    let cwd = env.cwd.display().to_string();
    env.cm(&["init"]).run().ok();
    for n in 1..=3 {
        let mut t = Transcript::new(&session(20 + n), &cwd);
        t.user(&format!(
            "rename the footer link colours in the stylesheet, part {n}"
        ))
        .agent("Renamed the footer link colours.");
        on_day(&t.write_to(env), "2026-11-20");
    }
    env.cm(&["history", "index"]).run().ok();
    let mut t = Transcript::new(&session(7), &cwd);
    t.user("add a charting library for the revenue page")
        .bash("npm install chart.js", "added 3 packages", false)
        .user("no, don't use npm here, we use pnpm in this repo for every install")
        .agent("Switching to pnpm.");
    let path = t.write_to(env);
    on_day(&path, "2026-11-19");
    let payload = json!({"session_id": session(7), "transcript_path": path, "cwd": cwd, "hook_event_name": "SessionEnd", "reason": "exit"});
    let out = env
        .run_program(env.link("cm-postsession"), &[])
        .stdin(payload.to_string())
        .run()
        .ok();
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    // Wait for the detached job by reading its diary entry (a read that rebuilds nothing).
    let deadline = Instant::now() + Duration::from_secs(30);
    while env.data_of(&["diary", "list"])["count"] != 1 {
        assert!(Instant::now() < deadline, "never reflected");
        std::thread::sleep(Duration::from_millis(200));
    }
    cwd
}

fn start(env: &Env, cwd: &str) -> String {
    let out = env
        .hook(
            "session-start",
            json!({"session_id": "s2", "transcript_path": "/t/s2.jsonl", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"}).to_string(),
        )
        .run();
    format!("{}\n--- stderr\n{}", out.stdout, out.stderr)
}

fn prompt(env: &Env, cwd: &str, text: &str) -> String {
    env.hook(
        "prompt",
        json!({"session_id": "s2", "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": text}).to_string(),
    )
    .run()
    .stdout
}

/// The next session in the workspace is told the rule it learned, though its guessed topic (the
/// recent footer sessions) shares nothing with it; no command runs between the post-session
/// hook and the session start.
#[test]
fn session_start_injects_the_rules_learned_in_its_workspace() {
    let env = Env::builder().now(NOW).build();
    let cwd = workspace_that_learned_pnpm(&env);
    let out = start(&env, &cwd);
    let house = out
        .split("Rules of this workspace")
        .nth(1)
        .unwrap_or_else(|| panic!("no house rules:\n{out}"));
    assert!(house.contains("pnpm"), "{out}");
    // Elsewhere the rule is not a house rule.
    let elsewhere = env.cwd.join("other");
    std::fs::create_dir_all(elsewhere.join(".git")).unwrap();
    let out = start(&env, &elsewhere.display().to_string());
    assert!(!out.contains("Rules of this workspace"), "{out}");
}

/// `cm context` reports the workspace's rules in `houseRules`, apart from the task's matches,
/// and a rule marked harmful since is no house rule.
#[test]
fn context_lists_house_rules_apart_and_leaves_harmful_ones_out() {
    let env = Env::builder().now(NOW).build();
    let cwd = workspace_that_learned_pnpm(&env);
    let data: Value = env.data_of(&["context", "fix the footer colours", "--workspace", &cwd]);
    let house = data["houseRules"].as_array().expect("houseRules");
    assert_eq!(house.len(), 1, "{data:#}");
    assert!(house[0]["content"].as_str().unwrap().contains("pnpm"));
    assert_eq!(house[0]["reason"], "learned or helped in this workspace");
    let id = house[0]["id"].as_str().unwrap().to_string();
    let matched: Vec<&str> = data["relevantBullets"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["id"].as_str())
        .collect();
    assert!(!matched.contains(&id.as_str()), "{data:#}");
    for _ in 0..2 {
        env.cm(&["mark", &id, "--harmful"]).run().ok();
    }
    let data: Value = env.data_of(&["context", "fix the footer colours", "--workspace", &cwd]);
    assert_eq!(data["houseRules"], json!([]), "{data:#}");
}

/// A short prompt naming the concern of a house rule (installing a package) brings it; one
/// naming nothing any rule or session knows brings nothing.
#[test]
fn a_short_prompt_naming_a_house_rules_concern_brings_it() {
    let env = Env::builder().now(NOW).build();
    let cwd = workspace_that_learned_pnpm(&env);
    for p in [
        "install axios",
        "add lodash",
        "add a dependency for date parsing",
    ] {
        let out = prompt(&env, &cwd, p);
        assert!(out.contains("pnpm"), "{p}: {out}");
    }
    for p in ["zanzibar quokka", "tweak the footer"] {
        let out = prompt(&env, &cwd, p);
        assert!(!out.contains("pnpm"), "{p}: {out}");
    }
}
