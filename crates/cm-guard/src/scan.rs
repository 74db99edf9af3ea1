//! Finding trauma candidates in indexed sessions: a destructive command an agent ran, followed
//! within a few messages by the user's distress ("you deleted my...", "undo that") or by
//! recovery work (`git reflog`, restoring a backup).
//!
//! This file holds the detectors only, pure text in and out; the walk over the session index
//! that feeds them belongs to the index (`cm::episodic::trauma_scan`), so the guard links no
//! database.

use once_cell::sync::Lazy;
use regex::Regex;

/// Messages looked at after a destructive command for a reaction.
pub const WINDOW: usize = 12;

/// A destructive command followed by a reaction.
#[derive(Debug, Clone, PartialEq)]
pub struct Incident {
    /// The session it happened in.
    pub session_id: String,
    /// When, as the transcript says.
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
/// Words a destructive command holds, for the index to narrow the messages it hands over.
pub const KEYWORDS: &[&str] = &[
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

/// `s` with secrets redacted, on one line, at most `max` characters.
pub fn shorten(s: &str, max: usize) -> String {
    let (clean, _) = cm_base::redact::redact(s);
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

#[cfg(test)]
mod tests {
    use super::*;

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
