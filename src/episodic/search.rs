//! Full-text search over the session index.
//!
//! The question becomes a quoted OR query ([`super::query`]); FTS5 ranks matches with BM25,
//! weighting what the user and the assistant said above tool calls and tool output; messages
//! whose scores tie (to two decimals) come newest first. Filters (agent, workspace prefix, age,
//! role) are applied in the same statement. Snippets and titles are fetched for the returned hits
//! only. Scaffolding is never in the full-text index, so it is never found.

use super::model::{Hit, Origin, SearchQuery};
use crate::error::{CmError, Result};
use rusqlite::{Connection, OptionalExtension, ToSql};

/// BM25 column weights: conversation text, tool calls/results, tool arguments.
pub const WEIGHTS: (f64, f64, f64) = (1.0, 0.35, 0.25);
/// Characters of context a snippet shows around the matched terms (in tokens).
const SNIPPET_TOKENS: i32 = 16;
pub const DEFAULT_LIMIT: usize = 10;

pub fn search(conn: &Connection, query: &SearchQuery) -> Result<Vec<Hit>> {
    let Some(fts) = super::query::fts_query(&query.query) else {
        return Ok(Vec::new());
    };
    let limit = if query.limit == 0 {
        DEFAULT_LIMIT
    } else {
        query.limit
    };
    let mut sql = format!(
        "SELECT m.id, m.agent, m.session_id, f.path, m.line_number, m.workspace, m.role,
                m.created_at, bm25(episodic_fts, {}, {}, {}) AS score, s.title
         FROM episodic_fts
         JOIN episodic_messages m ON m.id = episodic_fts.rowid
         JOIN episodic_files f ON f.id = m.file_id
         LEFT JOIN episodic_sessions s ON s.agent = m.agent AND s.session_id = m.session_id
         WHERE episodic_fts MATCH ?1",
        WEIGHTS.0, WEIGHTS.1, WEIGHTS.2
    );
    let mut params: Vec<Box<dyn ToSql>> = vec![Box::new(fts.clone())];
    if let Some(agent) = &query.agent {
        params.push(Box::new(agent.clone()));
        sql.push_str(&format!(" AND m.agent = ?{}", params.len()));
    }
    if let Some(role) = query.role {
        params.push(Box::new(role.as_str()));
        sql.push_str(&format!(" AND m.role = ?{}", params.len()));
    }
    if let Some(ws) = query.workspace.as_deref().filter(|w| !w.is_empty()) {
        params.push(Box::new(ws.to_string()));
        let n = params.len();
        sql.push_str(&format!(" AND substr(m.workspace, 1, length(?{n})) = ?{n}"));
    }
    if let Some(days) = query.days {
        let since = crate::clock::now().timestamp_millis() - days as i64 * 86_400_000;
        params.push(Box::new(since));
        sql.push_str(&format!(" AND m.ts >= ?{}", params.len()));
    }
    params.push(Box::new(limit as i64));
    sql.push_str(&format!(
        " ORDER BY round(score, 2), m.ts DESC LIMIT ?{}",
        params.len()
    ));
    let err = |e: rusqlite::Error| CmError::internal(format!("session search failed: {e}"));
    let mut stmt = conn.prepare_cached(&sql).map_err(err)?;
    let refs: Vec<&dyn ToSql> = params.iter().map(|p| p.as_ref()).collect();
    let rows = stmt
        .query_map(refs.as_slice(), |r| {
            Ok((
                r.get::<_, i64>(0)?,
                Hit {
                    agent: r.get(1)?,
                    session_id: r.get(2)?,
                    source_path: r.get(3)?,
                    line_number: r.get::<_, i64>(4)? as u64,
                    workspace: r.get(5)?,
                    role: r.get(6)?,
                    created_at: r.get(7)?,
                    score: -r.get::<_, f64>(8)?,
                    title: r.get(9)?,
                    snippet: String::new(),
                    origin: Origin::local(),
                },
            ))
        })
        .map_err(err)?;
    let mut hits = Vec::new();
    for row in rows {
        let (id, mut hit) = row.map_err(err)?;
        hit.snippet = snippet(conn, &fts, id).map_err(err)?;
        hit.score = (hit.score * 1000.0).round() / 1000.0;
        hits.push(hit);
    }
    Ok(hits)
}

/// The highlighted passage of message `id` that best matches `fts` (matched terms in `**`).
fn snippet(conn: &Connection, fts: &str, id: i64) -> rusqlite::Result<String> {
    let sql = format!(
        "SELECT snippet(episodic_fts, -1, '**', '**', '…', {SNIPPET_TOKENS})
         FROM episodic_fts WHERE episodic_fts MATCH ?1 AND rowid = ?2"
    );
    let s: Option<String> = conn
        .prepare_cached(&sql)?
        .query_row(rusqlite::params![fts, id], |r| r.get(0))
        .optional()?;
    Ok(
        s.map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default(),
    )
}

/// How much the index holds: lets callers say "no index yet" instead of "nothing found".
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexStatus {
    pub files: u64,
    pub messages: u64,
    pub sessions: u64,
    pub last_indexed_at: Option<String>,
}

/// The index's size. A store without the episodic tables counts as empty.
pub fn status(conn: &Connection) -> IndexStatus {
    let q = |sql: &str| -> Option<u64> {
        conn.query_row(sql, [], |r| r.get::<_, i64>(0))
            .ok()
            .map(|n| n as u64)
    };
    IndexStatus {
        files: q("SELECT count(*) FROM episodic_files").unwrap_or(0),
        messages: q("SELECT count(*) FROM episodic_messages").unwrap_or(0),
        sessions: q("SELECT count(*) FROM episodic_sessions").unwrap_or(0),
        last_indexed_at: conn
            .query_row("SELECT max(indexed_at) FROM episodic_files", [], |r| {
                r.get(0)
            })
            .ok()
            .flatten(),
    }
}

/// Whether anything has been indexed yet (cheap: one row lookup).
pub fn has_index(conn: &Connection) -> bool {
    conn.query_row("SELECT EXISTS(SELECT 1 FROM episodic_messages)", [], |r| {
        r.get::<_, bool>(0)
    })
    .unwrap_or(false)
}
