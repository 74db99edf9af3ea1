//! House rules: what this workspace has taught, whatever the task.
//!
//! A rule learned in a repository yesterday ("use pnpm, not npm") applies to the next session
//! there before anyone has said what the session is about, and a task guess built from the
//! repository's name and recent titles rarely names it. So the rules learned or marked helpful
//! in the workspace (or a directory inside it, [`super::evidence::workspace`]) and the rules of
//! its repository playbook (`.cass/playbook.yaml`) are a list of their own: injected at session
//! start before any task guess, and reported by `cm context` as `houseRules`, apart from the
//! matches for the task.
//!
//! Order: `weight(effectiveScore) x reinforcement x recency`, where `recency = 0.5^(age / 90
//! days)` and the age runs from the rule's last sign of life (added, or marked helpful). Out:
//! deprecated or net-harmful rules (effective score below 0), and stale ones (no helpful mark
//! and no sign of life for [`STALE_DAYS`]). A workspace with a handful of rules gets all of
//! them; one with hundreds reads at most [`MAX_IDS`] of them (a random sample by id,
//! [`super::evidence::workspace::sample`]) and loads the [`MAX_LOADED`] with the most helpful
//! marks.

use super::index::{Corpus, DocInfo};
use super::rank;
use crate::config::Scoring;
use crate::error::Result;
use crate::memory::bullet::{maturity_name, type_name};
use chrono::{DateTime, Utc};
use serde::Serialize;

/// House rules `cm context` lists, at most.
pub const CONTEXT_LIMIT: usize = 8;
/// Rules of the workspace read, at most.
pub const MAX_IDS: usize = 200;
/// Rules of the workspace loaded and weighed, at most.
pub const MAX_LOADED: usize = 40;
/// Half-life of a house rule's recency.
pub const HALF_LIFE_DAYS: f64 = 90.0;
/// A rule with no helpful mark and no sign of life for this long is stale.
pub const STALE_DAYS: f64 = 180.0;

/// One house rule, as `cm context` reports it (`houseRules`).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct HouseRule {
    pub id: String,
    pub content: String,
    pub category: String,
    #[serde(rename = "type")]
    pub bullet_type: &'static str,
    pub maturity: &'static str,
    pub effective_score: f64,
    /// The order's score: `weight x reinforcement x recency`.
    pub score: f64,
    /// Why it is a house rule: "of this repository", "learned or helped in this workspace".
    pub reason: &'static str,
    pub location: &'static str,
}

/// The house rules of `workspace`, best first, at most `limit`.
pub fn of_workspace(
    corpus: &Corpus,
    workspace: &str,
    scoring: &Scoring,
    now: DateTime<Utc>,
    limit: usize,
) -> Result<Vec<HouseRule>> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let repo: Vec<&str> = corpus
        .memory
        .iter()
        .filter(|m| m.from_repo)
        .map(|m| m.bullet.id.as_str())
        .collect();
    let mut infos: Vec<DocInfo> = corpus.infos(&repo)?;
    let uses = match corpus.conn() {
        Some(conn) => {
            let ids = super::evidence::workspace::sample(conn, workspace, MAX_IDS)?;
            let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
            let mut found: Vec<DocInfo> = corpus
                .infos(&refs)?
                .into_iter()
                .filter(|i| i.live)
                .collect();
            // The most helpful first (their effective score is bounded by it), then by id.
            found.sort_by(|a, b| {
                b.helpful
                    .total_cmp(&a.helpful)
                    .then_with(|| a.id.cmp(&b.id))
            });
            found.truncate(MAX_LOADED);
            infos.extend(found);
            super::reinforce::all_uses(conn)
        }
        None => Default::default(),
    };
    let mut out: Vec<HouseRule> = Vec::new();
    for info in infos {
        if out.iter().any(|h| h.id == info.id) {
            continue;
        }
        let Some((mut b, from_repo)) = corpus.bullet(&info)? else {
            continue;
        };
        crate::memory::scoring::settle(&mut b, scoring, now);
        let effective = crate::memory::scoring::effective_score(&b, scoring, now);
        if !b.is_live() || effective < 0.0 {
            continue;
        }
        let age = age_days(&b, now);
        if !from_repo && b.helpful_count == 0 && age > STALE_DAYS && !b.pinned {
            continue;
        }
        let used = uses.get(&b.id).copied().unwrap_or(0);
        let score = rank::weight(effective) * rank::reinforcement_factor(used) * recency(age);
        out.push(HouseRule {
            content: rank::shown_text(&b, from_repo),
            id: b.id.clone(),
            category: b.category.clone(),
            bullet_type: type_name(b.bullet_type),
            maturity: maturity_name(b.maturity),
            effective_score: rank::round3(effective),
            score: rank::round3(score),
            reason: if from_repo {
                "of this repository"
            } else {
                "learned or helped in this workspace"
            },
            location: if from_repo { "repo" } else { "personal" },
        });
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    out.truncate(limit);
    Ok(out)
}

/// `0.5^(age / HALF_LIFE_DAYS)`.
pub fn recency(age_days: f64) -> f64 {
    0.5f64.powf(age_days.max(0.0) / HALF_LIFE_DAYS)
}

/// Days since the rule's last sign of life: added, or marked helpful.
fn age_days(b: &crate::memory::bullet::Bullet, now: DateTime<Utc>) -> f64 {
    let helpful = b
        .feedback_events
        .iter()
        .filter(|e| e.kind == crate::memory::bullet::FeedbackType::Helpful)
        .map(|e| e.timestamp.as_str());
    let last = std::iter::once(b.created_at.as_str())
        .chain(helpful)
        .filter_map(crate::clock::parse)
        .max();
    match last {
        Some(t) => (now - t).num_seconds() as f64 / 86_400.0,
        None => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recency_halves_every_ninety_days() {
        assert_eq!(recency(0.0), 1.0);
        assert!((recency(90.0) - 0.5).abs() < 1e-12);
        assert!(recency(-3.0) <= 1.0);
    }
}
