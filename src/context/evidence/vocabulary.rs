//! The words of a situation: from one session's messages to a bounded, weighted vocabulary.
//!
//! A rule is phrased as advice ("set the fetch size in the export queries"); the task that needs
//! it again is phrased as the situation ("the nightly export got slow"). The session the rule
//! was learned from holds the situation's words: what the user asked, the commands run, the
//! files touched, the errors seen. Each message adds its distinct terms once, weighted by who
//! said it (the user's phrasing weighs most, tool output least), so a log that repeats a word
//! a thousand times does not drown the conversation. The strongest [`MAX_TERMS`] are kept.
//! Pure: messages in, terms out.

use crate::context::tokenize;
use std::collections::{HashMap, HashSet};

/// Terms kept per session (and per rule, over all its sessions).
pub const MAX_TERMS: usize = 96;
/// Characters of one message read (the situation is in its head; logs repeat themselves).
pub const MESSAGE_CHARS: usize = 2_000;
/// How many messages either side of trouble count as its surroundings, and how much more they
/// weigh.
pub const TROUBLE_REACH: usize = 2;
pub const TROUBLE_FACTOR: f64 = 3.0;
/// The summed message weight at which a term's evidence weight is one half.
pub const SATURATION: f64 = 3.0;
/// Weight of a user's text message, and of a tool result that did not fail.
pub const USER_WEIGHT: f64 = 6.0;
pub const TOOL_OUTPUT_WEIGHT: f64 = 0.2;
/// Messages of one session read.
pub const MAX_MESSAGES: usize = 600;

/// One stored message as the vocabulary sees it.
pub struct Said<'a> {
    pub role: &'a str,
    pub kind: &'a str,
    pub text: &'a str,
    pub is_error: bool,
}

/// How much a message's words say about the situation. The user's own words weigh most: a
/// later task that needs the rule again is asked the way the user asked then (the goal, the
/// symptom), while the files, tables and services a tool prints are the project's objects,
/// which any task of the project may name (on the recall suites, raising the user's weight from
/// 3 and lowering plain tool output from 0.5 lifted follow-ups and unrelated tasks apart:
/// docs/context.md, "Round 4").
pub fn message_weight(m: &Said) -> f64 {
    match (m.role, m.kind) {
        ("user", "text") => USER_WEIGHT,
        (_, "tool_call") => 0.75,
        (_, "tool_result") if m.is_error => 2.0,
        (_, "tool_result") => TOOL_OUTPUT_WEIGHT,
        (_, "thinking") => 0.5,
        ("assistant", _) => 1.0,
        (_, "scaffolding") => 0.0,
        _ => 0.5,
    }
}

/// Words every coding session says, whatever it is about: the actions of a request ("add",
/// "rename", "fix"), the verbs of conversation, and the generic nouns of a tool run ("file",
/// "error", "output"). As evidence they tie a task to every session, so they are left out of the
/// vocabulary (the rule's own text still matches them).
const SESSION_WORDS: &[&str] = &[
    "actually",
    "add",
    "again",
    "already",
    "anything",
    "ask",
    "back",
    "bit",
    "break",
    "broke",
    "broken",
    "bug",
    "build",
    "call",
    "came",
    "case",
    "change",
    "check",
    "close",
    "code",
    "come",
    "create",
    "delete",
    "done",
    "error",
    "everyone",
    "everything",
    "fail",
    "file",
    "find",
    "first",
    "fix",
    "found",
    "give",
    "go",
    "good",
    "great",
    "help",
    "instead",
    "issue",
    "keep",
    "know",
    "last",
    "line",
    "look",
    "lot",
    "maybe",
    "mean",
    "need",
    "new",
    "next",
    "okay",
    "open",
    "output",
    "part",
    "point",
    "problem",
    "put",
    "read",
    "really",
    "remove",
    "rename",
    "right",
    "run",
    "said",
    "say",
    "see",
    "seem",
    "set",
    "show",
    "someone",
    "something",
    "start",
    "still",
    "sure",
    "take",
    "tell",
    "test",
    "thank",
    "thanks",
    "thing",
    "think",
    "time",
    "today",
    "try",
    "update",
    "want",
    "way",
    "well",
    "work",
    "write",
    "yes",
];

static SESSION_STEMS: once_cell::sync::Lazy<HashSet<String>> = once_cell::sync::Lazy::new(|| {
    SESSION_WORDS
        .iter()
        .map(|w| crate::context::stem::stem(w))
        .collect()
});

/// Whether a term is worth keeping as evidence: not a number, an id, a hash or a word every
/// session says.
fn is_topical(term: &str) -> bool {
    if SESSION_STEMS.contains(term) {
        return false;
    }
    let n = term.chars().count();
    if !(3..=40).contains(&n) {
        return false;
    }
    let digits = term.bytes().filter(u8::is_ascii_digit).count();
    if digits * 2 >= term.len() {
        return false;
    }
    // Hex runs (commit ids, uuids' parts) carry no situation.
    let hexish = term.len() >= 7 && term.bytes().all(|b| b.is_ascii_hexdigit());
    !hexish
}

/// The weighted vocabulary of one session's messages, strongest first, at most [`MAX_TERMS`].
pub fn of_messages(messages: &[Said]) -> Vec<(String, f64)> {
    let messages = &messages[..messages.len().min(MAX_MESSAGES)];
    let trouble = near_trouble(messages);
    let mut score: HashMap<String, f64> = HashMap::new();
    for (i, m) in messages.iter().enumerate() {
        let w = message_weight(m) * if trouble[i] { TROUBLE_FACTOR } else { 1.0 };
        if w <= 0.0 {
            continue;
        }
        let head = head(m.text, MESSAGE_CHARS);
        let mut seen = HashSet::new();
        for t in tokenize::terms(head) {
            if is_topical(&t) && seen.insert(t.clone()) {
                *score.entry(t).or_insert(0.0) += w;
            }
        }
    }
    strongest(score, MAX_TERMS)
}

/// Messages within [`TROUBLE_REACH`] of a failed tool call or a user's correction: where a
/// lesson is learned, and so the words the situation will come back in.
fn near_trouble(messages: &[Said]) -> Vec<bool> {
    let mut out = vec![false; messages.len()];
    for (i, m) in messages.iter().enumerate() {
        let trouble = (m.kind == "tool_result" && m.is_error)
            || (m.role == "user" && m.kind == "text" && i > 0 && is_correction(m.text));
        if trouble {
            let lo = i.saturating_sub(TROUBLE_REACH);
            let hi = (i + TROUBLE_REACH + 1).min(messages.len());
            out[lo..hi].iter_mut().for_each(|x| *x = true);
        }
    }
    out
}

/// Whether a user's message pushes back on what happened ("no,", "still", "wrong", ...).
fn is_correction(text: &str) -> bool {
    let t = text.to_lowercase();
    [
        "no,", "no.", "wrong", "still ", "doesn't", "didn't", "not what", "broke", "again", "slow",
    ]
    .iter()
    .any(|k| t.contains(k))
}

/// Several sessions' vocabularies as one, strongest first: a term's weights combine as a
/// noisy-or (a word of two sessions weighs more than of one, never more than 1).
pub fn merge(parts: &[Vec<(String, f64)>]) -> Vec<(String, f64)> {
    let mut miss: HashMap<String, f64> = HashMap::new();
    for part in parts {
        for (t, w) in part {
            *miss.entry(t.clone()).or_insert(1.0) *= 1.0 - w;
        }
    }
    let mut all: Vec<(String, f64)> = miss
        .into_iter()
        .map(|(t, m)| (t, ((1.0 - m) * 1000.0).round() / 1000.0))
        .collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    all.truncate(MAX_TERMS);
    all
}

/// How many of a workspace's sessions hold each term: what is its setting (the service, the
/// tables, the team's names), which every session of the project mentions, against what one
/// session's situation says.
#[derive(Debug, Default)]
pub struct Background {
    sessions: usize,
    df: HashMap<String, usize>,
}

impl Background {
    pub fn of(vocabularies: &[Vec<(String, f64)>]) -> Background {
        let mut df: HashMap<String, usize> = HashMap::new();
        for v in vocabularies {
            for (t, _) in v {
                *df.entry(t.clone()).or_insert(0) += 1;
            }
        }
        Background {
            sessions: vocabularies.len(),
            df,
        }
    }

    /// `specificity(t) = ln(1 + N / df) / ln(1 + N)` over the workspace's `N` sessions: 1 for a
    /// word only one session says, ln 2 / ln(1 + N) for one they all say.
    pub fn specificity(&self, term: &str) -> f64 {
        let n = self.sessions.max(1) as f64;
        let df = self.df.get(term).copied().unwrap_or(1).max(1) as f64;
        ((1.0 + n / df).ln() / (1.0 + n).ln()).clamp(0.0, 1.0)
    }

    /// A session's vocabulary weighed by specificity, strongest first.
    pub fn specific(&self, terms: &[(String, f64)]) -> Vec<(String, f64)> {
        let mut out: Vec<(String, f64)> = terms
            .iter()
            .map(|(t, w)| {
                (
                    t.clone(),
                    ((w * self.specificity(t)) * 1000.0).round() / 1000.0,
                )
            })
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }
}

/// Whether a task term can count as evidence at all: what [`of_messages`] would keep.
pub fn can_be_evidence(term: &str) -> bool {
    is_topical(term)
}

/// The `k` strongest terms, each weight saturated as `s / (s + SATURATION)`: a word the user
/// said once weighs 2/3, one said in every message approaches 1, so a single long session cannot
/// make its words outweigh the specific ones. Ties broken by the term.
fn strongest(score: HashMap<String, f64>, k: usize) -> Vec<(String, f64)> {
    let mut all: Vec<(String, f64)> = score.into_iter().filter(|(_, w)| *w > 0.0).collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    all.truncate(k);
    for t in all.iter_mut() {
        t.1 = (t.1 / (t.1 + SATURATION) * 1000.0).round() / 1000.0;
    }
    all
}

fn head(text: &str, chars: usize) -> &str {
    match text.char_indices().nth(chars) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said<'a>(role: &'a str, kind: &'a str, text: &'a str) -> Said<'a> {
        Said {
            role,
            kind,
            text,
            is_error: false,
        }
    }

    #[test]
    fn the_users_words_outweigh_repeated_tool_output() {
        let log = "warning ".repeat(500);
        let v = of_messages(&[
            said("user", "text", "the nightly export is slow again"),
            said("tool", "tool_result", &log),
        ]);
        let w = |t: &str| v.iter().find(|x| x.0 == t).map(|x| x.1);
        // Said once by the user: 6 / (6 + 3).
        assert_eq!(w("export"), Some(0.667));
        assert!(w("warn").unwrap() < 0.2, "{v:?}");
    }

    #[test]
    fn numbers_and_hashes_are_not_evidence() {
        let v = of_messages(&[said(
            "user",
            "text",
            "commit 3fe8048a failed at 12345 retries",
        )]);
        let terms: Vec<&str> = v.iter().map(|t| t.0.as_str()).collect();
        assert!(
            terms.contains(&"commit") && terms.contains(&"retri"),
            "{terms:?}"
        );
        assert!(!terms.iter().any(|t| t.starts_with("3fe") || *t == "12345"));
    }

    #[test]
    fn bounded_and_merged() {
        let text: String = (0..200).map(|i| format!("word{i}x ")).collect();
        let v = of_messages(&[said("user", "text", &text)]);
        assert_eq!(v.len(), MAX_TERMS);
        let m = merge(&[
            vec![("a".into(), 0.5)],
            vec![("a".into(), 0.5), ("b".into(), 0.5)],
        ]);
        assert_eq!(m, vec![("a".to_string(), 0.75), ("b".to_string(), 0.5)]);
    }
}
