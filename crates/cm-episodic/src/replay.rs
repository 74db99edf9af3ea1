//! Reading indexed messages back in session order, for analyses that walk a session message by
//! message (the trauma scan: a destructive command, then what the user said next).
//!
//! The episodic index owns `episodic_messages`, so the SQL that reads it for such walks lives
//! here; callers get plain [`Turn`]s. A message's body is `text` for conversation and
//! `tool_text` for tool calls and results (connectors render a call's command into it);
//! scaffolding (`hidden_text`) is never returned.

use rusqlite::{Connection, params};

/// One indexed message, as a walk through a session sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The message's row id: orders messages within a session.
    pub id: i64,
    pub agent: String,
    pub session_id: String,
    pub line_number: i64,
    pub role: String,
    pub created_at: Option<String>,
    pub body: String,
}

const COLUMNS: &str = "id, agent, session_id, line_number, role, created_at, \
                       coalesce(text, '') || CASE WHEN tool_text IS NULL THEN '' ELSE ' ' || tool_text END";

fn turn(r: &rusqlite::Row) -> rusqlite::Result<Turn> {
    Ok(Turn {
        id: r.get(0)?,
        agent: r.get(1)?,
        session_id: r.get(2)?,
        line_number: r.get(3)?,
        role: r.get(4)?,
        created_at: r.get(5)?,
        body: r.get::<_, String>(6)?.trim().to_string(),
    })
}

/// Messages not written by the user whose body contains any of `keywords` (ASCII, matched
/// case-insensitively), newer than `since_ms` (Unix milliseconds) when given, in session order.
pub fn mentioning(
    conn: &Connection,
    keywords: &[&str],
    since_ms: Option<i64>,
) -> rusqlite::Result<Vec<Turn>> {
    if keywords.is_empty() {
        return Ok(Vec::new());
    }
    let body = "(coalesce(text, '') || ' ' || coalesce(tool_text, ''))";
    let like = keywords
        .iter()
        .enumerate()
        .map(|(i, _)| format!("{body} LIKE ?{}", i + 2))
        .collect::<Vec<_>>()
        .join(" OR ");
    let sql = format!(
        "SELECT {COLUMNS} FROM episodic_messages
         WHERE role <> 'user' AND (?1 IS NULL OR ts IS NULL OR ts >= ?1) AND ({like})
         ORDER BY agent, session_id, id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut values: Vec<rusqlite::types::Value> = vec![since_ms.into()];
    values.extend(keywords.iter().map(|k| format!("%{k}%").into()));
    stmt.query_map(rusqlite::params_from_iter(values), turn)?
        .collect()
}

/// The next `n` messages of `t`'s session after it.
pub fn following(conn: &Connection, t: &Turn, n: usize) -> rusqlite::Result<Vec<Turn>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM episodic_messages
         WHERE agent = ?1 AND session_id = ?2 AND id > ?3 AND (text IS NOT NULL OR tool_text IS NOT NULL)
         ORDER BY id LIMIT ?4"
    ))?;
    stmt.query_map(params![t.agent, t.session_id, t.id, n as i64], turn)?
        .collect()
}

/// Whether the index table exists (a store created before the episodic migration has none).
pub fn available(conn: &Connection) -> bool {
    conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'episodic_messages')",
        [],
        |r| r.get::<_, bool>(0),
    )
    .unwrap_or(false)
}
