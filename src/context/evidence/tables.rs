//! The evidence tables (migration 009): a rule's sessions, vocabulary and places, and the
//! per-transcript cache they are built from. The only SQL of [`super`]; the transcripts they
//! are built from are read through [`crate::episodic::transcripts`]. One statement still joins
//! the index's tables ([`STALE_SQL`], run after indexing).

use crate::error::Result;
use rusqlite::{Connection, OptionalExtension, params};

use crate::store::sql_error as sql;

// What the evidence reads of the session index goes through the index's own API.
pub use crate::episodic::transcripts::{
    IndexedFile, StoredMessage, messages, resolve, workspace_files, workspace_of,
};

/// A transcript's cached vocabulary and places.
pub struct SessionVocab {
    pub messages: i64,
    pub workspace: Option<String>,
    pub langs: Vec<String>,
    pub terms: Vec<(String, f64)>,
}

pub fn cached_vocab(conn: &Connection, file_id: i64) -> Result<Option<SessionVocab>> {
    let row: Option<(i64, Option<String>, String, String)> = conn
        .prepare_cached(
            "SELECT messages, workspace, langs, terms FROM session_vocab WHERE file_id = ?1",
        )
        .and_then(|mut s| {
            s.query_row([file_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()
        })
        .map_err(sql)?;
    Ok(row.map(|(messages, workspace, langs, terms)| SessionVocab {
        messages,
        workspace,
        langs: langs
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        terms: serde_json::from_str(&terms).unwrap_or_default(),
    }))
}

pub fn store_vocab(conn: &Connection, file_id: i64, v: &SessionVocab) -> Result<()> {
    let terms = serde_json::to_string(&v.terms).unwrap_or_else(|_| "[]".into());
    conn.prepare_cached(
        "INSERT OR REPLACE INTO session_vocab (file_id, messages, workspace, langs, terms)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .and_then(|mut s| {
        s.execute(params![
            file_id,
            v.messages,
            v.workspace,
            v.langs.join(","),
            terms
        ])
    })
    .map_err(sql)?;
    Ok(())
}

/// Forget what was built for a rule.
pub fn clear_rule(conn: &Connection, bullet_id: &str) -> Result<()> {
    for table in ["rule_sessions", "rule_evidence", "rule_places"] {
        conn.prepare_cached(&format!("DELETE FROM {table} WHERE bullet_id = ?1"))
            .and_then(|mut s| s.execute([bullet_id]))
            .map_err(sql)?;
    }
    Ok(())
}

pub fn insert_session(
    conn: &Connection,
    bullet_id: &str,
    reference: &str,
    kind: &str,
    file: Option<IndexedFile>,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR IGNORE INTO rule_sessions (bullet_id, ref, kind, file_id, messages)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .and_then(|mut s| {
        s.execute(params![
            bullet_id,
            reference,
            kind,
            file.map(|f| f.id),
            file.map(|f| f.messages)
        ])
    })
    .map_err(sql)?;
    Ok(())
}

pub fn insert_term(conn: &Connection, bullet_id: &str, term: &str, w: f64) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO rule_evidence (term, bullet_id, w) VALUES (?1, ?2, ?3)",
    )
    .and_then(|mut s| s.execute(params![term, bullet_id, w]))
    .map_err(sql)?;
    Ok(())
}

pub fn insert_place(
    conn: &Connection,
    bullet_id: &str,
    kind: &str,
    value: &str,
    sessions: usize,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO rule_places (bullet_id, kind, value, sessions) VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![bullet_id, kind, value, sessions as i64]))
    .map_err(sql)?;
    Ok(())
}

/// Rules whose cited transcripts were indexed, or grew, since their evidence was built.
pub const STALE_SQL: &str = "
    SELECT rs.bullet_id FROM rule_sessions rs JOIN episodic_files f ON f.path = rs.ref
    WHERE rs.file_id IS NOT f.id OR rs.messages IS NOT f.messages
    UNION
    SELECT rs.bullet_id FROM rule_sessions rs
    JOIN episodic_sessions s ON s.session_id = rs.ref
    JOIN episodic_files f ON f.id = s.file_id
    WHERE rs.file_id IS NOT f.id OR rs.messages IS NOT f.messages";

/// List the rules of [`STALE_SQL`] as changed, so the next refresh rebuilds them.
pub fn mark_stale(conn: &Connection) -> Result<usize> {
    conn.execute(
        &format!("INSERT OR IGNORE INTO context_dirty (bullet_id) {STALE_SQL}"),
        [],
    )
    .map_err(sql)
}

/// A rule's places: (kind, value).
pub fn places_of(conn: &Connection, bullet_id: &str) -> Result<Vec<(String, String)>> {
    conn.prepare_cached("SELECT kind, value FROM rule_places WHERE bullet_id = ?1")
        .and_then(|mut s| {
            s.query_map([bullet_id], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
        })
        .map_err(sql)
}

/// Evidence postings of one term, at most `limit`: (bullet id, weight).
/// Whether more than `n` rules hold `term` in their vocabulary: a probe of the primary key that
/// materialises no row (reading a common word's postings only to drop them cost milliseconds).
pub const HELD_BY_MORE_SQL: &str = "SELECT 1 FROM rule_evidence WHERE term = ?1 LIMIT 1 OFFSET ?2";

pub fn held_by_more(conn: &Connection, term: &str, n: usize) -> Result<bool> {
    conn.prepare_cached(HELD_BY_MORE_SQL)
        .and_then(|mut s| s.exists(params![term, n as i64]))
        .map_err(sql)
}

pub fn postings(conn: &Connection, term: &str, limit: usize) -> Result<Vec<(String, f64)>> {
    conn.prepare_cached("SELECT bullet_id, w FROM rule_evidence WHERE term = ?1 LIMIT ?2")
        .and_then(|mut s| {
            s.query_map(params![term, limit as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
        })
        .map_err(sql)
}
