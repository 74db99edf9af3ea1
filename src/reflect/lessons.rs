//! The deterministic reflector: the deltas a session supports, and nothing from a session that
//! teaches nothing.
//!
//! - What the user said: corrections and stated conventions ([`super::phrasing`]).
//! - What the session showed: a command or test that failed and the change that made it pass
//!   ([`super::fixes`]); the reason is the agent's own explanation when it gave one.
//! - Feedback: inline `[cass: helpful b-...]` / `[cass: harmful b-...] - reason` in the agent's
//!   messages and edits (each rule once per session and verdict), and rule ids the agent says it
//!   followed (helpful only when the session went well).

use super::delta::{Delta, LessonKind};
use super::fixes;
use super::phrasing;
use super::rule_text::MAX;
use super::said;
use super::transcript::{Step, Transcript};

/// Rule ids named in an inline comment or a "following b-..." remark.
fn rule_id_at(s: &str) -> Option<&str> {
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let id = s[..end].trim_end_matches(['-', '_']);
    (id.starts_with("b-") && id.len() >= 6).then_some(id)
}

/// `[cass: helpful b-x]` / `[cass: harmful b-x] - reason` comments in `text`:
/// (helpful?, rule id, reason).
pub fn inline_feedback(text: &str) -> Vec<(bool, String, Option<String>)> {
    let mut out = Vec::new();
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = lower[from..].find("[cass:") {
        let start = from + pos;
        from = start + 6;
        let rest = lower[from..].trim_start();
        let helpful = if rest.starts_with("helpful") {
            true
        } else if rest.starts_with("harmful") {
            false
        } else {
            continue;
        };
        let after_verdict = from + (lower[from..].len() - rest.len()) + 7;
        let tail = text[after_verdict..].trim_start();
        let Some(id) = rule_id_at(tail) else { continue };
        let close = tail[id.len()..].trim_start();
        if !close.starts_with(']') {
            continue;
        }
        let reason = close[1..]
            .trim_start()
            .trim_start_matches(['-', '–', '—', ':'])
            .lines()
            .next()
            .map(|r| {
                let end = ["*/", "-->", "[cass:", "[CASS:"]
                    .iter()
                    .filter_map(|m| r.find(m))
                    .min()
                    .unwrap_or(r.len());
                fixes::clip(r[..end].trim(), 200)
            })
            .filter(|r| !r.is_empty());
        out.push((helpful, id.to_string(), reason));
    }
    out
}

/// Rule ids the agent says it followed ("Following b-8f3a2c, ...", "per b-...").
pub fn followed(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut out: Vec<String> = Vec::new();
    for lead in [
        "following ",
        "followed ",
        "per rule ",
        "applying ",
        "applied ",
        "as per ",
    ] {
        let mut from = 0;
        while let Some(pos) = lower[from..].find(lead) {
            let at = from + pos + lead.len();
            from = at;
            let tail = text[at..]
                .trim_start_matches("rule ")
                .trim_start_matches('`');
            if let Some(id) = rule_id_at(tail)
                && !out.iter().any(|o| o == id)
            {
                out.push(id.to_string());
            }
        }
    }
    out
}

/// The agent's explanation of a failure: its first sentence after the failure that says why.
fn explanation(t: &Transcript, after_line: i64) -> Option<String> {
    const WHY: &[&str] = &[
        "because",
        "the issue",
        "the problem",
        "caused by",
        "root cause",
        "fails when",
        "turns out",
    ];
    t.agent_texts()
        .filter(|(line, _)| *line > after_line)
        .take(3)
        .flat_map(|(_, text)| text.split(['\n', '.']).map(str::trim).collect::<Vec<_>>())
        .find(|s| {
            let l = s.to_lowercase();
            WHY.iter().any(|w| l.contains(w)) && s.len() > 15
        })
        .map(|s| fixes::clip(s, 160))
}

fn category_of(text: &str) -> &'static str {
    let l = text.to_lowercase();
    let has = |ws: &[&str]| ws.iter().any(|w| l.contains(w));
    if has(&["test", "jest", "pytest", "spec", "fixture", "assert"]) {
        "testing"
    } else if has(&["git ", "commit", "branch", "push", "rebase", "merge"]) {
        "git"
    } else if has(&["secret", "token", "password", "credential", "auth"]) {
        "security"
    } else if has(&[
        "deploy", "docker", "ci ", "pipeline", "lint", "build", "make ",
    ]) {
        "workflow"
    } else if has(&["readme", "docs", "comment", "changelog"]) {
        "documentation"
    } else if has(&["slow", "cache", "performance", "latency"]) {
        "performance"
    } else if has(&["error", "fails", "debug", "crash"]) {
        "debugging"
    } else {
        "general"
    }
}

/// Distinctive words of a text, for finding the same situation in other sessions.
pub fn situation_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split(|c: char| c.is_whitespace() || "`'\"(),;:".contains(c)) {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        if w.len() >= 3
            && phrasing::specific(&format!("x y {w}"))
            && !out.iter().any(|o| o.eq_ignore_ascii_case(w))
        {
            out.push(w.to_string());
        }
        if out.len() == 6 {
            break;
        }
    }
    out
}

/// Everything the session supports, in session order. `success`: the session went well (it
/// decides whether "I followed b-..." counts as helpful).
pub fn reflect(t: &Transcript, success: bool, workspace: Option<&str>) -> Vec<Delta> {
    let mut out: Vec<Delta> = Vec::new();
    let push_rule = |out: &mut Vec<Delta>,
                     content: String,
                     lesson: LessonKind,
                     reason: Option<String>,
                     line: i64| {
        if out
            .iter()
            .any(|d| matches!(d, Delta::Add { content: c, .. } if c.eq_ignore_ascii_case(&content)))
        {
            return;
        }
        let situation = situation_words(super::situation::strip(&content));
        out.push(Delta::Add {
            category: category_of(&content).to_string(),
            content,
            lesson,
            reason,
            line,
            situation,
        });
    };
    let (said, objections) = said::read(t, workspace);
    for s in said {
        let about = s.lesson == LessonKind::Correction;
        let rule = super::situation::situated(&s.rule, s.command.as_deref(), about, MAX);
        push_rule(&mut out, rule, s.lesson, None, s.line);
    }
    for f in fixes::failures(t) {
        if f.trivial {
            continue;
        }
        // The user objected to the run that passed ("stop. never delete the lockfile"): what
        // made it pass is what not to do.
        let next_user = t
            .user_texts()
            .map(|(line, _)| line)
            .find(|line| *line > f.fixed_at);
        if next_user.is_some_and(|l| objections.iter().any(|o| o.line == l && o.halts)) {
            continue;
        }
        let reason = explanation(t, f.line);
        if let Some(rule) = super::fix_rule::rule(&f, reason.as_deref(), workspace) {
            // The clause saying when it applies is what a later task finds it by: the error is
            // shortened to make room for it.
            let clause = super::situation::clause(&rule, Some(&f.command), true);
            let rule = match clause {
                Some(c) if rule.chars().count() + c.len() + 2 > MAX => {
                    super::fix_rule::rule_within(
                        &f,
                        reason.as_deref(),
                        workspace,
                        MAX - c.len() - 2,
                    )
                    .unwrap_or(rule)
                }
                _ => rule,
            };
            let rule = super::situation::situated(&rule, Some(&f.command), true, MAX);
            push_rule(&mut out, rule, LessonKind::Fix, reason, f.line);
        }
    }
    // Feedback: once per rule and verdict in a session.
    let mut seen: Vec<(bool, String)> = Vec::new();
    let mut feedback = |out: &mut Vec<Delta>, line: i64, text: &str| {
        for (helpful, rule, reason) in inline_feedback(text) {
            if seen.contains(&(helpful, rule.clone())) {
                continue;
            }
            seen.push((helpful, rule.clone()));
            out.push(if helpful {
                Delta::Helpful {
                    rule,
                    reason,
                    line,
                    via: "inline",
                }
            } else {
                Delta::Harmful { rule, reason, line }
            });
        }
    };
    for step in &t.steps {
        match step {
            Step::Agent { line, text } | Step::User { line, text } => {
                feedback(&mut out, *line, text)
            }
            Step::Tool(run) if run.is_edit() => feedback(&mut out, run.line, &run.added),
            _ => {}
        }
    }
    if success {
        for (line, text) in t.agent_texts() {
            for rule in followed(text) {
                let named = out.iter().any(|d| matches!(d, Delta::Helpful { rule: r, .. } | Delta::Harmful { rule: r, .. } if *r == rule));
                if !named {
                    out.push(Delta::Helpful {
                        rule,
                        reason: Some("the agent followed it in a session that went well".into()),
                        line,
                        via: "followed",
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_comments_are_read_with_their_reasons() {
        let text = "// [cass: helpful b-8f3a2c] - saved a rabbit hole\nx\n/* [cass: harmful b-x7k9p1] - wrong for our setup */ [cass: maybe b-zzzzzz]";
        assert_eq!(
            inline_feedback(text),
            [
                (
                    true,
                    "b-8f3a2c".to_string(),
                    Some("saved a rabbit hole".to_string())
                ),
                (
                    false,
                    "b-x7k9p1".to_string(),
                    Some("wrong for our setup".to_string())
                ),
            ]
        );
        assert_eq!(
            inline_feedback("[CASS: Helpful b-abc123]"),
            [(true, "b-abc123".into(), None)]
        );
        assert_eq!(
            followed("Following b-8f3a2c, I ran the migrations first. Per rule b-77aa11 too."),
            ["b-8f3a2c", "b-77aa11"]
        );
    }

    #[test]
    fn one_comment_counts_once_and_followed_needs_a_good_session() {
        let t = Transcript {
            steps: vec![
                Step::Agent {
                    line: 3,
                    text: "[cass: helpful b-aaaaaa] - right call. Following b-bbbbbb.".into(),
                },
                Step::Agent {
                    line: 9,
                    text: "As noted: [cass: helpful b-aaaaaa]".into(),
                },
            ],
        };
        let d = reflect(&t, true, None);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(reflect(&t, false, None).len(), 1);
    }
}
