//! Turning free text into a safe FTS5 query.
//!
//! Users and agents type natural-language questions ("why did the auth tests fail on CI?") or
//! fragments of code and paths. Every term is quoted, so FTS5 operators and punctuation in the
//! input can never change the query's syntax. Function words ("why", "did", "the") are dropped
//! unless nothing else is left: they match nearly every message and only slow the search down.
//! Terms are OR-ed: BM25 then ranks messages holding more (and rarer) terms higher, which suits
//! questions, whose exact words rarely all appear in the one message that answers them. A
//! token with inner punctuation (`src/lib.rs`, `foo-bar`, `v1.2`) becomes a phrase, matching the
//! way the tokenizer split the indexed text.

/// The terms (and phrases) of a query, lowercased and deduplicated, in input order.
pub fn terms(text: &str) -> Vec<String> {
    let mut all: Vec<(String, bool)> = Vec::new();
    for chunk in text.split_whitespace() {
        for term in chunk_terms(chunk) {
            if !all.iter().any(|(t, _)| *t == term) {
                let stop = !term.contains(' ') && is_stopword(&term);
                all.push((term, stop));
            }
        }
    }
    if all.iter().all(|(_, stop)| *stop) {
        return all.into_iter().map(|(t, _)| t).collect();
    }
    all.into_iter()
        .filter(|(_, stop)| !stop)
        .map(|(t, _)| t)
        .collect()
}

/// The FTS5 MATCH expression for `text` (`None` when it holds no searchable word).
pub fn fts_query(text: &str) -> Option<String> {
    let terms = terms(text);
    if terms.is_empty() {
        return None;
    }
    Some(
        terms
            .iter()
            .map(|t| quote(t))
            .collect::<Vec<_>>()
            .join(" OR "),
    )
}

/// A quoted FTS5 string: the only escape is doubling `"`.
fn quote(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

/// Split one whitespace-separated chunk into terms: alphanumeric runs, lowercased. Runs joined by
/// path or identifier punctuation form one phrase; a possessive `'s` is dropped.
fn chunk_terms(chunk: &str) -> Vec<String> {
    let mut runs: Vec<String> = Vec::new();
    let mut joiners: Vec<char> = Vec::new();
    let mut cur = String::new();
    for c in chunk.chars() {
        if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        } else {
            if !cur.is_empty() {
                runs.push(std::mem::take(&mut cur));
                joiners.push(c);
            } else if let Some(last) = joiners.last_mut() {
                *last = if *last == c { c } else { ' ' };
            }
        }
    }
    if !cur.is_empty() {
        runs.push(cur);
        joiners.push(' ');
    }
    // Possessives and contractions: caroline's -> caroline, don't -> don t (both kept as words).
    if runs.len() == 2 && matches!(joiners[0], '\'' | '’') && runs[1] == "s" {
        runs.pop();
    }
    let phrase = runs.len() > 1
        && joiners[..runs.len() - 1]
            .iter()
            .all(|j| matches!(j, '/' | '.' | '-' | '_' | ':' | '\\' | '#' | '@'));
    if phrase {
        return vec![runs.join(" ")];
    }
    runs
}

/// English function words: they carry no topic, match nearly everything, and cost time.
fn is_stopword(w: &str) -> bool {
    const STOP: &[&str] = &[
        "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
        "be", "been", "before", "being", "both", "but", "by", "can", "could", "did", "do", "does",
        "doing", "during", "each", "for", "from", "had", "has", "have", "having", "he", "her",
        "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just",
        "me", "might", "more", "most", "my", "no", "nor", "not", "of", "on", "once", "only", "or",
        "other", "our", "ours", "out", "over", "own", "s", "same", "she", "should", "so", "some",
        "such", "t", "than", "that", "the", "their", "theirs", "them", "then", "there", "these",
        "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was",
        "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
        "with", "would", "you", "your", "yours",
    ];
    STOP.binary_search(&w).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopword_list_is_sorted_for_binary_search() {
        for w in ["the", "a", "yours", "why", "did"] {
            assert!(is_stopword(w), "{w}");
        }
        assert!(!is_stopword("cargo"));
    }

    #[test]
    fn builds_quoted_or_queries() {
        let cases = [
            (
                "Why did the auth tests fail?",
                Some(r#""auth" OR "tests" OR "fail""#),
            ),
            ("src/lib.rs panics", Some(r#""src lib rs" OR "panics""#)),
            ("Caroline's hobby", Some(r#""caroline" OR "hobby""#)),
            (
                r#"NEAR("x" y) AND -z *"#,
                Some(r#""near" OR "x" OR "y" OR "z""#),
            ),
            ("what is it", Some(r#""what" OR "is" OR "it""#)),
            ("  ?!  ", None),
            ("cargo cargo CARGO", Some(r#""cargo""#)),
            ("Émile café", Some(r#""émile" OR "café""#)),
        ];
        for (input, want) in cases {
            assert_eq!(fts_query(input).as_deref(), want, "{input}");
        }
    }

    #[test]
    fn operators_never_leak() {
        // Whatever the input, the query is only quoted terms joined by OR.
        for input in [
            "a\"b", "\"\"\"", "x OR", "NOT y", "col:val", "^start", "(a) {b}",
        ] {
            if let Some(q) = fts_query(input) {
                for part in q.split(" OR ") {
                    assert!(part.starts_with('"') && part.ends_with('"'), "{input}: {q}");
                    assert!(!part[1..part.len() - 1].contains('"'), "{input}: {q}");
                }
            }
        }
    }
}
