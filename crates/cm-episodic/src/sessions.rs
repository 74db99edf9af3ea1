//! The session index's read API: sessions, their messages, and what the index holds. Everything
//! that reads `episodic_sessions`, `episodic_messages` or `episodic_files` outside the indexer
//! and the search goes through here: history browsing, the context hooks (recent sessions, a
//! session's first messages for its arousal, the last index time), `cm doctor` and, later,
//! reflection. The search keeps its own statements (`search/statements.rs`), written for the
//! full-text table.
//!
//! Like the search's, these statements read one table each and reach rows by primary key, a
//! unique key or an index named with `INDEXED BY`, so no plan depends on planner statistics
//! (a join on `f.id = s.file_id` is planned as a scan per row on a store analysed when tiny).

use cm_base::error::{CmError, Result};
use rusqlite::{Connection, OptionalExtension, ToSql, params};
use serde::Serialize;

fn db_err(e: rusqlite::Error) -> CmError {
    match e.sqlite_error_code() {
        Some(_) => cm_store::map_err(e, &cm_base::paths::db_path()),
        None => CmError::internal(format!("reading the session index failed: {e}")),
    }
}

/// One indexed session.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub agent: String,
    pub session_id: String,
    pub parent_session_id: Option<String>,
    pub workspace: Option<String>,
    pub git_branch: Option<String>,
    pub title: Option<String>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub message_count: i64,
    pub source_path: Option<String>,
}

/// Which sessions to list.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub agent: Option<String>,
    /// This workspace or a directory under it ([`cm_base::workspace`]).
    pub workspace: Option<String>,
    /// Only sessions that ended at or after this time (RFC 3339).
    pub ended_since: Option<String>,
    pub limit: usize,
}

const SESSION_COLS: &str = "agent, session_id, parent_session_id, workspace, git_branch, title,
     started_at, ended_at, message_count, file_id";

fn session_row(r: &rusqlite::Row) -> rusqlite::Result<(Session, i64)> {
    Ok((
        Session {
            agent: r.get(0)?,
            session_id: r.get(1)?,
            parent_session_id: r.get(2)?,
            workspace: r.get(3)?,
            git_branch: r.get(4)?,
            title: r.get(5)?,
            started_at: r.get(6)?,
            ended_at: r.get(7)?,
            message_count: r.get(8)?,
            source_path: None,
        },
        r.get(9)?,
    ))
}

/// A source file's path, by rowid.
pub const FILE_PATH_SQL: &str = "SELECT path FROM episodic_files WHERE id = ?1";

fn with_path(conn: &Connection, (mut s, file_id): (Session, i64)) -> Result<Session> {
    s.source_path = conn
        .prepare_cached(FILE_PATH_SQL)
        .and_then(|mut st| st.query_row([file_id], |r| r.get(0)).optional())
        .map_err(db_err)?;
    Ok(s)
}

/// Sessions matching `filter`, the most recently ended first.
pub fn list(conn: &Connection, filter: &Filter) -> Result<Vec<Session>> {
    let mut sql = format!("SELECT {SESSION_COLS} FROM episodic_sessions WHERE 1");
    let mut p: Vec<Box<dyn ToSql>> = Vec::new();
    if let Some(a) = &filter.agent {
        p.push(Box::new(a.clone()));
        sql.push_str(&format!(" AND agent = ?{}", p.len()));
    }
    if let Some(w) = filter.workspace.as_ref().filter(|w| !w.is_empty()) {
        p.push(Box::new(cm_base::workspace::key(w).to_string()));
        sql.push_str(&format!(
            " AND {}",
            cm_base::workspace::sql("workspace", p.len())
        ));
    }
    if let Some(since) = &filter.ended_since {
        p.push(Box::new(since.clone()));
        sql.push_str(&format!(" AND ended_at >= ?{}", p.len()));
    }
    p.push(Box::new(filter.limit as i64));
    sql.push_str(&format!(
        " ORDER BY ended_at DESC NULLS LAST LIMIT ?{}",
        p.len()
    ));
    let refs: Vec<&dyn ToSql> = p.iter().map(|b| b.as_ref()).collect();
    let rows: Vec<(Session, i64)> = conn
        .prepare(&sql)
        .and_then(|mut st| st.query_map(refs.as_slice(), session_row)?.collect())
        .map_err(db_err)?;
    rows.into_iter().map(|r| with_path(conn, r)).collect()
}

/// The sessions read from one source file (a transcript and, for some agents, its
/// subagents), by the file's path as indexed.
pub fn of_file(conn: &Connection, path: &str) -> Result<Vec<Session>> {
    let rows: Vec<(Session, i64)> = conn
        .prepare_cached(&format!(
            "SELECT {SESSION_COLS} FROM episodic_sessions
             WHERE file_id = (SELECT id FROM episodic_files WHERE path = ?1)"
        ))
        .and_then(|mut st| st.query_map([path], session_row)?.collect())
        .map_err(db_err)?;
    rows.into_iter().map(|r| with_path(conn, r)).collect()
}

/// How many sessions are indexed.
pub fn count(conn: &Connection) -> Result<i64> {
    conn.query_row("SELECT count(*) FROM episodic_sessions", [], |r| r.get(0))
        .map_err(db_err)
}

/// One session, by its unique key.
pub fn get(conn: &Connection, agent: &str, session_id: &str) -> Result<Option<Session>> {
    let row = conn
        .prepare_cached(&format!(
            "SELECT {SESSION_COLS} FROM episodic_sessions WHERE agent = ?1 AND session_id = ?2"
        ))
        .and_then(|mut st| {
            st.query_row(params![agent, session_id], session_row)
                .optional()
        })
        .map_err(db_err)?;
    row.map(|r| with_path(conn, r)).transpose()
}

/// A session id, a unique prefix of one, or a source file's path -> (agent, session id).
pub fn resolve(conn: &Connection, key: &str) -> Result<(String, String)> {
    let by_path = std::fs::canonicalize(key)
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|| key.to_string());
    let file_id: Option<i64> = conn
        .query_row(
            "SELECT id FROM episodic_files WHERE path = ?1",
            [&by_path],
            |r| r.get(0),
        )
        .optional()
        .map_err(db_err)?;
    if let Some(file_id) = file_id {
        let found: Option<(String, String)> = conn
            .query_row(
                "SELECT agent, session_id FROM episodic_sessions INDEXED BY episodic_sessions_file
                 WHERE file_id = ?1 LIMIT 1",
                [file_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(db_err)?;
        if let Some(found) = found {
            return Ok(found);
        }
    }
    let escaped = key
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    let found: Vec<(String, String)> = conn
        .prepare(
            "SELECT agent, session_id FROM episodic_sessions
             WHERE session_id = ?1 OR session_id LIKE ?2 ESCAPE '\\' ORDER BY session_id = ?1 DESC LIMIT 5",
        )
        .and_then(|mut st| {
            st.query_map(params![key, format!("{escaped}%")], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect()
        })
        .map_err(db_err)?;
    match found.as_slice() {
        [] => Err(CmError::usage(
            "SESSION_NOT_FOUND",
            format!("no indexed session matches \"{key}\""),
        )
        .hint("list sessions with `cm history sessions`, or run `cm history index` first")),
        [one, ..] if one.1 == key || found.len() == 1 => Ok(one.clone()),
        _ => Err(CmError::usage(
            "SESSION_AMBIGUOUS",
            format!("\"{key}\" matches several sessions"),
        )
        .hint("give more characters of the session id")),
    }
}

/// One stored message of a session, as `cm history show` lists it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub line_number: i64,
    pub role: String,
    pub kind: String,
    pub created_at: Option<String>,
    pub text: String,
    pub tool_name: Option<String>,
    pub tool_args: Option<String>,
    pub is_error: bool,
    pub model: Option<String>,
    pub source_path: String,
}

/// A session's source file (by its unique key), through which its messages are reached.
pub const SESSION_FILE_SQL: &str =
    "SELECT file_id FROM episodic_sessions WHERE agent = ?1 AND session_id = ?2";

fn session_file(conn: &Connection, agent: &str, session_id: &str) -> Result<Option<i64>> {
    conn.prepare_cached(SESSION_FILE_SQL)
        .and_then(|mut st| {
            st.query_row(params![agent, session_id], |r| r.get(0))
                .optional()
        })
        .map_err(db_err)
}

/// A session's messages with line numbers in `lo..=hi`, in order.
pub fn messages(
    conn: &Connection,
    agent: &str,
    session_id: &str,
    lo: i64,
    hi: i64,
) -> Result<Vec<Message>> {
    let Some(file_id) = session_file(conn, agent, session_id)? else {
        return Ok(Vec::new());
    };
    let path: String = conn
        .prepare_cached(FILE_PATH_SQL)
        .and_then(|mut st| st.query_row([file_id], |r| r.get(0)).optional())
        .map_err(db_err)?
        .unwrap_or_default();
    conn.prepare_cached(
        "SELECT line_number, role, kind, created_at,
                coalesce(text, tool_text, hidden_text, ''), tool_name, tool_args, is_error, model
         FROM episodic_messages INDEXED BY episodic_messages_file_line
         WHERE file_id = ?1 AND agent = ?2 AND session_id = ?3 AND line_number BETWEEN ?4 AND ?5
         ORDER BY line_number, id",
    )
    .and_then(|mut st| {
        st.query_map(params![file_id, agent, session_id, lo, hi], |r| {
            Ok(Message {
                line_number: r.get(0)?,
                role: r.get(1)?,
                kind: r.get(2)?,
                created_at: r.get(3)?,
                text: r.get(4)?,
                tool_name: r.get(5)?,
                tool_args: r.get(6)?,
                is_error: r.get(7)?,
                model: r.get(8)?,
                source_path: path.clone(),
            })
        })?
        .collect()
    })
    .map_err(db_err)
}

/// The line range holding `context` messages either side of `line` in a session.
pub fn window(
    conn: &Connection,
    agent: &str,
    session_id: &str,
    line: u64,
    context: u64,
) -> Result<(i64, i64)> {
    let Some(file_id) = session_file(conn, agent, session_id)? else {
        return Ok((line as i64, line as i64));
    };
    let edge = |sql: &str| -> Result<Option<i64>> {
        conn.query_row(
            sql,
            params![file_id, agent, session_id, line as i64, context as i64],
            |r| r.get(0),
        )
        .map_err(db_err)
    };
    let lo = edge(
        "SELECT min(line_number) FROM (SELECT line_number
         FROM episodic_messages INDEXED BY episodic_messages_file_line
         WHERE file_id = ?1 AND agent = ?2 AND session_id = ?3 AND line_number < ?4
         ORDER BY line_number DESC LIMIT ?5)",
    )?
    .unwrap_or(line as i64);
    let hi = edge(
        "SELECT max(line_number) FROM (SELECT line_number
         FROM episodic_messages INDEXED BY episodic_messages_file_line
         WHERE file_id = ?1 AND agent = ?2 AND session_id = ?3 AND line_number > ?4
         ORDER BY line_number LIMIT ?5)",
    )?
    .unwrap_or(line as i64);
    Ok((lo, hi))
}

/// A session's first messages, through the (file, line) index named outright.
pub const SESSION_HEAD_SQL: &str = "SELECT role, is_error, substr(coalesce(text, ''), 1, 600)
     FROM episodic_messages INDEXED BY episodic_messages_file_line
     WHERE file_id = ?1 AND session_id = ?2 ORDER BY line_number LIMIT ?3";

/// The first `n` messages of a session as (role, failed tool result, first 600 bytes of text).
pub fn head(
    conn: &Connection,
    agent: &str,
    session_id: &str,
    n: usize,
) -> Result<Vec<(String, bool, String)>> {
    let Some(file_id) = session_file(conn, agent, session_id)? else {
        return Ok(Vec::new());
    };
    head_in(conn, file_id, session_id, n)
}

/// A source file's indexed state, by rowid: what the indexer sets each time it writes the
/// file's messages.
pub const FILE_STATE_SQL: &str = "SELECT size, mtime_ns, head_hash, next_line, messages, indexed_at
     FROM episodic_files WHERE id = ?1";

/// The file holding a session's messages, and a key that changes whenever the indexer changes
/// them: the file's indexed size, modification time, head hash, next line, message count and
/// time of indexing (the indexer writes them all whenever it adds a file's messages or resets
/// them). `None` when the session is not indexed.
pub fn head_state(
    conn: &Connection,
    agent: &str,
    session_id: &str,
) -> Result<Option<(i64, String)>> {
    let Some(file_id) = session_file(conn, agent, session_id)? else {
        return Ok(None);
    };
    let key = conn
        .prepare_cached(FILE_STATE_SQL)
        .and_then(|mut st| {
            st.query_row([file_id], |r| {
                Ok(format!(
                    "{file_id}/{}/{}/{:?}/{}/{}/{:?}",
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, Option<String>>(5)?,
                ))
            })
            .optional()
        })
        .map_err(db_err)?;
    Ok(key.map(|k| (file_id, k)))
}

/// [`head`] of a session whose file is known.
pub fn head_in(
    conn: &Connection,
    file_id: i64,
    session_id: &str,
    n: usize,
) -> Result<Vec<(String, bool, String)>> {
    conn.prepare_cached(SESSION_HEAD_SQL)
        .and_then(|mut st| {
            st.query_map(params![file_id, session_id, n as i64], |r| {
                Ok((r.get(0)?, r.get::<_, i64>(1)? != 0, r.get(2)?))
            })?
            .collect()
        })
        .map_err(db_err)
}

/// A recent top-level session of a workspace (the session-start hook's pointers).
#[derive(Debug, Clone, PartialEq)]
pub struct Recent {
    pub agent: String,
    pub session_id: String,
    pub title: Option<String>,
    pub ended_at: Option<String>,
    pub git_branch: Option<String>,
}

/// A workspace's newest top-level sessions, through the (workspace, ended_at) index.
pub const RECENT_SESSIONS_SQL: &str = "SELECT agent, session_id, title, ended_at, git_branch
     FROM episodic_sessions INDEXED BY episodic_sessions_workspace
     WHERE workspace = ?1 AND parent_session_id IS NULL ORDER BY ended_at DESC LIMIT ?2";

pub fn recent(conn: &Connection, workspace: &str, limit: usize) -> Result<Vec<Recent>> {
    conn.prepare_cached(RECENT_SESSIONS_SQL)
        .and_then(|mut st| {
            st.query_map(params![workspace, limit as i64], |r| {
                Ok(Recent {
                    agent: r.get(0)?,
                    session_id: r.get(1)?,
                    title: r.get(2)?,
                    ended_at: r.get(3)?,
                    git_branch: r.get(4)?,
                })
            })?
            .collect()
        })
        .map_err(db_err)
}

/// When the index was last refreshed: one seek in the (indexed_at) index, named outright (a
/// pass over the files table, whose rows are large, cost a hook up to a few milliseconds).
pub const LAST_INDEXED_SQL: &str =
    "SELECT max(indexed_at) FROM episodic_files INDEXED BY episodic_files_indexed";

pub fn last_indexed(conn: &Connection) -> Result<Option<String>> {
    conn.prepare_cached(LAST_INDEXED_SQL)
        .and_then(|mut st| st.query_row([], |r| r.get(0)))
        .map_err(db_err)
}

/// What the index holds for one agent (`cm history stats`).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AgentStats {
    pub agent: String,
    pub files: i64,
    pub messages: i64,
    pub skipped_records: i64,
    pub redactions: i64,
    pub capped_messages: i64,
    pub files_with_errors: i64,
    pub last_indexed_at: Option<String>,
}

/// Per-agent totals over the indexed files (one pass over the files table, by design).
pub fn stats_by_agent(conn: &Connection) -> Result<Vec<AgentStats>> {
    conn.prepare(
        "SELECT agent, count(*), sum(messages), sum(skipped), sum(redactions), sum(capped),
                sum(last_error IS NOT NULL), max(indexed_at)
         FROM episodic_files GROUP BY agent ORDER BY agent",
    )
    .and_then(|mut st| {
        st.query_map([], |r| {
            Ok(AgentStats {
                agent: r.get(0)?,
                files: r.get(1)?,
                messages: r.get::<_, Option<i64>>(2)?.unwrap_or(0),
                skipped_records: r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                redactions: r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                capped_messages: r.get::<_, Option<i64>>(5)?.unwrap_or(0),
                files_with_errors: r.get::<_, Option<i64>>(6)?.unwrap_or(0),
                last_indexed_at: r.get(7)?,
            })
        })?
        .collect()
    })
    .map_err(db_err)
}

/// Indexed files per agent.
pub fn files_by_agent(conn: &Connection) -> Result<std::collections::HashMap<String, i64>> {
    conn.prepare("SELECT agent, count(*) FROM episodic_files GROUP BY agent")
        .and_then(|mut st| st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .map_err(db_err)
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
        last_indexed_at: last_indexed(conn).ok().flatten(),
    }
}

/// Whether anything has been indexed yet (cheap: one row lookup).
pub fn has_index(conn: &Connection) -> bool {
    conn.query_row("SELECT EXISTS(SELECT 1 FROM episodic_messages)", [], |r| {
        r.get::<_, bool>(0)
    })
    .unwrap_or(false)
}

/// Whether this store has the session index's tables at all (a store made by a build without
/// them, opened read-only before migrating).
pub fn tables_present(conn: &Connection) -> bool {
    conn.prepare_cached(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table'
         AND name IN ('episodic_messages', 'episodic_files')",
    )
    .and_then(|mut s| s.query_row([], |r| r.get::<_, i64>(0)))
    .is_ok_and(|n| n == 2)
}
