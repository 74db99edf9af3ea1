//! What the session index holds: lets callers say "no index yet" instead of "nothing found".

use rusqlite::Connection;

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
