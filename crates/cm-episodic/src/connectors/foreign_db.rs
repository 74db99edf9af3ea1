//! Opening another program's SQLite database (OpenCode, Cursor) strictly read-only.
//!
//! cm's own database is opened by `store` alone; these are the agents' files, which we must
//! never write, lock for long, or migrate. A read-only URI open with a short busy timeout reads a
//! database its owner is writing (WAL or rollback journal) without disturbing it.

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, Row};
use std::path::Path;

pub fn open_readonly(path: &Path) -> std::io::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(to_io)?;
    conn.busy_timeout(std::time::Duration::from_millis(500))
        .map_err(to_io)?;
    Ok(conn)
}

/// The column names of `table` (empty when it does not exist).
pub fn columns(conn: &Connection, table: &str) -> Vec<String> {
    let Ok(mut stmt) = conn.prepare(&format!("PRAGMA table_info(\"{table}\")")) else {
        return Vec::new();
    };
    stmt.query_map([], |r| r.get::<_, String>(1))
        .map(|rows| rows.flatten().collect())
        .unwrap_or_default()
}

/// The first of `candidates` that `cols` holds, else `fallback`.
pub fn pick<'a>(cols: &[String], candidates: &[&'a str], fallback: &'a str) -> &'a str {
    candidates
        .iter()
        .find(|c| cols.iter().any(|col| col == *c))
        .copied()
        .unwrap_or(fallback)
}

pub fn to_io(e: rusqlite::Error) -> std::io::Error {
    std::io::Error::other(format!("sqlite: {e}"))
}

/// A text or blob column as a string (agents store JSON in either).
pub fn text(row: &Row, i: usize) -> Option<String> {
    match row.get_ref(i).ok()? {
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Integer(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An integer (or real) column.
pub fn int(row: &Row, i: usize) -> Option<i64> {
    match row.get_ref(i).ok()? {
        ValueRef::Integer(n) => Some(n),
        ValueRef::Real(f) => Some(f as i64),
        _ => None,
    }
}
