//! What a session is about and whether it is worth learning from, read from its text alone:
//! the gap categories it touches (keyword detection, no model or network), and the user
//! corrections in it. Pure functions, so sampling and `onboard read` agree and tests are cheap.

/// Word stems that suggest each of the ten gap categories. A word of the text matches a stem
/// when it starts with it ("debugg" matches "debugging"), case-insensitively.
pub const CATEGORY_KEYWORDS: &[(&str, &[&str])] = &[
    (
        "debugging",
        &[
            "debug",
            "error",
            "bug",
            "fix",
            "trace",
            "stacktrace",
            "panic",
            "crash",
            "exception",
            "traceback",
            "failing",
            "broken",
        ],
    ),
    (
        "testing",
        &[
            "test", "mock", "assert", "expect", "fixture", "coverage", "jest", "pytest", "vitest",
            "flaky",
        ],
    ),
    (
        "architecture",
        &[
            "architecture",
            "design",
            "module",
            "abstraction",
            "interface",
            "refactor",
            "layer",
            "pattern",
            "dependency",
            "coupling",
        ],
    ),
    (
        "workflow",
        &[
            "workflow", "deploy", "pipeline", "ci", "release", "build", "script", "makefile",
            "docker", "task",
        ],
    ),
    (
        "documentation",
        &[
            "document",
            "docs",
            "readme",
            "comment",
            "docstring",
            "changelog",
            "tutorial",
            "guide",
        ],
    ),
    (
        "integration",
        &[
            "api", "http", "json", "endpoint", "request", "response", "webhook", "client", "rest",
            "graphql", "grpc",
        ],
    ),
    (
        "collaboration",
        &[
            "review",
            "pr",
            "pull",
            "reviewer",
            "team",
            "approve",
            "feedback",
            "convention",
            "teammate",
        ],
    ),
    (
        "git",
        &[
            "git", "commit", "branch", "merge", "rebase", "stash", "cherry", "checkout", "conflict",
        ],
    ),
    (
        "security",
        &[
            "security",
            "auth",
            "token",
            "encrypt",
            "permission",
            "secret",
            "password",
            "credential",
            "vulnerab",
            "csrf",
            "xss",
            "injection",
            "sanitiz",
        ],
    ),
    (
        "performance",
        &[
            "performance",
            "optimiz",
            "cache",
            "caching",
            "latency",
            "profil",
            "benchmark",
            "slow",
            "memory",
            "throughput",
        ],
    ),
];

/// Keyword hits a category needs before a text counts as touching it.
pub const MIN_HITS: usize = 2;

/// Stems shorter than this match whole words only ("ci" must not match "circle").
const WHOLE_WORD_BELOW: usize = 4;

fn stem_matches(word: &str, stem: &str) -> bool {
    if stem.len() < WHOLE_WORD_BELOW {
        word == stem
            || (word.len() == stem.len() + 1 && word.starts_with(stem) && word.ends_with('s'))
    } else {
        word.starts_with(stem)
    }
}

/// Keyword hits per gap category in `text`, in `GAP_CATEGORIES` order.
pub fn category_hits(text: &str) -> Vec<(&'static str, usize)> {
    let mut hits = vec![0usize; CATEGORY_KEYWORDS.len()];
    for word in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 2 && w.len() <= 40)
    {
        let word = word.to_ascii_lowercase();
        for (i, (_, stems)) in CATEGORY_KEYWORDS.iter().enumerate() {
            if stems.iter().any(|s| stem_matches(&word, s)) {
                hits[i] += 1;
            }
        }
    }
    CATEGORY_KEYWORDS
        .iter()
        .zip(hits)
        .map(|((c, _), n)| (*c, n))
        .collect()
}

/// The categories `text` touches (at least [`MIN_HITS`] keyword hits), the most hits first.
pub fn topics(text: &str) -> Vec<&'static str> {
    let mut found: Vec<(&'static str, usize)> = category_hits(text)
        .into_iter()
        .filter(|(_, n)| *n >= MIN_HITS)
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.1));
    found.into_iter().map(|(c, _)| c).collect()
}

/// Openings of a user message that push back on what the agent did.
const CORRECTION_OPENINGS: &[&str] = &[
    "no,",
    "no ",
    "no.",
    "nope",
    "wrong",
    "that's wrong",
    "that is wrong",
    "that's not",
    "that is not",
    "not what",
    "don't",
    "do not",
    "stop",
    "actually",
    "instead",
    "undo",
    "revert",
    "wait,",
    "why did you",
    "you broke",
    "please don't",
    "never ",
];

/// Whether a user message reads as a correction of the agent.
pub fn is_correction(user_text: &str) -> bool {
    let t = user_text.trim_start().to_lowercase();
    let t = t.replace('\u{2019}', "'");
    CORRECTION_OPENINGS.iter().any(|o| t.starts_with(o))
        || t.contains("that's wrong")
        || t.contains("you broke")
        || t.contains("not what i asked")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::bullet::GAP_CATEGORIES;

    #[test]
    fn keywords_cover_exactly_the_gap_categories() {
        let names: Vec<&str> = CATEGORY_KEYWORDS.iter().map(|(c, _)| *c).collect();
        assert_eq!(names, GAP_CATEGORIES);
    }

    #[test]
    fn detects_categories_by_stems() {
        let t = "Debugging the auth token refresh: the tests failed with an error; \
                 the token expired, so the security check rejected it.";
        let found = topics(t);
        assert_eq!(found[0], "security");
        assert!(found.contains(&"debugging"));
        assert!(!found.contains(&"git"));
        assert!(!topics("circle circular").contains(&"workflow"));
        assert!(topics("CI failed; the ci job reran").contains(&"workflow"));
    }

    #[test]
    fn needs_two_hits() {
        assert!(topics("one commit").is_empty());
        assert_eq!(topics("commit then rebase"), ["git"]);
    }

    #[test]
    fn recognises_corrections() {
        assert!(is_correction("No, use the staging database"));
        assert!(is_correction("  Actually run the linter first"));
        assert!(is_correction("That\u{2019}s not what I asked"));
        assert!(!is_correction("Please add a test for the parser"));
        assert!(!is_correction("Nothing else, thanks"));
    }
}
