//! Onboarding progress: which sessions were marked as read, when, and how many rules came of
//! them. One row per session (agent, session id); marking again updates the row. The table is
//! `onboarding_sessions` (crates/cm-store/src/sql/007_onboarding.sql) and its statements live only here.

use crate::error::{CmError, Result};
use crate::store::Store;
use rusqlite::{Connection, params};
use serde::Serialize;

fn db_err(e: rusqlite::Error) -> CmError {
    crate::store::map_err(e, &crate::paths::db_path())
}

/// One session marked as read.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Processed {
    pub agent: String,
    pub session_id: String,
    pub source_path: Option<String>,
    pub marked_at: String,
    pub rules_extracted: i64,
}

/// Record `p` as read; true when the session was not marked before.
pub fn mark(store: &Store, p: &Processed) -> Result<bool> {
    store.write(|tx| {
        let before = tx
            .execute(
                "DELETE FROM onboarding_sessions WHERE agent = ?1 AND session_id = ?2",
                params![p.agent, p.session_id],
            )
            .map_err(db_err)?;
        tx.execute(
            "INSERT INTO onboarding_sessions
                 (agent, session_id, source_path, marked_at, rules_extracted)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                p.agent,
                p.session_id,
                p.source_path,
                p.marked_at,
                p.rules_extracted
            ],
        )
        .map_err(db_err)?;
        Ok(before == 0)
    })
}

/// Every session marked as read, the earliest first.
pub fn list(conn: &Connection) -> Result<Vec<Processed>> {
    conn.prepare_cached(
        "SELECT agent, session_id, source_path, marked_at, rules_extracted
         FROM onboarding_sessions ORDER BY marked_at, agent, session_id",
    )
    .and_then(|mut st| {
        st.query_map([], |r| {
            Ok(Processed {
                agent: r.get(0)?,
                session_id: r.get(1)?,
                source_path: r.get(2)?,
                marked_at: r.get(3)?,
                rules_extracted: r.get(4)?,
            })
        })?
        .collect()
    })
    .map_err(db_err)
}

/// Forget every mark; returns how many there were.
pub fn reset(store: &Store) -> Result<usize> {
    store.write(|tx| {
        tx.execute("DELETE FROM onboarding_sessions", [])
            .map_err(db_err)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, at: &str) -> Processed {
        Processed {
            agent: "codex".into(),
            session_id: id.into(),
            source_path: Some(format!("/s/{id}.jsonl")),
            marked_at: at.into(),
            rules_extracted: 2,
        }
    }

    #[test]
    fn marks_once_per_session_and_resets() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("cm.db")).unwrap();
        assert!(mark(&store, &row("a", "2025-01-02T00:00:00Z")).unwrap());
        assert!(mark(&store, &row("b", "2025-01-01T00:00:00Z")).unwrap());
        assert!(!mark(&store, &row("a", "2025-01-03T00:00:00Z")).unwrap());
        let all = list(&store).unwrap();
        assert_eq!(
            all.iter()
                .map(|p| p.session_id.as_str())
                .collect::<Vec<_>>(),
            ["b", "a"]
        );
        assert_eq!(all[1].marked_at, "2025-01-03T00:00:00Z");
        assert_eq!(reset(&store).unwrap(), 2);
        assert!(list(&store).unwrap().is_empty());
    }
}
