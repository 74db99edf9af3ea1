//! Contrastive term weights: a task word that the workspace's other situations say just as well
//! is the project's setting, not evidence for any one rule. Pure.
//!
//! The evidence vocabulary of a rule is already weighed against its workspace's other sessions
//! when it is built; this is the same question asked at query time, of the task's own words:
//! how many of the workspace's distinct situations (the session sets of the rules learned or
//! helped there) hold the word? With `N` situations of which `df` hold it,
//!
//! `contrast(t) = max(FLOOR, 1 - (df - 1) / (N - 1))`
//!
//! the share of the *other* situations that do not say it, given that one does: 1 for a word
//! only one situation says, [`FLOOR`] for a word they all say. Fewer than [`MIN_SITUATIONS`]
//! situations are no background (1 for every word). The weight multiplies the term's idf in
//! both the lexical and the evidence coverage (numerator and denominator), so a task made only
//! of setting words keeps its coverage, and a task whose specific words a rule misses is no
//! longer covered by the rule's share of the setting.

use std::collections::{HashMap, HashSet};

/// Fewer situations than this in a workspace are no background.
pub const MIN_SITUATIONS: usize = 3;
/// The weight of a word every situation of the workspace says.
pub const FLOOR: f64 = 0.05;

/// `1 - (df - 1) / (n - 1)`, at least [`FLOOR`]; 1 below [`MIN_SITUATIONS`] or for `df <= 1`.
pub fn specificity(df: usize, n: usize) -> f64 {
    if n < MIN_SITUATIONS || df <= 1 {
        return 1.0;
    }
    let share = (df - 1) as f64 / (n - 1) as f64;
    (1.0 - share).clamp(FLOOR, 1.0)
}

/// Per-term weights of one task in one workspace.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Contrast {
    weights: HashMap<String, f64>,
    /// Distinct situations of the workspace with evidence.
    pub situations: usize,
}

impl Contrast {
    /// No background: every word weighs 1.
    pub fn none() -> Contrast {
        Contrast::default()
    }

    /// Weights from the evidence postings of the task's terms (term, [(rule, weight)]) and the
    /// situation each rule of the workspace belongs to (`situation_of`: rule id -> a key shared
    /// by rules learned from the same sessions). Rules of other workspaces are not background.
    /// `situations` is how many situations the workspace has in all (`situation_of` need only
    /// hold the rules of the postings).
    pub fn of(
        postings: &[(String, Vec<(String, f64)>)],
        situation_of: &HashMap<String, i64>,
        situations: usize,
    ) -> Contrast {
        let counts: Vec<(String, usize)> = postings
            .iter()
            .map(|(term, list)| {
                let df = list
                    .iter()
                    .filter_map(|(rule, _)| situation_of.get(rule))
                    .collect::<HashSet<_>>()
                    .len();
                (term.clone(), df)
            })
            .collect();
        Contrast::from_counts(&counts, situations)
    }

    /// Weights from each term's count of situations holding it, of `situations` in all.
    pub fn from_counts(counts: &[(String, usize)], situations: usize) -> Contrast {
        let mut weights = HashMap::new();
        if situations >= MIN_SITUATIONS {
            for (term, df) in counts {
                let w = specificity(*df, situations);
                if w < 1.0 {
                    weights.insert(term.clone(), w);
                }
            }
        }
        Contrast {
            weights,
            situations,
        }
    }

    /// The weight of `term` (1 unless the workspace's situations share it).
    pub fn weight(&self, term: &str) -> f64 {
        self.weights.get(term).copied().unwrap_or(1.0)
    }

    /// The discounted terms, for `--explain`: (term, weight), by term.
    pub fn discounted(&self) -> Vec<(String, f64)> {
        let mut v: Vec<(String, f64)> = self.weights.iter().map(|(t, w)| (t.clone(), *w)).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(term: &str, rules: &[&str]) -> (String, Vec<(String, f64)>) {
        (
            term.into(),
            rules.iter().map(|r| (r.to_string(), 0.5)).collect(),
        )
    }

    #[test]
    fn the_share_of_other_situations_saying_a_word() {
        assert_eq!(specificity(1, 5), 1.0);
        assert_eq!(specificity(0, 5), 1.0);
        assert!((specificity(3, 5) - 0.5).abs() < 1e-12);
        assert_eq!(specificity(5, 5), FLOOR);
        // Too few situations to tell a setting from a situation.
        assert_eq!(specificity(2, 2), 1.0);
    }

    #[test]
    fn rules_of_one_session_are_one_situation() {
        // a1 and a2 were learned from the same session: "chart" is in two situations of three.
        let situation: HashMap<String, i64> = [("a1", 1), ("a2", 1), ("b", 2), ("c", 3)]
            .iter()
            .map(|(r, s)| (r.to_string(), *s))
            .collect();
        let c = Contrast::of(
            &[
                p("chart", &["a1", "a2", "b"]),
                p("subnet", &["a1", "a2"]),
                p("helm", &["a1", "b", "c", "elsewhere"]),
            ],
            &situation,
            3,
        );
        assert_eq!(c.situations, 3);
        assert!((c.weight("chart") - 0.5).abs() < 1e-12);
        assert_eq!(c.weight("subnet"), 1.0);
        assert_eq!(c.weight("helm"), FLOOR);
        assert_eq!(c.weight("unknown"), 1.0);
        // A workspace of two situations is no background.
        let two: HashMap<String, i64> = [("a1".to_string(), 1), ("b".to_string(), 2)].into();
        assert_eq!(
            Contrast::of(&[p("chart", &["a1", "b"])], &two, 2).weight("chart"),
            1.0
        );
    }
}
