//! The offline association layer in rule ranking: a task is widened with the words its own
//! words go with in the user's sessions ([`crate::episodic::assoc::expand`]), and a rule holding
//! those words, in its text or in its sessions' vocabulary, earns an association score.
//!
//! For expansions `e` (at most [`MAX_EXPANSIONS`], each with its association weight `w_e`):
//!
//! `association(rule) = WEIGHT x (Σ_e w_e x bm25_e(rule) / Σ_t idf(t)
//!                               + Σ_e w_e x idf_E(e) x w(rule, e) / Σ_t idf_E(t))`
//!
//! the rule's coverage of the expansions, as a share of the *task's* own terms (the expansions
//! add to what a rule covers, never to what the task asks), at [`WEIGHT`] (an associated word is
//! weaker evidence than the word itself), capped at 1. It joins the lexical and evidence scores
//! in the noisy-or ([`fuse`]). Cost: the expansion (one lookup by key per task term and per
//! expansion) plus the postings of at most four more terms.

use super::contrast::Contrast;
use super::evidence::score::Lookup;
use super::index::Corpus;
use crate::degraded::Issue;
use crate::episodic::assoc::{self, Expansion};
use crate::error::Result;
use std::collections::HashMap;

/// Expansions of a task, at most.
pub const MAX_EXPANSIONS: usize = 4;
/// How much an associated word counts beside the word itself.
pub const WEIGHT: f64 = 0.4;

/// A rule's association score and the expansions it holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Associated {
    pub score: f64,
    pub terms: Vec<String>,
}

/// The widening of one task: its expansions and the rules that hold them.
#[derive(Debug, Default)]
pub struct Widening {
    pub expansions: Vec<Expansion>,
    pub by_rule: HashMap<String, Associated>,
}

/// Relevance from the lexical, evidence and association scores: a noisy-or, so any one can make
/// a rule relevant and agreement makes it more so.
pub fn fuse(lexical: f64, evidence: f64, association: f64) -> f64 {
    let miss = |x: f64| 1.0 - x.clamp(0.0, 1.0);
    1.0 - miss(lexical) * miss(evidence) * miss(association)
}

/// Per-rule association scores from the lexical (`lexical_raw`: rule -> Σ w_e x bm25_e) and
/// evidence (`evidence_sums`) numerators of the expansions, over the task's denominators. Pure.
pub fn combine(
    lexical_raw: &HashMap<String, (f64, Vec<String>)>,
    idf_sum: f64,
    evidence_sums: &HashMap<String, (f64, Vec<String>)>,
    evidence_denominator: f64,
) -> HashMap<String, Associated> {
    let mut out: HashMap<String, Associated> = HashMap::new();
    let parts = [
        (lexical_raw, idf_sum),
        (evidence_sums, evidence_denominator),
    ];
    for (sums, denominator) in parts {
        if denominator <= 0.0 {
            continue;
        }
        for (rule, (sum, terms)) in sums {
            let a = out.entry(rule.clone()).or_default();
            a.score += WEIGHT * sum / denominator;
            for t in terms {
                if !a.terms.contains(t) {
                    a.terms.push(t.clone());
                }
            }
        }
    }
    for a in out.values_mut() {
        a.score = a.score.clamp(0.0, 1.0);
    }
    out
}

/// Widen `terms` through the association layer and score the rules holding the expansions.
/// An unreadable or unbuilt layer widens nothing.
pub fn widen(
    corpus: &Corpus,
    terms: &[String],
    task: &Lookup,
    idf_sum: f64,
    contrast: &Contrast,
) -> Result<Widening> {
    let Some(conn) = corpus.conn() else {
        return Ok(Widening::default());
    };
    let expansions: Vec<Expansion> = match assoc::expand(conn, terms, MAX_EXPANSIONS + 2) {
        Ok(e) => e
            .into_iter()
            .filter(|e| !terms.contains(&e.term))
            .take(MAX_EXPANSIONS)
            .collect(),
        Err(_) => return Ok(Widening::default()),
    };
    if expansions.is_empty() {
        return Ok(Widening::default());
    }
    let weight_of = |t: &str| {
        expansions
            .iter()
            .find(|e| e.term == t)
            .map_or(0.0, |e| e.weight)
    };
    let weighted: Vec<(&str, f64)> = expansions
        .iter()
        .map(|e| (e.term.as_str(), e.weight))
        .collect();
    let (scored, _) = corpus.score_weighted(&weighted, false, false)?;
    let lexical: HashMap<String, (f64, Vec<String>)> = scored
        .into_iter()
        .map(|s| (s.info.id, (s.raw, s.matched)))
        .collect();
    let stems: Vec<String> = expansions.iter().map(|e| e.term.clone()).collect();
    let evidence = corpus.evidence(&stems)?.weighted_sums(&weight_of);
    let by_rule = combine(&lexical, idf_sum, &evidence, task.denominator(contrast));
    Ok(Widening {
        expansions,
        by_rule,
    })
}

/// Fewer messages learned than this: associations are too sparse to widen much.
pub const MIN_MESSAGES: u64 = 200;

/// Why `cm context` could not widen the task through the association layer, if it could not:
/// off by config, no store, no sessions indexed yet, not built yet, behind the index, or learned
/// from too few messages. `hooks_installed` (asked only when it matters) says whether the
/// post-session hook indexes each session as it ends: then a store that is merely young is
/// nothing to fix, and no hint sends the user to install what is already there.
pub fn issue(
    conn: Option<&rusqlite::Connection>,
    enabled: bool,
    hooks_installed: impl FnOnce() -> bool,
) -> Option<Issue> {
    if !enabled {
        return Some(Issue::new(
            "ASSOCIATIONS_OFF",
            "term associations are off (history.associations is false): tasks are not widened with associated words",
            "set history.associations to true in the config, then run `cm history index`",
        ));
    }
    let Some(conn) = conn else {
        return Some(Issue::new(
            "ASSOCIATIONS_NOT_BUILT",
            "no cm store yet: tasks are not widened with associated words",
            "run `cm init`, then `cm history index`",
        ));
    };
    let status = match assoc::status(conn) {
        Ok(s) => s,
        Err(_) => {
            return Some(Issue::new(
                "ASSOCIATIONS_UNREADABLE",
                "the term associations could not be read; tasks are not widened",
                "run `cm history index`; if it persists run `cm doctor`",
            ));
        }
    };
    let nothing_indexed = || {
        !crate::episodic::sessions::tables_present(conn)
            || matches!(crate::episodic::sessions::last_indexed(conn), Ok(None))
    };
    if status.newest == 0 && nothing_indexed() {
        return Some(if hooks_installed() {
            Issue::new(
                "ASSOCIATIONS_NO_SESSIONS",
                "no sessions indexed yet: tasks are not widened with associated words until some are",
                "nothing to install: the post-session hook indexes each session as it ends (`cm history index` brings in past sessions now)",
            )
        } else {
            Issue::new(
                "ASSOCIATIONS_NO_SESSIONS",
                "no sessions indexed yet, and no post-session hook to index them: tasks are not widened with associated words",
                "run `cm hooks install` (each session is then indexed as it ends) and `cm history index` for past sessions",
            )
        });
    }
    if !status.built() {
        return Some(Issue::new(
            "ASSOCIATIONS_NOT_BUILT",
            "term associations have not been learned from the session index yet; tasks are not widened",
            "run `cm history index` (it learns from what is already indexed)",
        ));
    }
    if status.behind() {
        return Some(Issue::new(
            "ASSOCIATIONS_BEHIND",
            "term associations have not learned from the newest indexed messages yet",
            "run `cm history index`",
        ));
    }
    if status.messages >= MIN_MESSAGES || hooks_installed() {
        // Young but growing by itself as sessions end: nothing is missing.
        return None;
    }
    Some(Issue::new(
        "ASSOCIATIONS_SPARSE",
        &format!(
            "term associations are learned from only {} message(s), and no post-session hook indexes new sessions: tasks are widened little",
            status.messages
        ),
        "run `cm hooks install` (each session is then indexed and learned from as it ends); `cm history index` brings in past sessions",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(rows: &[(&str, f64, &[&str])]) -> HashMap<String, (f64, Vec<String>)> {
        rows.iter()
            .map(|(r, s, t)| {
                (
                    r.to_string(),
                    (*s, t.iter().map(|x| x.to_string()).collect()),
                )
            })
            .collect()
    }

    #[test]
    fn expansions_count_at_reduced_weight_against_the_tasks_own_terms() {
        let lexical = sums(&[("a", 2.0, &["destroi"])]);
        let evidence = sums(&[("a", 1.0, &["destroi", "recreat"]), ("b", 0.5, &["moved"])]);
        let got = combine(&lexical, 4.0, &evidence, 2.0);
        assert!((got["a"].score - WEIGHT * (0.5 + 0.5)).abs() < 1e-12);
        assert_eq!(got["a"].terms, ["destroi", "recreat"]);
        assert!((got["b"].score - WEIGHT * 0.25).abs() < 1e-12);
        // No task denominator: nothing to be a share of.
        assert!(combine(&lexical, 0.0, &evidence, 0.0).is_empty());
    }

    #[test]
    fn fusion_is_a_noisy_or() {
        assert_eq!(fuse(0.0, 0.0, 0.0), 0.0);
        assert!((fuse(0.5, 0.5, 0.0) - 0.75).abs() < 1e-12);
        assert!((fuse(0.5, 0.0, 0.5) - 0.75).abs() < 1e-12);
        assert_eq!(fuse(1.0, 0.2, 0.3), 1.0);
    }
}
