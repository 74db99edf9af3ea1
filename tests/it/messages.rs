//! Messages that once said the opposite of what happened, and the command reference's flags
//! that were missing: `cm top N` (what it left out), `cm top --debug`, `cm context --max-chars 10`,
//! `cm context --depth`/`--verbose`, `cm guard allow` with a mistyped rule id.

use crate::harness::{Env, repo_path};

#[test]
fn top_says_what_it_left_out_and_debug_shows_how_scores_are_made() {
    let env = Env::new();
    let empty = env.cm(&["top"]).run().ok().stdout;
    assert!(empty.contains("No rules yet."), "{empty}");
    let a = env.add("Always refresh auth tokens before they expire");
    env.add("Run cargo fmt before every commit");
    env.cm(&["mark", &a, "--helpful"]).run().ok();
    let one = env.cm(&["top", "1"]).run().ok().stdout;
    assert!(!one.contains("No rules yet"), "{one}");
    assert_eq!(one.lines().count(), 2, "a header and one rule: {one}");
    let d = env.cm(&["top", "1"]).json().run().ok().data();
    assert_eq!(
        (d["count"].as_u64(), d["total"].as_u64()),
        (Some(1), Some(2))
    );
    let git = env.cm(&["top", "--category", "git"]).run().ok().stdout;
    assert!(git.contains("No live rule in category git"), "{git}");
    let d = env.cm(&["top", "--debug"]).json().run().ok().data();
    let debug = &d["bullets"][0]["debug"];
    assert_eq!(debug["helpfulWeight"], 1.0, "{d}");
    assert_eq!(debug["harmfulMultiplier"], 4.0);
    assert_eq!(debug["events"][0]["type"], "helpful");
    let text = env.cm(&["top", "--debug"]).run().ok().stdout;
    assert!(text.contains("weighted harmful ratio"), "{text}");
}

#[test]
fn context_never_says_no_rule_matches_when_rules_were_left_out_for_the_budget() {
    let env = Env::new();
    env.add("Always refresh auth tokens before they expire");
    env.add("Set a timeout on every auth token request");
    let out = env
        .cm(&[
            "context",
            "auth token refresh",
            "--no-history",
            "--max-chars",
            "10",
        ])
        .run()
        .ok()
        .stdout;
    assert!(!out.contains("No rule in the playbook matches"), "{out}");
    assert!(
        out.contains("the 2 matching rule(s) and pitfall(s) did not fit within 10 characters"),
        "{out}"
    );
    let none = env
        .cm(&["context", "kubernetes ingress", "--no-history"])
        .run()
        .ok()
        .stdout;
    assert!(
        none.contains("No rule in the playbook matches this task."),
        "{none}"
    );
}

#[test]
fn context_depth_and_verbose() {
    let env = Env::new();
    for i in 0..12 {
        env.add(&format!(
            "Check the auth token cache entry {i} before a retry"
        ));
    }
    let count = |depth: &str| {
        env.cm(&["context", "auth token cache retry", "--depth", depth])
            .json()
            .run()
            .ok()
            .data()["relevantBullets"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(
        (count("shallow"), count("normal"), count("deep")),
        (5, 10, 12)
    );
    let d = env
        .cm(&[
            "context",
            "auth token cache retry",
            "--depth",
            "deep",
            "--limit",
            "3",
        ])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(
        d["relevantBullets"].as_array().unwrap().len(),
        3,
        "flags win"
    );
    assert_eq!(d["budget"]["maxChars"], 24000);
    let out = env
        .cm(&["context", "auth token cache retry", "--verbose"])
        .json()
        .run()
        .ok();
    assert!(
        out.stderr.contains("cm context: depth normal"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("ms ranking and searching"),
        "{}",
        out.stderr
    );
    out.data();
    env.cm(&["context", "x", "--depth", "abyssal"])
        .json()
        .run()
        .code(3);
}

#[test]
fn a_mistyped_rule_id_is_not_saved_as_a_command_allow() {
    let env = Env::new();
    let e = env
        .cm(&["guard", "allow", "git:reset-hrd"])
        .json()
        .run()
        .code(3)
        .error_code("UNKNOWN_RULE");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("did you mean git:reset-hard?"),
        "{e}"
    );
    env.cm(&["guard", "allow", "nosuch:rule"])
        .json()
        .run()
        .code(3)
        .error_code("UNKNOWN_RULE");
    assert!(!env.data.join("config.json").exists(), "nothing was saved");
    let d = env
        .cm(&["guard", "allow", "git:reset-hard"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["kind"], "rule");
    let d = env
        .cm(&["guard", "allow", "deploy:prod", "--command"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["kind"], "command");
    assert_eq!(d["entry"]["command"], "deploy:prod");
}

/// The pasteable blurb names fields where `cm context --json` puts them.
#[test]
fn the_agents_blurb_names_real_fields() {
    let env = Env::new();
    env.add("Always refresh auth tokens before they expire");
    let v = env.cm(&["context", "auth tokens"]).json().run().ok().json();
    let blurb = std::fs::read_to_string(repo_path("templates/agents-blurb.md")).unwrap();
    let mut named = 0;
    for path in blurb
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with("data."))
    {
        let mut at = &v;
        for key in path.split('.') {
            at = at
                .get(key)
                .unwrap_or_else(|| panic!("the blurb names `{path}`, absent from {v}"));
        }
        named += 1;
    }
    assert!(named >= 5, "{blurb}");
    assert!(
        !blurb.contains("read\n  `relevantBullets`"),
        "relevantBullets is under data"
    );
}
