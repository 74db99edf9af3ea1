//! `cm context --gaps` offers starter rules for the thin categories (issue 26 item 4): from the
//! general starter and the starters of the repository's languages, never one the playbook
//! already holds, each with the command that adds it.

use crate::harness::Env;
use serde_json::Value;

fn suggestions(env: &Env) -> Vec<Value> {
    let d = env.data_of(&["context", "fix the flaky build", "--gaps", "--no-history"]);
    d["gaps"]["suggestions"].as_array().unwrap().clone()
}

#[test]
fn gaps_suggest_starter_rules_for_thin_categories_the_playbook_lacks() {
    let env = Env::new();
    env.git_repo();
    env.write("work/go.mod", "module example.com/shop\n\ngo 1.22\n");
    env.data_of(&["init"]);
    let kept = "Keep commits small and focused, with a message that says why";
    env.data_of(&["playbook", "add", kept, "--category", "git"]);
    let all = suggestions(&env);
    assert!(!all.is_empty());
    for s in &all {
        let starter = s["starter"].as_str().unwrap();
        assert!(["general", "go"].contains(&starter), "{s}");
        assert_ne!(s["content"], kept, "already in the playbook: {s}");
        assert!(
            s["command"]
                .as_str()
                .unwrap()
                .starts_with("cm playbook add '"),
            "{s}"
        );
    }
    let git = all.iter().filter(|s| s["category"] == "git").count();
    assert!((1..=2).contains(&git), "git is thin (1 rule): {all:#?}");
    assert!(all.iter().any(|s| s["starter"] == "go"), "{all:#?}");
    // Adding a suggestion takes it off the list.
    let first = &all[0];
    env.data_of(&[
        "playbook",
        "add",
        first["content"].as_str().unwrap(),
        "--category",
        first["category"].as_str().unwrap(),
    ]);
    assert!(
        !suggestions(&env)
            .iter()
            .any(|s| s["content"] == first["content"])
    );
    let human = env
        .cm(&["context", "fix the flaky build", "--gaps", "--no-history"])
        .run()
        .ok()
        .stdout;
    assert!(human.contains("starter rule for"), "{human}");
}
