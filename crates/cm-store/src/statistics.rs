//! Planner statistics that follow the data as it grows.
//!
//! SQLite plans joins and index choices from `sqlite_stat1`, which only `ANALYZE` writes. A
//! store analysed when it held one message and then grown one session at a time keeps telling
//! the planner that every table has one row; `PRAGMA optimize` only revisits tables the same
//! connection queried. The statements on the hot paths are written so their plans do not depend
//! on statistics at all (see `episodic::search::statements`); this keeps the statistics honest
//! anyway, for every other statement: a table is re-analysed when it has grown (or shrunk) a lot
//! since its statistics were taken, with `analysis_limit` bounding the work.

use super::Store;
use cm_base::error::Result;
use rusqlite::{Connection, OptionalExtension};

/// Tables whose statistics are kept current.
pub const TABLES: &[&str] = &[
    "episodic_messages",
    "episodic_sessions",
    "episodic_files",
    "bullets",
    "feedback_events",
    "context_docs",
    "context_terms",
    "recall_evidence",
];

/// Rows a table needs before it is first analysed (below, SQLite's defaults plan well).
pub const MIN_ROWS: i64 = 1_000;
/// Re-analyse once a table has this many times the rows (or this share) it had when analysed.
pub const GROWTH: i64 = 2;
/// Rows each index's analysis may read (SQLite samples beyond that).
pub const ANALYSIS_LIMIT: i64 = 1_000;

/// Whether a table of `rows` rows, analysed at `analysed` rows (`None`: never), needs analysing.
pub fn stale(rows: i64, analysed: Option<i64>) -> bool {
    match analysed {
        None => rows >= MIN_ROWS,
        Some(a) => {
            let a = a.max(1);
            (rows >= MIN_ROWS && rows > a * GROWTH) || (a >= MIN_ROWS && rows * GROWTH < a)
        }
    }
}

/// Re-analyse every table of [`TABLES`] whose statistics are stale. Returns the tables analysed.
pub fn refresh(store: &Store) -> Result<Vec<&'static str>> {
    let conn = &store.conn;
    let mut stale_tables = Vec::new();
    for table in TABLES {
        let Some(rows) = row_count(conn, table).map_err(|e| store.map_err(e))? else {
            continue;
        };
        let analysed = analysed_rows(conn, table);
        if stale(rows, analysed) {
            stale_tables.push(*table);
        }
    }
    if stale_tables.is_empty() {
        return Ok(stale_tables);
    }
    let mut sql = format!("PRAGMA analysis_limit = {ANALYSIS_LIMIT};");
    for t in &stale_tables {
        sql.push_str(&format!(" ANALYZE {t};"));
    }
    conn.execute_batch(&sql).map_err(|e| store.map_err(e))?;
    Ok(stale_tables)
}

/// Rows of `table` (`None` when the table does not exist).
fn row_count(conn: &Connection, table: &str) -> rusqlite::Result<Option<i64>> {
    let exists = conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [table],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if !exists {
        return Ok(None);
    }
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .map(Some)
}

/// The row count `sqlite_stat1` holds for `table` (its first number), if it was analysed.
fn analysed_rows(conn: &Connection, table: &str) -> Option<i64> {
    let stat: String = conn
        .query_row(
            "SELECT stat FROM sqlite_stat1 WHERE tbl = ?1 LIMIT 1",
            [table],
            |r| r.get(0),
        )
        .ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tables_wait_grown_ones_are_refreshed() {
        assert!(!stale(10, None));
        assert!(stale(5_000, None));
        assert!(!stale(1_500, Some(1_000)));
        assert!(stale(2_500, Some(1_000)));
        // Analysed at one row, now thousands: the case that cost 71 s per search.
        assert!(stale(64_000, Some(1)));
        assert!(!stale(900, Some(1)));
        // Shrunk to under half.
        assert!(stale(400, Some(10_000)));
        assert!(!stale(6_000, Some(10_000)));
    }

    #[test]
    fn a_store_analysed_at_one_message_is_reanalysed_once_it_grew() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("cm.db")).unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO episodic_files (id, path, agent, kind) VALUES (1, '/s.jsonl', 'tiny', 'lines');
                 INSERT INTO episodic_messages (file_id, agent, session_id, line_number, role, kind, text)
                 VALUES (1, 'tiny', 's', 1, 'user', 'text', 'one');
                 ANALYZE;",
            )
            .unwrap();
        assert_eq!(analysed_rows(&store.conn, "episodic_messages"), Some(1));
        assert!(refresh(&store).unwrap().is_empty(), "nothing grew yet");
        store
            .conn
            .execute_batch(
                "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
                 INSERT INTO episodic_messages (file_id, agent, session_id, line_number, role, kind, text)
                 SELECT 1, 'tiny', 's', i, 'user', 'text', 'more' FROM n;",
            )
            .unwrap();
        assert_eq!(refresh(&store).unwrap(), vec!["episodic_messages"]);
        let now = analysed_rows(&store.conn, "episodic_messages").unwrap();
        assert!(now >= 1_000, "{now}");
        assert!(refresh(&store).unwrap().is_empty(), "fresh now");
    }
}
