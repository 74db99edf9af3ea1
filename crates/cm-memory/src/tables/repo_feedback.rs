//! `repo_rule_feedback`: this user's feedback on a repository's rules (marks, outcomes, inline
//! feedback), kept in the personal store and never written into the repository's file, whose
//! own trust fields are ignored (see `memory::repo_file::untrusted`). One row per (file, rule),
//! its events as JSON: the context hooks read a repository's rows with one primary-key range
//! scan.

use crate::bullet::FeedbackEvent;
use cm_base::error::{CmError, Result};
use rusqlite::{Connection, params};
use std::collections::HashMap;

/// Every rule's events for one repository file.
pub const FOR_REPO_SQL: &str = "SELECT rule_id, events FROM repo_rule_feedback WHERE repo = ?1";

use cm_store::sql_error as sql;

/// The events recorded for the rules of `repo` (the playbook file's path), by rule id. A store
/// older than the table (a hook opens it read-only and never migrates) has none.
pub fn for_repo(conn: &Connection, repo: &str) -> Result<HashMap<String, Vec<FeedbackEvent>>> {
    let mut stmt = match conn.prepare_cached(FOR_REPO_SQL) {
        Ok(s) => s,
        Err(e) if e.to_string().contains("no such table") => return Ok(HashMap::new()),
        Err(e) => return Err(sql(e)),
    };
    let rows = stmt
        .query_map([repo], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })
        .map_err(sql)?;
    let mut out = HashMap::new();
    for row in rows {
        let (id, events) = row.map_err(sql)?;
        // A row this version cannot read counts as no feedback, never as an error on a hook.
        if let Ok(events) = serde_json::from_str::<Vec<FeedbackEvent>>(&events) {
            out.insert(id, events);
        }
    }
    Ok(out)
}

/// Record `events` as the whole feedback on `rule_id` of `repo` (none: the row goes).
pub fn save(conn: &Connection, repo: &str, rule_id: &str, events: &[FeedbackEvent]) -> Result<()> {
    if events.is_empty() {
        conn.execute(
            "DELETE FROM repo_rule_feedback WHERE repo = ?1 AND rule_id = ?2",
            params![repo, rule_id],
        )
        .map_err(sql)?;
        return Ok(());
    }
    let json = serde_json::to_string(events)
        .map_err(|e| CmError::internal(format!("serialize feedback of {rule_id}: {e}")))?;
    conn.execute(
        "INSERT INTO repo_rule_feedback (repo, rule_id, events) VALUES (?1, ?2, ?3)
         ON CONFLICT (repo, rule_id) DO UPDATE SET events = excluded.events",
        params![repo, rule_id, json],
    )
    .map_err(sql)?;
    Ok(())
}
