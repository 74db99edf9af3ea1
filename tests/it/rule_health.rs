//! Rule health through the real binary: a deprecation by feedback wears off, its reason is the
//! feedback as it stands, a person's pin/unpin/revive/forget decide over feedback, a net-harmful
//! rule is never recommended, and a citation marked harmful is never a use.

use crate::harness::Env;
use serde_json::Value;

fn get(env: &Env, id: &str) -> Value {
    env.cm(&["playbook", "get", id]).json().run().ok().data()["bullet"].clone()
}

fn mark(env: &Env, id: &str, verdict: &str, times: usize) {
    for _ in 0..times {
        env.cm(&["mark", id, verdict]).json().run().ok();
    }
}

fn context(env: &Env, task: &str) -> Value {
    env.cm(&["context", task, "--no-history"])
        .json()
        .run()
        .ok()
        .data()
}

fn ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect()
}

#[test]
fn a_deprecation_by_feedback_wears_off_and_says_why_as_it_stands() {
    let env = Env::new();
    let id = env.add("Seed the staging database before integration tests");
    // Deprecated at its third event: 2 helpful, 1 harmful (33% > 25%).
    mark(&env, &id, "--helpful", 1);
    mark(&env, &id, "--harmful", 1);
    mark(&env, &id, "--helpful", 1);
    let b = get(&env, &id);
    assert_eq!(b["maturity"], "deprecated", "{b}");
    let task = "seed the staging database for integration tests";
    let c = context(&env, task);
    assert_eq!(ids(&c["deprecatedWarnings"]), [id.as_str()], "{c}");
    assert!(
        c["deprecatedWarnings"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("harmful ratio 33% exceeds 25% (2 helpful / 1 harmful"),
        "{c}"
    );
    // 40 more helpful marks: 1 harmful of 43. The rule is back, and recommended.
    mark(&env, &id, "--helpful", 40);
    let b = get(&env, &id);
    assert_eq!(b["maturity"], "proven", "{b}");
    assert_eq!(b["deprecated"], false);
    assert!(b.get("deprecationReason").is_none(), "{b}");
    let c = context(&env, task);
    assert_eq!(ids(&c["relevantBullets"]), [id.as_str()], "{c}");
    assert!(c["deprecatedWarnings"].as_array().unwrap().is_empty());
    let human = env.cm(&["context", task, "--no-history"]).run().ok().stdout;
    assert!(!human.contains("Do not follow"), "{human}");
    assert!(!human.contains("exceeds 25%"), "{human}");
}

/// A rule an older version left deprecated for good (state retired, reason "harmful ratio 33%
/// exceeds 25%") though later marks outweigh it: every view shows it as its feedback stands.
#[test]
fn a_stale_stored_deprecation_is_read_as_the_feedback_stands() {
    let env = Env::new();
    let file = env.root.join("old.json");
    let events: Vec<Value> = (0..42)
        .map(|i| {
            serde_json::json!({"id": format!("fb-{i:03}"), "type": if i == 1 { "harmful" } else { "helpful" },
                "timestamp": format!("2026-11-{:02}T10:00:00.000Z", 1 + i / 3), "source": "manual"})
        })
        .collect();
    let doc = serde_json::json!({"bullets": [{
        "id": "b-0000000000aa", "content": "Prefer table-driven tests for parsers", "category": "testing",
        "maturity": "deprecated", "deprecated": true, "state": "retired",
        "deprecationReason": "harmful ratio 33% exceeds 25%",
        "helpfulCount": 41, "harmfulCount": 1, "feedbackEvents": events,
        "createdAt": "2026-11-01T09:00:00.000Z", "updatedAt": "2026-11-14T10:00:00.000Z"
    }]});
    std::fs::write(&file, doc.to_string()).unwrap();
    env.cm(&["playbook", "import", file.to_str().unwrap()])
        .json()
        .run()
        .ok();
    let b = get(&env, "b-0000000000aa");
    assert_eq!(
        (b["maturity"].as_str(), b["deprecated"].as_bool()),
        (Some("proven"), Some(false)),
        "{b}"
    );
    let list = env.cm(&["ls"]).json().run().ok().data();
    assert_eq!(list["count"], 1, "{list}");
    assert_eq!(list["bullets"][0]["maturity"], "proven");
    let top = env.cm(&["top"]).json().run().ok().data();
    assert_eq!(top["count"], 1);
    let c = context(&env, "table-driven tests for the parsers");
    assert_eq!(ids(&c["relevantBullets"]), ["b-0000000000aa"], "{c}");
    // A scoring change moves the thresholds: every view, the streamed list included, follows.
    std::fs::write(
        env.data.join("config.json"),
        r#"{"scoring": {"minHelpfulForProven": 50}}"#,
    )
    .unwrap();
    let list = env.cm(&["ls"]).json().run().ok().data();
    assert_eq!(list["bullets"][0]["maturity"], "established", "{list}");
    assert_eq!(get(&env, "b-0000000000aa")["maturity"], "established");
}

#[test]
fn pin_unpin_and_revive_decide_over_feedback() {
    let env = Env::new();
    let id = env.add("Always vendor dependencies");
    let d = env.cm(&["playbook", "pin", &id]).json().run().ok().data();
    assert_eq!(
        (d["pinned"].as_bool(), d["changed"].as_bool()),
        (Some(true), Some(true))
    );
    // Pinned: three harmful marks neither deprecate nor invert it (the score still drops).
    mark(&env, &id, "--harmful", 3);
    let b = get(&env, &id);
    assert_eq!(b["maturity"], "candidate", "{b}");
    assert_eq!(b["pinned"], true);
    assert!(b["effectiveScore"].as_f64().unwrap() < 0.0);
    assert_eq!(
        env.cm(&["ls"]).json().run().ok().data()["count"],
        1,
        "no anti-pattern"
    );
    // Forgetting a pinned rule needs --force.
    env.cm(&["forget", &id])
        .json()
        .run()
        .code(3)
        .error_code("CONFIRMATION_REQUIRED");
    // Unpinned: its feedback deprecates it, and revive refuses (it would not last).
    let d = env.cm(&["playbook", "unpin", &id]).json().run().ok().data();
    assert_eq!(d["bullet"]["maturity"], "deprecated", "{d}");
    env.cm(&["playbook", "revive", &id])
        .json()
        .run()
        .code(3)
        .error_code("DEPRECATED_BY_FEEDBACK");
    // Undo walks back the unpin; a deliberately forgotten rule can be revived.
    env.cm(&["undo", &id]).json().run().ok();
    assert_eq!(get(&env, &id)["pinned"], true);
    env.cm(&["forget", &id, "--force", "--reason", "vendoring is gone"])
        .json()
        .run()
        .ok();
    assert_eq!(get(&env, &id)["maturity"], "deprecated");
    let d = env
        .cm(&["playbook", "revive", &id])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["bullet"]["deprecated"], false, "{d}");
    assert_eq!(d["bullet"]["maturity"], "candidate");
    env.cm(&["playbook", "revive", &id])
        .json()
        .run()
        .code(3)
        .error_code("NOT_DEPRECATED");
    // A proven rule is forgotten only with --force too.
    let proven = env.add("Run the linter before pushing");
    mark(&env, &proven, "--helpful", 10);
    assert_eq!(get(&env, &proven)["maturity"], "proven");
    env.cm(&["forget", &proven])
        .json()
        .run()
        .code(3)
        .error_code("CONFIRMATION_REQUIRED");
    env.cm(&["forget", &proven, "--force"]).json().run().ok();
}

#[test]
fn a_net_harmful_rule_is_only_a_warning() {
    let env = Env::new();
    let hurt = env.add("Mock the payment gateway in checkout tests");
    let fine = env.add("Stub the payment gateway clock in checkout tests");
    mark(&env, &hurt, "--helpful", 1);
    mark(&env, &hurt, "--harmful", 1);
    assert_eq!(get(&env, &hurt)["effectiveScore"], -3.0);
    let c = context(&env, "payment gateway checkout tests");
    assert_eq!(ids(&c["relevantBullets"]), [fine.as_str()], "{c}");
    assert_eq!(ids(&c["deprecatedWarnings"]), [hurt.as_str()], "{c}");
    assert_eq!(
        c["deprecatedWarnings"][0]["reason"],
        "net harmful: effective score -3.00 (1 helpful / 1 harmful)"
    );
}

#[test]
fn partial_outcomes_and_playbook_stats() {
    let env = Env::new();
    let id = env.add("Rule a");
    let d = env
        .cm(&["outcome", "partial", &id])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["outcome"]["status"], "mixed");
    let d = env.cm(&["outcome-apply"]).json().run().ok().data();
    assert_eq!(d["count"], 1);
    assert_eq!(
        get(&env, &id)["helpfulCount"],
        0,
        "partial changes no score"
    );
    let a = env.cm(&["playbook", "stats"]).json().run().ok().json();
    let b = env.cm(&["stats"]).json().run().ok().json();
    assert_eq!(a["command"], "playbook stats");
    assert_eq!(a["data"], b["data"]);
}

/// One Claude Code transcript line: an assistant message saying `text`.
fn assistant_line(session: &str, uuid: &str, ts: &str, text: &str) -> String {
    serde_json::json!({
        "type": "assistant", "sessionId": session, "uuid": uuid, "timestamp": ts,
        "cwd": "/home/u/shop", "isSidechain": false, "userType": "external",
        "message": {"id": format!("msg_{uuid}"), "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929", "content": [{"type": "text", "text": text}]}
    })
    .to_string()
}

/// `[cass: harmful b-...] - irrelevant` in a session is blame, not use: recall reinforcement
/// must not count it (it once did, boosting the rule it blamed).
#[test]
fn a_citation_marked_harmful_is_never_a_use() {
    let env = Env::new();
    let blamed = env.add("Retry the payment webhook with exponential backoff");
    let cited = env.add("Retry the payment webhook only for idempotent events");
    let project = env.home.join(".claude/projects/-home-u-shop");
    std::fs::create_dir_all(&project).unwrap();
    let session = "5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e";
    let lines = [
        assistant_line(
            session,
            "a1",
            "2026-11-30T10:00:00.000Z",
            &format!("I looked at {blamed} and {cited} for the webhook retries."),
        ),
        assistant_line(
            session,
            "a2",
            "2026-11-30T10:05:00.000Z",
            &format!(
                "// [cass: harmful {blamed}] - irrelevant\n// [cass: helpful {cited}] - exactly this"
            ),
        ),
    ];
    std::fs::write(
        project.join(format!("{session}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
    env.cm(&["history", "index", "--agent", "claude"])
        .env_remove("CLAUDE_CONFIG_DIR")
        .json()
        .run()
        .ok();
    let c = context(&env, "retry the payment webhook");
    let reasoning = |id: &str| {
        c["relevantBullets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .map(|r| r["reasoning"].as_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("{id} not in {c}"))
    };
    assert!(
        !reasoning(&blamed).contains("used"),
        "{}",
        reasoning(&blamed)
    );
    assert!(
        reasoning(&cited).contains("used 1 time(s)"),
        "{}",
        reasoning(&cited)
    );
    // Scanning again (a later context) does not bring the withdrawn use back.
    let c = context(&env, "retry the payment webhook");
    let again = c["relevantBullets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == blamed.as_str())
        .unwrap()["reasoning"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!again.contains("used"), "{again}");
}
