//! The history search's ranking layers through the real binary, on real Claude Code transcripts
//! (`tests/fixtures/episodic/ranking/`):
//! - pseudo-relevance feedback: a session says the thumbnail worker crashed and that libvips
//!   fixed it; a later session bumps libvips without a word of the question. The second pass,
//!   widened with the first pass's words, finds it; without feedback nothing can.
//! - the session prior: two sessions hold the same message; the one whose other turns hold the
//!   rest of the query's words ranks first, though the other is newer (ties go to the newest).
//! - replies: the turn after a matching turn takes twice the share the turn before it takes.
//!
//! Each search turns off the association layer (`--no-expand`), so what it shows is the layer
//! named alone.

use crate::harness::{Env, fixture};
use serde_json::Value;

const SESSIONS: &[(&str, &str)] = &[
    ("-home-u-gallery", "crash"),
    ("-home-u-gallery", "bump"),
    ("-home-u-gallery", "other-1"),
    ("-home-u-gallery", "other-2"),
    ("-home-u-gallery", "other-3"),
    ("-home-u-shop", "prior-covers"),
    ("-home-u-shop", "prior-passing"),
    ("-home-u-infra", "reply"),
];

fn indexed() -> Env {
    let env = Env::new();
    for (project, name) in SESSIONS {
        let dir = env.home.join(".claude/projects").join(project);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("{name}.jsonl")),
            fixture(&format!("episodic/ranking/{name}.jsonl")),
        )
        .unwrap();
    }
    env.data_of(&["history", "index"]);
    env
}

fn search(env: &Env, workspace: &str, query: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "history",
        "search",
        "--limit",
        "20",
        "--no-expand",
        "--workspace",
        workspace,
    ];
    args.extend_from_slice(extra);
    args.push(query);
    env.data_of(&args)
}

fn hits(data: &Value) -> &Vec<Value> {
    data["hits"].as_array().unwrap()
}

/// The hit from session file `name` at `line`, if found.
fn hit<'a>(data: &'a Value, name: &str, line: u64) -> Option<&'a Value> {
    hits(data).iter().find(|h| {
        h["source_path"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/{name}.jsonl"))
            && h["line_number"] == line
    })
}

#[test]
fn feedback_finds_a_turn_that_shares_no_word_with_the_question() {
    let env = indexed();
    let q = "why does the thumbnail worker keep crashing";
    let data = search(&env, "/home/u/gallery", q, &[]);
    let added: Vec<&str> = data["ranking"]["feedback"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["word"].as_str().unwrap())
        .collect();
    assert!(added.contains(&"libvips"), "{data}");
    let bump = hit(&data, "bump", 2).expect("the libvips bump is found");
    assert!(
        bump["snippet"].as_str().unwrap().contains("**libvips**"),
        "{bump}"
    );
    let via: Vec<&str> = bump["expanded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(via, vec!["libvips"], "{bump}");
    // The question's own messages still come first.
    assert!(
        hits(&data)[0]["source_path"]
            .as_str()
            .unwrap()
            .ends_with("/crash.jsonl"),
        "{data}"
    );

    // Without the second pass the bump cannot be found: it holds no word of the question.
    let plain = search(&env, "/home/u/gallery", q, &["--no-feedback"]);
    assert!(hit(&plain, "bump", 2).is_none(), "{plain}");
    assert_eq!(
        plain["ranking"]["feedback"],
        serde_json::json!([]),
        "{plain}"
    );
}

#[test]
fn a_session_holding_the_rest_of_the_query_lifts_its_message() {
    let env = indexed();
    let q = "staging database port listen";
    // Where each session's first message ("Where is the staging database configured?") ranks.
    let rank = |data: &Value, name: &str| -> usize {
        let h = hit(data, name, 1).unwrap_or_else(|| panic!("{name}:1 in {data}"));
        hits(data).iter().position(|x| x == h).unwrap()
    };
    // The same words score the same; the newer session wins the tie.
    let plain = search(
        &env,
        "/home/u/shop",
        q,
        &["--no-feedback", "--no-session-prior"],
    );
    assert!(
        rank(&plain, "prior-passing") < rank(&plain, "prior-covers"),
        "{plain}"
    );
    // The older session also asks which port it should listen on: its message now ranks first.
    let lifted = search(&env, "/home/u/shop", q, &["--no-feedback"]);
    assert!(
        rank(&lifted, "prior-covers") < rank(&lifted, "prior-passing"),
        "{lifted}"
    );
    let score = |data: &Value, name: &str| hit(data, name, 1).unwrap()["score"].as_f64().unwrap();
    // Covering all four terms lifts x2, covering two x1.5.
    let ratio = score(&lifted, "prior-covers") / score(&lifted, "prior-passing");
    assert!(ratio > 1.2, "{ratio}: {lifted}");
}

#[test]
fn a_reply_takes_more_of_its_question_than_the_turn_before_it() {
    let env = indexed();
    let q = "metrics exporter port listen";
    let data = search(&env, "/home/u/infra", q, &["--no-feedback"]);
    let question = hit(&data, "reply", 2).expect("the question");
    let reply = hit(&data, "reply", 3).expect("the reply, lent by the question");
    let before = hit(&data, "reply", 1).expect("the turn before, lent by the question");
    assert_eq!(hits(&data)[0], *question, "{data}");
    assert_eq!(hits(&data)[1], *reply, "{data}");
    for lent in [reply, before] {
        assert_eq!(lent["neighbour_of"], 2, "{lent}");
    }
    let ratio = reply["score"].as_f64().unwrap() / before["score"].as_f64().unwrap();
    assert!((ratio - 2.0).abs() < 0.01, "{ratio}: {data}");
}
