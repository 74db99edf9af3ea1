//! Finding trauma candidates in indexed sessions: a destructive command an agent ran, followed
//! within a few messages by the user's distress ("you deleted my...", "undo that") or by
//! recovery work (`git reflog`, restoring a backup).
//!
//! The session index belongs to the episodic module; this file only reads its `messages` table
//! through one small query, adapting to the column names it finds (`PRAGMA table_info`), so it
//! keeps working while that schema settles. Callers pass an open connection; nothing here opens
//! or writes a database.

use once_cell::sync::Lazy;
use regex::Regex;
use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;

/// Messages looked at after a destructive command for a reaction.
pub const WINDOW: usize = 12;

/// How the index names the columns this scan needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Columns {
    pub session: String,
    pub text: String,
    pub role: Option<String>,
    pub timestamp: Option<String>,
    pub tool_args: Option<String>,
    /// Orders messages within a session.
    pub order: String,
}

/// Why the index cannot be scanned.
#[derive(Debug, Clone, PartialEq)]
pub enum Unavailable {
    /// No `messages` table: nothing has been indexed by this build.
    NoMessagesTable,
    /// A `messages` table without a session or text column this scan recognises.
    UnknownLayout(String),
}

fn pick(cols: &[String], names: &[&str]) -> Option<String> {
    names
        .iter()
        .find_map(|n| cols.iter().find(|c| c.eq_ignore_ascii_case(n)).cloned())
}

/// Find the `messages` table (through `sqlite_master`) and map its columns.
pub fn detect(conn: &Connection) -> rusqlite::Result<Result<Columns, Unavailable>> {
    let exists: bool = conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = 'messages')",
        [],
        |r| r.get(0),
    )?;
    if !exists {
        return Ok(Err(Unavailable::NoMessagesTable));
    }
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('messages')")?;
    let cols: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let session = pick(&cols, &["session_id", "session", "conversation_id"]);
    let text = pick(&cols, &["text", "content", "body"]);
    let (Some(session), Some(text)) = (session, text) else {
        return Ok(Err(Unavailable::UnknownLayout(cols.join(", "))));
    };
    Ok(Ok(Columns {
        session,
        text,
        role: pick(&cols, &["role"]),
        timestamp: pick(&cols, &["timestamp", "created_at", "ts", "time"]),
        tool_args: pick(&cols, &["tool_args", "tool_input"]),
        order: pick(&cols, &["seq", "line_number", "idx", "position", "id"])
            .unwrap_or_else(|| "rowid".into()),
    }))
}

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

fn text_of(v: SqlValue) -> Option<String> {
    match v {
        SqlValue::Text(s) => Some(s),
        SqlValue::Blob(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        SqlValue::Integer(i) => Some(i.to_string()),
        SqlValue::Real(f) => Some(f.to_string()),
        SqlValue::Null => None,
    }
}

/// A stored timestamp as RFC 3339: text is kept, integers are read as epoch seconds or ms.
fn timestamp_of(v: SqlValue) -> Option<String> {
    match v {
        SqlValue::Integer(i) => {
            let secs = if i > 100_000_000_000 { i / 1000 } else { i };
            chrono::DateTime::from_timestamp(secs, 0).map(crate::clock::to_rfc3339)
        }
        SqlValue::Real(f) => {
            chrono::DateTime::from_timestamp(f as i64, 0).map(crate::clock::to_rfc3339)
        }
        other => text_of(other),
    }
}

fn q(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

/// Scan the index for incidents in messages newer than `since` (RFC 3339), all when `None`.
/// Returns the incidents and how many candidate commands were examined.
pub fn scan(
    conn: &Connection,
    cols: &Columns,
    since: Option<&str>,
) -> rusqlite::Result<(Vec<Incident>, usize)> {
    let text_expr = match &cols.tool_args {
        Some(a) => format!(
            "coalesce({}, '') || ' ' || coalesce({}, '')",
            q(&cols.text),
            q(a)
        ),
        None => format!("coalesce({}, '')", q(&cols.text)),
    };
    let like = KEYWORDS
        .iter()
        .map(|k| format!("({text_expr}) LIKE '%{k}%'"))
        .collect::<Vec<_>>()
        .join(" OR ");
    let role_filter = cols
        .role
        .as_ref()
        .map(|r| format!(" AND lower(coalesce({}, '')) <> 'user'", q(r)))
        .unwrap_or_default();
    let ts = cols
        .timestamp
        .as_ref()
        .map(|t| q(t))
        .unwrap_or_else(|| "NULL".into());
    let sql = format!(
        "SELECT {s}, {o}, {ts}, {text_expr} FROM messages WHERE ({like}){role_filter} ORDER BY {s}, {o}",
        s = q(&cols.session),
        o = q(&cols.order),
    );
    let mut stmt = conn.prepare(&sql)?;
    let candidates: Vec<(String, SqlValue, Option<String>, String)> = stmt
        .query_map([], |r| {
            Ok((
                text_of(r.get::<_, SqlValue>(0)?).unwrap_or_default(),
                r.get::<_, SqlValue>(1)?,
                timestamp_of(r.get::<_, SqlValue>(2)?),
                r.get::<_, String>(3)?,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;

    let role_col = cols
        .role
        .as_ref()
        .map(|r| q(r))
        .unwrap_or_else(|| "NULL".into());
    let follow_sql = format!(
        "SELECT {role_col}, {text_expr} FROM messages WHERE {s} = ?1 AND {o} > ?2 ORDER BY {o} LIMIT {WINDOW}",
        s = q(&cols.session),
        o = q(&cols.order),
    );
    let mut follow = conn.prepare(&follow_sql)?;
    let mut incidents = Vec::new();
    let mut examined = 0;
    for (session, order, timestamp, text) in candidates {
        if let (Some(since), Some(t)) = (since, timestamp.as_deref())
            && let (Some(a), Some(b)) = (crate::clock::parse(t), crate::clock::parse(since))
            && a < b
        {
            continue;
        }
        let found = destructive(&text);
        if found.is_empty() {
            continue;
        }
        examined += 1;
        let after: Vec<(Option<String>, String)> = follow
            .query_map(rusqlite::params![session, order], |r| {
                Ok((text_of(r.get::<_, SqlValue>(0)?), r.get::<_, String>(1)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let Some((signal, evidence)) = after
            .iter()
            .find_map(|(role, t)| reaction(role.as_deref(), t).map(|s| (s, t)))
        else {
            continue;
        };
        for (label, command, pattern) in found {
            incidents.push(Incident {
                session_id: session.clone(),
                timestamp: timestamp.clone(),
                command: shorten(&command, 200),
                label,
                pattern,
                signal,
                evidence: shorten(evidence, 240),
            });
        }
    }
    Ok((incidents, examined))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(rows: &[(&str, i64, &str, &str)]) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, line_number INTEGER,
             role TEXT, timestamp TEXT, text TEXT, tool_args TEXT)",
        )
        .unwrap();
        for (s, n, role, text) in rows {
            conn.execute(
                "INSERT INTO messages (session_id, line_number, role, timestamp, text) VALUES (?1, ?2, ?3, '2026-11-20T10:00:00Z', ?4)",
                rusqlite::params![s, n, role, text],
            )
            .unwrap();
        }
        conn
    }

    #[test]
    fn no_table_is_reported_not_failed() {
        let conn = Connection::open_in_memory().unwrap();
        assert_eq!(detect(&conn).unwrap(), Err(Unavailable::NoMessagesTable));
    }

    #[test]
    fn finds_a_destructive_command_followed_by_distress() {
        let conn = db(&[
            ("s1", 1, "user", "clean up the data dir"),
            ("s1", 2, "assistant", "Running rm -rf data/ now"),
            ("s1", 3, "user", "what did you do?! you deleted my fixtures"),
            ("s2", 1, "assistant", "git reset --hard origin/main"),
            ("s2", 2, "user", "thanks, looks good"),
            ("s3", 1, "tool", "$ git reset --hard HEAD~1"),
            (
                "s3",
                2,
                "assistant",
                "Let me run git reflog to find the lost commit",
            ),
        ]);
        let cols = detect(&conn).unwrap().unwrap();
        assert_eq!(cols.order, "line_number");
        let (found, examined) = scan(&conn, &cols, None).unwrap();
        assert_eq!(examined, 3);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].session_id, "s1");
        assert_eq!(found[0].signal, "distress");
        let re = Regex::new(&found[0].pattern).unwrap();
        assert!(re.is_match("rm -rf data"));
        assert!(re.is_match("rm -fr data/"));
        assert!(!re.is_match("rm -rf database"));
        assert_eq!(found[1].signal, "recovery");
        assert_eq!(found[1].label, "git reset --hard");
        // A window in the future excludes everything.
        let (found, _) = scan(&conn, &cols, Some("2026-11-25T00:00:00Z")).unwrap();
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
