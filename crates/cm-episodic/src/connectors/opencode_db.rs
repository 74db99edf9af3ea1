//! OpenCode's SQLite database (v1.2+), read-only: `session` rows, `message` rows and their
//! `part` rows, each `data` column a JSON document. Column names differ between versions
//! (`time_created` vs `created_at`), so they are looked up rather than assumed.

use super::common;
use super::foreign_db::{self, columns, int, pick, text, to_io};
use super::opencode::{Record, session_info, session_messages};
use super::{ParseOutput, SourceFile};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// Ids of the sessions the database holds (to skip their legacy JSON copies).
pub fn session_ids(db: &Path) -> std::io::Result<Vec<String>> {
    let conn = foreign_db::open_readonly(db)?;
    let mut stmt = conn.prepare("SELECT id FROM session").map_err(to_io)?;
    let ids = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(to_io)?
        .flatten()
        .collect();
    Ok(ids)
}

pub fn parse(file: &SourceFile) -> std::io::Result<ParseOutput> {
    let conn = foreign_db::open_readonly(&file.path)?;
    let mut out = ParseOutput::default();
    out.next.offset = std::fs::metadata(&file.path).map(|m| m.len()).unwrap_or(0);

    // Sessions, in the shape of a legacy session file so both layouts share one reader.
    let scols = columns(&conn, "session");
    let created = pick(&scols, &["time_created", "created_at"], "NULL");
    let updated = pick(&scols, &["time_updated", "updated_at"], "NULL");
    let title = pick(&scols, &["title"], "NULL");
    let directory = pick(&scols, &["directory"], "NULL");
    let parent = pick(&scols, &["parent_id"], "NULL");
    let sql =
        format!("SELECT id, {title}, {directory}, {parent}, {created}, {updated} FROM session");
    let mut sessions: BTreeMap<String, Value> = BTreeMap::new();
    {
        let mut stmt = conn.prepare(&sql).map_err(to_io)?;
        let mut rows = stmt.query([]).map_err(to_io)?;
        while let Some(r) = rows.next().map_err(to_io)? {
            let Some(id) = text(r, 0) else { continue };
            let v = json!({
                "id": id,
                "title": text(r, 1),
                "directory": text(r, 2),
                "parentID": text(r, 3),
                "time": {"created": int(r, 4), "updated": int(r, 5)},
            });
            sessions.insert(id, v);
        }
    }

    let mcols = columns(&conn, "message");
    let mtime = pick(&mcols, &["time_created", "created_at"], "rowid");
    let sql = format!(
        "SELECT m.session_id, m.id, m.data, p.data FROM message m \
         LEFT JOIN part p ON p.message_id = m.id \
         ORDER BY m.session_id, m.{mtime}, m.id, p.id"
    );
    let mut by_session: BTreeMap<String, Vec<(String, Record)>> = BTreeMap::new();
    {
        let mut stmt = conn.prepare(&sql).map_err(to_io)?;
        let mut rows = stmt.query([]).map_err(to_io)?;
        let mut position = 0u64;
        while let Some(r) = rows.next().map_err(to_io)? {
            position += 1;
            let (Some(sid), Some(mid)) = (text(r, 0), text(r, 1)) else {
                continue;
            };
            let list = by_session.entry(sid).or_default();
            if list.last().is_none_or(|(id, _)| *id != mid) {
                let data = match text(r, 2).map(|t| serde_json::from_str::<Value>(&t)) {
                    Some(Ok(v)) => v,
                    Some(Err(e)) => {
                        out.skipped.push(common::malformed(position, &e));
                        Value::Null
                    }
                    None => Value::Null,
                };
                list.push((
                    mid,
                    Record {
                        data,
                        parts: Vec::new(),
                    },
                ));
            }
            if let Some(part) = text(r, 3) {
                match serde_json::from_str::<Value>(&part) {
                    Ok(v) => list.last_mut().expect("pushed above").1.parts.push(v),
                    Err(e) => out.skipped.push(common::malformed(position, &e)),
                }
            }
        }
    }

    for (id, session) in &sessions {
        let records: Vec<Record> = by_session
            .remove(id)
            .unwrap_or_default()
            .into_iter()
            .map(|(_, r)| r)
            .collect();
        let mut info = session_info(file, session, id);
        session_messages(file, &mut info, &records, &mut out);
        out.sessions.push(info);
    }
    // Messages whose session row is missing still belong to a session.
    for (id, records) in by_session {
        let records: Vec<Record> = records.into_iter().map(|(_, r)| r).collect();
        let mut info = session_info(file, &json!({}), &id);
        session_messages(file, &mut info, &records, &mut out);
        out.sessions.push(info);
    }
    Ok(out)
}
