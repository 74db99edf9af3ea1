//! Indexed transcripts as the rule evidence reads them: a session reference resolved to its
//! file, a workspace's latest transcripts, a file's searchable messages and the directory its
//! sessions ran in. The rankers build a rule's vocabulary and places from these, and never
//! query the index's tables themselves.

use cm_base::error::Result;
use cm_store::sql_error as sql;
use rusqlite::{Connection, OptionalExtension, params};

/// An indexed transcript: its row and message count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexedFile {
    pub id: i64,
    pub messages: i64,
}

fn indexed_file(r: &rusqlite::Row) -> rusqlite::Result<IndexedFile> {
    Ok(IndexedFile {
        id: r.get(0)?,
        messages: r.get(1)?,
    })
}

/// The indexed file a session reference names: a transcript path, or a session id (bare or
/// `agent/id`).
pub fn resolve(conn: &Connection, reference: &str) -> Result<Option<IndexedFile>> {
    let by_path = conn
        .prepare_cached("SELECT id, messages FROM episodic_files WHERE path = ?1")
        .and_then(|mut s| s.query_row([reference], indexed_file).optional())
        .map_err(sql)?;
    if by_path.is_some() {
        return Ok(by_path);
    }
    let id = reference
        .split_once('/')
        .filter(|(agent, _)| !agent.is_empty() && !agent.contains('.'))
        .map(|(_, id)| id)
        .unwrap_or(reference);
    conn.prepare_cached(
        "SELECT f.id, f.messages FROM episodic_sessions s JOIN episodic_files f ON f.id = s.file_id
         WHERE s.session_id = ?1 LIMIT 1",
    )
    .and_then(|mut s| s.query_row([id], indexed_file).optional())
    .map_err(sql)
}

/// The transcripts of the latest `limit` sessions that ran in `workspace`.
pub fn workspace_files(
    conn: &Connection,
    workspace: &str,
    limit: usize,
) -> Result<Vec<IndexedFile>> {
    conn.prepare_cached(
        "SELECT DISTINCT f.id, f.messages FROM episodic_sessions s
         JOIN episodic_files f ON f.id = s.file_id
         WHERE s.workspace = ?1 ORDER BY s.ended_at DESC LIMIT ?2",
    )
    .and_then(|mut s| {
        s.query_map(params![workspace, limit as i64], indexed_file)?
            .collect()
    })
    .map_err(sql)
}

/// One message as stored, for the vocabulary.
pub struct StoredMessage {
    pub role: String,
    pub kind: String,
    pub text: String,
    pub is_error: bool,
}

/// The first `limit` searchable messages of a file, in order.
pub fn messages(conn: &Connection, file_id: i64, limit: usize) -> Result<Vec<StoredMessage>> {
    conn.prepare_cached(
        "SELECT role, kind, coalesce(text, tool_text, ''), is_error
         FROM episodic_messages INDEXED BY episodic_messages_file_line
         WHERE file_id = ?1 AND kind != 'scaffolding' ORDER BY line_number, id LIMIT ?2",
    )
    .and_then(|mut s| {
        s.query_map(params![file_id, limit as i64], |r| {
            Ok(StoredMessage {
                role: r.get(0)?,
                kind: r.get(1)?,
                text: r.get(2)?,
                is_error: r.get(3)?,
            })
        })?
        .collect()
    })
    .map_err(sql)
}

/// The working directory a file's sessions ran in.
pub fn workspace_of(conn: &Connection, file_id: i64) -> Result<Option<String>> {
    conn.prepare_cached(
        "SELECT workspace FROM episodic_sessions INDEXED BY episodic_sessions_file
         WHERE file_id = ?1 AND workspace IS NOT NULL AND workspace != '' LIMIT 1",
    )
    .and_then(|mut s| s.query_row([file_id], |r| r.get(0)).optional())
    .map_err(sql)
}
