//! Anti-patterns that read correctly: a rule that already warns ("Never commit secrets") is
//! deprecated by harmful feedback, never turned into "PITFALL: Avoid - Never ...", which reads
//! as advice to do the harm; `cm project` shows one label, not "**Warning:** AVOID:"; the
//! anti-pattern `forget --invert` makes carries the user's reason and the tag `inverted`; and
//! every starter rule inverts into text that warns against what it advised (a golden file).

use crate::harness::{Env, fixture_path, golden};
use serde_json::Value;

fn all_rules(env: &Env) -> Vec<Value> {
    env.cm(&["ls", "--all"]).json().run().ok().data()["bullets"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_negative_rule_marked_harmful_is_deprecated_not_inverted() {
    let env = Env::new();
    let worded = env.add("Never commit secrets");
    // Flagged negative by the file, whatever its wording.
    let flagged = env
        .cm(&["playbook", "import", "-"])
        .stdin(r#"[{"id": "b-flagged", "content": "Secrets stay out of commits", "isNegative": true}]"#)
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(flagged["added"], 1, "{flagged}");
    for id in [worded.as_str(), "b-flagged"] {
        for _ in 0..3 {
            env.cm(&["mark", id, "--harmful"]).run().ok();
        }
        let b = env.cm(&["playbook", "get", id]).json().run().ok().data()["bullet"].clone();
        assert_eq!(b["maturity"], "deprecated", "{b}");
    }
    let rules = all_rules(&env);
    assert_eq!(rules.len(), 2, "no anti-pattern was made: {rules:?}");
    let text = serde_json::to_string(&rules).unwrap();
    assert!(!text.contains("Avoid - "), "{text}");
}

#[test]
fn forget_invert_keeps_the_reason_and_tags_the_anti_pattern() {
    let env = Env::new();
    let id = env.add("Always cache auth tokens in memory");
    let d = env
        .cm(&[
            "forget",
            &id,
            "--invert",
            "--reason",
            "stale tokens broke logins",
        ])
        .json()
        .run()
        .ok()
        .data();
    let anti = &d["invertedTo"];
    assert_eq!(
        anti["content"],
        "PITFALL: Don't cache auth tokens in memory"
    );
    assert!(
        anti["reasoning"]
            .as_str()
            .unwrap()
            .contains("stale tokens broke logins"),
        "{anti}"
    );
    assert!(
        anti["tags"]
            .as_array()
            .unwrap()
            .contains(&Value::from("inverted")),
        "{anti}"
    );
    // A warning inverted on purpose still reads as a warning.
    let never = env.add("Never force-push to a shared branch");
    let d = env
        .cm(&[
            "forget",
            &never,
            "--invert",
            "--reason",
            "we squash-merge now",
        ])
        .json()
        .run()
        .ok()
        .data();
    let content = d["invertedTo"]["content"].as_str().unwrap();
    assert!(!content.contains("Avoid - Never"), "{content}");
    assert!(content.starts_with("PITFALL: Don't rely on"), "{content}");
}

#[test]
fn project_shows_one_warning_label() {
    let env = Env::new();
    env.add("AVOID: storing auth tokens in localStorage");
    env.add("PITFALL: Don't mock the database in integration tests");
    let doc = env.cm(&["project"]).run().ok().stdout;
    assert!(
        doc.contains("**Warning:** storing auth tokens in localStorage"),
        "{doc}"
    );
    assert!(
        doc.contains("**Warning:** Don't mock the database"),
        "{doc}"
    );
    assert!(
        !doc.contains("AVOID:") && !doc.contains("PITFALL:"),
        "{doc}"
    );
}

/// Every starter rule, inverted the way `cm forget --invert` does it, into a golden file to
/// read: each line must warn against what the rule advised.
#[test]
fn every_starter_rule_inverts_into_a_warning() {
    let env = Env::new();
    let mut names: Vec<String> = std::fs::read_dir(crate::harness::repo_path("starters"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    let mut doc = String::from(
        "# Every starter rule and the anti-pattern `cm forget --invert` makes of it\n\
         # (UPDATE_GOLDEN=1 cargo test --test it anti_patterns rewrites this file)\n",
    );
    for name in &names {
        env.cm(&["init", "--starter", name]).run().ok();
    }
    let mut rules: Vec<(String, String)> = all_rules(&env)
        .iter()
        .map(|b| {
            (
                b["content"].as_str().unwrap().to_string(),
                b["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    rules.sort();
    for (content, id) in rules {
        let d = env
            .cm(&["forget", &id, "--invert", "--force", "--reason", "golden"])
            .json()
            .run()
            .ok()
            .data();
        let inverted = d["invertedTo"]["content"]
            .as_str()
            .unwrap_or("(not a rule)")
            .to_string();
        for bad in [
            "Avoid - Never",
            "Avoid - Don't",
            "Avoid - Do not",
            "Avoid - Avoid",
        ] {
            assert!(!inverted.contains(bad), "{content} -> {inverted}");
        }
        doc.push_str(&format!("{content}\n  -> {inverted}\n"));
    }
    golden(&fixture_path("invert/starters.txt"), &doc);
}
