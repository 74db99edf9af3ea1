//! Writing one parsed file into the store: its messages, their full-text entries, its sessions
//! and its new resume point, all inside the caller's transaction, so a crash leaves either
//! everything of the file or nothing.

use super::files::{FileRow, Stat};
use super::prepare::{Column, Prepared};
use crate::connectors::{SourceFile, SourceKind};
use rusqlite::{OptionalExtension, Transaction, params};
use std::collections::BTreeMap;

/// Everything the writer needs for one file.
pub struct FileBatch {
    pub source: SourceFile,
    pub stat: Stat,
    /// The row the plan was made from (`None`: the file was new), to detect a concurrent writer.
    pub basis: Option<FileRow>,
    /// For the second and later chunks of one file: where the previous chunk left the row
    /// (offset, next line, inode).
    pub after: Option<(u64, u64, u64)>,
    /// 0 for a file's first chunk.
    pub chunk: u32,
    /// Start over: delete what the file produced before.
    pub reset: bool,
    /// Why the file is re-read from the start, when it is.
    pub reread: Option<super::files::RereadWhy>,
    pub prepared: Prepared,
    pub next: crate::connectors::ResumePoint,
    pub head: (i64, u64),
    pub skipped: Vec<crate::connectors::Skipped>,
    pub bytes_read: u64,
}

/// What writing one file did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Written {
    pub messages: u64,
    /// Another indexer wrote this file since we planned: nothing was written.
    pub raced: bool,
}

pub fn write_file(tx: &Transaction, batch: &FileBatch, now: &str) -> rusqlite::Result<Written> {
    let path = batch.source.path.to_string_lossy();
    let current: Option<(i64, i64, i64, Option<i64>)> = tx
        .query_row(
            "SELECT id, offset, next_line, ino FROM episodic_files WHERE path = ?1",
            [path.as_ref()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    let still_basis = match (&current, &batch.basis, batch.after) {
        (Some((_, off, line, ino)), _, Some((o, l, i))) => {
            *off as u64 == o && *line as u64 == l && ino.unwrap_or(0) as u64 == i
        }
        (None, None, None) => true,
        (Some((id, off, line, ino)), Some(b), None) => {
            *id == b.id
                && *off as u64 == b.offset
                && *line as u64 == b.next_line
                && ino.unwrap_or(0) as u64 == b.stat.ino
        }
        _ => false,
    };
    if !still_basis {
        return Ok(Written {
            messages: 0,
            raced: true,
        });
    }
    let file_id = match current {
        Some((id, ..)) => id,
        None => {
            tx.prepare_cached(
                "INSERT INTO episodic_files(path, agent, kind, parent_session_id) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                path.as_ref(),
                batch.source.agent,
                kind_str(batch.source.kind),
                batch.source.parent_session_id
            ])?;
            tx.last_insert_rowid()
        }
    };
    if batch.reset {
        delete_file_rows(tx, file_id)?;
    }
    let messages = insert_messages(tx, file_id, &batch.prepared)?;
    upsert_sessions(tx, file_id, &batch.prepared)?;
    update_file(tx, file_id, batch, now)?;
    Ok(Written {
        messages,
        raced: false,
    })
}

fn kind_str(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::Lines => "lines",
        SourceKind::Document => "document",
    }
}

/// Remove a file's messages (and their full-text entries) and the sessions it defined.
pub fn delete_file_rows(tx: &Transaction, file_id: i64) -> rusqlite::Result<()> {
    // External-content FTS: a delete must repeat the indexed values.
    tx.prepare_cached(
        "INSERT INTO episodic_fts(episodic_fts, rowid, text, tool_text)
         SELECT 'delete', id, text, tool_text
         FROM episodic_messages WHERE file_id = ?1 AND hidden_text IS NULL",
    )?
    .execute([file_id])?;
    tx.prepare_cached("DELETE FROM episodic_messages WHERE file_id = ?1")?
        .execute([file_id])?;
    tx.prepare_cached("DELETE FROM episodic_sessions WHERE file_id = ?1")?
        .execute([file_id])?;
    tx.prepare_cached(
        "UPDATE episodic_files SET messages = 0, skipped = 0, skip_reasons = NULL,
         redactions = 0, capped = 0 WHERE id = ?1",
    )?
    .execute([file_id])?;
    Ok(())
}

fn insert_messages(tx: &Transaction, file_id: i64, p: &Prepared) -> rusqlite::Result<u64> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO episodic_messages(file_id, agent, session_id, parent_session_id, line_number,
           workspace, git_branch, role, kind, created_at, ts, model, text, tool_text, hidden_text,
           tool_name, tool_args, is_error, capped_bytes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
    )?;
    let mut fts =
        tx.prepare_cached("INSERT INTO episodic_fts(rowid, text, tool_text) VALUES (?1, ?2, ?3)")?;
    for row in &p.rows {
        let m = &row.msg;
        let body = Some(m.text.as_str());
        let (text, tool_text, hidden) = match row.column {
            Column::Text => (body, None, None),
            Column::Tool => (None, body, None),
            Column::Hidden => (None, None, body),
        };
        insert.execute(params![
            file_id,
            m.agent,
            m.session_id,
            m.parent_session_id,
            m.line_number as i64,
            m.workspace,
            m.git_branch,
            m.role.as_str(),
            kind_name(m.kind),
            m.timestamp,
            row.ts,
            m.model,
            text,
            tool_text,
            hidden,
            m.tool_name,
            m.tool_args,
            m.is_error,
            row.capped_bytes as i64,
        ])?;
        if row.column != Column::Hidden {
            let id = tx.last_insert_rowid();
            fts.execute(params![id, text, tool_text])?;
        }
    }
    Ok(p.rows.len() as u64)
}

pub fn kind_name(kind: crate::model::MessageKind) -> &'static str {
    use crate::model::MessageKind::*;
    match kind {
        Text => "text",
        Thinking => "thinking",
        ToolCall => "tool_call",
        ToolResult => "tool_result",
        Scaffolding => "scaffolding",
    }
}

fn upsert_sessions(tx: &Transaction, file_id: i64, p: &Prepared) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO episodic_sessions(agent, session_id, parent_session_id, file_id, workspace,
           git_branch, title, model, started_at, ended_at, message_count)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, coalesce(?7, ?8), ?9, ?10, ?11, ?12)
         ON CONFLICT(agent, session_id) DO UPDATE SET
           parent_session_id = coalesce(excluded.parent_session_id, parent_session_id),
           workspace = coalesce(excluded.workspace, workspace),
           git_branch = coalesce(excluded.git_branch, git_branch),
           title = coalesce(?7, title, ?8),
           model = coalesce(excluded.model, model),
           started_at = CASE WHEN started_at IS NULL OR excluded.started_at < started_at
                             THEN coalesce(excluded.started_at, started_at) ELSE started_at END,
           ended_at = CASE WHEN ended_at IS NULL OR excluded.ended_at > ended_at
                           THEN coalesce(excluded.ended_at, ended_at) ELSE ended_at END,
           message_count = message_count + excluded.message_count",
    )?;
    for s in &p.sessions {
        let i = &s.info;
        stmt.execute(params![
            i.agent,
            i.session_id,
            i.parent_session_id,
            file_id,
            i.workspace,
            i.git_branch,
            i.title,
            s.fallback_title,
            i.model,
            i.started_at,
            i.ended_at,
            s.message_count as i64,
        ])?;
    }
    Ok(())
}

fn update_file(tx: &Transaction, file_id: i64, b: &FileBatch, now: &str) -> rusqlite::Result<()> {
    // Merge this run's skip reasons into the file's lifetime counts.
    let old: Option<String> = tx
        .prepare_cached("SELECT skip_reasons FROM episodic_files WHERE id = ?1")?
        .query_row([file_id], |r| r.get(0))?;
    let mut reasons: BTreeMap<String, u64> = old
        .as_deref()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_default();
    for s in &b.skipped {
        *reasons.entry(s.reason.clone()).or_default() += 1;
    }
    let reasons_json =
        (!reasons.is_empty()).then(|| serde_json::to_string(&reasons).unwrap_or_default());
    // A connector's resume state repeats session facts (workspace, branch): stored redacted,
    // like the rows they end up in.
    let state = b.next.state.as_ref().map(|v| {
        let mut v = v.clone();
        cm_base::redact::redact_json(&mut v);
        v.to_string()
    });
    tx.prepare_cached(
        "UPDATE episodic_files SET agent = ?2, kind = ?3, parent_session_id = ?4, dev = ?5, ino = ?6,
           size = ?7, mtime_ns = ?8, head_hash = ?9, head_len = ?10, offset = ?11, next_line = ?12,
           state = ?13, messages = messages + ?14, skipped = skipped + ?15, skip_reasons = ?16,
           redactions = redactions + ?17, capped = capped + ?18, last_error = NULL, indexed_at = ?19
         WHERE id = ?1",
    )?
    .execute(params![
        file_id,
        b.source.agent,
        kind_str(b.source.kind),
        b.source.parent_session_id,
        b.stat.dev as i64,
        b.stat.ino as i64,
        b.stat.size as i64,
        b.stat.mtime_ns,
        b.head.0,
        b.head.1 as i64,
        b.next.offset as i64,
        b.next.line as i64,
        state,
        b.prepared.rows.len() as i64,
        b.skipped.len() as i64,
        reasons_json,
        b.prepared.redactions as i64,
        b.prepared.capped as i64,
        now,
    ])?;
    Ok(())
}

/// Remember that a file could not be read (it stays indexed as far as it was).
pub fn record_error(
    tx: &Transaction,
    source: &SourceFile,
    error: &str,
    now: &str,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO episodic_files(path, agent, kind, parent_session_id, last_error, indexed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT(path) DO UPDATE SET last_error = excluded.last_error, indexed_at = excluded.indexed_at",
    )?
    .execute(params![
        source.path.to_string_lossy(),
        source.agent,
        kind_str(source.kind),
        source.parent_session_id,
        error,
        now
    ])?;
    Ok(())
}
