//! Recorded session outcomes, waiting for `cm outcome-apply`.

use crate::bullet::FeedbackType;
use crate::implicit::Sentiment;
use cm_base::error::Result;
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};

use cm_store::sql_error as sql;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub id: String,
    pub timestamp: String,
    pub status: String,
    pub rules_used: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_path: Option<String>,
    pub applied: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_at: Option<String>,
    /// The implicit signals it was recorded with and their verdict; `None` for a plain outcome
    /// (success helpful, failure harmful, mixed nothing, each weighing 1.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signals: Option<Signals>,
}

/// An outcome's implicit signals as recorded, with the feedback they call for
/// ([`crate::implicit::score`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Signals {
    #[serde(rename = "type")]
    pub kind: FeedbackType,
    pub weight: f64,
    pub reasons: Vec<String>,
    pub sentiment: Sentiment,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_secs: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u64>,
}

pub fn insert(conn: &Connection, o: &Outcome) -> Result<()> {
    conn.execute(
        "INSERT INTO outcomes (id, timestamp, status, rules_used, summary, session_path, applied, applied_at, signals)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            o.id,
            o.timestamp,
            o.status,
            serde_json::to_string(&o.rules_used).unwrap_or_else(|_| "[]".into()),
            o.summary,
            o.session_path,
            o.applied,
            o.applied_at,
            o.signals
                .as_ref()
                .and_then(|s| serde_json::to_string(s).ok())
        ],
    )
    .map_err(sql)?;
    Ok(())
}

pub fn pending(conn: &Connection) -> Result<Vec<Outcome>> {
    let mut stmt = conn
        .prepare(
            "SELECT id, timestamp, status, rules_used, summary, session_path, applied, applied_at, signals
             FROM outcomes WHERE applied = 0 ORDER BY seq",
        )
        .map_err(sql)?;
    let rows = stmt
        .query_map([], |r| {
            let rules: String = r.get(3)?;
            let signals: Option<String> = r.get(8)?;
            Ok(Outcome {
                id: r.get(0)?,
                timestamp: r.get(1)?,
                status: r.get(2)?,
                rules_used: serde_json::from_str(&rules).unwrap_or_default(),
                summary: r.get(4)?,
                session_path: r.get(5)?,
                applied: r.get(6)?,
                applied_at: r.get(7)?,
                signals: signals.and_then(|s| serde_json::from_str(&s).ok()),
            })
        })
        .map_err(sql)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql)
}

/// Mark outcome `id` applied if it is still pending. Returns whether this call claimed it:
/// inside a write transaction, exactly one of any number of concurrent appliers gets `true`.
pub fn claim(conn: &Connection, id: &str, at: &str) -> Result<bool> {
    let n = conn
        .execute(
            "UPDATE outcomes SET applied = 1, applied_at = ?2 WHERE id = ?1 AND applied = 0",
            params![id, at],
        )
        .map_err(sql)?;
    Ok(n == 1)
}

/// Delete every outcome not yet applied; returns how many.
pub fn clear_pending(conn: &Connection) -> Result<usize> {
    conn.execute("DELETE FROM outcomes WHERE applied = 0", [])
        .map_err(sql)
}
