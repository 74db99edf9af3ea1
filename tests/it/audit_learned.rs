//! `cm audit` checks the rules `cm reflect` learns, which name their commands in plain words
//! (issue 26 item 15): a rule learned from a real fixture session is audited, and a later
//! session in its workspace going against it is reported; its own source session and other
//! workspaces are not.

use crate::harness::{Env, fixture_path};
use crate::reflect::{NOW, Transcript, reflect};
use crate::reflect_fixtures::slug;
use serde_json::Value;

const STOREFRONT: &str = "/home/dev/storefront";

#[test]
fn a_learned_plain_rule_is_audited_against_later_sessions_of_its_workspace() {
    let env = Env::builder().now(NOW).build();
    env.data_of(&["init"]);
    let dir = env.home.join(".claude/projects").join(slug(STOREFRONT));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("c44d2aa3-d137-40dc-a594-730d8d603d04.jsonl");
    std::fs::copy(
        fixture_path("reflect/sessions/a1-storefront-pnpm.jsonl"),
        &source,
    )
    .unwrap();
    let learned = reflect(&env, &[source.to_str().unwrap()]);
    let rules = env.data_of(&["playbook", "list"])["bullets"].clone();
    let rule = rules
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["content"].as_str().unwrap().contains("npm"))
        .unwrap_or_else(|| panic!("no npm rule learned: {learned:#}"));
    let (id, content) = (
        rule["id"].as_str().unwrap(),
        rule["content"].as_str().unwrap(),
    );
    assert!(!content.contains('`'), "a plain learned rule: {content}");

    // A later session in the same repository: pnpm is fine, npm goes against the rule.
    let mut later = Transcript::new("44444444-2222-4333-8444-555566667777", STOREFRONT);
    later
        .user("add dayjs and lodash")
        .bash("pnpm add dayjs", "+ dayjs 1.11.13", false)
        .bash("cd web && npm install lodash", "added 1 package", false);
    let mut elsewhere = Transcript::new("55555555-2222-4333-8444-555566667777", "/home/dev/harbor");
    elsewhere
        .user("install")
        .bash("npm ci", "added 12 packages", false);
    for t in [&later, &elsewhere] {
        let path = t.write_to(&env);
        env.cm(&["history", "index", "--file", path.to_str().unwrap()])
            .run()
            .ok();
    }
    let d = env.data_of(&["audit", "--days", "30"]);
    assert!(d["rulesChecked"].as_u64().unwrap() >= 1, "{d:#}");
    let against: Vec<(String, Value)> = d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            f["againstRules"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|b| b["rule"] == id)
                .map(|b| {
                    (
                        f["sessionId"].as_str().unwrap().to_string(),
                        b["command"].clone(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        against,
        [(
            "44444444-2222-4333-8444-555566667777".to_string(),
            Value::from("cd web && npm install lodash")
        )],
        "{d:#}"
    );
}
