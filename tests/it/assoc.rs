//! The offline association layer through the real binary, on real Claude Code transcripts
//! (`tests/fixtures/episodic/assoc/`): three sessions say that the nightly export depends on
//! the JDBC fetch size of the reporting service; another session sets that fetch size without
//! ever saying "nightly" or "export"; six more are about other things. A search for the nightly
//! export finds that message through what the other sessions taught, and says so.

use crate::harness::{Env, fixture};
use serde_json::{Value, json};

const FILES: &[&str] = &[
    "teach-1", "teach-2", "teach-3", "target", "other-1", "other-2", "other-3", "other-4",
    "other-5", "other-6",
];
const TARGET_LINE: u64 = 2;

fn sessions(env: &Env) -> std::path::PathBuf {
    let dir = env.home.join(".claude/projects/-home-u-billing");
    std::fs::create_dir_all(&dir).unwrap();
    for f in FILES {
        std::fs::write(
            dir.join(format!("{f}.jsonl")),
            fixture(&format!("episodic/assoc/{f}.jsonl")),
        )
        .unwrap();
    }
    dir.join("target.jsonl")
}

/// A search with the association layer as the only widening: the feedback pass (which can
/// find the same message through the words of the best hits) is off.
fn search(env: &Env, extra: &[&str]) -> Value {
    let mut args = vec!["history", "search", "--limit", "20", "--no-feedback"];
    args.extend_from_slice(extra);
    args.push("nightly export slow");
    env.data_of(&args)
}

fn target_hit(data: &Value, target: &str) -> Option<Value> {
    data["hits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["source_path"] == target && h["line_number"] == TARGET_LINE)
        .cloned()
}

#[test]
fn a_word_the_message_lacks_finds_it_through_other_sessions() {
    let env = Env::new();
    let target = sessions(&env);
    let target = std::fs::canonicalize(target).unwrap();
    let target = target.to_str().unwrap();
    env.data_of(&["history", "index"]);

    let data = search(&env, &[]);
    assert_eq!(data["degraded"], Value::Null, "{data}");
    let expanded: Vec<&str> = data["ranking"]["expanded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["word"].as_str().unwrap())
        .collect();
    assert!(expanded.contains(&"jdbc"), "{expanded:?}");
    let hit = target_hit(&data, target).expect("the fetch-size message is found");
    let matched: Vec<&str> = hit["expanded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(matched.contains(&"jdbc"), "{hit}");
    assert!(
        hit["snippet"].as_str().unwrap().contains("**JDBC**"),
        "{hit}"
    );

    // The same search without the layer cannot find it: it shares no word with the query.
    let lexical = search(&env, &["--no-expand"]);
    assert!(target_hit(&lexical, target).is_none(), "{lexical}");
}

#[test]
fn off_by_config_and_built_lazily_for_an_index_older_than_the_layer() {
    let env = Env::new();
    let target = sessions(&env);
    let target = std::fs::canonicalize(target).unwrap();
    let target = target.to_str().unwrap();
    // Indexed with the layer off: nothing learned, nothing widened, nothing degraded.
    env.write_config(&json!({"history": {"associations": false}}));
    env.data_of(&["history", "index"]);
    let off = search(&env, &[]);
    assert_eq!(off["degraded"], Value::Null, "{off}");
    assert!(
        off["ranking"]
            .get("expanded")
            .is_none_or(|e| e == &json!([]))
    );
    assert!(target_hit(&off, target).is_none());

    // Turned on over that index: the answer says the layer is not built yet.
    env.write_config(&json!({}));
    let behind = search(&env, &[]);
    assert_eq!(
        behind["degraded"]["associations"]["code"], "ASSOCIATIONS_NOT_BUILT",
        "{behind}"
    );
    // The next index run learns from what is already indexed, with nothing new to index.
    let run = env.data_of(&["history", "index"]);
    assert_eq!(run["messagesAdded"], 0);
    let built = search(&env, &[]);
    assert_eq!(built["degraded"], Value::Null, "{built}");
    assert!(target_hit(&built, target).is_some(), "{built}");
}

#[test]
fn context_history_widens_with_the_layer_unless_the_config_turns_it_off() {
    let env = Env::new();
    let target = sessions(&env);
    let target = std::fs::canonicalize(target).unwrap();
    let target = target.to_str().unwrap();
    env.data_of(&["history", "index"]);
    let holds_target = |d: &Value| {
        d["historySnippets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["source_path"] == target && h["line_number"] == TARGET_LINE)
    };
    let on = env.data_of(&["context", "nightly export slow", "--history", "10"]);
    assert!(holds_target(&on), "{on:#}");
    env.write_config(&json!({"history": {"associations": false}}));
    let off = env.data_of(&["context", "nightly export slow", "--history", "10"]);
    assert!(!holds_target(&off), "{off:#}");
}
