//! The rules of one workspace, as ranking needs them on every context call, without reading
//! them all: a workspace of months holds thousands of rules, and a hook has a deadline.
//!
//! - **A sample** ([`sample`]): the first rules of the workspace in id order. Ids are random
//!   ([`crate::memory::bullet::new_bullet_id`]), so a run of consecutive ids is a random sample, and it is also the
//!   cheapest one to read: the sampled rules' places and sessions sit side by side in their
//!   tables' keys, where a sample spread over all the ids touched a page per rule (a fresh hook
//!   process reads each page from the file). The stacks the workspace uses and its setting (the
//!   contrast) are judged on the sample.
//! - **Whether a candidate was learned here** ([`placed_in`]): asked of the few dozen
//!   candidates ranking weighs, a seek each, instead of a set of every rule of the workspace.
//! - The sample's stacks ([`stacks_of`]) and situations ([`situations_of`]): one statement
//!   each, a key seek per rule inside it.
//!
//! A rule "of" a workspace `W` was learned or helped in `W` or a directory under it: the value
//! `W` and the range `[W/, W0)` (`'0'` follows `'/'`), both of which the index on
//! `rule_places(kind, value)` can seek, so a namesake such as `W-old` is never read. Ids go to
//! SQLite as one JSON array (`json_each`).

use crate::error::Result;
use rusqlite::{Connection, params};
use std::collections::HashMap;

use crate::store::sql_error as sql;

/// The first rules learned or helped in the workspace `?1` itself, in id order (the index on
/// `(kind, value)` holds them in that order: no sort).
pub const FIRST_HERE_SQL: &str = "SELECT bullet_id FROM rule_places
     WHERE kind = 'workspace' AND value = ?1 ORDER BY bullet_id LIMIT ?2";

/// The first rules of the directories under the workspace `?1`, in index order.
pub const FIRST_UNDER_SQL: &str = "SELECT bullet_id FROM rule_places
     WHERE kind = 'workspace' AND value >= ?1 || '/' AND value < ?1 || '0' LIMIT ?2";

/// Whether the rule `?2` was learned or helped in the workspace `?1`: sought in the workspace's
/// own run of the `(kind, value)` index, then under its directories by the rule's key.
pub const PLACED_SQL: &str = "SELECT EXISTS (SELECT 1 FROM rule_places INDEXED BY rule_places_value
                      WHERE kind = 'workspace' AND value = ?1 AND bullet_id = ?2)
         OR EXISTS (SELECT 1 FROM rule_places
                      WHERE bullet_id = ?2 AND kind = 'workspace'
                        AND value >= ?1 || '/' AND value < ?1 || '0')";

/// The stacks (languages, tools) of the ids' sessions (repeated; deduplicated by the caller, as a
/// `DISTINCT` would sort them in a temporary table).
/// `CROSS JOIN` keeps the ids outermost: with a store's statistics the planner would otherwise
/// read every `lang` row and look each up in the list.
pub const STACKS_SQL: &str = "SELECT p.value FROM json_each(?1) AS j
     CROSS JOIN rule_places p ON p.bullet_id = j.value AND p.kind = 'lang'";

/// Each id's situation: its first indexed session file.
pub const SITUATIONS_SQL: &str = "SELECT j.value,
            (SELECT min(s.file_id) FROM rule_sessions s
             WHERE s.bullet_id = j.value AND s.file_id IS NOT NULL)
     FROM json_each(?1) AS j";

/// At most `n` rules of `workspace`, sorted, each once: the first in id order of those learned
/// in the workspace itself, then (if it holds fewer) of its directories.
pub fn sample(conn: &Connection, workspace: &str, n: usize) -> Result<Vec<String>> {
    let w = crate::workspace::key(workspace);
    let mut ids: Vec<String> = Vec::new();
    for statement in [FIRST_HERE_SQL, FIRST_UNDER_SQL] {
        let want = n.saturating_sub(ids.len());
        if want == 0 {
            break;
        }
        let found: Vec<String> = conn
            .prepare_cached(statement)
            .and_then(|mut s| {
                s.query_map(params![w, want as i64], |r| r.get(0))?
                    .collect()
            })
            .map_err(sql)?;
        ids.extend(found);
    }
    ids.sort();
    ids.dedup();
    Ok(ids)
}

/// Whether the rule `id` was learned or helped in `workspace` or a directory under it.
pub fn placed_in(conn: &Connection, workspace: &str, id: &str) -> Result<bool> {
    let w = crate::workspace::key(workspace);
    conn.prepare_cached(PLACED_SQL)
        .and_then(|mut s| s.query_row(params![w, id], |r| r.get(0)))
        .map_err(sql)
}

/// The stacks of these rules' sessions, sorted.
pub fn stacks_of(conn: &Connection, ids: &[String]) -> Result<Vec<String>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = serde_json::to_string(ids).unwrap_or_else(|_| "[]".into());
    let mut out: Vec<String> = conn
        .prepare_cached(STACKS_SQL)
        .and_then(|mut s| s.query_map([list], |r| r.get(0))?.collect())
        .map_err(sql)?;
    out.sort();
    out.dedup();
    Ok(out)
}

/// The situation (first indexed session file) of each of `ids` that has one.
pub fn situations_of(conn: &Connection, ids: &[String]) -> Result<HashMap<String, i64>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let list = serde_json::to_string(ids).unwrap_or_else(|_| "[]".into());
    let rows: Vec<(String, Option<i64>)> = conn
        .prepare_cached(SITUATIONS_SQL)
        .and_then(|mut s| {
            s.query_map([list], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
        })
        .map_err(sql)?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, file)| file.map(|f| (id, f)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_with(places: &[(&str, &str, &str)]) -> (tempfile::TempDir, crate::store::Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(&dir.path().join("cm.db")).unwrap();
        for (id, kind, value) in places {
            store
                .conn
                .execute(
                    "INSERT INTO rule_places (bullet_id, kind, value) VALUES (?1, ?2, ?3)",
                    [id, kind, value],
                )
                .unwrap();
        }
        (dir, store)
    }

    const PLACES: &[(&str, &str, &str)] = &[
        ("b-1", "workspace", "/w/app"),
        ("b-2", "workspace", "/w/app/api"),
        ("b-2", "workspace", "/w/app/web"),
        ("b-3", "workspace", "/w/app-old"),
        ("b-4", "workspace", "/w/application"),
        ("b-5", "workspace", "/w"),
        ("b-1", "lang", "rust"),
        ("b-2", "lang", "typescript"),
        ("b-2", "lang", "rust"),
    ];

    #[test]
    fn a_workspace_holds_the_rules_of_its_directories_not_of_its_namesakes() {
        let (_dir, store) = store_with(PLACES);
        let all = ["b-1", "b-2", "b-3", "b-4", "b-5", "b-9"];
        let among = |w: &str| {
            all.iter()
                .filter(|id| placed_in(&store.conn, w, id).unwrap())
                .map(|id| id.to_string())
                .collect::<Vec<_>>()
        };
        for (w, ids) in [
            ("/w/app", &["b-1", "b-2"][..]),
            ("/w/app/", &["b-1", "b-2"]),
            ("/w/app/api", &["b-2"]),
            ("/w", &["b-1", "b-2", "b-3", "b-4", "b-5"]),
            ("/", &["b-1", "b-2", "b-3", "b-4", "b-5"]),
            ("/w/ap", &[]),
        ] {
            assert_eq!(among(w), ids, "{w}");
            assert_eq!(sample(&store.conn, w, 100).unwrap(), ids, "{w}");
        }
        // The workspace's own rules come first, then its directories'.
        assert_eq!(sample(&store.conn, "/w", 1).unwrap(), ["b-5"]);
        assert_eq!(sample(&store.conn, "/w", 2).unwrap(), ["b-1", "b-5"]);
    }

    #[test]
    fn a_large_workspace_is_sampled_by_its_first_ids() {
        let ids: Vec<String> = (0..1000).rev().map(|i| format!("b-{i:04}")).collect();
        let places: Vec<(&str, &str, &str)> = ids
            .iter()
            .map(|i| (i.as_str(), "workspace", "/w"))
            .collect();
        let (_dir, store) = store_with(&places);
        let s = sample(&store.conn, "/w", 64).unwrap();
        assert_eq!(s.len(), 64);
        assert_eq!(s[0], "b-0000");
        assert_eq!(s[63], "b-0063");
        assert!(sample(&store.conn, "/w", 0).unwrap().is_empty());
    }

    /// Whatever the statistics say (none, fresh, or taken before these tables held a row), no
    /// statement reads a whole kind of place: the bad plan read every `lang` row and looked each
    /// up in the id list.
    #[test]
    fn the_id_list_drives_every_lookup_whatever_the_statistics() {
        let ids: Vec<String> = (0..2000).map(|i| format!("b-{i:04}")).collect();
        let mut places: Vec<(&str, &str, &str)> = Vec::new();
        for id in &ids {
            places.push((id.as_str(), "workspace", "/w"));
            places.push((id.as_str(), "lang", "rust"));
        }
        let (_dir, store) = store_with(&places);
        let list = r#"["b-0001","b-0002"]"#;
        // Never analysed; analysed; analysed before these tables held a row (as a store grown
        // from an early version is: statistics exist, none for them).
        for stats in [
            "",
            "ANALYZE",
            "DELETE FROM sqlite_stat1 WHERE tbl IN ('rule_places', 'rule_sessions');
             DELETE FROM sqlite_stat4 WHERE tbl IN ('rule_places', 'rule_sessions');
             ANALYZE sqlite_master",
        ] {
            store.conn.execute_batch(stats).unwrap();
            for (sql, params) in [
                (FIRST_HERE_SQL, vec!["/w", "256"]),
                (FIRST_UNDER_SQL, vec!["/w", "256"]),
                (PLACED_SQL, vec!["/w", "b-0001"]),
                (STACKS_SQL, vec![list]),
                (SITUATIONS_SQL, vec![list]),
            ] {
                let mut stmt = store
                    .conn
                    .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                    .unwrap();
                let plan: Vec<String> = stmt
                    .query_map(rusqlite::params_from_iter(params), |r| r.get(3))
                    .unwrap()
                    .collect::<rusqlite::Result<_>>()
                    .unwrap();
                for line in &plan {
                    // Only an id list is scanned, nothing is sorted, and every table is
                    // sought by a rule's key or by the workspace's path, never by kind alone.
                    assert!(
                        !line.starts_with("SCAN")
                            || line.starts_with("SCAN j")
                            || line == "SCAN CONSTANT ROW",
                        "{sql}\n{plan:#?}"
                    );
                    assert!(!line.contains("TEMP B-TREE"), "{sql}\n{plan:#?}");
                    if line.starts_with("SEARCH") {
                        assert!(
                            line.contains("PRIMARY KEY")
                                || line.contains("rule_places_value (kind=? AND value"),
                            "{sql}\n{plan:#?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn stacks_and_situations_of_a_sample() {
        let (_dir, store) = store_with(PLACES);
        let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            stacks_of(&store.conn, &ids(&["b-1", "b-2", "b-3"])).unwrap(),
            ["rust", "typescript"]
        );
        assert!(stacks_of(&store.conn, &[]).unwrap().is_empty());
        for (id, r, file) in [
            ("b-1", "s1", Some(7)),
            ("b-1", "s0", Some(3)),
            ("b-2", "s2", None),
        ] {
            store
                .conn
                .execute(
                    "INSERT INTO rule_sessions (bullet_id, ref, kind, file_id) VALUES (?1, ?2, 'source', ?3)",
                    params![id, r, file],
                )
                .unwrap();
        }
        let found = situations_of(&store.conn, &ids(&["b-1", "b-2", "b-3"])).unwrap();
        assert_eq!(found, HashMap::from([("b-1".to_string(), 3)]));
    }
}
