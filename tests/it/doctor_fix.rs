//! `cm doctor --fix`: the safe repairs, run from a copy of the binary in a throwaway home so the
//! links it creates land beside the copy, never beside the build's binary.

use crate::harness::{Env, copy_tree, fixture_path};
use serde_json::{Value, json};

/// Each repair's check and its `field` (`action`: what it does; `outcome`: how it went).
fn pairs(d: &Value, field: &str) -> Vec<(String, String)> {
    pairs_in(&d["repairs"], field)
}

/// Each entry of `list`'s check and its `field`.
fn pairs_in(list: &Value, field: &str) -> Vec<(String, String)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["check"].as_str().unwrap().to_string(),
                r[field].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn actions(d: &Value) -> Vec<(String, String)> {
    pairs(d, "action")
}

fn repairs(d: &Value) -> Vec<(String, String)> {
    pairs(d, "outcome")
}

#[test]
fn doctor_fix_repairs_what_it_can_undo_and_a_dry_run_changes_nothing() {
    let env = Env::new();
    let exe = env.copy_of_cm();
    let cm = exe.to_str().unwrap();
    // A moved install: Claude Code's settings still name a hook that is gone.
    let settings = env.home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let dead = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/gone/bin/cm-pretool"}]}]}});
    std::fs::write(&settings, dead.to_string()).unwrap();
    // Sessions on disk that were never indexed.
    copy_tree(
        &fixture_path("episodic/claude/.claude"),
        &env.home.join(".claude"),
    );

    let dry = env
        .run_program(cm, &["doctor", "--fix", "--dry-run", "--json"])
        .run()
        .json();
    let d = &dry["data"];
    let planned = repairs(d);
    for want in [
        "data dir",
        "config",
        "cm-pretool",
        "cm-postsession",
        "cm-precommit",
        "hooks",
    ] {
        assert!(
            planned.contains(&(want.to_string(), "would".to_string())),
            "{want}: {planned:?}"
        );
    }
    assert!(!env.data.exists(), "a dry run creates nothing");
    assert!(std::fs::symlink_metadata(exe.with_file_name("cm-pretool")).is_err());
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        dead.to_string()
    );

    let fixed = env
        .run_program(cm, &["doctor", "--fix", "--json"])
        .run()
        .json();
    let done = repairs(&fixed["data"]);
    assert!(done.iter().all(|(_, o)| o == "done"), "{fixed}");
    assert_eq!(
        actions(d),
        actions(&fixed["data"]),
        "the dry run lists what --fix does"
    );
    assert!(env.data.join("config.json").is_file());
    assert_eq!(
        std::fs::read_link(exe.with_file_name("cm-postsession")).unwrap(),
        exe
    );
    let now = std::fs::read_to_string(&settings).unwrap();
    assert!(
        now.contains(exe.parent().unwrap().to_str().unwrap()),
        "{now}"
    );
    assert!(!now.contains("/gone/bin/cm-pretool"), "{now}");
    let backups: Vec<_> = std::fs::read_dir(env.data.join("backups"))
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name().to_string_lossy().contains("bak")
                || e.file_name().to_string_lossy().contains("backup")
        })
        .collect();
    assert!(!backups.is_empty(), "the settings file was backed up first");
    // The index was never refreshed: --fix indexed the sessions on disk.
    let stats = env
        .run_program(cm, &["history", "stats", "--json"])
        .run()
        .ok()
        .data();
    assert!(stats["messages"].as_u64().unwrap() > 0, "{stats}");
    assert!(
        done.contains(&("session index".to_string(), "done".to_string())),
        "{done:?}"
    );

    // Nothing left: a second --fix repairs nothing.
    let again = env
        .run_program(cm, &["doctor", "--fix", "--json"])
        .run()
        .json();
    assert_eq!(again["data"]["repairs"], json!([]), "{again}");
}

/// The hooks name the links beside this binary, and the links are gone: `--fix` re-creates the
/// links, which mends the hooks, so neither run may claim to rewrite the hooks.
#[test]
fn a_dry_run_lists_exactly_what_fix_does_when_links_mend_the_hooks() {
    let env = Env::new();
    let exe = env.copy_of_cm();
    let cm = exe.to_str().unwrap();
    env.run_program(cm, &["init"]).run().ok();
    let settings = env.home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let pretool = exe.with_file_name("cm-pretool");
    let doc = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": pretool}]}]}});
    std::fs::write(&settings, doc.to_string()).unwrap();

    let dry = env
        .run_program(cm, &["doctor", "--fix", "--dry-run", "--json"])
        .run()
        .json();
    let real = env
        .run_program(cm, &["doctor", "--fix", "--json"])
        .run()
        .json();
    assert_eq!(
        actions(&dry["data"]),
        actions(&real["data"]),
        "{dry}\n{real}"
    );
    assert!(
        !actions(&real["data"]).iter().any(|(c, _)| c == "hooks"),
        "{real}"
    );
    assert_eq!(std::fs::read_link(&pretool).unwrap(), exe);
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        doc.to_string(),
        "the hooks were not rewritten"
    );
}

/// Every check names its category; the plain run lists what `--fix` would repair (the same list
/// as `--fix --dry-run`); `--self-test` runs the engine on known input and passes.
#[test]
fn checks_have_categories_fixable_issues_are_listed_and_the_self_test_passes() {
    let env = Env::new();
    let d = env.cm(&["doctor", "--self-test"]).json().run().json()["data"].clone();
    let checks = d["checks"].as_array().unwrap();
    assert!(checks.iter().all(|c| c["category"].is_string()), "{d}");
    let selftest: Vec<&Value> = checks
        .iter()
        .filter(|c| c["category"] == "self-test")
        .collect();
    assert_eq!(selftest.len(), 4, "{d}");
    assert!(selftest.iter().all(|c| c["status"] == "ok"), "{d}");
    assert_eq!(
        checks.iter().find(|c| c["name"] == "hooks").unwrap()["category"],
        "hooks"
    );
    let fixable = pairs_in(&d["fixable"], "action");
    assert!(fixable.iter().any(|(c, _)| c == "data dir"), "{d}");
    let dry = env
        .cm(&["doctor", "--fix", "--dry-run"])
        .json()
        .run()
        .json();
    assert_eq!(fixable, actions(&dry["data"]));
    assert!(!env.data.exists(), "listing changes nothing");
}
