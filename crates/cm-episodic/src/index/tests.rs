//! The indexer against a real store and real files, with a minimal line connector of its own
//! (one JSON object per line: `{"s": session, "r": role, "k": kind?, "t": text}`).

use super::*;
use crate::model::SearchQuery;
use crate::testing::{Tiny, index, line, source, store};
use std::io::Write;

fn count(store: &Store, sql: &str) -> i64 {
    store.conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn find(store: &Store, q: &str) -> Vec<crate::model::Hit> {
    crate::search::search(
        &store.conn,
        &SearchQuery {
            query: q.into(),
            limit: 10,
            ..SearchQuery::default()
        },
    )
    .unwrap()
}

#[test]
fn appends_resume_and_partial_lines_wait() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let path = dir.path().join("a.jsonl");
    std::fs::write(&path, line("s1", "user", "the flux capacitor is broken")).unwrap();
    let r = index(&st, &path);
    assert_eq!((r.files_new, r.messages_added), (1, 1));

    // Unchanged: nothing read.
    let r = index(&st, &path);
    assert_eq!((r.files_unchanged, r.messages_added), (1, 0));

    // Append one full line and half of another.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(line("s1", "assistant", "replaced the capacitor").as_bytes())
        .unwrap();
    f.write_all(br#"{"s":"s1","r":"user","t":"half a li"#)
        .unwrap();
    let r = index(&st, &path);
    assert_eq!((r.files_resumed, r.messages_added), (1, 1));
    f.write_all(b"ne about gravel\"}\n").unwrap();
    let r = index(&st, &path);
    assert_eq!(r.messages_added, 1);
    assert_eq!(count(&st, "SELECT count(*) FROM episodic_messages"), 3);
    // Only line 3 holds the word (line 2 may follow as its neighbour, with `neighbour_of`).
    let hits: Vec<_> = find(&st, "gravel")
        .into_iter()
        .filter(|h| h.neighbour_of.is_none())
        .collect();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].line_number, 3);
    assert!(
        hits[0].snippet.contains("**gravel**"),
        "{}",
        hits[0].snippet
    );
    assert_eq!(
        hits[0].title.as_deref(),
        Some("the flux capacitor is broken")
    );
    assert_eq!(
        count(&st, "SELECT message_count FROM episodic_sessions"),
        3,
        "session counts follow appends"
    );
}

#[test]
fn truncated_and_replaced_files_are_reread_without_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let path = dir.path().join("a.jsonl");
    let two = line("s1", "user", "alpha one") + &line("s1", "user", "alpha two");
    std::fs::write(&path, &two).unwrap();
    index(&st, &path);
    std::fs::write(&path, line("s1", "user", "beta")).unwrap();
    let r = index(&st, &path);
    assert_eq!(r.files_reread.get("truncated"), Some(&1));
    assert_eq!(count(&st, "SELECT count(*) FROM episodic_messages"), 1);
    assert!(find(&st, "alpha").is_empty(), "old rows left the FTS index");
    assert_eq!(find(&st, "beta").len(), 1);

    // Replaced by a new file (new inode) that is longer than the old offset.
    let tmp = dir.path().join("b.jsonl");
    std::fs::write(&tmp, line("s2", "user", "gamma") + &two + &two).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    let r = index(&st, &path);
    assert_eq!(r.files_reread.get("replaced"), Some(&1));
    assert_eq!(count(&st, "SELECT count(*) FROM episodic_messages"), 5);
    assert!(find(&st, "beta").is_empty());

    // Rewritten in place (same inode, longer, different head): caught by the head hash.
    let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all((line("s3", "user", "delta") + &two + &two + &two).as_bytes())
        .unwrap();
    drop(f);
    let r = index(&st, &path);
    assert_eq!(r.files_reread.get("replaced"), Some(&1), "{r:?}");
    assert_eq!(count(&st, "SELECT count(*) FROM episodic_messages"), 7);
    assert!(find(&st, "gamma").is_empty());
    let fts_rows = count(&st, "SELECT count(*) FROM episodic_fts");
    assert_eq!(fts_rows, 7);
    st.conn
        .execute_batch("INSERT INTO episodic_fts(episodic_fts, rank) VALUES('integrity-check', 1)")
        .unwrap();
}

#[test]
fn scaffolding_is_stored_not_searched_and_tool_output_ranks_lower() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let path = dir.path().join("a.jsonl");
    let text = [
        r#"{"s":"s1","r":"user","k":"scaffolding","t":"<environment_context>zanzibar</environment_context>"}"#,
        r#"{"s":"s1","r":"tool","k":"tool_result","t":"quokka quokka output"}"#,
        r#"{"s":"s1","r":"assistant","t":"the quokka answer"}"#,
        "not json at all",
    ]
    .join("\n")
        + "\n"
        + &(0..20)
            .map(|i| line("s2", "user", &format!("filler number {i}")))
            .collect::<String>();
    std::fs::write(&path, text).unwrap();
    let r = index(&st, &path);
    assert_eq!(r.messages_added, 23);
    assert_eq!(r.records_skipped, 1);
    assert_eq!(r.skipped_files[0].reasons["malformed JSON"], 1);
    assert_eq!(r.skipped_files[0].lines, vec![4]);
    assert!(find(&st, "zanzibar").is_empty());
    assert_eq!(
        count(
            &st,
            "SELECT count(*) FROM episodic_messages WHERE hidden_text LIKE '%zanzibar%'"
        ),
        1
    );
    let hits = find(&st, "quokka");
    assert_eq!(hits.len(), 2);
    assert_eq!(
        hits[0].role, "assistant",
        "conversation outranks tool output"
    );
}

#[test]
fn secrets_never_reach_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let path = dir.path().join("a.jsonl");
    let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    std::fs::write(
        &path,
        line("s1", "user", &format!("my token is {secret} ok")),
    )
    .unwrap();
    let r = index(&st, &path);
    assert_eq!(r.redactions, 1);
    let n = count(
        &st,
        &format!("SELECT count(*) FROM episodic_messages WHERE text LIKE '%{secret}%'"),
    );
    assert_eq!(n, 0);
    assert!(find(&st, secret).is_empty());
}

#[test]
fn vanished_files_are_reported_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let path = dir.path().join("gone.jsonl");
    let r = index(&st, &path);
    assert_eq!(r.errors.len(), 1);
    assert!(r.errors[0].error.contains("vanished"));
    std::fs::write(&path, line("s1", "user", "back again")).unwrap();
    let r = index(&st, &path);
    assert_eq!(r.messages_added, 1);
}

#[test]
fn a_concurrent_writer_wins_and_nothing_is_doubled() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let path = dir.path().join("a.jsonl");
    std::fs::write(&path, line("s1", "user", "first")).unwrap();
    // Plan against an empty store, then let "another process" index the file first.
    let job = files::Job {
        source: source(&path),
        stat: Stat::of(&std::fs::metadata(&path).unwrap()),
        plan: Plan::New,
        row: None,
    };
    let mut batches = Vec::new();
    parse_job(&Tiny, job, &Limits::default(), CHUNK_BYTES, &mut |p| {
        batches.push(p.unwrap());
        true
    });
    let batch = batches.pop().unwrap();
    index(&store(dir.path()), &path);
    let w = st
        .write(|tx| Ok(write::write_file(tx, &batch, "now").unwrap()))
        .unwrap();
    assert!(w.raced);
    assert_eq!(count(&st, "SELECT count(*) FROM episodic_messages"), 1);
}

#[test]
fn huge_files_are_committed_in_chunks_and_resume_after_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let path = dir.path().join("big.jsonl");
    let body: String = (0..100)
        .map(|i| line("s1", "user", &format!("chunked message number{i}")))
        .collect();
    std::fs::write(&path, &body).unwrap();
    let opts = || Options {
        chunk_bytes: 500,
        ..Options::default()
    };
    // Simulate a crash after the first chunk: write only the first batch.
    let job = files::Job {
        source: source(&path),
        stat: Stat::of(&std::fs::metadata(&path).unwrap()),
        plan: Plan::New,
        row: None,
    };
    let mut first = None;
    parse_job(&Tiny, job, &Limits::default(), 500, &mut |p| {
        first = Some(p.unwrap());
        false // the writer "died" after one chunk
    });
    let first = first.unwrap();
    assert!(first.prepared.rows.len() < 100);
    st.write(|tx| Ok(write::write_file(tx, &first, "now").unwrap()))
        .unwrap();
    // The next run resumes where the committed chunk stopped; everything ends up exactly once.
    let r = run(&st, &[&Tiny], vec![source(&path)], opts()).unwrap();
    assert_eq!(r.files_resumed, 1, "{r:?}");
    assert_eq!(count(&st, "SELECT count(*) FROM episodic_messages"), 100);
    assert_eq!(
        count(
            &st,
            "SELECT count(DISTINCT line_number) FROM episodic_messages"
        ),
        100
    );
    let r = run(&st, &[&Tiny], vec![source(&path)], opts()).unwrap();
    assert_eq!(r.files_unchanged, 1);
    // A fresh full run in chunks gives the same.
    let r = run(
        &st,
        &[&Tiny],
        vec![source(&path)],
        Options {
            full: true,
            chunk_bytes: 500,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(r.messages_added, 100);
    assert_eq!(count(&st, "SELECT count(*) FROM episodic_messages"), 100);
    assert_eq!(
        count(&st, "SELECT message_count FROM episodic_sessions"),
        100
    );
}
