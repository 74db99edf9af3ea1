//! Recall reinforcement: rules that agents actually use get a small, bounded ranking boost.
//!
//! "Used" means evidence, not display: an assistant message in the session index that cites the
//! rule's id (agents are asked to say "following b-8f3a2c..."), counted once per session, or a
//! helpful mark. Being shown by `cm context` counts for nothing. Evidence rows are unique, so
//! re-scanning never double counts; the scan is incremental by message rowid. The boost itself is
//! applied in [`super::rank`] (5% per use, at most 20%).
//!
//! A rule cited as harmful (`[cass: harmful b-8f3a2c] - misleading here`) was not used, it was
//! blamed: such a citation never counts, and it withdraws that session's use of the rule for
//! good (a `harmful:` evidence row remembers it, so a later scan cannot count it again).

use crate::episodic::citing;
use crate::error::Result;
use crate::memory::tables::bullets;
use crate::store::Store;
use rusqlite::{Connection, params};
use std::collections::{HashMap, HashSet};

use crate::store::sql_error as sql;

/// Rule ids cited in `text` as used, and those cited as harmful (`[cass: harmful b-...]`, any
/// case and spacing). An id marked harmful anywhere in the text is not among the used ones.
pub fn citations(text: &str) -> (Vec<&str>, Vec<&str>) {
    let mut used = Vec::new();
    let mut harmful = Vec::new();
    for (start, id) in cited_at(text) {
        if marked_harmful(&text[..start]) {
            harmful.push(id);
        } else {
            used.push(id);
        }
    }
    used.retain(|id| !harmful.contains(id));
    (used, harmful)
}

/// Whether the text just before an id opens an inline harmful marker: `[cass: harmful `.
fn marked_harmful(before: &str) -> bool {
    let Some(open) = before.rfind('[') else {
        return false;
    };
    let inner: String = before[open + 1..]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase();
    let inner = inner.replace(" :", ":").replace(": ", ":");
    inner == "cass:harmful"
}

/// Rule ids cited in `text`: `b-` followed by letters, digits, `_` or `-`, on word boundaries.
pub fn cited_ids(text: &str) -> Vec<&str> {
    cited_at(text).into_iter().map(|(_, id)| id).collect()
}

/// [`cited_ids`] with the byte offset of each.
fn cited_at(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(pos) = text[i..].find("b-") {
        let start = i + pos;
        let boundary = start == 0
            || !(bytes[start - 1].is_ascii_alphanumeric()
                || bytes[start - 1] == b'_'
                || bytes[start - 1] == b'-');
        let mut end = start + 2;
        while end < bytes.len()
            && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_' || bytes[end] == b'-')
        {
            end += 1;
        }
        if boundary && end - start >= 6 {
            out.push((start, &text[start..end]));
        }
        i = end.max(start + 2);
    }
    out
}

/// Fold new evidence into `recall_reinforcement`: helpful marks, and citations in messages indexed
/// since the last scan. Returns how many new pieces of evidence were recorded.
pub fn scan(store: &Store, now: &str) -> Result<usize> {
    if !has_new_evidence(&store.conn)? {
        return Ok(0);
    }
    store.write(|tx| {
        let (last_msg, _) = watermarks(tx)?;
        let (event, msg) = newest(tx)?;
        let mut added = 0;
        {
            let mut ins = tx
                .prepare(
                    "INSERT OR IGNORE INTO recall_evidence (item_id, evidence, at)
                     VALUES (?1, 'helpful:' || ?2, ?3)",
                )
                .map_err(sql)?;
            for (rule, event, at) in bullets::helpful_events(tx)? {
                added += ins.execute(params![rule, event, at]).map_err(sql)?;
            }
        }
        added += scan_messages(tx, now, last_msg, msg)?;
        tx.execute(
            "INSERT INTO recall_scan (id, last_msg_id, last_event_seq) VALUES (1, ?1, ?2)
             ON CONFLICT(id) DO UPDATE SET last_msg_id = excluded.last_msg_id,
                                           last_event_seq = excluded.last_event_seq",
            params![msg.max(last_msg), event],
        )
        .map_err(sql)?;
        if added > 0 {
            tx.execute_batch(
                "DELETE FROM recall_reinforcement;
                 INSERT INTO recall_reinforcement (item_id, uses, last_used_at, evidence)
                 SELECT item_id, count(*), max(at), max(evidence) FROM recall_evidence
                 WHERE evidence NOT LIKE 'harmful:%' GROUP BY item_id;",
            )
            .map_err(sql)?;
        }
        Ok(added)
    })
}

/// How far the last scan got: the newest message rowid and feedback event it counted.
pub const WATERMARKS_SQL: &str =
    "SELECT coalesce(max(last_msg_id), 0), coalesce(max(last_event_seq), 0) FROM recall_scan";
/// Cheap read-only check, so the common case (nothing new) takes no write lock: two seeks
/// against the watermarks of the last scan.
fn has_new_evidence(conn: &Connection) -> Result<bool> {
    let (last_msg, last_event) = watermarks(conn)?;
    let (event, msg) = newest(conn)?;
    Ok(event > last_event || msg > last_msg)
}

fn watermarks(conn: &Connection) -> Result<(i64, i64)> {
    conn.prepare_cached(WATERMARKS_SQL)
        .and_then(|mut s| s.query_row([], |r| Ok((r.get(0)?, r.get(1)?))))
        .map_err(sql)
}

/// The newest feedback event and message.
fn newest(conn: &Connection) -> Result<(i64, i64)> {
    Ok((
        bullets::newest_event_seq(conn)?,
        citing::newest_message(conn)?,
    ))
}

/// Citations of known rules in messages with rowids in `(last, max_id]`.
fn scan_messages(tx: &Connection, now: &str, last: i64, max_id: i64) -> Result<usize> {
    if max_id <= last {
        return Ok(0);
    }
    let known: HashSet<String> = bullets::all_ids(tx)?;
    // Only the citations of known rules are kept, never the texts.
    let mut found: Vec<(String, String, String)> = Vec::new();
    let mut blamed: Vec<(String, String, String)> = Vec::new();
    if !known.is_empty() {
        for said in citing::assistant_messages_citing(tx, last, max_id)? {
            let (agent, session, text, at) =
                (said.agent, said.session_id, said.text, said.created_at);
            let (used, harmful) = citations(&text);
            for (ids, into) in [(used, &mut found), (harmful, &mut blamed)] {
                for cited in ids.into_iter().filter(|id| known.contains(*id)) {
                    into.push((
                        cited.to_string(),
                        format!("session:{agent}/{session}"),
                        at.clone().unwrap_or_else(|| now.to_string()),
                    ));
                }
            }
        }
    }
    let mut added = 0;
    // A harmful citation withdraws the session's use and is remembered as `harmful:<evidence>`.
    for (id, evidence, at) in &blamed {
        added += tx
            .execute(
                "DELETE FROM recall_evidence WHERE item_id = ?1 AND evidence = ?2",
                params![id, evidence],
            )
            .map_err(sql)?;
        added += tx
            .execute(
                "INSERT OR IGNORE INTO recall_evidence (item_id, evidence, at) VALUES (?1, 'harmful:' || ?2, ?3)",
                params![id, evidence, at],
            )
            .map_err(sql)?;
    }
    let mut ins = tx
        .prepare(
            "INSERT OR IGNORE INTO recall_evidence (item_id, evidence, at)
             SELECT ?1, ?2, ?3 WHERE NOT EXISTS
               (SELECT 1 FROM recall_evidence WHERE item_id = ?1 AND evidence = 'harmful:' || ?2)",
        )
        .map_err(sql)?;
    for (id, evidence, at) in &found {
        added += ins.execute(params![id, evidence, at]).map_err(sql)?;
    }
    Ok(added)
}

/// Uses of every item with any (read-only; hooks use it too). The table holds only items that
/// were used, so it stays small.
pub fn all_uses(conn: &Connection) -> HashMap<String, u32> {
    let Ok(mut stmt) = conn.prepare_cached("SELECT item_id, uses FROM recall_reinforcement") else {
        return HashMap::new();
    };
    stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
        .map(|rows| {
            rows.flatten()
                .map(|(id, n)| (id, n.max(0) as u32))
                .collect()
        })
        .unwrap_or_default()
}

/// Uses per item, for the ids asked about (read-only; hooks use it too).
pub fn uses(conn: &Connection, ids: &[&str]) -> HashMap<String, u32> {
    let mut out = HashMap::new();
    let Ok(mut stmt) =
        conn.prepare_cached("SELECT uses FROM recall_reinforcement WHERE item_id = ?1")
    else {
        return out;
    };
    for id in ids {
        if let Ok(n) = stmt.query_row([id], |r| r.get::<_, i64>(0)) {
            out.insert(id.to_string(), n.max(0) as u32);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_cited_ids_on_word_boundaries() {
        assert_eq!(
            cited_ids("Following b-8f3a2c91d0e4, and (b-0123456789ab)."),
            vec!["b-8f3a2c91d0e4", "b-0123456789ab"]
        );
        assert!(cited_ids("a web-b-tree, ab-cdefgh, b-x").is_empty());
    }

    #[test]
    fn a_citation_marked_harmful_is_not_a_use() {
        let (used, harmful) = citations(
            "// [cass: harmful b-8f3a2c91d0e4] - irrelevant\n// [cass: helpful b-0123456789ab]",
        );
        assert_eq!(used, ["b-0123456789ab"]);
        assert_eq!(harmful, ["b-8f3a2c91d0e4"]);
        // Spacing and case vary; a harmful mark anywhere in the text wins over a plain mention.
        let (used, harmful) =
            citations("Following b-8f3a2c91d0e4. Later: [ CASS:harmful  b-8f3a2c91d0e4 ] wrong");
        assert!(used.is_empty(), "{used:?}");
        assert_eq!(harmful, ["b-8f3a2c91d0e4"]);
        let (used, _) = citations("[see the harmful list] b-0123456789ab");
        assert_eq!(used, ["b-0123456789ab"]);
    }
}
