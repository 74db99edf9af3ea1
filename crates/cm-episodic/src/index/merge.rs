//! Keeping the full-text index in few segments.
//!
//! Every commit of the indexer adds a segment to the FTS5 index; FTS5 merges them eight at a time
//! (`automerge`), so an index grown one session at a time holds a dozen or more segments, and a
//! query looks each term up in every one of them. After every indexing run (also one that found
//! nothing new, so a bulk import's segments are merged down by the runs that follow it), one
//! bounded incremental merge ([`PAGES`] pages, about 0.1-0.5 s at 250,000 messages) folds levels
//! of two or more segments together (`usermerge` is 2, migration 4): ten runs took a
//! 245,000-message import from 17 segments to 4. Measured on 245,000 messages: 19 segments cost a
//! seven-term search 10-16 ms of CPU, one segment 8.3 ms.

use rusqlite::Connection;

/// Pages of merged output one run writes at most.
pub const PAGES: i64 = 500;
/// Merge only when the index holds more segments than this.
pub const MAX_SEGMENTS: i64 = 4;

/// The number of segments of the full-text index.
pub fn segments(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT count(DISTINCT segid) FROM episodic_fts_idx",
        [],
        |r| r.get(0),
    )
}

/// Run one bounded merge when there are too many segments. Returns the segments before and
/// after (`None` when nothing was done).
pub fn maintain(conn: &Connection) -> rusqlite::Result<Option<(i64, i64)>> {
    let before = segments(conn)?;
    if before <= MAX_SEGMENTS {
        return Ok(None);
    }
    conn.execute(
        "INSERT INTO episodic_fts(episodic_fts, rank) VALUES ('merge', ?1)",
        [PAGES],
    )?;
    Ok(Some((before, segments(conn)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{index, line, store};

    #[test]
    fn many_small_commits_are_merged_down() {
        let dir = tempfile::tempdir().unwrap();
        let st = store(dir.path());
        for s in 0..30 {
            let path = dir.path().join(format!("s{s}.jsonl"));
            let text: String = (0..20)
                .map(|i| {
                    line(
                        &format!("s{s}"),
                        "user",
                        &format!("note {i} about topic{s}"),
                    )
                })
                .collect();
            std::fs::write(&path, text).unwrap();
            index(&st, &path);
        }
        let before = segments(&st.conn).unwrap();
        assert!(
            before > MAX_SEGMENTS,
            "each commit adds a segment: {before}"
        );
        let mut last = before;
        for _ in 0..10 {
            if let Some((_, after)) = maintain(&st.conn).unwrap() {
                last = after;
            }
        }
        assert!(last <= MAX_SEGMENTS, "{before} -> {last}");
        st.conn
            .execute_batch(
                "INSERT INTO episodic_fts(episodic_fts, rank) VALUES('integrity-check', 1)",
            )
            .unwrap();
        let hits = crate::search::search(
            &st.conn,
            &crate::model::SearchQuery {
                query: "topic17".into(),
                limit: 50,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(hits.len(), 20, "every message still found");
    }
}
