//! Flags and answers the original tool's documentation names, through the real binary:
//! `rm --dry-run` and `--yes`, `export --all`, relative durations wherever a date is taken,
//! `privacy` and `onboard` without a subcommand, and "did you mean" for a mistyped rule id.

use crate::harness::Env;

const NOW: &str = "2026-12-01T12:00:00Z";

#[test]
fn rm_dry_run_changes_nothing_and_hard_needs_yes() {
    let env = Env::new();
    let id = env.add("Always pin the toolchain version");
    let d = env.data_of(&["rm", &id, "--dry-run"]);
    assert_eq!(d["dryRun"], true, "{d}");
    assert_eq!(d["wouldRemove"]["id"], id.as_str(), "{d}");
    let e = env
        .cm(&["rm", &id, "--hard"])
        .json()
        .run()
        .error_code("CONFIRMATION_REQUIRED");
    assert!(e["hint"].as_str().unwrap().contains("--yes"), "{e}");
    // Neither touched the rule.
    assert_eq!(env.data_of(&["ls"])["count"], 1);
    let d = env.data_of(&["rm", &id, "--hard", "--yes"]);
    assert_eq!(d["hard"], true);
    assert_eq!(env.data_of(&["ls", "--all"])["count"], 0);
}

#[test]
fn export_all_carries_deprecated_rules_even_in_markdown() {
    let env = Env::new();
    env.add("Keep this rule alive");
    let gone = env.add("Retire this rule soon");
    env.data_of(&["rm", &gone]);
    let live = env.data_of(&["playbook", "export", "--format", "md"]);
    assert!(
        !live["document"]
            .as_str()
            .unwrap()
            .contains("Retire this rule")
    );
    let all = env.data_of(&["playbook", "export", "--format", "md", "--all"]);
    assert_eq!(all["count"], 2, "{all}");
    assert!(
        all["document"]
            .as_str()
            .unwrap()
            .contains("Retire this rule")
    );
    env.cm(&["playbook", "export", "--all", "--live"])
        .json()
        .run()
        .error_code("INVALID_ARGUMENT");
}

#[test]
fn relative_durations_are_read_wherever_a_date_is() {
    let env = Env::builder().now(NOW).build();
    let d = env.data_of(&["audit", "--since", "24h"]);
    assert_eq!(d["since"], "2026-11-30T12:00:00.000Z", "{d}");
    env.cm(&["audit", "--since", "yesterday-ish"])
        .json()
        .run()
        .error_code("INVALID_ARGUMENT");
    env.cm(&["reflect", "--since", "7d", "--no-index", "--no-llm"])
        .json()
        .run()
        .ok();
    env.cm(&["reflect", "--since", "7 parsecs", "--no-index", "--no-llm"])
        .json()
        .run()
        .error_code("INVALID_ARGUMENT");
}

#[test]
fn privacy_and_onboard_alone_show_their_status() {
    let env = Env::new();
    assert_eq!(
        env.data_of(&["privacy"]),
        env.data_of(&["privacy", "status"])
    );
    let alone = env.cm(&["onboard"]).json().run().ok().json();
    assert_eq!(alone["success"], true, "{alone}");
    assert_eq!(
        alone["data"]["next"],
        env.data_of(&["onboard", "status"])["next"],
        "{alone}"
    );
}

#[test]
fn a_mistyped_rule_id_gets_a_suggestion() {
    let env = Env::new();
    let id = env.add("Run the linter before pushing");
    // The last character changed: no rule has that id or prefix.
    let mut typo: String = id.clone();
    let last = typo.pop().unwrap();
    typo.push(if last == '0' { '1' } else { '0' });
    let e = env
        .cm(&["mark", &typo, "--helpful"])
        .json()
        .run()
        .error_code("RULE_NOT_FOUND");
    let hint = e["hint"].as_str().unwrap();
    assert!(hint.contains(&format!("did you mean {id}")), "{hint}");
    // Nothing like any id: no suggestion.
    let e = env
        .cm(&["mark", "b-zzzzzzzzzzzz", "--helpful"])
        .json()
        .run()
        .error_code("RULE_NOT_FOUND");
    assert!(!e["hint"].as_str().unwrap().contains("did you mean"), "{e}");
}

#[test]
fn why_says_how_old_each_mark_is_and_what_backs_the_rule() {
    let env = Env::new();
    let id = env.add("Run the migrations in a transaction");
    env.cm(&["mark", &id, "--helpful", "--session", "/s/one.jsonl"])
        .now("2026-11-21T12:00:00Z")
        .run()
        .ok();
    env.cm(&["mark", &id, "--harmful", "--session", "/s/two.jsonl"])
        .now("2026-11-30T12:00:00Z")
        .run()
        .ok();
    let d = env.cm(&["why", &id]).now(NOW).json().run().ok().data();
    let history = d["feedbackHistory"].as_array().unwrap();
    assert_eq!(history.len(), 2, "{d}");
    assert_eq!(history[0]["type"], "helpful");
    assert_eq!(history[0]["daysAgo"], 10.0, "{d}");
    assert_eq!(history[1]["daysAgo"], 1.0, "{d}");
    assert!(history[0]["decayFactor"].as_f64().unwrap() < 1.0);
    assert_eq!(d["evidence"]["helpfulSessions"][0], "/s/one.jsonl");
    assert_eq!(d["evidence"]["harmfulSessions"][0], "/s/two.jsonl");
    assert!(d["diaryEntries"].as_array().unwrap().is_empty());
    assert!(d["daysAgo"].as_f64().is_some(), "{d}");
}

#[test]
fn stats_reports_scopes_states_kinds_spread_leaders_risks_and_near_duplicates() {
    let env = Env::builder().now(NOW).build();
    let strong = env.add("Always run the full test suite before committing");
    for _ in 0..6 {
        env.cm(&["mark", &strong, "--helpful"]).run().ok();
    }
    let risky = env.add("Prefer rebasing feature branches onto main");
    env.cm(&["mark", &risky, "--harmful"]).run().ok();
    env.cm(&[
        "add",
        "Always run the full test suite before you commit",
        "--force",
    ])
    .run()
    .ok();
    let d = env.data_of(&["stats"]);
    assert_eq!(d["byScope"]["global"], 3, "{d}");
    assert_eq!(
        d["byState"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum::<u64>(),
        3
    );
    assert_eq!(
        d["byKind"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum::<u64>(),
        3
    );
    assert_eq!(d["scoreDistribution"]["strong"], 1, "{d}");
    assert_eq!(d["scoreDistribution"]["negative"], 1, "{d}");
    assert_eq!(d["topPerformers"][0]["id"], strong.as_str(), "{d}");
    assert_eq!(d["atRiskCount"], 1, "{d}");
    let merges = d["mergeCandidates"].as_array().unwrap();
    assert_eq!(merges.len(), 1, "{d}");
    assert!(
        merges[0]["ids"]
            .as_array()
            .unwrap()
            .contains(&strong.as_str().into())
    );
}

#[test]
fn cass_memory_no_emoji_and_verbose_are_honoured() {
    let env = Env::new();
    env.add("🚀 Ship small changes often");
    let plain = env.cm(&["ls"]).env("CASS_MEMORY_NO_EMOJI", "1").run().ok();
    assert!(!plain.stdout.contains('🚀'), "{}", plain.stdout);
    assert!(
        plain.stdout.contains("Ship small changes"),
        "{}",
        plain.stdout
    );
    assert!(env.cm(&["ls"]).run().ok().stdout.contains('🚀'));
    // JSON is data: untouched.
    let d = env
        .cm(&["ls"])
        .env("CASS_MEMORY_NO_EMOJI", "1")
        .json()
        .run()
        .ok()
        .data();
    assert!(d.to_string().contains('🚀'));

    let quiet = env
        .cm(&["context", "ship changes", "--no-history"])
        .run()
        .ok();
    assert!(
        !quiet.stderr.contains("cm context: depth"),
        "{}",
        quiet.stderr
    );
    let loud = env
        .cm(&["context", "ship changes", "--no-history"])
        .env("CASS_MEMORY_VERBOSE", "1")
        .run()
        .ok();
    assert!(loud.stderr.contains("cm context: depth"), "{}", loud.stderr);
}

#[test]
fn outcome_apply_takes_one_session_or_a_few_at_a_time() {
    let env = Env::new();
    let id = env.add("Check the lock file into git");
    for s in ["/s/a.jsonl", "/s/b.jsonl", "/s/b.jsonl"] {
        env.cm(&["outcome", "success", &id, "--session", s])
            .run()
            .ok();
    }
    let d = env.data_of(&["outcome-apply", "--session", "/s/a.jsonl"]);
    assert_eq!(d["count"], 1, "{d}");
    let d = env.data_of(&["outcome-apply", "--limit", "1"]);
    assert_eq!(d["count"], 1, "{d}");
    let d = env.data_of(&["outcome-apply"]);
    assert_eq!(d["count"], 1, "{d}");
    let got = env.data_of(&["playbook", "get", &id]);
    assert_eq!(got["bullet"]["helpfulCount"], 3, "{got}");
    env.cm(&["outcome-apply", "--limit", "0"])
        .json()
        .run()
        .error_code("INVALID_ARGUMENT");
}

#[test]
fn undo_feedback_reverts_only_feedback() {
    let env = Env::new();
    let id = env.add("Squash fixup commits before merging");
    env.cm(&["mark", &id, "--helpful"]).run().ok();
    env.cm(&["playbook", "pin", &id]).run().ok();
    // The newest change is the pin: refused, and nothing is undone.
    let e = env
        .cm(&["undo", &id, "--feedback"])
        .json()
        .run()
        .error_code("NOT_FEEDBACK");
    assert!(e["message"].as_str().unwrap().contains("pin"), "{e}");
    assert_eq!(
        env.data_of(&["playbook", "get", &id])["bullet"]["pinned"],
        true
    );
    env.data_of(&["undo", &id]);
    let d = env.data_of(&["undo", &id, "--feedback"]);
    assert_eq!(d["undone"], "mark", "{d}");
    assert_eq!(d["bullet"]["helpfulCount"], 0, "{d}");
}
