//! How many sessions a term occurs in: what tells a word every session uses from one that
//! names a situation (the validator's evidence, `cm::reflect::distinctive`). Counted from
//! the term's newest matches in the full-text table, each message's session looked up by rowid
//! (no join, so no plan depends on statistics), stopping once `enough` sessions are seen or
//! [`MAX_MATCHES`] matches are read.

use super::statements::{MESSAGE_SESSION_SQL, NEWEST_MATCHES_SQL, quote};
use rusqlite::Connection;
use std::collections::HashSet;

/// Matches read per term, at most: a few milliseconds on the largest histories.
pub const MAX_MATCHES: i64 = 20_000;

/// Distinct sessions (agent, session id) holding every token of `term`, counted up to `enough`.
pub fn sessions_with(conn: &Connection, term: &str, enough: u64) -> rusqlite::Result<u64> {
    let mut matches = conn.prepare_cached(NEWEST_MATCHES_SQL)?;
    let mut session_of = conn.prepare_cached(MESSAGE_SESSION_SQL)?;
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut rows = matches.query(rusqlite::params![quote(term), MAX_MATCHES])?;
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let key: (String, String) = session_of.query_row([id], |m| Ok((m.get(0)?, m.get(1)?)))?;
        seen.insert(key);
        if seen.len() as u64 >= enough {
            break;
        }
    }
    Ok(seen.len() as u64)
}
