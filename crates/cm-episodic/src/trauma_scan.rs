//! The walk over the session index for trauma candidates: each indexed message that holds a
//! destructive command (the guard's detectors, [`cm_guard::scan`]) and, within
//! [`WINDOW`] messages after it in the same session, the user's distress or recovery work.
//! Messages come through [`super::replay`] (the index's own table, in session order); the
//! detectors stay in the guard, which links no database.

use super::replay::{self, Turn};
use cm_guard::scan::{Incident, KEYWORDS, WINDOW, destructive, reaction, shorten};
use rusqlite::Connection;

/// Scan the index for incidents in messages newer than `since` (RFC 3339), all when `None`.
/// Returns the incidents and how many destructive commands were examined.
pub fn scan(conn: &Connection, since: Option<&str>) -> rusqlite::Result<(Vec<Incident>, usize)> {
    let since_ms = since
        .and_then(cm_base::clock::parse)
        .map(|t| t.timestamp_millis());
    let mut incidents = Vec::new();
    let mut examined = 0;
    for turn in replay::mentioning(conn, KEYWORDS, since_ms)? {
        let found = destructive(&turn.body);
        if found.is_empty() {
            continue;
        }
        examined += 1;
        let after = replay::following(conn, &turn, WINDOW)?;
        let Some((signal, evidence)) = after
            .iter()
            .find_map(|t| reaction(Some(&t.role), &t.body).map(|s| (s, &t.body)))
        else {
            continue;
        };
        for (label, command, pattern) in found {
            incidents.push(incident(&turn, label, &command, pattern, signal, evidence));
        }
    }
    Ok((incidents, examined))
}

fn incident(
    turn: &Turn,
    label: &'static str,
    command: &str,
    pattern: String,
    signal: &'static str,
    evidence: &str,
) -> Incident {
    Incident {
        session_id: turn.session_id.clone(),
        timestamp: turn.created_at.clone(),
        command: shorten(command, 200),
        label,
        pattern,
        signal,
        evidence: shorten(evidence, 240),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    /// A real store (every migration applied) with `rows` as indexed messages of one file:
    /// (session, role, kind, text or tool text, created at).
    fn index(rows: &[(&str, &str, &str, &str, &str)]) -> (tempfile::TempDir, cm_store::Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = cm_store::Store::open(&dir.path().join("cm.db")).unwrap();
        store
            .conn
            .execute(
                "INSERT INTO episodic_files (id, path, agent, kind) VALUES (1, '/s.jsonl', 'claude', 'lines')",
                [],
            )
            .unwrap();
        for (n, (session, role, kind, body, at)) in rows.iter().enumerate() {
            let ts = cm_base::clock::parse(at).unwrap().timestamp_millis();
            let (text, tool) = if *kind == "tool_call" || *kind == "tool_result" {
                (None, Some(*body))
            } else {
                (Some(*body), None)
            };
            store
                .conn
                .execute(
                    "INSERT INTO episodic_messages (file_id, agent, session_id, line_number, role, kind, created_at, ts, text, tool_text)
                     VALUES (1, 'claude', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    rusqlite::params![session, n as i64 + 1, role, kind, at, ts, text, tool],
                )
                .unwrap();
        }
        (dir, store)
    }

    #[test]
    fn an_empty_index_has_nothing_to_scan() {
        let (_d, store) = index(&[]);
        assert!(replay::available(&store.conn));
        assert_eq!(scan(&store.conn, None).unwrap(), (Vec::new(), 0));
    }

    #[test]
    fn finds_a_destructive_command_followed_by_distress() {
        let t = "2026-11-20T10:00:00.000Z";
        let (_d, store) = index(&[
            ("s1", "user", "text", "clean up the data dir", t),
            ("s1", "assistant", "tool_call", "rm -rf data/", t),
            ("s1", "tool", "tool_result", "", t),
            (
                "s1",
                "user",
                "text",
                "what did you do?! you deleted my fixtures",
                t,
            ),
            (
                "s2",
                "assistant",
                "tool_call",
                "git reset --hard origin/main",
                t,
            ),
            ("s2", "user", "text", "thanks, looks good", t),
            (
                "s3",
                "assistant",
                "tool_call",
                "$ git reset --hard HEAD~1",
                t,
            ),
            (
                "s3",
                "assistant",
                "text",
                "Let me run git reflog to find the lost commit",
                t,
            ),
        ]);
        let conn = &store.conn;
        let (found, examined) = scan(conn, None).unwrap();
        assert_eq!(examined, 3);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].session_id, "s1");
        assert_eq!(found[0].signal, "distress");
        assert_eq!(found[0].timestamp.as_deref(), Some(t));
        let re = Regex::new(&found[0].pattern).unwrap();
        assert!(re.is_match("rm -rf data"));
        assert!(re.is_match("rm -fr data/"));
        assert!(!re.is_match("rm -rf database"));
        assert_eq!(found[1].signal, "recovery");
        assert_eq!(found[1].label, "git reset --hard");
        // A window in the future excludes everything.
        let (found, _) = scan(conn, Some("2026-11-25T00:00:00Z")).unwrap();
        assert!(found.is_empty());
    }
}
