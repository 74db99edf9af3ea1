//! How a new rule relates to one already in the playbook: the same rule, a near-duplicate, or
//! its contradiction. Every way into the playbook that curates (a manual add, a batch add, and
//! the curator of the reflection pipeline) uses these same functions, so "the same rule" means
//! one thing everywhere. Pure text; the caller finds the candidates.
//!
//! - **Normalisation**: case, surrounding quotes, runs of whitespace and trailing punctuation do
//!   not make a rule new ("Always run the tests before committing!!" is the rule without "!!").
//! - **Similarity**: the Jaccard index of the two rules' topics (their words, stemmed, without
//!   the context index's stop words and rule boilerplate such as "always" and "use", and each
//!   pair of neighbouring words, so order counts), after the leading polarity words ("never",
//!   "don't", "avoid", ...) are set aside.
//! - **Polarity**: a rule that starts with a prohibition ("Never", "Don't", "Do not", "Avoid",
//!   ...) says the opposite of one that does not. Two rules of opposite polarity whose topics are
//!   at least `dedupSimilarityThreshold` alike contradict each other; of the same polarity, they
//!   are near-duplicates.

use cm_base::text::stem::stem;
use cm_base::text::tokenize::is_stop_word;
use std::collections::BTreeSet;

/// The text two rules are compared by: lower case, one space between words, no surrounding
/// quotes, no trailing punctuation.
pub fn normalize(text: &str) -> String {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let joined = words.join(" ");
    joined
        .trim_matches(['"', '\'', '`', '“', '”'])
        .trim_end_matches(['.', '!', '?', ';', ':', ',', '…'])
        .trim()
        .to_string()
}

/// Whether a rule tells the reader to do something or not to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Polarity {
    Do,
    Dont,
}

/// Leading words that make a rule a prohibition (checked on normalised text, longest first).
const PROHIBITIONS: &[&str] = &[
    "do not",
    "don't",
    "dont",
    "don’t",
    "must not",
    "mustn't",
    "should not",
    "shouldn't",
    "never",
    "avoid",
    "stop",
    "no longer",
    "no",
];
/// Leading words that only emphasise (set aside like the prohibitions, polarity unchanged).
const EMPHASIS: &[&str] = &["always", "do", "must", "should", "prefer", "please"];

/// The polarity of a normalised rule and its text without the leading polarity words.
pub fn polarity(normalized: &str) -> (Polarity, &str) {
    let mut rest = normalized;
    let mut p = Polarity::Do;
    loop {
        let before = rest;
        for (words, dont) in [(PROHIBITIONS, true), (EMPHASIS, false)] {
            if let Some(w) = words.iter().find(|w| starts_with_word(rest, w)) {
                rest = rest[w.len()..].trim_start_matches([' ', ',', ':']);
                if dont {
                    p = Polarity::Dont;
                }
            }
        }
        if rest == before {
            return (p, rest);
        }
    }
}

fn starts_with_word(text: &str, word: &str) -> bool {
    text.starts_with(word)
        && text[word.len()..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric())
}

/// What a rule is about: its words (lower case, stemmed, stop words and rule boilerplate
/// dropped; unlike the search index, short words and numbers stay: "Python 2" is not
/// "Python 3") and each pair of neighbouring words, so word order counts ("prefer tabs over
/// spaces" is not "prefer spaces over tabs").
fn topic(text: &str) -> BTreeSet<String> {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty() && !is_stop_word(w))
        .map(|w| {
            if w.chars().all(char::is_alphabetic) && w.len() > 2 {
                stem(&w)
            } else {
                w
            }
        })
        .collect();
    let pairs = words.windows(2).map(|p| format!("{} {}", p[0], p[1]));
    let mut out: BTreeSet<String> = pairs.collect();
    out.extend(words);
    out
}

/// A rule as it is compared: normalised, its polarity, and its topic terms (sorted).
#[derive(Debug, Clone, PartialEq)]
pub struct Topic {
    pub normalized: String,
    pub polarity: Polarity,
    /// The polarity-free text (compared when both topics are empty).
    pub rest: String,
    pub terms: Vec<String>,
}

impl Topic {
    pub fn of(text: &str) -> Topic {
        let normalized = normalize(text);
        let (polarity, rest) = polarity(&normalized);
        let rest = rest.to_string();
        let terms = topic(&rest).into_iter().collect();
        Topic {
            normalized,
            polarity,
            rest,
            terms,
        }
    }

    /// How alike two topics are (0 to 1): the Jaccard index of their terms.
    pub fn similarity(&self, other: &Topic) -> f64 {
        if self.terms.is_empty() || other.terms.is_empty() {
            return if self.rest == other.rest { 1.0 } else { 0.0 };
        }
        let (a, b) = (&self.terms, &other.terms);
        let (mut i, mut j, mut shared) = (0, 0, 0usize);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        let shared = shared as f64;
        shared / ((a.len() + b.len()) as f64 - shared)
    }

    /// How `existing` relates to this (new) rule at `threshold`, if at all.
    pub fn relate(&self, existing: &Topic, threshold: f64) -> Option<Relation> {
        if self.normalized == existing.normalized {
            return Some(Relation::Same);
        }
        let sim = self.similarity(existing);
        if sim < threshold {
            return None;
        }
        if self.polarity == existing.polarity {
            Some(Relation::NearDuplicate(sim))
        } else {
            Some(Relation::Contradiction(sim))
        }
    }
}

/// How alike two rules' topics are (0 to 1), polarity words set aside.
pub fn similarity(a: &str, b: &str) -> f64 {
    Topic::of(a).similarity(&Topic::of(b))
}

/// What an existing rule is to a new one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Relation {
    /// The same rule once normalised.
    Same,
    /// Same polarity, topics at least the threshold alike.
    NearDuplicate(f64),
    /// Opposite polarity, topics at least the threshold alike.
    Contradiction(f64),
}

/// How `existing` relates to `new` at `threshold` (config `dedupSimilarityThreshold`), if at all.
pub fn relate(new: &str, existing: &str, threshold: f64) -> Option<Relation> {
    Topic::of(new).relate(&Topic::of(existing), threshold)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "Always run the tests before committing";

    #[test]
    fn punctuation_case_and_emphasis_do_not_make_a_rule_new() {
        for v in [
            "Always run the tests before committing.",
            "Always run the tests before committing!!",
            "always run the tests before committing",
            "  \"Always run  the tests before committing\"  ",
        ] {
            assert_eq!(relate(v, BASE, 0.85), Some(Relation::Same), "{v}");
        }
        assert_eq!(
            relate("Run the tests before committing", BASE, 0.85),
            Some(Relation::NearDuplicate(1.0))
        );
    }

    #[test]
    fn opposite_polarity_on_the_same_topic_is_a_contradiction() {
        for v in [
            "Never run the tests before committing",
            "Don't run the tests before committing",
            "Do not run the tests before committing.",
            "Avoid running the tests before committing",
        ] {
            assert!(
                matches!(relate(v, BASE, 0.85), Some(Relation::Contradiction(_))),
                "{v}: {:?}",
                relate(v, BASE, 0.85)
            );
        }
        assert_eq!(polarity("never use mocks").0, Polarity::Dont);
        assert_eq!(polarity("always use mocks"), (Polarity::Do, "use mocks"));
    }

    #[test]
    fn different_topics_are_unrelated() {
        assert_eq!(relate("Never force-push to main", BASE, 0.85), None);
        assert_eq!(
            relate("Run the linter before committing", BASE, 0.85),
            None,
            "one term in three differs"
        );
        assert!(similarity("Run the linter before committing", BASE) < 0.85);
        assert_eq!(relate("Target Python 3", "Target Python 2", 0.85), None);
        assert_eq!(relate("Rule b", "Rule c", 0.85), None);
        assert_eq!(relate("Worker 0 rule 1", "Worker 1 rule 0", 0.85), None);
        assert_eq!(
            relate("Prefer tabs over spaces", "Prefer spaces over tabs", 0.85),
            None
        );
    }
}
