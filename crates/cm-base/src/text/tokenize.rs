//! Text to index terms: lower-case alphanumeric runs, stop words dropped, stemmed.
//!
//! Identifiers are split on punctuation (`auth_token` -> `auth`, `token`) and also kept whole
//! when they contain a separator, so an exact identifier still matches more strongly than its
//! parts. Stop words are the common English function words plus the imperative filler that every
//! rule starts with ("always", "never", "use"): a rule must not look relevant because it shares
//! "the" or "always" with the task.

use super::stem::stem;

/// Function words and rule boilerplate that carry no topic.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "always", "am", "an", "and",
    "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between",
    "both", "but", "by", "can", "could", "did", "do", "does", "doing", "don", "dont", "down",
    "during", "each", "else", "etc", "ever", "every", "few", "for", "from", "further", "get",
    "got", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i",
    "if", "in", "into", "is", "it", "its", "itself", "just", "let", "lets", "like", "make", "may",
    "me", "might", "more", "most", "must", "my", "never", "no", "nor", "not", "now", "of", "off",
    "on", "once", "one", "only", "or", "other", "our", "ours", "out", "over", "own", "please",
    "same", "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their",
    "theirs", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too",
    "under", "until", "up", "us", "use", "used", "using", "very", "via", "was", "we", "were",
    "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
    "you", "your", "yours",
];

/// Whether `word` (lower case) carries no meaning for matching: a function word or rule filler.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// The index terms of `text`, in order, with repeats.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.')) {
        let raw = raw.trim_matches(|c: char| c == '_' || c == '-' || c == '.');
        if raw.is_empty() {
            continue;
        }
        let lower = raw.to_lowercase();
        let parts: Vec<&str> = lower
            .split(['_', '-', '.'])
            .filter(|p| !p.is_empty())
            .collect();
        if parts.len() > 1 {
            // The whole identifier, unstemmed, as one extra term.
            out.push(lower.clone());
        }
        for p in parts {
            push_word(p, &mut out);
        }
    }
    out
}

fn push_word(word: &str, out: &mut Vec<String>) {
    // Strip a possessive or contraction tail: "yesterday's" arrives as "yesterday" + "s".
    if word.len() < 2 || is_stop_word(word) {
        return;
    }
    if word.bytes().all(|b| b.is_ascii_digit()) && word.len() < 3 {
        return;
    }
    out.push(stem(word));
}

/// Distinct terms of a query, in first-seen order.
pub fn query_terms(text: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    terms(text)
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn drops_stop_words_and_stems() {
        assert_eq!(
            terms("Always refresh the auth tokens before timeouts"),
            vec!["refresh", "auth", "token", "timeout"]
        );
        assert!(terms("the and of").is_empty());
    }

    #[test]
    fn identifiers_keep_the_whole_and_the_parts() {
        assert_eq!(
            terms("set AUTH_TOKEN_TTL"),
            vec!["set", "auth_token_ttl", "auth", "token", "ttl"]
        );
        assert_eq!(terms("okhttp"), vec!["okhttp"]);
    }

    #[test]
    fn query_terms_are_distinct() {
        assert_eq!(query_terms("test tests testing"), vec!["test"]);
    }
}
