//! The undo history of rules (`bullet_revisions`): what `cm undo` restores and `cm why` lists.
//!
//! Each change records the rule as it was before. A whole copy per change made the history grow
//! with the square of a rule's use: every mark copied all the rule's earlier feedback events, so
//! 1,800 marks on one rule took 190 MB. So a change to a rule that stays in the store records
//! only what it changed, reversed: the old values of the fields that differ, the fields it added,
//! and how many feedback events the rule had when a change only appended some (a mark). Undo
//! applies that to the rule as it is now, newest change first, so each step lands on the state
//! its change left. A rule created or deleted records the whole rule (or nothing), as before.
//! A change that changed nothing (a session reflected again with `--force`, whose feedback is
//! already there) records nothing, and each rule keeps its newest [`MAX_PER_RULE`] changes:
//! `cm undo` reaches that far back.

use super::bullets::{get, parse_doc, sql};
use crate::bullet::Bullet;
use cm_base::error::{CmError, Result};
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Map, Value, json};

/// How many changes of one rule are kept for `cm undo`.
pub const MAX_PER_RULE: i64 = 100;

const INSERT_SQL: &str = "INSERT INTO bullet_revisions (bullet_id, action, at, before_doc, created) VALUES (?1, ?2, ?3, ?4, ?5)";
/// The newest change of a rule, through the (bullet, seq) index named outright.
pub const NEWEST_SQL: &str = "SELECT seq, action, at, before_doc, created FROM bullet_revisions \
     INDEXED BY bullet_revisions_bullet WHERE bullet_id = ?1 ORDER BY seq DESC LIMIT 1";
/// Drop a rule's changes older than its newest `?2`.
pub const PRUNE_SQL: &str = "DELETE FROM bullet_revisions INDEXED BY bullet_revisions_bullet \
     WHERE bullet_id = ?1 AND seq <= (SELECT seq FROM bullet_revisions INDEXED BY bullet_revisions_bullet \
     WHERE bullet_id = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)";

/// A change that `cm undo` can revert.
#[derive(Debug)]
pub struct Revision {
    pub seq: i64,
    pub action: String,
    pub at: String,
    pub before: Option<Bullet>,
    pub created: Vec<String>,
}

/// Remember `before` whole (the bullet as it was, `None` if the change created it) under
/// `action`: for changes that create or delete a rule, or move it out of the store.
pub fn record_revision(
    conn: &Connection,
    bullet_id: &str,
    action: &str,
    before: Option<&Bullet>,
    created: &[String],
) -> Result<()> {
    let doc = match before {
        Some(b) => Some(serde_json::to_string(b).map_err(|e| CmError::internal(e.to_string()))?),
        None => None,
    };
    insert(conn, bullet_id, action, doc, created)
}

/// Remember a change of a rule that stays in the store, as the reverse of what it changed.
/// Nothing is recorded when `after` is `before` and nothing was created.
pub fn record_change(
    conn: &Connection,
    action: &str,
    before: &Bullet,
    after: &Bullet,
    created: &[String],
) -> Result<()> {
    if before == after && created.is_empty() {
        return Ok(());
    }
    let doc = reverse_delta(before, after)?.to_string();
    insert(conn, &after.id, action, Some(doc), created)
}

fn insert(
    conn: &Connection,
    bullet_id: &str,
    action: &str,
    doc: Option<String>,
    created: &[String],
) -> Result<()> {
    let created = serde_json::to_string(created).unwrap_or_else(|_| "[]".into());
    let now = cm_base::clock::now_rfc3339();
    conn.prepare_cached(INSERT_SQL)
        .and_then(|mut s| s.execute(params![bullet_id, action, now, doc, created]))
        .map_err(sql)?;
    conn.prepare_cached(PRUNE_SQL)
        .and_then(|mut s| s.execute(params![bullet_id, MAX_PER_RULE]))
        .map_err(sql)?;
    Ok(())
}

fn to_object(b: &Bullet) -> Result<Map<String, Value>> {
    match serde_json::to_value(b) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(CmError::internal("a rule did not serialize to an object")),
        Err(e) => Err(CmError::internal(e.to_string())),
    }
}

/// What turns `after` back into `before`: `{"revert": {field: old value}, "absent": [fields
/// `before` did not have], "eventsKept": n}` (`eventsKept` when the change only appended
/// feedback events; otherwise the old events are in `revert`).
fn reverse_delta(before: &Bullet, after: &Bullet) -> Result<Value> {
    let old = to_object(before)?;
    let new = to_object(after)?;
    let appended = after.feedback_events.starts_with(&before.feedback_events);
    let revert: Map<String, Value> = old
        .iter()
        .filter(|(k, _)| !(appended && k.as_str() == "feedbackEvents"))
        .filter(|(k, v)| new.get(k.as_str()) != Some(v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let absent: Vec<&String> = new.keys().filter(|k| !old.contains_key(*k)).collect();
    let kept = appended.then_some(before.feedback_events.len());
    Ok(json!({"revert": revert, "absent": absent, "eventsKept": kept}))
}

/// `now` with the reverse delta `delta` applied.
fn apply(now: &Bullet, delta: &Value) -> Result<Bullet> {
    let mut doc = to_object(now)?;
    if let Some(revert) = delta["revert"].as_object() {
        for (k, v) in revert {
            doc.insert(k.clone(), v.clone());
        }
    }
    for k in delta["absent"].as_array().into_iter().flatten() {
        if let Some(k) = k.as_str() {
            doc.remove(k);
        }
    }
    if let (Some(n), Some(Value::Array(events))) =
        (delta["eventsKept"].as_u64(), doc.get_mut("feedbackEvents"))
    {
        events.truncate(n as usize);
    }
    serde_json::from_value(Value::Object(doc)).map_err(|e| {
        cm_store::corrupt_row(
            &cm_base::paths::db_path(),
            &format!("a recorded change of {} does not apply: {e}", now.id),
        )
    })
}

/// The newest revision of `bullet_id`, removed from the history, with the rule as it was
/// before that change.
pub fn pop_revision(conn: &Connection, bullet_id: &str) -> Result<Option<Revision>> {
    let row = conn
        .prepare_cached(NEWEST_SQL)
        .and_then(|mut s| {
            s.query_row([bullet_id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, String>(4)?,
                ))
            })
            .optional()
        })
        .map_err(sql)?;
    let Some((seq, action, at, before, created)) = row else {
        return Ok(None);
    };
    conn.execute("DELETE FROM bullet_revisions WHERE seq = ?1", [seq])
        .map_err(sql)?;
    let before = match before {
        Some(doc) => Some(restore(conn, bullet_id, &doc)?),
        None => None,
    };
    Ok(Some(Revision {
        seq,
        action,
        at,
        before,
        created: serde_json::from_str(&created).unwrap_or_default(),
    }))
}

/// The rule as a recorded `doc` says it was: a whole rule, or a reverse delta on the rule now.
fn restore(conn: &Connection, bullet_id: &str, doc: &str) -> Result<Bullet> {
    if !doc.starts_with("{\"revert\"") {
        return parse_doc(bullet_id, doc);
    }
    let delta: Value = serde_json::from_str(doc).map_err(|e| {
        cm_store::corrupt_row(
            &cm_base::paths::db_path(),
            &format!("a recorded change of {bullet_id} is unreadable: {e}"),
        )
    })?;
    let now = get(conn, bullet_id)?.ok_or_else(|| {
        CmError::usage(
            "NOTHING_TO_UNDO",
            format!(
                "{bullet_id} was removed outside cm's history, so its changes cannot be undone"
            ),
        )
        .hint("`cm why ID` shows a rule's history")
    })?;
    apply(&now, &delta)
}

/// The revision history of a bullet, oldest first, as (action, at).
pub fn revisions(conn: &Connection, bullet_id: &str) -> Result<Vec<(String, String)>> {
    let mut stmt = conn
        .prepare_cached("SELECT action, at FROM bullet_revisions WHERE bullet_id = ?1 ORDER BY seq")
        .map_err(sql)?;
    let rows = stmt
        .query_map([bullet_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(sql)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bullet::{FeedbackEvent, FeedbackType};

    fn event(n: usize) -> FeedbackEvent {
        FeedbackEvent {
            id: format!("fb-{n}"),
            kind: FeedbackType::Helpful,
            timestamp: "2026-12-01T00:00:00Z".into(),
            source: Default::default(),
            session_path: None,
            reason: None,
            weight: None,
        }
    }

    #[test]
    fn a_reverse_delta_restores_the_rule_exactly_and_stays_small() {
        let mut before = Bullet {
            id: "b-1".into(),
            content: "Run the linter".into(),
            feedback_events: (0..500).map(event).collect(),
            helpful_count: 500,
            ..Bullet::default()
        };
        before.reasoning = None;
        let mut after = before.clone();
        after.feedback_events.push(event(500));
        after.helpful_count = 501;
        after.reasoning = Some("proven".into());
        after.deprecated = true;
        let delta = reverse_delta(&before, &after).unwrap();
        assert!(delta.to_string().len() < 200, "{delta}");
        assert_eq!(apply(&after, &delta).unwrap(), before);
        // Events rewritten, not appended: the old ones are kept whole.
        let mut rewritten = before.clone();
        rewritten.feedback_events.remove(3);
        let delta = reverse_delta(&before, &rewritten).unwrap();
        assert_eq!(apply(&rewritten, &delta).unwrap(), before);
    }
}
