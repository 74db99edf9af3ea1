//! Whether a rule names something: a word beyond the ones every sentence says (a tool, a file,
//! a practice). The validator refuses a rule that names nothing ("Always do that."); the
//! distinctive-word filter and the starters check use the same list. What the user said is read
//! by [`super::speech`] and [`super::said`].

/// Words so common that a rule made only of them says nothing specific.
const COMMON: &[&str] = &[
    "the",
    "a",
    "an",
    "it",
    "this",
    "that",
    "these",
    "those",
    "to",
    "of",
    "in",
    "on",
    "for",
    "with",
    "at",
    "by",
    "from",
    "up",
    "out",
    "off",
    "over",
    "into",
    "here",
    "there",
    "now",
    "then",
    "just",
    "again",
    "ever",
    "always",
    "never",
    "don't",
    "do",
    "not",
    "no",
    "use",
    "make",
    "sure",
    "be",
    "is",
    "are",
    "was",
    "we",
    "you",
    "i",
    "me",
    "my",
    "our",
    "your",
    "they",
    "them",
    "it's",
    "that's",
    "like",
    "thing",
    "things",
    "stuff",
    "way",
    "work",
    "change",
    "code",
    "do",
    "did",
    "done",
    "good",
    "bad",
    "well",
    "right",
    "wrong",
    "too",
    "again",
    "more",
    "less",
    "any",
    "all",
    "some",
    "what",
    "when",
    "why",
    "how",
    "so",
    "if",
    "or",
    "and",
    "but",
    "one",
    "ask",
    "me",
    "first",
    "try",
    "think",
    "know",
    "want",
    "need",
    "should",
    "can",
    "could",
    "would",
    "will",
    "last",
    "time",
    "same",
    "ugh",
    "anyway",
    "continue",
    "heard",
    "new",
    "old",
    "next",
    "previous",
    "thanks",
    "sorry",
    "everything",
    "let",
    "lets",
    "let's",
    "get",
    "got",
    "go",
];

/// Whether `word` (lower-case) is one of the words so common a rule made of them says nothing.
pub fn is_common(word: &str) -> bool {
    COMMON.contains(&word)
}

/// A rule names something: a word beyond the common ones (a tool, a file, a practice), and at
/// least three words in all.
pub fn specific(rule: &str) -> bool {
    let words: Vec<String> = rule
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    words.len() >= 3
        && words
            .iter()
            .any(|w| w.chars().count() >= 3 && !COMMON.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_must_name_something() {
        assert!(specific("Always run make lint before pushing."));
        assert!(specific("Never commit generated files."));
        for vague in ["Always do that.", "ok, use it", "Don't do it again."] {
            assert!(!specific(vague), "{vague}");
        }
    }
}
