//! Bullet rows, their feedback events and their undo history.
//!
//! `feedback_events` is the record of every event (append-only except for undo). Each bullet's
//! `doc` also carries a copy of its events, written in the same transaction, so reading the
//! whole playbook is one scan of `bullets` with one JSON parse per rule. [`load_all`] checks the
//! copies against the table's row count and falls back to the table if they ever disagree (a
//! store written before the copies existed, or a change made outside cm).

use crate::bullet::{Bullet, FeedbackEvent, FeedbackSource, FeedbackType};
use cm_base::error::{CmError, Result};
use rusqlite::{Connection, OptionalExtension, params};

pub(super) use cm_store::sql_error as sql;

fn doc_of(b: &Bullet) -> Result<String> {
    serde_json::to_string(b)
        .map_err(|e| CmError::internal(format!("serialize bullet {}: {e}", b.id)))
}

pub(super) fn parse_doc(id: &str, doc: &str) -> Result<Bullet> {
    serde_json::from_str(doc).map_err(|e| {
        cm_store::corrupt_row(
            &cm_base::paths::db_path(),
            &format!("rule {id} is unreadable: {e}"),
        )
    })
}

fn type_str(t: FeedbackType) -> &'static str {
    crate::bullet::feedback_type_name(t)
}

fn source_str(s: FeedbackSource) -> &'static str {
    crate::bullet::feedback_source_name(s)
}

fn parse_type(kind: &str) -> FeedbackType {
    if kind == "harmful" {
        FeedbackType::Harmful
    } else {
        FeedbackType::Helpful
    }
}

fn parse_source(source: &str) -> FeedbackSource {
    match source {
        "inline" => FeedbackSource::Inline,
        "outcome" => FeedbackSource::Outcome,
        "audit" => FeedbackSource::Audit,
        _ => FeedbackSource::Manual,
    }
}

fn parse_event(row: &rusqlite::Row) -> rusqlite::Result<(String, FeedbackEvent)> {
    let kind: String = row.get(2)?;
    let source: String = row.get(4)?;
    Ok((
        row.get(0)?,
        FeedbackEvent {
            id: row.get(1)?,
            kind: parse_type(&kind),
            timestamp: row.get(3)?,
            source: parse_source(&source),
            session_path: row.get(5)?,
            reason: row.get(6)?,
            weight: crate::bullet::event_weight(row.get(7)?),
        },
    ))
}

const EVENT_COLS: &str = "bullet_id, id, type, timestamp, source, session_path, reason, weight";

/// Every bullet with its feedback events, in creation order.
///
/// One scan of `bullets`, without ORDER BY (sorting thousands of documents in SQLite spills them
/// to a temporary file); each document is parsed once, straight from SQLite's buffer, and the
/// creation-order sort happens here on the keys.
pub fn load_all(conn: &Connection) -> Result<Vec<Bullet>> {
    let mut stmt = conn
        .prepare_cached("SELECT id, created_at, doc FROM bullets")
        .map_err(sql)?;
    let mut rows = stmt.query([]).map_err(sql)?;
    let mut keys: Vec<String> = Vec::new();
    let mut bullets: Vec<Bullet> = Vec::new();
    let mut embedded_events = 0i64;
    while let Some(row) = rows.next().map_err(sql)? {
        let id = row.get_ref(0).and_then(|v| Ok(v.as_str()?)).map_err(sql)?;
        let doc = row.get_ref(2).and_then(|v| Ok(v.as_str()?)).map_err(sql)?;
        let b = parse_doc(id, doc)?;
        embedded_events += b.feedback_events.len() as i64;
        keys.push(row.get(1).map_err(sql)?);
        bullets.push(b);
    }
    if event_count(conn)? != embedded_events {
        attach_events_from_table(conn, &mut bullets)?;
    }
    Ok(in_creation_order(keys, bullets))
}

/// A stored bullet as its JSON document (events included), with the columns lists filter on.
pub struct RawBullet {
    pub category: String,
    pub doc: String,
}

/// Every bullet as its stored document, in creation order, without parsing any of them. The
/// caller decides whether the documents' event copies can be trusted (see [`event_count`]).
pub fn load_all_raw(conn: &Connection) -> Result<Vec<RawBullet>> {
    let mut stmt = conn
        .prepare_cached("SELECT created_at, category, doc FROM bullets")
        .map_err(sql)?;
    let mut rows = stmt.query([]).map_err(sql)?;
    let (mut keys, mut out) = (Vec::new(), Vec::new());
    while let Some(row) = rows.next().map_err(sql)? {
        keys.push(row.get::<_, String>(0).map_err(sql)?);
        out.push(RawBullet {
            category: row.get(1).map_err(sql)?,
            doc: row.get(2).map_err(sql)?,
        });
    }
    Ok(in_creation_order(keys, out))
}

/// How many feedback events the store holds.
/// The newest feedback event's sequence number (a primary-key maximum: one seek).
pub const NEWEST_EVENT_SQL: &str = "SELECT coalesce(max(seq), 0) FROM feedback_events";

/// The newest feedback event's sequence number, 0 when there is none.
pub fn newest_event_seq(conn: &Connection) -> Result<i64> {
    conn.prepare_cached(NEWEST_EVENT_SQL)
        .and_then(|mut s| s.query_row([], |r| r.get(0)))
        .map_err(sql)
}

/// Every helpful feedback event as (rule id, event id, timestamp).
pub fn helpful_events(conn: &Connection) -> Result<Vec<(String, String, String)>> {
    let mut s = conn
        .prepare("SELECT bullet_id, id, timestamp FROM feedback_events WHERE type = 'helpful'")
        .map_err(sql)?;
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .map_err(sql)?
        .collect::<rusqlite::Result<_>>()
        .map_err(sql)
}

/// How many live (not deprecated) rules each category holds.
pub fn live_per_category(conn: &Connection) -> Result<Vec<(String, usize)>> {
    let mut s = conn
        .prepare_cached(
            "SELECT category, count(*) FROM bullets
             WHERE deprecated = 0 AND maturity != 'deprecated' GROUP BY category",
        )
        .map_err(sql)?;
    s.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as usize))
    })
    .map_err(sql)?
    .collect::<rusqlite::Result<_>>()
    .map_err(sql)
}

/// The id of every stored rule.
pub fn all_ids(conn: &Connection) -> Result<std::collections::HashSet<String>> {
    let mut s = conn.prepare("SELECT id FROM bullets").map_err(sql)?;
    s.query_map([], |r| r.get(0))
        .map_err(sql)?
        .collect::<rusqlite::Result<_>>()
        .map_err(sql)
}

pub fn event_count(conn: &Connection) -> Result<i64> {
    conn.query_row("SELECT count(*) FROM feedback_events", [], |r| r.get(0))
        .map_err(sql)
}

/// Replace each bullet's events with those in `feedback_events`.
fn attach_events_from_table(conn: &Connection, bullets: &mut [Bullet]) -> Result<()> {
    let mut by_id: std::collections::HashMap<String, Vec<FeedbackEvent>> =
        std::collections::HashMap::new();
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT {EVENT_COLS} FROM feedback_events ORDER BY seq"
        ))
        .map_err(sql)?;
    let rows = stmt.query_map([], parse_event).map_err(sql)?;
    for row in rows {
        let (bullet_id, event) = row.map_err(sql)?;
        by_id.entry(bullet_id).or_default().push(event);
    }
    for b in bullets {
        b.feedback_events = by_id.remove(&b.id).unwrap_or_default();
    }
    Ok(())
}

/// Stable sort by creation time without moving the (large) bullets more than once. Rows come in
/// rowid (insertion) order, which breaks ties, and are usually sorted already.
fn in_creation_order<T>(keys: Vec<String>, bullets: Vec<T>) -> Vec<T> {
    if keys.is_sorted() {
        return bullets;
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    let mut slots: Vec<Option<T>> = bullets.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// One bullet's document, by id.
pub const DOC_SQL: &str = "SELECT doc FROM bullets WHERE id = ?1";
/// One bullet's feedback events in order, through the (bullet, seq) index named outright.
pub const EVENTS_SQL: &str =
    "SELECT bullet_id, id, type, timestamp, source, session_path, reason, weight
     FROM feedback_events INDEXED BY feedback_events_bullet WHERE bullet_id = ?1 ORDER BY seq";

pub fn get(conn: &Connection, id: &str) -> Result<Option<Bullet>> {
    let doc: Option<String> = conn
        .prepare_cached(DOC_SQL)
        .and_then(|mut s| s.query_row([id], |r| r.get(0)).optional())
        .map_err(sql)?;
    let Some(doc) = doc else { return Ok(None) };
    let mut b = parse_doc(id, &doc)?;
    // The table is the record; the document's copy is for whole-playbook reads.
    b.feedback_events.clear();
    let mut stmt = conn.prepare_cached(EVENTS_SQL).map_err(sql)?;
    let rows = stmt.query_map([id], parse_event).map_err(sql)?;
    for row in rows {
        b.feedback_events.push(row.map_err(sql)?.1);
    }
    Ok(Some(b))
}

pub fn exists(conn: &Connection, id: &str) -> Result<bool> {
    conn.query_row("SELECT 1 FROM bullets WHERE id = ?1", [id], |_| Ok(()))
        .optional()
        .map(|o| o.is_some())
        .map_err(sql)
}

/// Bullets whose document mentions `id` (a superset of those that refer to it, e.g. in
/// `contradicts`), with their events.
pub fn referencing(conn: &Connection, id: &str) -> Result<Vec<Bullet>> {
    let ids: Vec<String> = conn
        .prepare_cached("SELECT id FROM bullets WHERE id <> ?1 AND instr(doc, ?1) > 0")
        .map_err(sql)?
        .query_map([id], |r| r.get(0))
        .map_err(sql)?
        .collect::<rusqlite::Result<_>>()
        .map_err(sql)?;
    let mut out = Vec::new();
    for i in ids {
        if let Some(b) = get(conn, &i)? {
            out.push(b);
        }
    }
    Ok(out)
}

/// Ids starting with `prefix` (for unambiguous short ids).
pub fn ids_with_prefix(conn: &Connection, prefix: &str) -> Result<Vec<String>> {
    let mut stmt = conn
        .prepare_cached("SELECT id FROM bullets WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT 10")
        .map_err(sql)?;
    let upper = format!("{prefix}\u{10FFFF}");
    let rows = stmt
        .query_map(params![prefix, upper], |r| r.get(0))
        .map_err(sql)?;
    rows.collect::<rusqlite::Result<Vec<String>>>().map_err(sql)
}

/// The id of a bullet with the same text (case-insensitive), if any.
pub fn find_by_content(conn: &Connection, content: &str) -> Result<Option<String>> {
    conn.query_row(
        "SELECT id FROM bullets WHERE lower(content) = lower(?1) LIMIT 1",
        [content],
        |r| r.get(0),
    )
    .optional()
    .map_err(sql)
}

pub fn count(conn: &Connection) -> Result<i64> {
    conn.query_row("SELECT count(*) FROM bullets", [], |r| r.get(0))
        .map_err(sql)
}

/// Insert a new bullet with its events.
pub fn insert(conn: &Connection, b: &Bullet) -> Result<()> {
    write_row(
        conn,
        "INSERT INTO bullets (id, content, category, type, maturity, deprecated, created_at, updated_at, doc)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        b,
    )?;
    insert_events(conn, b)
}

/// Write the bullet's fields and append any events not yet stored. Events are append-only here;
/// [`replace`] is the only way to drop one (undo).
pub fn save(conn: &Connection, b: &Bullet) -> Result<()> {
    let n = write_row(
        conn,
        "UPDATE bullets SET content = ?2, category = ?3, type = ?4, maturity = ?5, deprecated = ?6,
         created_at = ?7, updated_at = ?8, doc = ?9 WHERE id = ?1",
        b,
    )?;
    if n == 0 {
        return insert(conn, b);
    }
    insert_events(conn, b)
}

/// Run `statement` (an INSERT or UPDATE of one bullet row, parameters in column order: id,
/// content, category, type, maturity, deprecated, created, updated, doc) for `b`.
fn write_row(conn: &Connection, statement: &str, b: &Bullet) -> Result<usize> {
    let doc = doc_of(b)?;
    conn.prepare_cached(statement)
        .and_then(|mut s| {
            s.execute(params![
                b.id,
                b.content,
                b.category,
                crate::bullet::type_name(b.bullet_type),
                crate::bullet::maturity_name(b.maturity),
                b.deprecated,
                b.created_at,
                b.updated_at,
                doc
            ])
        })
        .map_err(sql)
}

fn insert_events(conn: &Connection, b: &Bullet) -> Result<()> {
    let mut stmt = conn
        .prepare_cached(
            "INSERT OR IGNORE INTO feedback_events (bullet_id, id, type, timestamp, source, session_path, reason, weight)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .map_err(sql)?;
    for e in &b.feedback_events {
        stmt.execute(params![
            b.id,
            e.id,
            type_str(e.kind),
            e.timestamp,
            source_str(e.source),
            e.session_path,
            e.reason,
            e.weight()
        ])
        .map_err(sql)?;
    }
    Ok(())
}

/// Replace a bullet wholesale, events included (undo, import --replace).
pub fn replace(conn: &Connection, b: &Bullet) -> Result<()> {
    delete(conn, &b.id)?;
    insert(conn, b)
}

pub fn delete(conn: &Connection, id: &str) -> Result<bool> {
    conn.execute("DELETE FROM feedback_events WHERE bullet_id = ?1", [id])
        .map_err(sql)?;
    let n = conn
        .execute("DELETE FROM bullets WHERE id = ?1", [id])
        .map_err(sql)?;
    Ok(n > 0)
}

pub fn delete_all(conn: &Connection) -> Result<usize> {
    conn.execute("DELETE FROM feedback_events", [])
        .map_err(sql)?;
    conn.execute("DELETE FROM bullets", []).map_err(sql)
}

pub use super::revisions::{Revision, pop_revision, record_change, record_revision, revisions};

#[cfg(test)]
mod tests {
    use super::in_creation_order;

    #[test]
    fn creation_order_is_a_stable_sort_by_key() {
        let keys = ["2026-02", "2026-01", "2026-02", "2025-12"]
            .map(String::from)
            .to_vec();
        let items = vec!["b", "a", "c", "z"];
        assert_eq!(in_creation_order(keys, items), vec!["z", "a", "b", "c"]);
        let sorted = ["1", "2", "2"].map(String::from).to_vec();
        assert_eq!(in_creation_order(sorted, vec![1, 2, 3]), vec![1, 2, 3]);
    }
}
