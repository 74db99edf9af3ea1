//! Feedback and scoring through the real binary: mark, undo, forget, outcomes, decay with time
//! pinned through `CM_NOW`, configured scoring, and the views (top, stale, why, stats).

use crate::harness::{Env, ids};

fn score(env: &Env, id: &str, now: &str) -> f64 {
    env.cm(&["playbook", "get", id])
        .json()
        .now(now)
        .run()
        .ok()
        .data()["bullet"]["effectiveScore"]
        .as_f64()
        .unwrap()
}

#[test]
fn mark_counts_matures_and_undo_reverts_exactly() {
    let env = Env::new();
    let id = env.add("Always read the error message first");
    for _ in 0..3 {
        env.cm(&["mark", &id, "--helpful"]).run().ok();
    }
    let d = env
        .cm(&[
            "mark",
            &id,
            "--helpful",
            "--reason",
            "found the bug",
            "--session",
            "/s/2.jsonl",
        ])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["bullet"]["helpfulCount"], 4);
    assert_eq!(d["bullet"]["maturity"], "established");
    assert_eq!(d["event"]["type"], "helpful");
    assert_eq!(d["event"]["source"], "manual");
    assert_eq!(d["event"]["reason"], "found the bug");
    assert_eq!(d["event"]["sessionPath"], "/s/2.jsonl");
    assert_eq!(d["bullet"]["feedbackEvents"].as_array().unwrap().len(), 4);

    let d = env.cm(&["undo", &id]).json().run().ok().data();
    assert_eq!(d["undone"], "mark");
    assert_eq!(d["bullet"]["helpfulCount"], 3);
    let got = env.cm(&["playbook", "get", &id]).json().run().ok().data();
    assert_eq!(got["bullet"]["feedbackEvents"].as_array().unwrap().len(), 3);

    env.cm(&["mark", &id])
        .json()
        .run()
        .code(3)
        .error_code("INVALID_ARGUMENT");
    env.cm(&["mark", &id, "--helpful", "--harmful"])
        .json()
        .run()
        .code(3);
    env.cm(&["mark", "b-does-not-exist", "--helpful"])
        .json()
        .run()
        .code(3)
        .error_code("RULE_NOT_FOUND");
}

#[test]
fn three_harmful_marks_invert_a_rule_and_undo_takes_it_back() {
    let env = Env::new();
    let id = env.add("Always cache auth tokens");
    env.cm(&["mark", &id, "--harmful"]).run().ok();
    env.cm(&["mark", &id, "--harmful"]).run().ok();
    let d = env.cm(&["mark", &id, "--harmful"]).json().run().ok().data();
    let anti = &d["invertedTo"];
    assert_eq!(anti["content"], "PITFALL: Don't cache auth tokens");
    assert_eq!(anti["type"], "anti-pattern");
    assert!(anti["reasoning"].as_str().unwrap().contains(&id));
    assert_eq!(d["bullet"]["deprecated"], true);
    let anti_id = anti["id"].as_str().unwrap().to_string();
    let live = ids(&env.cm(&["ls"]).json().run().ok().data());
    assert_eq!(live, vec![anti_id.clone()]);

    let d = env.cm(&["undo", &id]).json().run().ok().data();
    assert_eq!(d["removedBullets"], serde_json::json!([anti_id]));
    assert_eq!(d["bullet"]["harmfulCount"], 2);
    env.cm(&["playbook", "get", &anti_id]).run().code(3);
}

#[test]
fn forget_deprecates_with_reason_and_invert_creates_the_warning() {
    let env = Env::new();
    let id = env.add("Use global state for configuration");
    let d = env
        .cm(&["forget", &id, "--reason", "hid a race", "--invert"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["bullet"]["deprecated"], true);
    assert!(
        d["bullet"]["deprecationReason"]
            .as_str()
            .unwrap()
            .contains("hid a race")
    );
    assert_eq!(
        d["invertedTo"]["content"],
        "PITFALL: Don't use global state for configuration"
    );
    env.cm(&["forget", &id, "--reason", "again"])
        .json()
        .run()
        .code(3)
        .error_code("ALREADY_DEPRECATED");
    let d = env.cm(&["undo", &id]).json().run().ok().data();
    assert_eq!(d["undone"], "forget");
    assert_eq!(d["bullet"]["deprecated"], false);
    assert_eq!(d["removedBullets"].as_array().unwrap().len(), 1);
    assert_eq!(
        env.cm(&["ls", "--all"]).json().run().ok().data()["count"],
        1
    );
    // --reason may be left out (the command reference's `cm forget ID`), not given empty.
    env.cm(&["forget", &id, "--reason", " "])
        .json()
        .run()
        .code(3)
        .error_code("INVALID_ARGUMENT");
    let d = env.cm(&["forget", &id]).json().run().ok().data();
    assert_eq!(
        d["bullet"]["deprecationReason"],
        "forgotten: no reason given"
    );
}

#[test]
fn outcomes_are_recorded_then_applied_or_cleared() {
    let env = Env::new();
    let a = env.add("Rule a");
    let b = env.add("Rule b");
    let pair = format!("{a},{b}");
    let d = env
        .cm(&[
            "outcome",
            "success",
            &pair,
            "--summary",
            "fixed it",
            "--session",
            "/s/o.jsonl",
        ])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["outcome"]["status"], "success");
    assert_eq!(d["outcome"]["applied"], false);
    env.cm(&["outcome", "failure", &b]).run().ok();
    env.cm(&["outcome", "mixed", &a]).run().ok();
    // Not applied yet.
    assert_eq!(
        env.cm(&["playbook", "get", &a]).json().run().ok().data()["bullet"]["helpfulCount"],
        0
    );
    let d = env.cm(&["outcome-apply"]).json().run().ok().data();
    assert_eq!(d["count"], 3);
    let ga = env.cm(&["playbook", "get", &a]).json().run().ok().data();
    let gb = env.cm(&["playbook", "get", &b]).json().run().ok().data();
    assert_eq!(ga["bullet"]["helpfulCount"], 1, "mixed changes nothing");
    assert_eq!(ga["bullet"]["feedbackEvents"][0]["source"], "outcome");
    assert_eq!(
        ga["bullet"]["feedbackEvents"][0]["sessionPath"],
        "/s/o.jsonl"
    );
    assert_eq!(gb["bullet"]["helpfulCount"], 1);
    assert_eq!(gb["bullet"]["harmfulCount"], 1);
    // Applied outcomes are not applied twice.
    assert_eq!(
        env.cm(&["outcome-apply"]).json().run().ok().data()["count"],
        0
    );
    env.cm(&["outcome", "success", &a]).run().ok();
    assert_eq!(
        env.cm(&["outcome-clear"]).json().run().ok().data()["cleared"],
        1
    );
    assert_eq!(
        env.cm(&["outcome-apply"]).json().run().ok().data()["count"],
        0
    );
    env.cm(&["outcome", "great", &a])
        .json()
        .run()
        .code(3)
        .error_code("INVALID_ARGUMENT");
    env.cm(&["outcome", "success", "b-missing"])
        .json()
        .run()
        .code(3)
        .error_code("RULE_NOT_FOUND");
}

#[test]
fn decay_through_the_binary_at_0_45_90_180_days() {
    let env = Env::new();
    let t0 = "2026-01-01T00:00:00Z";
    let id = env
        .cm(&["add", "Always pin the toolchain"])
        .now(t0)
        .json()
        .run()
        .ok()
        .data()["bullet"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    env.cm(&["mark", &id, "--helpful"]).now(t0).run().ok();
    let cases = [
        ("2026-01-01T00:00:00Z", 1.0),
        ("2026-02-15T00:00:00Z", 0.707), // 45 days: 0.5^(1/2)
        ("2026-04-01T00:00:00Z", 0.5),   // 90 days
        ("2026-06-30T00:00:00Z", 0.25),  // 180 days
    ];
    for (now, want) in cases {
        let got = score(&env, &id, now);
        assert!((got - want).abs() < 0.001, "at {now}: {got} != {want}");
    }
    // One harmful mark weighs four helpful ones (decayed the same way).
    env.cm(&["mark", &id, "--harmful"]).now(t0).run().ok();
    assert!((score(&env, &id, t0) - (1.0 - 4.0)).abs() < 0.001);
    assert!((score(&env, &id, "2026-04-01T00:00:00Z") - (-1.5)).abs() < 0.001);
}

#[test]
fn scoring_config_changes_the_numbers() {
    let env = Env::new();
    env.cm(&["init"]).run().ok();
    std::fs::write(
        env.data.join("config.json"),
        r#"{"scoring": {"decayHalfLifeDays": 30, "harmfulMultiplier": 2}}"#,
    )
    .unwrap();
    let t0 = "2026-01-01T00:00:00Z";
    let id = env.add("Rule");
    env.cm(&["mark", &id, "--helpful"]).now(t0).run().ok();
    env.cm(&["mark", &id, "--harmful"]).now(t0).run().ok();
    assert!((score(&env, &id, "2026-01-31T00:00:00Z") - (0.5 - 1.0)).abs() < 0.001);
}

#[test]
fn top_stale_why_and_stats() {
    let env = Env::new();
    let t0 = "2026-01-01T00:00:00Z";
    let run = |args: &[&str]| env.cm(args).now(t0).json().run().ok().data();
    let a = run(&["add", "Rule a", "--category", "testing"])["bullet"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let b = run(&["add", "Rule b", "--category", "git"])["bullet"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let c = run(&["add", "Always rule c", "--category", "git"])["bullet"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for _ in 0..3 {
        run(&["mark", &a, "--helpful"]);
    }
    run(&["mark", &b, "--helpful"]);
    for _ in 0..3 {
        run(&["mark", &c, "--harmful"]);
    }

    let top = run(&["top", "2"]);
    assert_eq!(ids(&top), vec![a.clone(), b.clone()]);
    let top_git = run(&["top", "--category", "git"]);
    assert_eq!(ids(&top_git), vec![b.clone()]);
    assert_eq!(ids(&run(&["top", "5", "--limit", "1"])), vec![a.clone()]);

    // 100 days later every live rule is stale; with --project each gets the date its score
    // falls below minScore (0.1): a (score 3 at t0) after 90*log2(30) days.
    let later = "2026-04-11T00:00:00Z";
    let stale = env
        .cm(&["stale", "--project"])
        .now(later)
        .json()
        .run()
        .ok()
        .data();
    let items = stale["bullets"].as_array().unwrap();
    let ia = items.iter().find(|i| i["id"] == a.as_str()).unwrap();
    assert_eq!(ia["daysSinceActivity"], 100);
    let projected = ia["projectedBelowMinimum"].as_str().unwrap();
    // 90 * log2(3 / 0.1) = 441.6 days after t0 -> 2027-03-18.
    assert!(projected.starts_with("2027-03-1"), "{projected}");
    let none = env
        .cm(&["stale", "--days", "200"])
        .now(later)
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(none["count"], 0);
    let limited = env
        .cm(&["stale", "--limit", "1"])
        .now(later)
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(limited["count"], 1);
    assert!(limited["total"].as_u64().unwrap() >= 2);

    let why = run(&["why", &a]);
    assert_eq!(why["feedback"].as_array().unwrap().len(), 3);
    assert_eq!(why["history"][0]["action"], "add");
    let traj = why["trajectory"].as_array().unwrap();
    assert!(traj.iter().any(|p| p["label"] == "+90d"));
    let plus90 = traj.iter().find(|p| p["label"] == "+90d").unwrap();
    assert!((plus90["score"].as_f64().unwrap() - 1.5).abs() < 0.001);
    let human = env.cm(&["why", &a]).now(t0).run().ok().stdout;
    assert!(
        human.contains("Feedback") && human.contains("helpful"),
        "{human}"
    );

    let stats = run(&["stats", "--trace-decay"]);
    assert_eq!(stats["total"], 4); // a, b, c and c's anti-pattern
    assert_eq!(stats["antiPatternCount"], 1);
    assert_eq!(stats["byMaturity"]["deprecated"], 1);
    assert_eq!(stats["byMaturity"]["established"], 1);
    assert_eq!(stats["byCategory"]["git"], 2); // b and the anti-pattern
    assert_eq!(stats["byType"]["anti-pattern"], 1);
    let trace = stats["decayTrace"].as_array().unwrap();
    let ta = trace.iter().find(|t| t["id"] == a.as_str()).unwrap();
    assert_eq!(ta["events"].as_array().unwrap().len(), 3);
    assert_eq!(ta["events"][0]["decayFactor"], 1.0);
    let later_stats = env.cm(&["stats"]).now(later).json().run().ok().data();
    assert_eq!(later_stats["staleCount"], 3);
}
