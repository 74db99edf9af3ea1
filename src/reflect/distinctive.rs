//! Which words of a rule can show that its situation occurred in another session. Evidence is
//! a session holding the rule's distinctive terms, never one that merely shares "run", "tests"
//! or "before" with it: every coding session has those. A word is generic when it is
//!
//! - a stop word of the context ranking ([`crate::context::tokenize::is_stop_word`]: function
//!   words and rule boilerplate such as "always", "never", "before"), or a word the phrasing
//!   of rules treats as common ([`super::phrasing::is_common`]);
//! - a word of the work itself ([`WORK`]: run, test, build, file, commit, error, fix, ...),
//!   compared by stem, so "tests", "testing" and "tested" all count as "test";
//! - or, once the history is large enough to say ([`MIN_SESSIONS`]), a word found in more than
//!   half of its sessions: where BM25's inverse document frequency, `ln((N - n + 0.5) /
//!   (n + 0.5))`, is no longer positive, the word tells no session from another.
//!
//! A rule made only of generic words has no evidence at all. Pure: the caller measures how many
//! sessions hold a word.

use crate::context::stem::stem;
use crate::context::tokenize::is_stop_word;

/// The vocabulary of every coding session: words that name the work, not a situation in it.
pub const WORK: &[&str] = &[
    "run",
    "test",
    "build",
    "file",
    "code",
    "command",
    "error",
    "fail",
    "fix",
    "check",
    "commit",
    "push",
    "pull",
    "change",
    "update",
    "add",
    "remove",
    "delete",
    "create",
    "write",
    "read",
    "project",
    "repo",
    "repository",
    "step",
    "output",
    "result",
    "issue",
    "problem",
    "start",
    "finish",
    "done",
    "pass",
    "function",
    "method",
    "line",
    "lines",
    "value",
    "name",
    "call",
];

/// Below this many indexed sessions, "more than half of them" is too few sessions to say a
/// word is common; only the word lists decide.
pub const MIN_SESSIONS: u64 = 10;

/// Whether `word` is generic by the word lists alone.
pub fn listed_generic(word: &str) -> bool {
    let lower = word.to_lowercase();
    if is_stop_word(&lower) || super::phrasing::is_common(&lower) {
        return true;
    }
    let s = stem(&lower);
    WORK.iter().any(|w| stem(w) == s)
}

/// Whether a word found in `with` of `total` sessions is too common to tell them apart.
pub fn common_in_history(with: u64, total: u64) -> bool {
    total >= MIN_SESSIONS && with * 2 > total
}

/// The distinctive words of `words`, in order: not generic by the lists, and not common in a
/// history of `total` sessions, where `sessions_with(word)` counts the sessions holding it (it
/// may stop counting past half of `total`).
pub fn distinctive(
    words: &[String],
    total: u64,
    mut sessions_with: impl FnMut(&str) -> u64,
) -> Vec<String> {
    words
        .iter()
        .filter(|w| !listed_generic(w))
        .filter(|w| total < MIN_SESSIONS || !common_in_history(sessions_with(w), total))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn the_words_of_every_session_are_generic() {
        for w in [
            "run", "Tests", "testing", "before", "always", "pushing", "files", "errors",
        ] {
            assert!(listed_generic(w), "{w}");
        }
        for w in [
            "pnpm",
            "lint",
            "timezone",
            "jest.config.js",
            "structlog",
            "postgres",
        ] {
            assert!(!listed_generic(w), "{w}");
        }
        assert!(distinctive(&words("run tests before pushing"), 0, |_| 0).is_empty());
        assert_eq!(
            distinctive(&words("always run make lint before pushing"), 0, |_| 0),
            vec!["lint"]
        );
    }

    #[test]
    fn a_word_in_most_sessions_of_a_large_history_is_generic() {
        let ws = words("docker postgres");
        let spread = |w: &str| if w == "docker" { 30 } else { 3 };
        assert_eq!(distinctive(&ws, 40, spread), vec!["postgres"]);
        // A small history says nothing of how common a word is.
        assert_eq!(distinctive(&ws, 4, |_| 4), ws);
        assert!(!common_in_history(5, 10) && common_in_history(6, 10));
    }
}
