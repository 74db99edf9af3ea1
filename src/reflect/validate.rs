//! The validator: a proposed rule weighed against the history. The session's own evidence (the
//! user said it, or the session showed the fix) is enough to keep a rule as a candidate; other
//! sessions where the same situation occurred, and how they ended, are recorded in its
//! provenance. A rule that would carry a secret, or names nothing specific, is rejected.

use super::delta::LessonKind;
use super::phrasing;
use serde::Serialize;

/// Sessions of the history where the rule's situation occurred.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// Other sessions (not the one the rule comes from).
    pub sessions: usize,
    /// Of those with a diary entry: how they ended.
    pub succeeded: usize,
    pub failed: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Added; the situation recurred in the history.
    Accept,
    /// Added as a candidate: this session is the only evidence so far.
    Candidate,
    Reject {
        reason: String,
    },
}

pub fn judge(content: &str, lesson: LessonKind, evidence: &Evidence) -> Verdict {
    if content.contains("[REDACTED") {
        return Verdict::Reject {
            reason: "it would carry a secret from the session".into(),
        };
    }
    if let Some(why) = super::safety::refusal(content) {
        return Verdict::Reject { reason: why.into() };
    }
    if !phrasing::specific(content) {
        return Verdict::Reject {
            reason: "it names nothing specific".into(),
        };
    }
    if lesson == LessonKind::Recurring && evidence.sessions == 0 {
        return Verdict::Reject {
            reason: "the error did not recur".into(),
        };
    }
    if evidence.sessions > 0 {
        Verdict::Accept
    } else {
        Verdict::Candidate
    }
}

/// The provenance line a learned rule carries.
pub fn provenance(
    lesson: LessonKind,
    session: &str,
    line: i64,
    evidence: &Evidence,
    reason: Option<&str>,
) -> String {
    let how = match lesson {
        LessonKind::Correction => "the user corrected the agent",
        LessonKind::Convention => "the user stated a convention",
        LessonKind::Fix => "a failing command passed after this change",
        LessonKind::Recurring => "the same error recurred",
        LessonKind::Model => "the LLM reflector proposed it from the session",
    };
    let mut s = format!("Learned from {session} (line {line}): {how}.");
    if let Some(r) = reason {
        s.push_str(&format!(" Why: {r}."));
    }
    s.push_str(&format!(
        " Evidence: {} other session(s) with this situation ({} succeeded, {} failed).",
        evidence.sessions, evidence.succeeded, evidence.failed
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        let none = Evidence::default();
        let some = Evidence {
            sessions: 2,
            succeeded: 1,
            failed: 1,
        };
        assert_eq!(
            judge(
                "Always run make lint before pushing.",
                LessonKind::Correction,
                &none
            ),
            Verdict::Candidate
        );
        assert_eq!(
            judge(
                "Always run make lint before pushing.",
                LessonKind::Correction,
                &some
            ),
            Verdict::Accept
        );
        assert!(matches!(
            judge(
                "Use [REDACTED:token] for the API.",
                LessonKind::Convention,
                &some
            ),
            Verdict::Reject { .. }
        ));
        assert!(matches!(
            judge("Always do that.", LessonKind::Correction, &some),
            Verdict::Reject { .. }
        ));
        assert!(matches!(
            judge(
                "`npm test` keeps failing with ETIMEDOUT.",
                LessonKind::Recurring,
                &none
            ),
            Verdict::Reject { .. }
        ));
    }
}
