//! Finding the rules a new one could be a near-duplicate or a contradiction of, among many,
//! without comparing it with each.
//!
//! Two topics at least `t` alike (Jaccard) share at least `t x max(|A|, |B|)` terms, so with the
//! terms of every topic in one fixed order, the first `|A| - ceil(t x |A|) + 1` terms of A and the
//! first `|B| - ceil(t x |B|) + 1` of B have a term in common (prefix filtering). Each topic is
//! indexed by its prefix terms; a lookup reads the postings of the new topic's prefix and returns
//! every topic that can reach the threshold (and some that cannot; [`Topic::relate`] decides).
//! The order puts rare terms first ([`Rarity`]), so the postings read are short. A batch of
//! 5,000 rules is curated in a fraction of a second, where comparing every pair took minutes.
//! Pure: no I/O.

use super::curate::Topic;
use std::collections::HashMap;

/// How many topics hold each term: the order of prefixes (rarest first, then by term). Every
/// index compared against each other must use the same one.
#[derive(Debug, Default, Clone)]
pub struct Rarity(HashMap<String, u32>);

impl Rarity {
    pub fn of<'a>(topics: impl IntoIterator<Item = &'a Topic>) -> Rarity {
        let mut counts: HashMap<String, u32> = HashMap::new();
        for t in topics {
            for term in &t.terms {
                *counts.entry(term.clone()).or_default() += 1;
            }
        }
        Rarity(counts)
    }

    /// The first `n` terms of `topic` in the shared order.
    fn prefix<'t>(&self, topic: &'t Topic, n: usize) -> Vec<&'t str> {
        let mut terms: Vec<&str> = topic.terms.iter().map(String::as_str).collect();
        terms.sort_by_key(|t| (self.0.get(*t).copied().unwrap_or(0), *t));
        terms.truncate(n);
        terms
    }
}

#[derive(Debug, Default)]
pub struct TopicIndex {
    topics: Vec<Topic>,
    by_term: HashMap<String, Vec<usize>>,
    /// Topics with no terms (only polarity words or stop words): compared with each other.
    empty: Vec<usize>,
    threshold: f64,
    rarity: Rarity,
}

/// How many leading terms of a topic of `n` terms must be indexed (and looked up) so that no
/// pair at least `threshold` alike is missed.
pub fn prefix_len(n: usize, threshold: f64) -> usize {
    if n == 0 {
        return 0;
    }
    if threshold <= 0.0 {
        return n;
    }
    // A hair below the exact product, so rounding never shortens the prefix.
    let must_share = (threshold.min(1.0) * n as f64 - 1e-9).ceil().max(0.0) as usize;
    (n - must_share.min(n) + 1).clamp(1, n)
}

impl TopicIndex {
    pub fn new(threshold: f64, rarity: Rarity) -> TopicIndex {
        TopicIndex {
            threshold,
            rarity,
            ..TopicIndex::default()
        }
    }

    /// Add a topic; returns its position (the caller's key for it).
    pub fn insert(&mut self, topic: Topic) -> usize {
        let at = self.topics.len();
        if topic.terms.is_empty() {
            self.empty.push(at);
        }
        let n = prefix_len(topic.terms.len(), self.threshold);
        for term in self.rarity.prefix(&topic, n) {
            self.by_term.entry(term.to_string()).or_default().push(at);
        }
        self.topics.push(topic);
        at
    }

    pub fn get(&self, at: usize) -> &Topic {
        &self.topics[at]
    }

    pub fn len(&self) -> usize {
        self.topics.len()
    }

    pub fn is_empty(&self) -> bool {
        self.topics.is_empty()
    }

    /// Positions of the topics that may be at least the threshold alike to `topic` (each once,
    /// in insertion order).
    pub fn candidates(&self, topic: &Topic) -> Vec<usize> {
        let mut out: Vec<usize> = if topic.terms.is_empty() {
            self.empty.clone()
        } else {
            let n = prefix_len(topic.terms.len(), self.threshold);
            self.rarity
                .prefix(topic, n)
                .into_iter()
                .filter_map(|t| self.by_term.get(t))
                .flatten()
                .copied()
                .collect()
        };
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curate::Relation;

    #[test]
    fn prefixes_are_long_enough() {
        assert_eq!(prefix_len(0, 0.85), 0);
        assert_eq!(prefix_len(1, 0.85), 1);
        assert_eq!(prefix_len(20, 0.85), 4);
        assert_eq!(prefix_len(10, 0.0), 10);
        assert_eq!(prefix_len(10, 1.0), 1);
    }

    /// The index finds exactly the pairs that comparing every pair finds.
    #[test]
    fn finds_every_related_pair_that_the_full_comparison_finds() {
        let words = [
            "tests",
            "commit",
            "branch",
            "cache",
            "timeout",
            "retry",
            "token",
            "deploy",
            "lint",
            "review",
            "schema",
            "migration",
        ];
        let mut seed: u64 = 11;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let rules: Vec<String> = (0..400)
            .map(|_| {
                let lead = ["Always", "Never", "Prefer", "Avoid", ""][next() % 5];
                let n = 2 + next() % 5;
                let body: Vec<&str> = (0..n).map(|_| words[next() % words.len()]).collect();
                format!("{lead} run {}", body.join(" "))
            })
            .collect();
        let topics: Vec<Topic> = rules.iter().map(|r| Topic::of(r)).collect();
        for (threshold, rarity) in [
            (0.5, Rarity::default()),
            (0.85, Rarity::default()),
            (0.85, Rarity::of(&topics)),
        ] {
            let mut index = TopicIndex::new(threshold, rarity);
            let mut brute: Vec<Topic> = Vec::new();
            for r in &rules {
                let t = Topic::of(r);
                let want: Vec<(usize, Relation)> = brute
                    .iter()
                    .enumerate()
                    .filter_map(|(i, o)| t.relate(o, threshold).map(|rel| (i, rel)))
                    .collect();
                let got: Vec<(usize, Relation)> = index
                    .candidates(&t)
                    .into_iter()
                    .filter_map(|i| t.relate(index.get(i), threshold).map(|rel| (i, rel)))
                    .collect();
                assert_eq!(got, want, "{r} at {threshold}");
                brute.push(t.clone());
                index.insert(t);
            }
        }
    }
}
