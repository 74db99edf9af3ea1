//! The SQL of a search. No statement joins tables: each reads one table, the full-text table
//! first, and reaches a message by its rowid (a filter is a correlated `EXISTS` on the rowid).
//! SQLite plans a one-table lookup by rowid or unique key directly, without weighing statistics,
//! while a join is planned from them: with statistics taken when the index held one message,
//! SQLite scans every message for each match of a join on `m.id = episodic_fts.rowid`, even
//! under `CROSS JOIN`. So no plan here depends on statistics; the tests hold each statement to
//! that on a store analysed at one message (`EXPLAIN QUERY PLAN` starts with the FTS table, and
//! a message is only ever searched by its primary key).

use super::tf::RowCounts;
use crate::model::SearchQuery;
use rusqlite::types::Value;
use rusqlite::{Connection, params_from_iter};

/// BM25 column weights: conversation text, tool calls and results.
pub const WEIGHTS: [f64; 2] = [1.0, 0.35];

/// The newest `limit` matches of a term (at most), counted; and the oldest rowid among them.
pub const PROBE_SQL: &str = "SELECT count(*), min(r) FROM (
     SELECT episodic_fts.rowid AS r FROM episodic_fts WHERE episodic_fts MATCH ?1
     ORDER BY episodic_fts.rowid DESC LIMIT ?2)";

/// The oldest `limit` matches of a term (at most), counted; and the oldest rowid among them.
/// When only whether a term is rare matters (fewer than `limit` matches: then the count and
/// the oldest rowid are exact, and equal to [`PROBE_SQL`]'s), reading from the oldest is the
/// cheaper walk: FTS5 reads a term's postings forwards as they are stored.
pub const COUNT_SQL: &str = "SELECT count(*), min(r) FROM (
     SELECT episodic_fts.rowid AS r FROM episodic_fts WHERE episodic_fts MATCH ?1
     ORDER BY episodic_fts.rowid ASC LIMIT ?2)";

/// The lowest and highest message rowid (two index seeks, never a scan).
pub const SPAN_SQL: &str = "SELECT (SELECT min(id) FROM episodic_messages), \
     (SELECT max(id) FROM episodic_messages)";

/// One message's hit fields, by rowid.
pub const HIT_SQL: &str = "SELECT agent, session_id, file_id, line_number, workspace, role,
            created_at, coalesce(text, tool_text, ''), tool_args, ts
     FROM episodic_messages WHERE id = ?1";
/// The newest `limit` matches of a term, by rowid (the sessions a term occurs in).
pub const NEWEST_MATCHES_SQL: &str = "SELECT episodic_fts.rowid FROM episodic_fts
     WHERE episodic_fts MATCH ?1 ORDER BY episodic_fts.rowid DESC LIMIT ?2";
/// The session of one message, by rowid.
pub const MESSAGE_SESSION_SQL: &str =
    "SELECT agent, session_id FROM episodic_messages WHERE id = ?1";
/// When one message was written (Unix ms), by rowid.
pub const MESSAGE_TS_SQL: &str = "SELECT ts FROM episodic_messages WHERE id = ?1";
/// One message's line in its source file, by rowid.
pub const LINE_SQL: &str = "SELECT line_number FROM episodic_messages WHERE id = ?1";
/// A source file's path, by rowid.
pub const FILE_PATH_SQL: &str = "SELECT path FROM episodic_files WHERE id = ?1";
/// A session's title, by its unique key.
pub const SESSION_TITLE_SQL: &str =
    "SELECT title FROM episodic_sessions WHERE agent = ?1 AND session_id = ?2";

/// A MATCH expression for quoted terms joined by `op` (" OR " / " AND ").
pub fn expression(terms: &[&str], op: &str) -> String {
    terms.iter().map(|t| quote(t)).collect::<Vec<_>>().join(op)
}

/// A quoted FTS5 string: the only escape is doubling `"`.
pub fn quote(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

/// The query's filters as a correlated scalar subquery over the matched message (empty without
/// filters), numbered from `?{first}`. Not `EXISTS`: SQLite turns that into a join, and a join
/// is planned from statistics.
pub fn filters(q: &SearchQuery, first: usize) -> (String, Vec<Value>) {
    let (conditions, params) = conditions(q, first);
    if conditions.is_empty() {
        return (conditions, params);
    }
    (
        format!(
            " AND (SELECT 1{conditions} FROM episodic_messages m
                WHERE m.id = episodic_fts.rowid)"
        ),
        params,
    )
}

fn conditions(q: &SearchQuery, first: usize) -> (String, Vec<Value>) {
    let mut sql = String::new();
    let mut params: Vec<Value> = Vec::new();
    let next = |params: &mut Vec<Value>, v: Value| {
        params.push(v);
        first + params.len() - 1
    };
    if let Some(agent) = &q.agent {
        let n = next(&mut params, Value::Text(agent.clone()));
        sql.push_str(&format!(" AND m.agent = ?{n}"));
    }
    if let Some(role) = q.role {
        let n = next(&mut params, Value::Text(role.as_str().into()));
        sql.push_str(&format!(" AND m.role = ?{n}"));
    }
    if let Some(ws) = q.workspace.as_deref().filter(|w| !w.is_empty()) {
        let n = next(&mut params, Value::Text(cm_base::workspace::key(ws).into()));
        sql.push_str(&format!(
            " AND {}",
            cm_base::workspace::sql("m.workspace", n)
        ));
    }
    if let Some(days) = q.days {
        let since = cm_base::clock::now().timestamp_millis() - days as i64 * 86_400_000;
        let n = next(&mut params, Value::Integer(since));
        sql.push_str(&format!(" AND m.ts >= ?{n}"));
    }
    (sql, params)
}

/// A statement and its parameters, kept so a search can show its plans.
#[derive(Debug, Clone)]
pub struct Statement {
    /// What the statement is for: probe, rare, recent, all.
    pub stage: &'static str,
    pub sql: String,
    pub params: Vec<Value>,
}

impl Statement {
    /// Matches of `expr` at rowid >= `floor`, newest first, at most `limit` (-1: all), each with
    /// its `cm_tf` counts.
    pub fn counts(
        stage: &'static str,
        q: &SearchQuery,
        expr: String,
        floor: i64,
        limit: i64,
    ) -> Self {
        let (filters, extra) = filters(q, 4);
        let sql = format!(
            "SELECT episodic_fts.rowid, cm_tf(episodic_fts) FROM episodic_fts
             WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?2{filters}
             ORDER BY episodic_fts.rowid DESC LIMIT ?3"
        );
        let mut params = vec![
            Value::Text(expr),
            Value::Integer(floor),
            Value::Integer(limit),
        ];
        params.extend(extra);
        Statement { stage, sql, params }
    }

    /// Every match of `expr` ranked by FTS5's own `bm25()`: the oracle the scorer is tested
    /// against.
    #[cfg(test)]
    pub fn exhaustive(q: &SearchQuery, expr: String, limit: i64) -> Self {
        let (filters, extra) = filters(q, 3);
        let [w0, w1] = WEIGHTS;
        let sql = format!(
            "SELECT episodic_fts.rowid, 0.0 - bm25(episodic_fts, {w0}, {w1}) AS score
             FROM episodic_fts WHERE episodic_fts MATCH ?1{filters}
             ORDER BY score DESC, episodic_fts.rowid DESC LIMIT ?2"
        );
        let mut params = vec![Value::Text(expr), Value::Integer(limit)];
        params.extend(extra);
        Statement {
            stage: "exhaustive",
            sql,
            params,
        }
    }

    /// Run a `counts` statement: (rowid, counts) per row.
    pub fn rows(&self, conn: &Connection) -> rusqlite::Result<Vec<(i64, RowCounts)>> {
        let mut stmt = conn.prepare_cached(&self.sql)?;
        let mut rows = stmt.query(params_from_iter(self.params.iter()))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            let blob = r.get_ref(1)?.as_blob()?;
            let counts = RowCounts::decode(blob).ok_or_else(|| {
                rusqlite::Error::InvalidColumnType(1, "cm_tf".into(), rusqlite::types::Type::Blob)
            })?;
            out.push((id, counts));
        }
        Ok(out)
    }

    /// Run an `exhaustive` statement: (rowid, score) per row.
    #[cfg(test)]
    pub fn scores(&self, conn: &Connection) -> rusqlite::Result<Vec<(i64, f64)>> {
        let mut stmt = conn.prepare_cached(&self.sql)?;
        let rows = stmt.query_map(params_from_iter(self.params.iter()), |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
        rows.collect()
    }

    /// `EXPLAIN QUERY PLAN` of the statement: one line per plan step, indented by depth.
    pub fn plan(&self, conn: &Connection) -> rusqlite::Result<Vec<String>> {
        explain(conn, &self.sql, &self.params)
    }
}

/// `EXPLAIN QUERY PLAN` of any statement, as lines indented by depth.
pub fn explain(conn: &Connection, sql: &str, params: &[Value]) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
    let rows = stmt.query_map(params_from_iter(params.iter()), |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(3)?,
        ))
    })?;
    let mut depth: Vec<(i64, usize)> = Vec::new();
    let mut out = Vec::new();
    for row in rows {
        let (id, parent, detail) = row?;
        let d = depth
            .iter()
            .find(|(i, _)| *i == parent)
            .map(|(_, d)| d + 1)
            .unwrap_or(0);
        depth.push((id, d));
        out.push(format!("{}{detail}", "  ".repeat(d)));
    }
    Ok(out)
}

/// Whether an error is SQLite giving up at a deadline (a progress handler or an interrupt).
pub fn interrupted(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted)
}
