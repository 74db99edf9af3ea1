//! The reflection domain's tables: `diary_entries` (one per session) and `reflections` (which
//! sessions were reflected on, on how many messages, and with what result).

use super::diary::DiaryEntry;
use crate::error::{CmError, Result};
use rusqlite::{Connection, OptionalExtension, params};

use crate::store::sql_error as sql;

/// Store (or replace) a session's diary entry.
///
/// Every field is redacted first ([`super::diary::redacted`]): a secret in any of them (a
/// workspace, a branch, a command) must not be stored, whoever built the entry.
pub fn save_entry(conn: &Connection, e: &DiaryEntry) -> Result<()> {
    let e = &super::diary::redacted(e.clone());
    let doc = serde_json::to_string(e).map_err(|e| CmError::internal(e.to_string()))?;
    conn.execute(
        "INSERT INTO diary_entries (id, agent, session_id, source_path, workspace, status, created_at, doc)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT(agent, session_id) DO UPDATE SET source_path = excluded.source_path,
           workspace = excluded.workspace, status = excluded.status, doc = excluded.doc",
        params![e.id, e.agent, e.session_id, e.session_path, e.workspace, e.status.as_str(), e.timestamp, doc],
    )
    .map_err(sql)?;
    Ok(())
}

fn parse(doc: String) -> Option<DiaryEntry> {
    serde_json::from_str(&doc).ok()
}

/// Diary entries, newest first: optionally of one workspace (or under it) and since a time.
pub fn entries(
    conn: &Connection,
    workspace: Option<&str>,
    since: Option<&str>,
    limit: usize,
) -> Result<Vec<DiaryEntry>> {
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT doc FROM diary_entries
             WHERE (?1 IS NULL OR {})
               AND (?2 IS NULL OR created_at >= ?2)
             ORDER BY created_at DESC, id LIMIT ?3",
            crate::workspace::sql("coalesce(workspace, '')", 1)
        ))
        .map_err(sql)?;
    let workspace = workspace.map(crate::workspace::key);
    let docs: Vec<String> = stmt
        .query_map(params![workspace, since, limit as i64], |r| r.get(0))
        .map_err(sql)?
        .collect::<rusqlite::Result<_>>()
        .map_err(sql)?;
    Ok(docs.into_iter().filter_map(parse).collect())
}

/// One entry by its id, or by its session id (or a unique prefix of either).
pub fn entry(conn: &Connection, key: &str) -> Result<Vec<DiaryEntry>> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT doc FROM diary_entries WHERE id = ?1 OR session_id = ?1
             UNION ALL
             SELECT doc FROM diary_entries WHERE (substr(id, 1, length(?1)) = ?1 OR substr(session_id, 1, length(?1)) = ?1)
               AND NOT EXISTS (SELECT 1 FROM diary_entries WHERE id = ?1 OR session_id = ?1)
             LIMIT 5",
        )
        .map_err(sql)?;
    let docs: Vec<String> = stmt
        .query_map([key], |r| r.get(0))
        .map_err(sql)?
        .collect::<rusqlite::Result<_>>()
        .map_err(sql)?;
    Ok(docs.into_iter().filter_map(parse).collect())
}

/// Whether the session has a diary entry (or one with this id).
pub fn has_entry(conn: &Connection, id: &str, agent: &str, session_id: &str) -> Result<bool> {
    conn.prepare_cached(
        "SELECT 1 FROM diary_entries WHERE id = ?1
         UNION ALL SELECT 1 FROM diary_entries WHERE agent = ?2 AND session_id = ?3",
    )
    .and_then(|mut s| s.exists(params![id, agent, session_id]))
    .map_err(sql)
}

/// How a session ended, from its diary entry.
pub fn status_of(conn: &Connection, agent: &str, session_id: &str) -> Result<Option<String>> {
    conn.prepare_cached("SELECT status FROM diary_entries WHERE agent = ?1 AND session_id = ?2")
        .and_then(|mut s| {
            s.query_row(params![agent, session_id], |r| r.get(0))
                .optional()
        })
        .map_err(sql)
}

/// How many messages the session had when it was last reflected on.
pub fn reflected_at_count(conn: &Connection, agent: &str, session_id: &str) -> Result<Option<i64>> {
    conn.prepare_cached(
        "SELECT message_count FROM reflections WHERE agent = ?1 AND session_id = ?2",
    )
    .and_then(|mut s| {
        s.query_row(params![agent, session_id], |r| r.get(0))
            .optional()
    })
    .map_err(sql)
}

pub fn record_reflection(
    conn: &Connection,
    agent: &str,
    session_id: &str,
    messages: i64,
    at: &str,
    result: &serde_json::Value,
) -> Result<()> {
    conn.execute(
        "INSERT INTO reflections (agent, session_id, message_count, reflected_at, result) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(agent, session_id) DO UPDATE SET message_count = excluded.message_count,
           reflected_at = excluded.reflected_at, result = excluded.result",
        params![agent, session_id, messages, at, result.to_string()],
    )
    .map_err(sql)?;
    Ok(())
}

/// How many sessions have been reflected on.
pub fn reflected_count(conn: &Connection) -> Result<i64> {
    conn.query_row("SELECT count(*) FROM reflections", [], |r| r.get(0))
        .map_err(sql)
}

/// Whether the LLM pass already refined this session (an agent whose session-end hook fires
/// after every turn would otherwise pay for a call per turn).
pub fn llm_refined(conn: &Connection, agent: &str, session_id: &str) -> Result<bool> {
    let result: Option<String> = conn
        .prepare_cached("SELECT result FROM reflections WHERE agent = ?1 AND session_id = ?2")
        .and_then(|mut s| {
            s.query_row(params![agent, session_id], |r| r.get(0))
                .optional()
        })
        .map_err(sql)?;
    Ok(result
        .and_then(|r| serde_json::from_str::<serde_json::Value>(&r).ok())
        .is_some_and(|v| v["llm"] == true))
}
