//! A live rule whose harmful marks outweigh its helpful ones is one `cm context` only warns of:
//! `cm top` never lists it as most effective, and `cm project` never writes it into AGENTS.md as
//! one of the repository's rules (it is counted as `netHarmful`).

use crate::harness::Env;

#[test]
fn a_net_harmful_rule_is_neither_top_nor_projected() {
    let env = Env::new();
    let good = env.add("Run cargo fmt before every commit");
    let bad = env.add("Vendor every dependency into third_party before building");
    env.cm(&["mark", &bad, "--harmful"]).json().run().ok();
    let top = env.cm(&["top"]).json().run().ok().data();
    let ids: Vec<&str> = top["bullets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&good.as_str()), "{top}");
    assert!(
        !ids.contains(&bad.as_str()),
        "net harmful rule listed as top: {top}"
    );
    let project = env
        .cm(&["project", "--format", "json"])
        .json()
        .run()
        .ok()
        .data();
    let text = project.to_string();
    assert!(text.contains(&good), "{text}");
    assert!(!text.contains(&bad), "net harmful rule projected: {text}");
    assert_eq!(project["counts"]["netHarmful"], 1, "{project}");
}
