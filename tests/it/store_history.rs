//! The undo history stays small: a rule marked many times keeps one small record per mark (not
//! a copy of all its feedback so far), undo still walks back exactly, and a change that changed
//! nothing (a session reflected again with `--force`) records nothing.

use crate::harness::Env;
use crate::reflect::{NOW, lesson_session, reflect};

fn history_len(env: &Env, id: &str) -> usize {
    env.data_of(&["why", id])["history"]
        .as_array()
        .unwrap()
        .len()
}

/// Bytes the undo history holds, read from the store file itself.
fn history_bytes(env: &Env) -> i64 {
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    conn.query_row(
        "SELECT coalesce(sum(length(before_doc)), 0) FROM bullet_revisions",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn many_marks_on_one_rule_keep_a_small_history_and_undo_walks_back() {
    let env = Env::new();
    let id = env.add("Run the migrations before the seed script");
    let marks = 300;
    for _ in 0..marks {
        env.cm(&["mark", &id, "--helpful"]).json().run().ok();
    }
    // A whole copy per mark held every earlier event: ~ 90 B x 300 x 301 / 2 = 4 MB.
    let bytes = history_bytes(&env);
    assert!(
        bytes < 150 * marks,
        "{bytes} bytes of history for {marks} marks"
    );
    let size = std::fs::metadata(env.db()).unwrap().len()
        + std::fs::metadata(env.db().with_file_name("cm.db-wal"))
            .map(|m| m.len())
            .unwrap_or(0);
    assert!(size < 3 << 20, "the store takes {size} bytes");
    for left in [marks - 1, marks - 2] {
        let d = env.cm(&["undo", &id]).json().run().ok().data();
        assert_eq!(d["undone"], "mark", "{d}");
        let b = env.data_of(&["playbook", "get", &id])["bullet"].clone();
        assert_eq!(b["helpfulCount"], left, "{b}");
        assert_eq!(
            b["feedbackEvents"].as_array().unwrap().len() as i64,
            left,
            "{b}"
        );
    }
    // The history is capped: undo reaches back a hundred changes (two of them undone now), not
    // to the beginning.
    assert_eq!(history_len(&env, &id), 98);
}

#[test]
fn reflecting_again_with_force_records_no_change() {
    let env = Env::builder().now(NOW).build();
    let seed = env.add("Check the CI runner's timezone before debugging date tests");
    let path = lesson_session(&seed).write_to(&env);
    let path = path.to_str().unwrap();
    reflect(&env, &[path]);
    let before = history_len(&env, &seed);
    let bytes = history_bytes(&env);
    for _ in 0..3 {
        reflect(&env, &[path, "--force"]);
    }
    assert_eq!(history_len(&env, &seed), before);
    assert_eq!(history_bytes(&env), bytes);
}
