//! The evidence field of a rule's index document: how much of a task the words of the rule's
//! sessions cover.
//!
//! `evidence(rule) = Σ_{t ∈ task ∩ E(rule)} idf_E(t) x w(rule, t) / Σ_{t ∈ task} idf_E(t)`
//!
//! where `E(rule)` is the rule's evidence vocabulary, `w` a term's weight in it (the strongest
//! is 1), and `idf_E` the BM25 idf over the rules that have a vocabulary. Unlike the rule's own
//! text, every task term counts in the denominator, those no vocabulary holds at the idf of a word
//! one vocabulary holds: a task is covered by a situation only as far as its specific words recur there ("add a
//! unit test for the money formatter" is not covered by a session that ran the tests once).

use super::tables;
use crate::context::bm25;
use crate::context::contrast::Contrast;
use crate::error::Result;
use rusqlite::Connection;
use std::collections::HashMap;

/// A task word held by the vocabularies of more than this share of the rules (and more than
/// [`COMMON_MIN`] of them) is left out of the evidence score.
pub const COMMON_SHARE: f64 = 0.1;
pub const COMMON_MIN: usize = 50;

/// The share of the score a rule keeps when only one task term recurs in its sessions.
pub const SINGLE_TERM: f64 = 0.5;

/// One rule's evidence score and the task terms its sessions hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hit {
    pub score: f64,
    pub matched: Vec<String>,
}

/// The evidence postings of a task's terms.
pub struct Lookup {
    /// (term, [(rule, weight)]) for the task's terms that can be evidence.
    pub postings: Vec<(String, Vec<(String, f64)>)>,
    /// How many rules have a vocabulary.
    pub docs: f64,
}

impl Lookup {
    /// Evidence scores of every rule whose vocabulary holds a looked-up term, each term's idf
    /// weighed by `contrast`.
    pub fn scores(&self, contrast: &Contrast) -> HashMap<String, Hit> {
        combine(&self.postings, self.postings.len(), self.docs, contrast)
    }

    /// What the task's evidence scores are divided by: its terms' idf, weighed by `contrast`.
    pub fn denominator(&self, contrast: &Contrast) -> f64 {
        if self.docs <= 0.0 {
            return 0.0;
        }
        let unseen = bm25::idf(1.0, self.docs);
        self.postings
            .iter()
            .map(|(t, list)| {
                if list.is_empty() {
                    unseen
                } else {
                    contrast.weight(t) * bm25::idf(list.len() as f64, self.docs)
                }
            })
            .sum()
    }

    /// Per rule, `Σ weight(t) x idf_E(t) x w(rule, t)` over these postings and the terms they
    /// hold: the evidence numerator of terms weighed by `weight` (expansions of a task).
    pub fn weighted_sums(
        &self,
        weight: &dyn Fn(&str) -> f64,
    ) -> HashMap<String, (f64, Vec<String>)> {
        let mut out: HashMap<String, (f64, Vec<String>)> = HashMap::new();
        if self.docs <= 0.0 {
            return out;
        }
        for (term, list) in &self.postings {
            let idf = weight(term) * bm25::idf(list.len() as f64, self.docs);
            for (rule, w) in list {
                let e = out.entry(rule.clone()).or_default();
                e.0 += idf * w;
                e.1.push(term.clone());
            }
        }
        out
    }
}

/// Evidence scores of every rule whose vocabulary holds a term of `terms` (distinct), given how
/// many rules have a vocabulary.
pub fn score(conn: &Connection, terms: &[String], docs: f64) -> Result<HashMap<String, Hit>> {
    Ok(lookup(conn, terms, docs)?.scores(&Contrast::none()))
}

/// The evidence postings of `terms` (distinct).
pub fn lookup(conn: &Connection, terms: &[String], docs: f64) -> Result<Lookup> {
    // Words that are never evidence (every session says them, or too short or numeric) do not
    // count against it either; nor does a whole identifier no session holds (its parts are
    // task terms of their own).
    let mut postings = Vec::with_capacity(terms.len());
    if docs > 0.0 {
        for t in terms
            .iter()
            .filter(|t| super::vocabulary::can_be_evidence(t))
        {
            // A word in the vocabulary of a large share of the rules says almost nothing (its
            // idf is near zero) and would cost a read of thousands of postings: reading stops
            // past that share, and the word is left out.
            let common = ((COMMON_SHARE * docs) as usize).max(COMMON_MIN);
            if tables::held_by_more(conn, t, common)? {
                continue;
            }
            let list = tables::postings(conn, t, common + 1)?;
            if list.len() > common {
                continue;
            }
            if list.is_empty() && t.contains(['-', '_', '.']) {
                continue;
            }
            postings.push((t.to_string(), list));
        }
    }
    Ok(Lookup { postings, docs })
}

/// [`score`] over given postings: (term, [(rule, weight)]) for the task's terms that were
/// looked up, of `task_terms` in all, each term's idf weighed by `contrast`.
pub fn combine(
    postings: &[(String, Vec<(String, f64)>)],
    task_terms: usize,
    docs: f64,
    contrast: &Contrast,
) -> HashMap<String, Hit> {
    let mut out: HashMap<String, Hit> = HashMap::new();
    if docs <= 0.0 || task_terms == 0 {
        return out;
    }
    // As the rarest word a vocabulary can hold, so a few rules are not drowned by them.
    let unseen = bm25::idf(1.0, docs);
    let mut denominator = unseen * (task_terms - postings.len()) as f64;
    for (term, list) in postings {
        let c = contrast.weight(term);
        let idf = c * bm25::idf(list.len() as f64, docs);
        denominator += if list.is_empty() { unseen } else { idf };
        for (rule, w) in list {
            let h = out.entry(rule.clone()).or_default();
            h.score += idf * w;
            h.matched.push(term.clone());
        }
    }
    if denominator > 0.0 {
        for h in out.values_mut() {
            // One shared word is a coincidence; two or more are a situation.
            let single = if h.matched.len() < 2 {
                SINGLE_TERM
            } else {
                1.0
            };
            h.score = (single * h.score / denominator).clamp(0.0, 1.0);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(term: &str, rules: &[(&str, f64)]) -> (String, Vec<(String, f64)>) {
        (
            term.into(),
            rules.iter().map(|(r, w)| (r.to_string(), *w)).collect(),
        )
    }

    #[test]
    fn specific_recurring_words_cover_a_task() {
        let postings = vec![
            p("export", &[("jdbc", 1.0)]),
            p("slow", &[("jdbc", 0.6), ("docker", 0.2)]),
            p("cluster", &[("jdbc", 0.4)]),
        ];
        let hits = combine(&postings, 3, 40.0, &Contrast::none());
        assert!(hits["jdbc"].score > 0.6, "{hits:?}");
        assert!(hits["docker"].score < 0.1, "{hits:?}");
        assert_eq!(hits["jdbc"].matched, ["export", "slow", "cluster"]);
    }

    #[test]
    fn words_no_session_holds_weigh_against_the_match() {
        let one = combine(&[p("test", &[("docker", 1.0)])], 1, 40.0, &Contrast::none());
        let diluted = combine(
            &[
                p("test", &[("docker", 1.0)]),
                p("money", &[]),
                p("formatt", &[]),
            ],
            3,
            40.0,
            &Contrast::none(),
        );
        assert!(diluted["docker"].score < one["docker"].score / 2.0);
        assert!(combine(&[], 0, 40.0, &Contrast::none()).is_empty());
        assert!(combine(&[p("x", &[("a", 1.0)])], 1, 0.0, &Contrast::none()).is_empty());
    }
}
