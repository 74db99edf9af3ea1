//! The statements on the paths of search, context, the hooks, recall reinforcement and the term
//! index keep their plans on a store whose planner statistics were taken when it held one row
//! of everything, then grew (the way a post-session hook grows it). The search's own statements
//! are held to this in `episodic::search::tests`; these are the others.

use crate::context::{index, reinforce};
use crate::episodic::search::statements::explain;
use crate::episodic::sessions;
use crate::episodic::testing;
use crate::memory::bullet::{Bullet, FeedbackEvent, FeedbackSource, FeedbackType};
use crate::memory::tables::bullets;
use crate::store::Store;
use rusqlite::types::Value;

fn bullet(i: usize) -> Bullet {
    Bullet {
        id: format!("b-{i:012x}"),
        content: format!("check the auth token refresh timeout rule {i}"),
        created_at: "2026-05-01T00:00:00Z".into(),
        feedback_events: vec![FeedbackEvent {
            id: format!("fb-{i}"),
            kind: FeedbackType::Helpful,
            timestamp: "2026-05-02T00:00:00Z".into(),
            source: FeedbackSource::Manual,
            session_path: None,
            reason: None,
            weight: None,
        }],
        ..Bullet::default()
    }
}

fn add_rules(store: &Store, range: std::ops::Range<usize>) {
    store
        .write(|tx| {
            for i in range {
                bullets::insert(tx, &bullet(i))?;
            }
            Ok(())
        })
        .unwrap();
}

/// One message, one rule, one piece of evidence; analysed; grown to thousands of each; and the
/// statistics of the one-row store put back.
fn stale_store(dir: &std::path::Path) -> Store {
    let store = testing::store(dir);
    let first = dir.join("first.jsonl");
    std::fs::write(
        &first,
        testing::line("s0", "assistant", "following b-000000000000"),
    )
    .unwrap();
    testing::index(&store, &first);
    add_rules(&store, 0..1);
    index::refresh(&store).unwrap();
    reinforce::scan(&store, "2026-05-03T00:00:00Z").unwrap();
    crate::episodic::assoc::learn::catch_up(&store).unwrap();
    store.conn.execute_batch("ANALYZE").unwrap();
    let saved: Vec<(String, Option<String>, String)> = store
        .conn
        .prepare("SELECT tbl, idx, stat FROM sqlite_stat1")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    for s in 0..5 {
        let path = dir.join(format!("s{}.jsonl", s + 1));
        let text: String = (0..500)
            .map(|i| {
                testing::line(
                    &format!("s{}", s + 1),
                    "user",
                    &format!("message {i} of session {s}"),
                )
            })
            .collect();
        std::fs::write(&path, text).unwrap();
        testing::index(&store, &path);
    }
    add_rules(&store, 1..3_000);
    index::refresh(&store).unwrap();
    reinforce::scan(&store, "2026-05-03T00:00:00Z").unwrap();
    crate::episodic::assoc::learn::catch_up(&store).unwrap();
    let tx = store.conn.unchecked_transaction().unwrap();
    tx.execute("DELETE FROM sqlite_stat1", []).unwrap();
    for (tbl, idx, stat) in &saved {
        tx.execute(
            "INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?1, ?2, ?3)",
            rusqlite::params![tbl, idx, stat],
        )
        .unwrap();
    }
    tx.commit().unwrap();
    store.conn.execute_batch("ANALYZE sqlite_master").unwrap();
    assert_eq!(testing::analysed_messages(&store.conn), Some(1));
    store
}

#[test]
fn hot_statements_never_scan_what_they_look_up() {
    let dir = tempfile::tempdir().unwrap();
    let store = stale_store(dir.path());
    let text = |s: &str| Value::Text(s.into());
    // (statement, parameters, tables it may scan whole because it reads all of them).
    let cases: Vec<(&str, Vec<Value>, &[&str])> = vec![
        (index::POSTINGS_SQL, vec![text("auth")], &[]),
        (index::DOC_SQL, vec![1.into()], &[]),
        (index::HELD_BY_MORE_SQL, vec![text("auth"), 50.into()], &[]),
        (
            crate::context::evidence::tables::HELD_BY_MORE_SQL,
            vec![text("auth"), 50.into()],
            &[],
        ),
        (index::DOC_LEN_SQL, vec![text("b-000000000001")], &[]),
        (index::DIRTY_SQL, vec![], &["context_dirty"]),
        (index::TOTALS_SQL, vec![], &["context_docs"]),
        (sessions::LAST_INDEXED_SQL, vec![], &[]),
        (index::DELETE_TERMS_SQL, vec![1.into()], &[]),
        (bullets::DOC_SQL, vec![text("b-000000000001")], &[]),
        (bullets::EVENTS_SQL, vec![text("b-000000000001")], &[]),
        (
            sessions::SESSION_FILE_SQL,
            vec![text("tiny"), text("s1")],
            &[],
        ),
        (sessions::FILE_STATE_SQL, vec![1.into()], &[]),
        (
            sessions::SESSION_HEAD_SQL,
            vec![1.into(), text("s1"), 100.into()],
            &[],
        ),
        (
            sessions::RECENT_SESSIONS_SQL,
            vec![text("/home/u/proj"), 3.into()],
            &[],
        ),
        (reinforce::WATERMARKS_SQL, vec![], &["recall_scan"]),
        (crate::episodic::citing::NEWEST_MESSAGE_SQL, vec![], &[]),
        (
            crate::memory::tables::bullets::NEWEST_EVENT_SQL,
            vec![],
            &[],
        ),
        (
            crate::episodic::citing::CITING_MESSAGES_SQL,
            vec![0.into(), 10.into()],
            &["episodic_fts"],
        ),
        (crate::episodic::citing::MESSAGE_SQL, vec![1.into()], &[]),
        // The association layer (search, context) and the search's neighbour lookups.
        (crate::episodic::assoc::TERM_SQL, vec![text("auth")], &[]),
        (crate::episodic::assoc::TERM_BY_ID_SQL, vec![1.into()], &[]),
        (crate::episodic::assoc::LINKS_SQL, vec![1.into()], &[]),
        (crate::episodic::assoc::learn::STATE_SQL, vec![], &[]),
        (
            crate::episodic::assoc::learn::MESSAGES_SQL,
            vec![1.into()],
            &[],
        ),
        (
            crate::context::evidence::workspace::FIRST_HERE_SQL,
            vec![text("/home/u/proj"), 256.into()],
            &[],
        ),
        (
            crate::context::evidence::workspace::FIRST_UNDER_SQL,
            vec![text("/home/u/proj"), 256.into()],
            &[],
        ),
        (
            crate::context::evidence::workspace::PLACED_SQL,
            vec![text("/home/u/proj"), text("b-000000000000")],
            &[],
        ),
        (
            crate::context::evidence::workspace::STACKS_SQL,
            vec![text(r#"["b-000000000000","b-1"]"#)],
            &["j"],
        ),
        (
            crate::context::evidence::workspace::SITUATIONS_SQL,
            vec![text(r#"["b-000000000000","b-1"]"#)],
            &["j"],
        ),
        (
            crate::episodic::search::neighbours::ROW_SQL,
            vec![1.into()],
            &[],
        ),
        (
            crate::episodic::search::statements::LINE_SQL,
            vec![1.into()],
            &[],
        ),
        (
            crate::memory::tables::repo_feedback::FOR_REPO_SQL,
            vec![text("/w/.cass/playbook.yaml")],
            &[],
        ),
    ];
    for (sql, params, may_scan) in cases {
        let plan = explain(&store.conn, sql, &params).unwrap();
        for line in &plan {
            let l = line.trim();
            if let Some(rest) = l.strip_prefix("SCAN ") {
                let table = rest.split_whitespace().next().unwrap_or("");
                assert!(
                    table == "CONSTANT" || may_scan.contains(&table),
                    "{sql}\n{plan:#?}"
                );
            }
            assert!(!l.contains("TEMP B-TREE"), "{sql}\n{plan:#?}");
            // A workspace's rules are sought by path, not read for every workspace.
            let by_path = [
                crate::context::evidence::workspace::FIRST_HERE_SQL,
                crate::context::evidence::workspace::FIRST_UNDER_SQL,
            ];
            if by_path.contains(&sql) && l.starts_with("SEARCH") {
                assert!(l.contains("AND value"), "{sql}\n{plan:#?}");
            }
        }
    }
    // And they still answer correctly on the grown store.
    let b = bullets::get(&store.conn, "b-000000000bb7")
        .unwrap()
        .unwrap();
    assert_eq!(b.feedback_events.len(), 1);
    let recent = sessions::recent(&store, "/home/u/proj", 3).unwrap();
    assert_eq!(recent.len(), 3);
    let uses = reinforce::uses(&store.conn, &["b-000000000000"]);
    assert_eq!(
        uses.get("b-000000000000"),
        Some(&2),
        "a citation and a helpful mark"
    );
}
