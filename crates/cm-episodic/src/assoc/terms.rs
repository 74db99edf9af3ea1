//! The terms a message teaches: the stems the rule index uses ([`cm_base::text::stem`]), each
//! with a form seen in the text (what the full-text index is searched with: its own tokenizer
//! stems it the same way).
//!
//! A hyphenated word (`de-stress`, `self-care`) gives its parts, as the full-text tokenizer
//! splits them, and also the joined word as a term of its own whose form is the hyphenated one:
//! so a query saying `destress` learns, from the index alone, that the text writes `de-stress`.

use cm_base::text::stem::stem;
use cm_base::text::tokenize::is_stop_word;

/// Distinct terms learned from one message, at most (its first ones): bounds the pairs a long
/// message adds to `MAX_TERMS * (MAX_TERMS - 1) / 2`.
pub const MAX_TERMS: usize = 12;

/// A term of a message: the stem and the form it was seen in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    pub stem: String,
    pub word: String,
}

/// Whether a lower-case word is worth learning: not a function word, not a number, not a
/// fragment or a blob.
pub fn learnable(word: &str) -> bool {
    let n = word.chars().count();
    (3..=24).contains(&n)
        && !is_stop_word(word)
        && !word.bytes().all(|b| b.is_ascii_digit())
        && word.chars().any(|c| c.is_alphabetic())
}

/// The distinct learnable terms of `text`, in first-seen order, at most [`MAX_TERMS`].
pub fn of_text(text: &str) -> Vec<Term> {
    let mut out: Vec<Term> = Vec::new();
    let push = |word: &str, shown: &str, out: &mut Vec<Term>| {
        if out.len() >= MAX_TERMS || !learnable(word) {
            return;
        }
        let s = stem(word);
        if !out.iter().any(|t| t.stem == s) {
            out.push(Term {
                stem: s,
                word: shown.to_string(),
            });
        }
    };
    for token in text.split(|c: char| !(c.is_alphanumeric() || c == '-')) {
        let token = token.trim_matches('-');
        if token.is_empty() {
            continue;
        }
        let lower = token.to_lowercase();
        let parts: Vec<&str> = lower.split('-').filter(|p| !p.is_empty()).collect();
        if parts.len() == 2 && parts.iter().all(|p| p.chars().all(char::is_alphabetic)) {
            let joined = parts.concat();
            push(&joined, &parts.join("-"), &mut out);
        }
        for p in parts {
            push(p, p, &mut out);
        }
        if out.len() >= MAX_TERMS {
            break;
        }
    }
    out
}

/// The stem a query word is looked up by.
pub fn of_query_word(word: &str) -> String {
    let joined: String = word.split([' ', '-']).collect();
    stem(&joined.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stems(text: &str) -> Vec<String> {
        of_text(text).into_iter().map(|t| t.stem).collect()
    }

    #[test]
    fn stems_distinct_content_words() {
        assert_eq!(
            stems("Painting sunsets: I painted the sunset twice, 2023"),
            vec!["paint", "sunset", "twice"]
        );
        assert_eq!(of_text("Refreshing")[0].word, "refreshing");
    }

    #[test]
    fn hyphenated_words_give_parts_and_the_joined_word() {
        let t = of_text("running to de-stress");
        let joined = t.iter().find(|t| t.stem == "destress").unwrap();
        assert_eq!(joined.word, "de-stress");
        assert!(t.iter().any(|t| t.stem == "stress"));
        assert_eq!(of_query_word("destress"), "destress");
        assert_eq!(of_query_word("de stress"), "destress");
    }

    #[test]
    fn long_messages_are_capped() {
        let text: Vec<String> = (0..100).map(|i| format!("word{i}x")).collect();
        assert_eq!(of_text(&text.join(" ")).len(), MAX_TERMS);
        assert!(of_text("the and 42 a x").is_empty());
    }
}
