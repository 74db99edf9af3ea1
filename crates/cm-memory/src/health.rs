//! The playbook's health in figures `cm stats` reports beside its counts: how scores spread,
//! the best rules, the rules close to being deprecated, and pairs of rules that say nearly the
//! same thing (candidates to merge). Pure functions over rules and their scores.

use super::bullet::Bullet;
use super::curate::{Relation, Topic};
use serde::Serialize;
use std::collections::BTreeMap;

/// Live rules by effective score: `negative` (< 0), `neutral` (0 to < 1), `positive` (1 to < 5),
/// `strong` (5 and more).
pub fn score_distribution(scores: &[f64]) -> BTreeMap<&'static str, usize> {
    let mut out: BTreeMap<&'static str, usize> = ["negative", "neutral", "positive", "strong"]
        .into_iter()
        .map(|k| (k, 0))
        .collect();
    for &s in scores {
        let bucket = match s {
            s if s < 0.0 => "negative",
            s if s < 1.0 => "neutral",
            s if s < 5.0 => "positive",
            _ => "strong",
        };
        *out.entry(bucket).or_default() += 1;
    }
    out
}

/// A live rule near deprecation: its score is below zero, or more than a quarter of its marks
/// are harmful (the original's threshold for leaving `established`). Pinned rules never are.
pub fn at_risk(b: &Bullet, score: f64) -> bool {
    let marks = b.helpful_count + b.harmful_count;
    let ratio = if marks == 0 {
        0.0
    } else {
        f64::from(b.harmful_count) / f64::from(marks)
    };
    !b.pinned && (score < 0.0 || ratio > 0.25)
}

/// One rule among the best.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Performer {
    pub id: String,
    pub content: String,
    pub score: f64,
}

/// The `n` live rules with the highest positive scores, best first.
pub fn top_performers(rules: &[(&Bullet, f64)], n: usize) -> Vec<Performer> {
    let mut best: Vec<&(&Bullet, f64)> = rules.iter().filter(|(_, s)| *s > 0.0).collect();
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.id.cmp(&b.0.id)));
    best.into_iter()
        .take(n)
        .map(|(b, s)| Performer {
            id: b.id.clone(),
            content: b.content.clone(),
            score: super::scoring::round3(*s),
        })
        .collect()
}

/// Two live rules that say nearly the same thing.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeCandidate {
    pub ids: [String; 2],
    pub similarity: f64,
}

/// Pairs of live rules of one category with the same polarity whose topics are at least
/// `threshold` alike (config `dedupSimilarityThreshold`), most alike first, at most `limit`.
/// Rules are compared within their category only, which keeps this well under quadratic in
/// the whole playbook.
pub fn merge_candidates(rules: &[&Bullet], threshold: f64, limit: usize) -> Vec<MergeCandidate> {
    let mut by_category: BTreeMap<&str, Vec<(&Bullet, Topic)>> = BTreeMap::new();
    for b in rules {
        by_category
            .entry(b.category.as_str())
            .or_default()
            .push((b, Topic::of(&b.content)));
    }
    let mut out = Vec::new();
    for group in by_category.values() {
        for (i, (a, ta)) in group.iter().enumerate() {
            for (b, tb) in &group[i + 1..] {
                let sim = match ta.relate(tb, threshold) {
                    Some(Relation::Same) => 1.0,
                    Some(Relation::NearDuplicate(s)) => s,
                    _ => continue,
                };
                let mut ids = [a.id.clone(), b.id.clone()];
                ids.sort();
                out.push(MergeCandidate {
                    ids,
                    similarity: super::scoring::round3(sim),
                });
            }
        }
    }
    out.sort_by(|x, y| {
        y.similarity
            .total_cmp(&x.similarity)
            .then_with(|| x.ids.cmp(&y.ids))
    });
    out.truncate(limit);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_fall_in_one_bucket_each() {
        let d = score_distribution(&[-2.0, 0.0, 0.5, 1.0, 4.9, 5.0, 12.0]);
        assert_eq!(
            d.into_iter().collect::<Vec<_>>(),
            vec![
                ("negative", 1),
                ("neutral", 2),
                ("positive", 2),
                ("strong", 2)
            ]
        );
    }
}
