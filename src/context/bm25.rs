//! BM25 over bullets: the lexical half of "how relevant is this rule to the task".
//!
//! A bullet is one document with three fields folded into weighted term frequencies: its content
//! (weight 1), its category (1) and its tags (1.5, a tag is a deliberate label). Scores use the
//! standard BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5))). To make a
//! score readable and comparable across queries it is divided by the sum of the query terms' idf
//! (what a document holding each query term once, at average length, would score) and capped at
//! 1: `relevanceScore` is roughly "how much of the task's information this rule covers".

use super::tokenize::terms;
use std::collections::HashMap;

pub const K1: f64 = 1.2;
pub const B: f64 = 0.75;
pub const CONTENT_WEIGHT: f64 = 1.0;
pub const CATEGORY_WEIGHT: f64 = 1.0;
pub const TAG_WEIGHT: f64 = 1.5;

/// The weighted term frequencies of one document and its weighted length.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocTerms {
    pub len: f64,
    pub tf: HashMap<String, f64>,
}

/// Index terms of a bullet's searchable fields.
pub fn doc_terms(content: &str, category: &str, tags: &[String]) -> DocTerms {
    let mut d = DocTerms::default();
    let mut add = |text: &str, w: f64| {
        for t in terms(text) {
            *d.tf.entry(t).or_insert(0.0) += w;
            d.len += w;
        }
    };
    add(content, CONTENT_WEIGHT);
    add(category, CATEGORY_WEIGHT);
    for tag in tags {
        add(tag, TAG_WEIGHT);
    }
    d
}

/// Corpus-wide numbers BM25 needs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stats {
    pub docs: f64,
    pub avg_len: f64,
}

pub fn idf(df: f64, docs: f64) -> f64 {
    (1.0 + (docs - df + 0.5) / (df + 0.5)).ln()
}

/// One term's contribution for a document of length `len` holding it `tf` times.
pub fn term_score(tf: f64, len: f64, idf: f64, stats: Stats) -> f64 {
    if tf <= 0.0 {
        return 0.0;
    }
    let avg = if stats.avg_len > 0.0 {
        stats.avg_len
    } else {
        1.0
    };
    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg))
}

/// A raw BM25 score mapped to [0, 1] by the query's total idf.
pub fn normalize(raw: f64, idf_sum: f64) -> f64 {
    if idf_sum <= 0.0 {
        0.0
    } else {
        (raw / idf_sum).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_weighted() {
        let d = doc_terms("Refresh tokens early", "security", &["auth".into()]);
        assert_eq!(d.tf["refresh"], 1.0);
        assert_eq!(d.tf["secur"], 1.0);
        assert_eq!(d.tf["auth"], 1.5);
        assert_eq!(d.len, 5.5);
    }

    #[test]
    fn rarer_terms_weigh_more_and_scores_saturate() {
        assert!(idf(1.0, 100.0) > idf(50.0, 100.0));
        let s = Stats {
            docs: 100.0,
            avg_len: 10.0,
        };
        let one = term_score(1.0, 10.0, 1.0, s);
        let ten = term_score(10.0, 10.0, 1.0, s);
        assert!(
            (one - 1.0).abs() < 1e-9,
            "one occurrence at avg length scores idf"
        );
        assert!(ten > one && ten < K1 + 1.0);
        // Longer documents score lower for the same tf.
        assert!(term_score(1.0, 40.0, 1.0, s) < one);
    }

    #[test]
    fn normalized_scores_are_bounded() {
        assert_eq!(normalize(5.0, 2.0), 1.0);
        assert_eq!(normalize(1.0, 4.0), 0.25);
        assert_eq!(normalize(1.0, 0.0), 0.0);
    }
}
