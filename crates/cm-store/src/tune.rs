//! Settings every connection gets, read-only or not, that change nothing in the file.
//!
//! - A statement cache big enough for a whole `cm context` (rusqlite keeps 16 by default; one
//!   call runs about 30 distinct cached statements, so each call evicted and compiled them all
//!   again, which a long-running server paid on every request).
//! - The query planner stability guarantee. Without it SQLite marks a statement to be compiled
//!   again whenever a new value is bound to a parameter its plan looked at (a `LIMIT ?`, a
//!   comparison with a small integer), so a cached statement run with new values was compiled
//!   again on every run, FTS5's own segment lookups among them (dozens per search). No plan here
//!   depends on a bound value (see `episodic::search::statements`), so the guarantee costs
//!   nothing and each statement is compiled once.

use super::map_err;
use cm_base::error::Result;
use rusqlite::Connection;
use std::path::Path;

/// Prepared statements a connection keeps.
pub const STATEMENT_CACHE: usize = 128;

pub(super) fn tune(conn: &Connection, path: &Path) -> Result<()> {
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )
    .map_err(|e| map_err(e, path))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use rusqlite::StatementStatus;

    /// Binding new values to a cached statement whose plan SQLite would otherwise fold them into
    /// (a `LIMIT ?`) does not compile it again.
    #[test]
    fn a_cached_statement_is_compiled_once_whatever_is_bound() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("cm.db")).unwrap();
        let sql = "SELECT name FROM sqlite_master WHERE type = ?1 ORDER BY name LIMIT ?2";
        for limit in [1, 2, 3, 1] {
            let mut stmt = store.conn.prepare_cached(sql).unwrap();
            let _: Vec<String> = stmt
                .query_map(rusqlite::params!["table", limit], |r| r.get(0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            assert_eq!(
                stmt.get_status(StatementStatus::RePrepare),
                0,
                "LIMIT {limit}"
            );
        }
        let ro = Store::open_readonly(&store.path).unwrap().unwrap();
        for limit in [1, 2] {
            let mut stmt = ro.conn.prepare_cached(sql).unwrap();
            let _ = stmt
                .query_map(rusqlite::params!["table", limit], |r| r.get::<_, String>(0))
                .unwrap()
                .count();
            assert_eq!(stmt.get_status(StatementStatus::RePrepare), 0);
        }
    }
}
