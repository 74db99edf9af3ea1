//! BM25 exactly as FTS5's `bm25()` computes it, from the counts `cm_tf` reports.
//!
//! For each query term: `idf x f x (k1 + 1) / (f + k1 x (1 - b + b x len / avglen))`, where `f`
//! is the term's occurrences weighted by column, `len` the row's tokens over all columns and
//! `avglen` the table's average; `idf = ln((N - n + 0.5) / (n + 0.5))`, floored at 1e-6 for terms
//! in more than half the rows. Summed over terms; higher is better (FTS5 reports the negation).
//! Pure: no I/O, so a test can hold it to FTS5's own numbers.

pub const K1: f64 = 1.2;
pub const B: f64 = 0.75;

/// Inverse document frequency of a term found in `df` of `rows` rows.
pub fn idf(df: f64, rows: f64) -> f64 {
    let v = ((rows - df + 0.5) / (df + 0.5)).ln();
    if v <= 0.0 || !v.is_finite() { 1e-6 } else { v }
}

/// One term's contribution to a row's score.
pub fn term_score(idf: f64, weighted_freq: f64, len: f64, avg_len: f64) -> f64 {
    if weighted_freq <= 0.0 {
        return 0.0;
    }
    let norm = if avg_len > 0.0 { len / avg_len } else { 1.0 };
    idf * (weighted_freq * (K1 + 1.0)) / (weighted_freq + K1 * (1.0 - B + B * norm))
}

/// The largest contribution a term can make (a row made of nothing but the term).
pub fn term_bound(idf: f64, max_weight: f64) -> f64 {
    idf * (K1 + 1.0) * max_weight.max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_terms_weigh_more_and_common_ones_floor() {
        assert!(idf(1.0, 1000.0) > idf(100.0, 1000.0));
        assert_eq!(idf(600.0, 1000.0), 1e-6);
        assert_eq!(idf(0.0, 0.0), 1e-6_f64.max(idf(0.0, 0.0)));
    }

    #[test]
    fn longer_rows_and_absent_terms_score_less() {
        let i = idf(3.0, 100.0);
        assert!(term_score(i, 1.0, 5.0, 10.0) > term_score(i, 1.0, 20.0, 10.0));
        assert!(term_score(i, 3.0, 10.0, 10.0) > term_score(i, 1.0, 10.0, 10.0));
        assert_eq!(term_score(i, 0.0, 10.0, 10.0), 0.0);
        assert!(term_score(i, 50.0, 0.0, 10.0) < term_bound(i, 1.0));
    }
}
