//! Finding trauma candidates in indexed sessions: a destructive command an agent ran, followed
//! within a few messages by the user's distress ("you deleted my...", "undo that") or by
//! recovery work (`git reflog`, restoring a backup).
//!
//! The session index belongs to the episodic module: messages come through
//! [`crate::episodic::replay`] (the index's own table and columns, in session order). This file
//! holds the detectors and the walk; it opens and writes nothing.

use crate::episodic::replay::{self, Turn};
use once_cell::sync::Lazy;
use regex::Regex;
use rusqlite::Connection;

/// Messages looked at after a destructive command for a reaction.
pub const WINDOW: usize = 12;

/// A destructive command followed by a reaction.
#[derive(Debug, Clone, PartialEq)]
pub struct Incident {
    pub session_id: String,
    pub timestamp: Option<String>,
    /// The destructive command as found (secrets redacted, shortened).
    pub command: String,
    /// What kind of operation it was.
    pub label: &'static str,
    /// A regex for `cm trauma add` that blocks this operation on this target.
    pub pattern: String,
    /// distress | recovery
    pub signal: &'static str,
    /// The message that showed the reaction (secrets redacted, shortened).
    pub evidence: String,
}

struct Detector {
    label: &'static str,
    regex: Regex,
    /// Turns a match into a trauma pattern (the target, when there is one, is escaped in).
    pattern: fn(&regex::Captures) -> String,
}

fn target(c: &regex::Captures) -> String {
    c.name("t")
        .map(|m| regex::escape(m.as_str().trim_end_matches('/')))
        .unwrap_or_default()
}

static DETECTORS: Lazy<Vec<Detector>> = Lazy::new(|| {
    let d = |label, re: &str, pattern| Detector {
        label,
        regex: Regex::new(re).expect("detector compiles"),
        pattern,
    };
    vec![
        d(
            "recursive delete",
            r"\brm\s+(?:-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-[a-zA-Z]+\s+)*(?P<t>[^\s;&|)]+)",
            |c| {
                format!(
                    r"\brm\s+(?:-\S+\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-\S+\s+)*{}/?(?:\s|$)",
                    target(c)
                )
            },
        ),
        d("git reset --hard", r"\bgit\s+reset\s+--hard\b", |_| {
            r"\bgit\s+reset\s+--hard\b".into()
        }),
        d("git clean", r"\bgit\s+clean\s+-[a-zA-Z]*f", |_| {
            r"\bgit\s+clean\s+-[a-zA-Z]*f".into()
        }),
        d(
            "git discard",
            r"\bgit\s+(?:checkout\s+--\s+\.|restore\s+(?:--\S+\s+)*\.(?:\s|$))",
            |_| r"\bgit\s+(?:checkout\s+--\s+\.|restore\s+(?:--\S+\s+)*\.(?:\s|$))".into(),
        ),
        d(
            "git stash drop",
            r"\bgit\s+stash\s+(?:clear|drop)\b",
            |_| r"\bgit\s+stash\s+(?:clear|drop)\b".into(),
        ),
        d("git branch -D", r"\bgit\s+branch\s+-D\s+(?P<t>\S+)", |c| {
            format!(r"\bgit\s+branch\s+-D\s+{}\b", target(c))
        }),
        d(
            "force push",
            r"\bgit\s+push\b[^;&|\n]*\s(?:--force(?:-with-lease)?|-f)\b",
            |_| r"\bgit\s+push\b.*\s(?:--force|-f)\b".into(),
        ),
        d(
            "drop",
            r"(?i)\bdrop\s+(?:table|database|schema)\s+(?:if\s+exists\s+)?(?P<t>[A-Za-z0-9_.`]+)",
            |c| {
                format!(
                    r"(?i)\bdrop\s+(?:table|database|schema)\s+(?:if\s+exists\s+)?{}\b",
                    target(c)
                )
            },
        ),
        d(
            "truncate",
            r"(?i)\btruncate\s+(?:table\s+)?(?P<t>[A-Za-z0-9_.`]+)",
            |c| format!(r"(?i)\btruncate\s+(?:table\s+)?{}\b", target(c)),
        ),
        d(
            "container data",
            r"\bdocker\s+(?:volume\s+(?:rm|prune)|system\s+prune)\b",
            |_| r"\bdocker\s+(?:volume\s+(?:rm|prune)|system\s+prune)\b".into(),
        ),
        d("kubectl delete", r"\bkubectl\s+delete\s+(?P<t>\S+)", |c| {
            format!(r"\bkubectl\s+delete\s+{}\b", target(c))
        }),
        d(
            "terraform destroy",
            r"\bterraform\s+(?:destroy|apply\s+-destroy)\b",
            |_| r"\bterraform\s+(?:destroy|apply\s+-destroy)\b".into(),
        ),
    ]
});

/// Substrings the SQL pre-filter looks for (LIKE is case-insensitive for ASCII).
const KEYWORDS: &[&str] = &[
    "rm -",
    "git reset",
    "git clean",
    "git checkout",
    "git restore",
    "git stash",
    "git branch",
    "git push",
    "drop ",
    "truncate",
    "docker",
    "kubectl",
    "terraform",
];

static DISTRESS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i)\b(?:oh no|what (?:did|have) you (?:done|do)|you (?:just )?(?:deleted|removed|wiped|destroyed|erased|lost|nuked)|(?:i|we) lost|(?:everything|it|they|all|my \w+) (?:is |are |'s )?gone|wtf|why (?:did|would) you|undo (?:that|it|this)|revert (?:that|it|this)|get (?:it|them|that) back|bring (?:it|them) back|disaster|catastroph\w*|damn it|nooo+)\b",
    )
    .expect("distress regex compiles")
});

static RECOVERY: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i)\bgit\s+(?:reflog|fsck\b[^\n]*--lost-found)|\bgit\s+(?:checkout|reset|branch)\s[^\n]*(?:HEAD@\{|ORIG_HEAD)|\brestor(?:e|ed|ing)\s+(?:\w+\s+)?(?:from\s+)?(?:the\s+)?(?:a\s+)?backup|\brecover(?:ed|ing|y)?\s+(?:the\s+)?(?:deleted|lost|files?|data|work|branch|commits?)|\bundelete\b|\bpg_restore\b|\bgit\s+stash\s+apply\s+[0-9a-f]{7,}",
    )
    .expect("recovery regex compiles")
});

fn shorten(s: &str, max: usize) -> String {
    let (clean, _) = crate::redact::redact(s);
    let one: String = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= max {
        return one;
    }
    let cut: String = one.chars().take(max.saturating_sub(1)).collect();
    format!("{cut}…")
}

/// The destructive operations in `text`: label, the matched command, the proposed pattern.
pub fn destructive(text: &str) -> Vec<(&'static str, String, String)> {
    let mut out = Vec::new();
    for d in DETECTORS.iter() {
        for caps in d.regex.captures_iter(text) {
            let m = caps.get(0).expect("match");
            out.push((d.label, m.as_str().to_string(), (d.pattern)(&caps)));
        }
    }
    out
}

/// The reaction in a later message, if any: distress from the user, recovery from anyone.
pub fn reaction(role: Option<&str>, text: &str) -> Option<&'static str> {
    let from_user = role.is_none_or(|r| r.eq_ignore_ascii_case("user"));
    if from_user && DISTRESS.is_match(text) {
        return Some("distress");
    }
    if RECOVERY.is_match(text) {
        return Some("recovery");
    }
    None
}

/// Scan the index for incidents in messages newer than `since` (RFC 3339), all when `None`.
/// Returns the incidents and how many destructive commands were examined.
pub fn scan(conn: &Connection, since: Option<&str>) -> rusqlite::Result<(Vec<Incident>, usize)> {
    let since_ms = since
        .and_then(crate::clock::parse)
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

    /// A real store (every migration applied) with `rows` as indexed messages of one file:
    /// (session, role, kind, text or tool text, created at).
    fn index(rows: &[(&str, &str, &str, &str, &str)]) -> (tempfile::TempDir, crate::store::Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(&dir.path().join("cm.db")).unwrap();
        store
            .conn
            .execute(
                "INSERT INTO episodic_files (id, path, agent, kind) VALUES (1, '/s.jsonl', 'claude', 'lines')",
                [],
            )
            .unwrap();
        for (n, (session, role, kind, body, at)) in rows.iter().enumerate() {
            let ts = crate::clock::parse(at).unwrap().timestamp_millis();
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

    #[test]
    fn ordinary_talk_is_no_reaction() {
        for t in [
            "ok",
            "the test is gone green",
            "please undo nothing",
            "looks good",
        ] {
            assert_eq!(reaction(Some("user"), t), None, "{t}");
        }
        assert_eq!(reaction(Some("user"), "Oh no, it's gone"), Some("distress"));
        assert_eq!(reaction(Some("assistant"), "you deleted it"), None);
    }
}
