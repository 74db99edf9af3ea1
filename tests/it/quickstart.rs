//! `cm quickstart`: generated from the parser and this machine's real state, so it is checked
//! here against `cm --help` and against what the other commands set up.

use crate::harness::Env;
use serde_json::{Value, json};

/// The `--flags` a command's `--help` lists.
fn help_flags(env: &Env, path: &str) -> String {
    let mut args: Vec<&str> = path.split(' ').collect();
    args.push("--help");
    let out = env.cm(&args).run().ok();
    out.stdout
}

#[test]
fn every_command_and_flag_it_names_is_in_help() {
    let env = Env::new();
    let data = env.cm(&["quickstart"]).json().run().ok().data();
    let top_help = env.cm(&["--help"]).run().ok().stdout;
    // Every top-level command `--help` lists appears in the quickstart's command list.
    let listed: Vec<&str> = data["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    let in_help: Vec<&str> = top_help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .collect();
    assert!(in_help.len() > 20, "{top_help}");
    for name in &in_help {
        assert!(listed.contains(name), "`cm {name}` missing from quickstart");
    }
    for name in &listed {
        assert!(
            in_help.contains(name),
            "quickstart names `cm {name}`, help does not"
        );
    }
    // Every key command's flags are ones its own --help shows.
    let key = data["keyCommands"].as_array().unwrap();
    assert!(key.len() >= 10);
    for c in key {
        let name = c["name"].as_str().unwrap();
        let help = help_flags(&env, name);
        for f in c["flags"].as_array().unwrap() {
            let flag = f["flag"].as_str().unwrap().split(' ').next().unwrap();
            assert!(help.contains(flag), "cm {name} --help lacks {flag}");
        }
    }
    // The protocol: context first, inline feedback, outcome, guard, learning.
    let runs: Vec<&str> = data["protocol"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["run"].as_str().unwrap())
        .collect();
    assert_eq!(runs[0], "cm context \"<task>\" --json");
    assert!(runs.iter().any(|r| r.starts_with("cm outcome ")));
    assert!(runs.iter().any(|r| r.starts_with("cm reflect")));
    assert_eq!(data["inlineFeedback"]["helpful"], "[cass: helpful b-...]");
    let layers: Vec<&str> = data["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(layers, ["episodic", "diary", "playbook"]);
}

#[test]
fn a_fresh_home_is_reported_as_not_set_up_and_left_untouched() {
    let env = Env::new();
    let data = env.cm(&["quickstart"]).json().run().ok().data();
    let state = &data["state"];
    assert_eq!(state["initialised"], false);
    assert_eq!(state["ruleCount"], Value::Null);
    assert_eq!(state["hooks"]["postSession"], false);
    assert_eq!(state["llm"]["configured"], false);
    assert!(data["degraded"]["store"].is_object());
    assert!(data["degraded"]["hooks"].is_object());
    assert!(!env.db().exists(), "quickstart created a store");
    let human = env.cm(&["quickstart"]).run().ok().stdout;
    assert!(human.contains("not initialised: run `cm init`"), "{human}");
}

#[test]
fn what_is_set_up_shows_up() {
    let env = Env::new();
    env.cm(&["init"]).run().ok();
    env.add("Run cargo clippy --all-targets before pushing");
    env.add("Use git worktree for parallel branches");
    env.cm(&["hooks", "install", "--agent", "claude"])
        .run()
        .ok();
    env.write_config(&json!({"scoring": {"decayHalfLifeDays": 30}}));
    let data = env.cm(&["quickstart"]).json().run().ok().data();
    let state = &data["state"];
    assert_eq!(state["initialised"], true);
    assert_eq!(state["ruleCount"], 2);
    assert_eq!(state["hooks"]["postSession"], true, "{state}");
    assert_eq!(state["hooks"]["guard"], true, "{state}");
    assert_eq!(
        state["configChanges"]["scoring.decayHalfLifeDays"],
        json!({"default": 90.0, "current": 30.0})
    );
    assert!(data["degraded"]["hooks"].is_null());
    assert_eq!(data["layers"][2]["now"], "2 rule(s)");
}
