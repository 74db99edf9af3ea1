//! The messages that may cite a rule: what recall reinforcement reads from the session index.
//! A rule id `b-8f3a...` is tokenized as `b`, `8f3a...`, so the full-text index finds every
//! message holding the token `b` among those indexed since a watermark, and the scan never
//! reads a message that cannot cite a rule.

use cm_base::error::Result;
use rusqlite::{Connection, OptionalExtension, params};

use cm_store::sql_error as sql;

/// The newest message's rowid (a primary-key maximum: one seek).
pub const NEWEST_MESSAGE_SQL: &str = "SELECT coalesce(max(id), 0) FROM episodic_messages";
/// Messages with rowids in `(?1, ?2]` whose conversation text holds the token `b`. The FTS
/// table drives: a rowid range over the message table would be planned from statistics, and
/// with statistics taken at one message SQLite scans the whole table.
pub const CITING_MESSAGES_SQL: &str = "SELECT rowid FROM episodic_fts
     WHERE episodic_fts MATCH 'text : \"b\"' AND rowid > ?1 AND rowid <= ?2";
/// One message's author and text, by rowid.
pub const MESSAGE_SQL: &str =
    "SELECT role, agent, session_id, text, created_at FROM episodic_messages WHERE id = ?1";

/// The newest message's rowid, 0 when none is indexed.
pub fn newest_message(conn: &Connection) -> Result<i64> {
    conn.prepare_cached(NEWEST_MESSAGE_SQL)
        .and_then(|mut s| s.query_row([], |r| r.get(0)))
        .map_err(sql)
}

/// An assistant message that may cite rules.
#[derive(Debug, Clone, PartialEq)]
pub struct Said {
    pub agent: String,
    pub session_id: String,
    pub text: String,
    pub created_at: Option<String>,
}

/// The assistant messages with rowids in `(after, upto]` that may cite a rule, oldest first.
pub fn assistant_messages_citing(conn: &Connection, after: i64, upto: i64) -> Result<Vec<Said>> {
    if upto <= after {
        return Ok(Vec::new());
    }
    let ids: Vec<i64> = conn
        .prepare(CITING_MESSAGES_SQL)
        .and_then(|mut s| s.query_map(params![after, upto], |r| r.get(0))?.collect())
        .map_err(sql)?;
    let mut message = conn.prepare(MESSAGE_SQL).map_err(sql)?;
    let mut out = Vec::new();
    for id in ids {
        let row = message
            .query_row([id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                ))
            })
            .optional()
            .map_err(sql)?;
        if let Some((role, agent, session_id, Some(text), created_at)) = row
            && role == "assistant"
        {
            out.push(Said {
                agent,
                session_id,
                text,
                created_at,
            });
        }
    }
    Ok(out)
}
