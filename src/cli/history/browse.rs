//! `cm history sessions | show | stats | sources`: looking at what the index holds.

use super::{SessionsArgs, ShowArgs, agent_filter, selected};
use crate::cli::Ctx;
use crate::error::{CmError, Result};
use crate::output::{Report, table, truncate};
use rusqlite::{OptionalExtension, ToSql, params};
use serde_json::{Value, json};

fn db_err(e: rusqlite::Error) -> CmError {
    CmError::internal(format!("reading the session index failed: {e}"))
}

pub fn sessions(args: &SessionsArgs, ctx: &Ctx) -> Result<Report> {
    let conn = &ctx.store()?.conn;
    let mut sql = String::from(
        "SELECT s.agent, s.session_id, s.parent_session_id, s.workspace, s.git_branch, s.title,
                s.started_at, s.ended_at, s.message_count, f.path
         FROM episodic_sessions s LEFT JOIN episodic_files f ON f.id = s.file_id WHERE 1",
    );
    let mut p: Vec<Box<dyn ToSql>> = Vec::new();
    if let Some(a) = agent_filter(&args.agent)? {
        p.push(Box::new(a));
        sql.push_str(&format!(" AND s.agent = ?{}", p.len()));
    }
    if let Some(w) = args.workspace.as_ref().filter(|w| !w.is_empty()) {
        p.push(Box::new(w.clone()));
        sql.push_str(&format!(
            " AND substr(s.workspace, 1, length(?{n})) = ?{n}",
            n = p.len()
        ));
    }
    if let Some(d) = args.days {
        let since = crate::clock::now() - chrono::Duration::days(d as i64);
        p.push(Box::new(crate::clock::to_rfc3339(since)));
        sql.push_str(&format!(" AND s.ended_at >= ?{}", p.len()));
    }
    p.push(Box::new(args.limit as i64));
    sql.push_str(&format!(
        " ORDER BY s.ended_at DESC NULLS LAST LIMIT ?{}",
        p.len()
    ));
    let refs: Vec<&dyn ToSql> = p.iter().map(|b| b.as_ref()).collect();
    let mut stmt = conn.prepare(&sql).map_err(db_err)?;
    let rows: Vec<Value> = stmt
        .query_map(refs.as_slice(), |r| {
            Ok(json!({
                "agent": r.get::<_, String>(0)?,
                "sessionId": r.get::<_, String>(1)?,
                "parentSessionId": r.get::<_, Option<String>>(2)?,
                "workspace": r.get::<_, Option<String>>(3)?,
                "gitBranch": r.get::<_, Option<String>>(4)?,
                "title": r.get::<_, Option<String>>(5)?,
                "startedAt": r.get::<_, Option<String>>(6)?,
                "endedAt": r.get::<_, Option<String>>(7)?,
                "messageCount": r.get::<_, i64>(8)?,
                "sourcePath": r.get::<_, Option<String>>(9)?,
            }))
        })
        .map_err(db_err)?
        .collect::<rusqlite::Result<_>>()
        .map_err(db_err)?;
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    let human_rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                s(&r["endedAt"]).chars().take(16).collect(),
                s(&r["agent"]),
                truncate(&s(&r["sessionId"]), 14),
                r["messageCount"].to_string(),
                truncate(&s(&r["workspace"]), 30),
                truncate(&s(&r["title"]), 50),
            ]
        })
        .collect();
    let human = if rows.is_empty() {
        let indexed: i64 = conn
            .query_row("SELECT count(*) FROM episodic_sessions", [], |r| r.get(0))
            .map_err(db_err)?;
        if indexed == 0 {
            "No sessions indexed (run `cm history index`).".to_string()
        } else if args.limit == 0 {
            format!("(--limit 0: none of the {indexed} indexed sessions shown)")
        } else {
            format!("No sessions match these filters; {indexed} session(s) are indexed.")
        }
    } else {
        table(
            &["ended", "agent", "session", "msgs", "workspace", "title"],
            &human_rows,
        )
    };
    let quiet = rows
        .iter()
        .map(|r| s(&r["sessionId"]))
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Report::new(json!({"count": rows.len(), "sessions": rows}))
        .human(human)
        .quiet(quiet))
}

pub fn show(args: &ShowArgs, ctx: &Ctx) -> Result<Report> {
    let conn = &ctx.store()?.conn;
    let (agent, session_id) = resolve_session(conn, &args.session)?;
    let session: Value = conn
        .query_row(
            "SELECT s.title, s.workspace, s.git_branch, s.started_at, s.ended_at, s.message_count,
                    s.parent_session_id, f.path
             FROM episodic_sessions s LEFT JOIN episodic_files f ON f.id = s.file_id
             WHERE s.agent = ?1 AND s.session_id = ?2",
            params![agent, session_id],
            |r| {
                Ok(json!({
                    "agent": agent, "sessionId": session_id,
                    "title": r.get::<_, Option<String>>(0)?,
                    "workspace": r.get::<_, Option<String>>(1)?,
                    "gitBranch": r.get::<_, Option<String>>(2)?,
                    "startedAt": r.get::<_, Option<String>>(3)?,
                    "endedAt": r.get::<_, Option<String>>(4)?,
                    "messageCount": r.get::<_, i64>(5)?,
                    "parentSessionId": r.get::<_, Option<String>>(6)?,
                    "sourcePath": r.get::<_, Option<String>>(7)?,
                }))
            },
        )
        .map_err(db_err)?;
    let (lo, hi) = match args.around {
        None => (0i64, i64::MAX),
        Some(line) => window(conn, &agent, &session_id, line, args.context)?,
    };
    let mut stmt = conn
        .prepare(
            "SELECT m.line_number, m.role, m.kind, m.created_at,
                    coalesce(m.text, m.tool_text, m.hidden_text, ''), m.tool_name, m.tool_args,
                    m.is_error, m.model, f.path
             FROM episodic_messages m JOIN episodic_files f ON f.id = m.file_id
             WHERE m.file_id = (SELECT file_id FROM episodic_sessions
                                WHERE agent = ?1 AND session_id = ?2)
               AND m.agent = ?1 AND m.session_id = ?2 AND m.line_number BETWEEN ?3 AND ?4
             ORDER BY m.line_number, m.id",
        )
        .map_err(db_err)?;
    let messages: Vec<Value> = stmt
        .query_map(params![agent, session_id, lo, hi], |r| {
            Ok(json!({
                "lineNumber": r.get::<_, i64>(0)?,
                "role": r.get::<_, String>(1)?,
                "kind": r.get::<_, String>(2)?,
                "createdAt": r.get::<_, Option<String>>(3)?,
                "text": r.get::<_, String>(4)?,
                "toolName": r.get::<_, Option<String>>(5)?,
                "toolArgs": r.get::<_, Option<String>>(6)?,
                "isError": r.get::<_, bool>(7)?,
                "model": r.get::<_, Option<String>>(8)?,
                "sourcePath": r.get::<_, String>(9)?,
            }))
        })
        .map_err(db_err)?
        .collect::<rusqlite::Result<_>>()
        .map_err(db_err)?;
    let mut human = format!(
        "{} {} {}\n{}\n\n",
        agent,
        session_id,
        session["workspace"].as_str().unwrap_or(""),
        session["title"].as_str().unwrap_or("")
    );
    for m in &messages {
        let marker = if args.around == m["lineNumber"].as_u64() {
            ">"
        } else {
            " "
        };
        let tool = m["toolName"]
            .as_str()
            .map(|t| format!(" [{t}]"))
            .unwrap_or_default();
        let body = match m["text"].as_str().unwrap_or("") {
            "" => m["toolArgs"].as_str().unwrap_or("").to_string(),
            t => t.to_string(),
        };
        human.push_str(&format!(
            "{marker}{:>6} {:<9}{}{} {}\n",
            m["lineNumber"],
            m["role"].as_str().unwrap_or(""),
            tool,
            if m["kind"] == "scaffolding" {
                " (scaffolding)"
            } else {
                ""
            },
            truncate(&body, 300)
        ));
    }
    Ok(Report::new(json!({"session": session, "messages": messages})).human(human))
}

/// The line range holding `context` messages either side of `line`.
fn window(
    conn: &rusqlite::Connection,
    agent: &str,
    session: &str,
    line: u64,
    context: u64,
) -> Result<(i64, i64)> {
    let edge = |sql: &str| -> Result<Option<i64>> {
        conn.query_row(
            sql,
            params![agent, session, line as i64, context as i64],
            |r| r.get(0),
        )
        .map_err(db_err)
    };
    let lo = edge(
        "SELECT min(line_number) FROM (SELECT line_number FROM episodic_messages
         WHERE file_id = (SELECT file_id FROM episodic_sessions WHERE agent = ?1 AND session_id = ?2)
           AND agent = ?1 AND session_id = ?2 AND line_number < ?3
         ORDER BY line_number DESC LIMIT ?4)",
    )?
    .unwrap_or(line as i64);
    let hi = edge(
        "SELECT max(line_number) FROM (SELECT line_number FROM episodic_messages
         WHERE file_id = (SELECT file_id FROM episodic_sessions WHERE agent = ?1 AND session_id = ?2)
           AND agent = ?1 AND session_id = ?2 AND line_number > ?3
         ORDER BY line_number LIMIT ?4)",
    )?
    .unwrap_or(line as i64);
    Ok((lo, hi))
}

/// A session id, a unique prefix of one, or a source file path -> (agent, session id).
fn resolve_session(conn: &rusqlite::Connection, key: &str) -> Result<(String, String)> {
    let by_path = std::fs::canonicalize(key)
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|| key.to_string());
    let from_file: Option<(String, String)> = conn
        .query_row(
            "SELECT s.agent, s.session_id FROM episodic_sessions s
             JOIN episodic_files f ON f.id = s.file_id WHERE f.path = ?1 LIMIT 1",
            [&by_path],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(db_err)?;
    if let Some(found) = from_file {
        return Ok(found);
    }
    let escaped = key
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    let mut stmt = conn
        .prepare(
            "SELECT agent, session_id FROM episodic_sessions
             WHERE session_id = ?1 OR session_id LIKE ?2 ESCAPE '\\' ORDER BY session_id = ?1 DESC LIMIT 5",
        )
        .map_err(db_err)?;
    let found: Vec<(String, String)> = stmt
        .query_map(params![key, format!("{escaped}%")], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .map_err(db_err)?
        .collect::<rusqlite::Result<_>>()
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

pub fn stats(ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let conn = &store.conn;
    let status = crate::episodic::search::status(conn);
    let mut stmt = conn
        .prepare(
            "SELECT agent, count(*), sum(messages), sum(skipped), sum(redactions), sum(capped),
                    sum(last_error IS NOT NULL), max(indexed_at)
             FROM episodic_files GROUP BY agent ORDER BY agent",
        )
        .map_err(db_err)?;
    let agents: Vec<Value> = stmt
        .query_map([], |r| {
            Ok(json!({
                "agent": r.get::<_, String>(0)?,
                "files": r.get::<_, i64>(1)?,
                "messages": r.get::<_, Option<i64>>(2)?.unwrap_or(0),
                "skippedRecords": r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                "redactions": r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                "cappedMessages": r.get::<_, Option<i64>>(5)?.unwrap_or(0),
                "filesWithErrors": r.get::<_, Option<i64>>(6)?.unwrap_or(0),
                "lastIndexedAt": r.get::<_, Option<String>>(7)?,
            }))
        })
        .map_err(db_err)?
        .collect::<rusqlite::Result<_>>()
        .map_err(db_err)?;
    let db_bytes = std::fs::metadata(&store.path).map(|m| m.len()).unwrap_or(0);
    let rows: Vec<Vec<String>> = agents
        .iter()
        .map(|a| {
            [
                "agent",
                "files",
                "messages",
                "skippedRecords",
                "redactions",
                "filesWithErrors",
            ]
            .iter()
            .map(|k| match &a[*k] {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            })
            .collect()
        })
        .collect();
    let human = format!(
        "{} messages in {} sessions from {} files; store {:.1} MB\n{}",
        status.messages,
        status.sessions,
        status.files,
        db_bytes as f64 / 1e6,
        if rows.is_empty() {
            "Nothing indexed yet (run `cm history index`).\n".to_string()
        } else {
            table(
                &[
                    "agent", "files", "messages", "skipped", "redacted", "errors",
                ],
                &rows,
            )
        }
    );
    let mut data = serde_json::to_value(&status).unwrap_or_default();
    data["agents"] = json!(agents);
    data["storeBytes"] = json!(db_bytes);
    Ok(Report::new(data).human(human))
}

pub fn sources(ctx: &Ctx) -> Result<Report> {
    let indexed: std::collections::HashMap<String, i64> = {
        let conn = &ctx.store()?.conn;
        let mut stmt = conn
            .prepare("SELECT agent, count(*) FROM episodic_files GROUP BY agent")
            .map_err(db_err)?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(db_err)?
            .collect::<rusqlite::Result<_>>()
            .map_err(db_err)?
    };
    let mut out = Vec::new();
    let mut human = String::new();
    for c in selected(None)? {
        let d = c.discover();
        let looked: Vec<Value> = d
            .looked_in
            .iter()
            .map(|p| json!({"path": p.display().to_string(), "exists": p.exists()}))
            .collect();
        human.push_str(&format!(
            "{}: {} files found, {} indexed\n",
            c.slug(),
            d.files.len(),
            indexed.get(c.slug()).copied().unwrap_or(0)
        ));
        for p in &d.looked_in {
            let mark = if p.exists() { "found" } else { "missing" };
            human.push_str(&format!("  looked in {} ({mark})\n", p.display()));
        }
        for (p, e) in &d.errors {
            human.push_str(&format!("  could not read {}: {e}\n", p.display()));
        }
        out.push(json!({
            "agent": c.slug(),
            "lookedIn": looked,
            "files": d.files.len(),
            "subagentFiles": d.files.iter().filter(|f| f.parent_session_id.is_some()).count(),
            "indexedFiles": indexed.get(c.slug()).copied().unwrap_or(0),
            "errors": d.errors.iter().map(|(p, e)| json!({"path": p.display().to_string(), "error": e})).collect::<Vec<_>>(),
        }));
    }
    let cass = which("cass");
    human.push_str(&match &cass {
        Some(p) => format!(
            "cass: installed at {} (not used as a source: cm reads the logs itself)\n",
            p.display()
        ),
        None => "cass: not installed (not needed)\n".to_string(),
    });
    Ok(Report::new(json!({
        "sources": out,
        "cass": {"path": cass.map(|p| p.display().to_string()), "used": false},
    }))
    .human(human))
}

fn which(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}
