//! From relevance to a ranked answer: effective-score weight, scope and reinforcement boosts,
//! and the split into rules, anti-patterns and deprecated warnings. Pure: no I/O, no clock.
//! A rule (or pitfall) that is deprecated, or live but net harmful (effective score below 0),
//! is never recommended: it appears only among the warnings (`deprecatedWarnings`).
//!
//! `finalScore = relevance x max(0.1, weight(effectiveScore)) x place x reinforcement`, where
//! - `weight(s) = 1 + ln(1 + s)` for `s >= 0` (feedback helps, with diminishing returns: a new
//!   rule weighs 1, one with 3 fresh helpful marks 2.39); a rule below zero is not ranked at
//!   all (it is a warning), so `1 + s/4` (floor 0.1) below zero only bounds the search;
//! - `place` is where the rule was learned against where the task runs ([`super::place`]: 1.5
//!   for rules of this repository, this workspace's scope, or learned here; less for rules of
//!   other workspaces and stacks, which may then need strong relevance to be shown at all);
//! - `reinforcement` is `1 + 0.05 x min(uses, 4)`: each time an agent actually used the rule
//!   (cited its id in a later message of its session, or marked it helpful) adds 5%, up to 20%.

use super::evidence::score::Hit;
use super::place::{self, Here, Places, Verdict};
use super::signals::Signals;
use crate::memory::bullet::{Bullet, maturity_name, type_name};
use serde::Serialize;

pub const WEIGHT_FLOOR: f64 = 0.1;
pub const REINFORCEMENT_STEP: f64 = 0.05;
pub const REINFORCEMENT_MAX_USES: u32 = 4;
/// The share of its text's coverage a rule learned in this workspace keeps in the support its
/// relevance floor is measured by ([`Candidate::situation_support`]).
pub const TEXT_IN_SITUATION: f64 = 0.25;

pub fn weight(effective: f64) -> f64 {
    let w = if effective >= 0.0 {
        1.0 + effective.ln_1p()
    } else {
        1.0 + effective / 4.0
    };
    w.max(WEIGHT_FLOOR)
}

pub fn reinforcement_factor(uses: u32) -> f64 {
    1.0 + REINFORCEMENT_STEP * uses.min(REINFORCEMENT_MAX_USES) as f64
}

pub(crate) fn same_workspace(a: &str, b: &str) -> bool {
    crate::workspace::contains(a, b)
}

/// Everything ranking needs to know about one candidate.
pub struct Candidate {
    pub bullet: Bullet,
    pub from_repo: bool,
    pub relevance: f64,
    pub effective: f64,
    pub uses: u32,
    pub matched: Vec<String>,
    pub semantic: Option<f64>,
    /// What the words of the rule's sessions cover of the task.
    pub evidence: Option<Hit>,
    /// Where the rule was learned or helped.
    pub places: Places,
    /// Every signal behind its relevance.
    pub signals: Signals,
}

impl Candidate {
    /// The place verdict for this candidate where the task runs.
    pub fn place(&self, here: Here) -> Verdict {
        place::verdict(
            &self.bullet,
            self.from_repo,
            &self.places,
            here,
            self.relevance,
            place::Support {
                here: self.situation_support(),
                elsewhere: self.support(),
            },
        )
    }

    /// Its relevance with a single task word shared by its text counted at half (one shared word
    /// is a coincidence, as for its sessions' words): what a rule learned only in other
    /// workspaces is measured by. Its relevance when the signals are unknown.
    pub fn support(&self) -> f64 {
        self.support_with(1.0)
    }

    /// Its support with its text's coverage counted at [`TEXT_IN_SITUATION`]: what the relevance
    /// floor of a rule learned or helped in this workspace is measured by. Such a rule's text
    /// says what its session said (the correction names the tool, the file, the table), so a
    /// task word its text holds is in its evidence vocabulary too and the evidence field counts
    /// it already; counted again at full weight, a task that only names the rule's object
    /// ("show the version on the settings screen" beside "set versions with `npm run
    /// version:set`") passed the floor as if it were the rule's situation.
    pub fn situation_support(&self) -> f64 {
        self.support_with(TEXT_IN_SITUATION)
    }

    fn support_with(&self, text_share: f64) -> f64 {
        let s = &self.signals;
        if s.relevance <= 0.0 {
            return self.relevance;
        }
        let single = if s.matched.len() == 1 {
            super::evidence::score::SINGLE_TERM
        } else {
            1.0
        }
        .min(text_share);
        // A concern met in other words is no more than one shared word: at half, too.
        let widened = super::associate::fuse(
            s.association,
            s.concept * super::evidence::score::SINGLE_TERM,
            0.0,
        );
        let base = super::associate::fuse(s.lexical * single, s.evidence, widened);
        (self.relevance * base / s.relevance).min(self.relevance)
    }

    /// `finalScore` (before the split into lists).
    pub fn final_score(&self, here: Here) -> f64 {
        self.relevance
            * weight(self.effective)
            * self.place(here).factor
            * reinforcement_factor(self.uses)
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RankedBullet {
    pub id: String,
    pub content: String,
    pub category: String,
    #[serde(rename = "type")]
    pub bullet_type: &'static str,
    pub maturity: &'static str,
    pub effective_score: f64,
    pub relevance_score: f64,
    pub final_score: f64,
    pub reasoning: String,
    pub location: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic_score: Option<f64>,
    /// Rules this one contradicts (same topic, opposite advice): read both before following
    /// either.
    pub contradicts: Vec<String>,
    /// Every signal behind its score (shown by `cm context --explain`).
    #[serde(skip)]
    pub signals: Signals,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DeprecatedWarning {
    pub id: String,
    pub content: String,
    pub reason: String,
    pub relevance_score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<String>,
}

#[derive(Debug, Default)]
pub struct Ranked {
    pub rules: Vec<RankedBullet>,
    pub anti_patterns: Vec<RankedBullet>,
    pub deprecated: Vec<DeprecatedWarning>,
}

pub struct Options<'a> {
    pub min_relevance: f64,
    pub limit: usize,
    pub here: Here<'a>,
}

/// A rule's text for output. Rules of the personal store were redacted when they were written
/// (every write path redacts); a repository file may have been edited by hand, or written by
/// whoever wrote the repository, so its rules are redacted again here and lose what reads like
/// instructions to a model (tags, "ignore previous instructions"), in every output, not only
/// the hooks'. Doing this to everything would compile the secret patterns on most calls (about
/// 3 ms, measured), a seventh of the latency budget.
pub fn shown_text(b: &Bullet, from_repo: bool) -> String {
    if from_repo {
        super::sanitize::strip_instructions(&crate::redact::redact(&b.content).0)
    } else {
        b.content.clone()
    }
}

pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Rank candidates. Ties break on id so output is deterministic.
pub fn rank(cands: Vec<Candidate>, opts: &Options) -> Ranked {
    let mut out = Ranked::default();
    let mut live: Vec<(f64, RankedBullet)> = Vec::new();
    let inverted_from: Vec<(String, String)> = cands
        .iter()
        .filter(|c| c.bullet.is_anti_pattern())
        .filter_map(|c| {
            let r = c.bullet.reasoning.as_deref()?;
            let rest = r.strip_prefix("Inverted from harmful rule ")?;
            let orig = rest.split_whitespace().next()?;
            Some((orig.to_string(), c.bullet.id.clone()))
        })
        .collect();
    for c in cands {
        if c.relevance < opts.min_relevance {
            continue;
        }
        let b = &c.bullet;
        // Deprecated, or live but net harmful (its harmful marks outweigh the helpful ones):
        // never recommended, only a warning.
        let warning = if !b.is_live() {
            Some(
                b.deprecation_reason
                    .clone()
                    .unwrap_or_else(|| "deprecated".into()),
            )
        } else if c.effective < 0.0 {
            Some(format!(
                "net harmful: effective score {:.2} ({} helpful / {} harmful)",
                c.effective, b.helpful_count, b.harmful_count
            ))
        } else {
            None
        };
        if let Some(reason) = warning {
            out.deprecated.push(DeprecatedWarning {
                id: b.id.clone(),
                content: shown_text(b, c.from_repo),
                reason,
                relevance_score: round3(c.relevance),
                replaced_by: inverted_from
                    .iter()
                    .find(|(o, _)| *o == b.id)
                    .map(|(_, n)| n.clone()),
            });
            continue;
        }
        let verdict = c.place(opts.here);
        if !verdict.admitted {
            continue;
        }
        let final_score = c.final_score(opts.here);
        let mut why = Vec::new();
        if !c.matched.is_empty() {
            why.push(format!("matches {}", c.matched.join(", ")));
        }
        if let Some(e) = &c.evidence {
            why.push(format!(
                "its sessions mention {} (evidence {:.2})",
                e.matched.join(", "),
                e.score
            ));
        }
        if c.signals.association > 0.0 {
            why.push(format!(
                "its words go with {} (association {:.2})",
                c.signals.association_terms.join(", "),
                c.signals.association
            ));
        }
        if let Some(s) = c.semantic {
            why.push(format!("semantic similarity {:.2}", s));
        }
        if let Some(n) = verdict.note {
            why.push(n);
        }
        why.push(format!(
            "{} helpful / {} harmful",
            b.helpful_count, b.harmful_count
        ));
        if c.uses > 0 {
            why.push(format!(
                "used {} time(s) (cited in a session or marked helpful)",
                c.uses
            ));
        }
        if let Some(r) = &b.reasoning {
            why.push(format!("source: {r}"));
        }
        live.push((
            final_score,
            RankedBullet {
                id: b.id.clone(),
                // Redacted again on the way out: a hand-edited repository file never was.
                content: shown_text(b, c.from_repo),
                category: b.category.clone(),
                bullet_type: type_name(b.bullet_type),
                maturity: maturity_name(b.maturity),
                effective_score: round3(c.effective),
                relevance_score: round3(c.relevance),
                final_score: round3(final_score),
                reasoning: why.join("; "),
                location: if c.from_repo { "repo" } else { "personal" },
                semantic_score: c.semantic.map(round3),
                contradicts: b.contradicts.clone(),
                signals: Signals {
                    relevance: c.relevance,
                    place: verdict.factor,
                    weight: weight(c.effective),
                    reinforcement: reinforcement_factor(c.uses),
                    final_score,
                    ..c.signals.clone()
                }
                .rounded(),
            },
        ));
    }
    live.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
    for (_, r) in live {
        if r.bullet_type == "anti-pattern" {
            if out.anti_patterns.len() < opts.limit {
                out.anti_patterns.push(r);
            }
        } else if out.rules.len() < opts.limit {
            out.rules.push(r);
        }
    }
    out.deprecated.sort_by(|a, b| {
        b.relevance_score
            .total_cmp(&a.relevance_score)
            .then_with(|| a.id.cmp(&b.id))
    });
    out.deprecated.truncate(5);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::bullet::{BulletType, Maturity};

    fn cand(id: &str, rel: f64, eff: f64) -> Candidate {
        Candidate {
            bullet: Bullet {
                id: id.into(),
                content: format!("rule {id}"),
                ..Bullet::default()
            },
            from_repo: false,
            relevance: rel,
            effective: eff,
            uses: 0,
            matched: vec!["x".into()],
            semantic: None,
            evidence: None,
            places: Places::default(),
            signals: Signals::default(),
        }
    }

    fn opts() -> Options<'static> {
        Options {
            min_relevance: 0.1,
            limit: 10,
            here: Here {
                workspace: Some("/w/app"),
                stacks: &[],
            },
        }
    }

    #[test]
    fn weight_function_shape() {
        assert_eq!(weight(0.0), 1.0);
        assert!((weight(3.0) - (1.0 + 4f64.ln())).abs() < 1e-12);
        assert_eq!(weight(-4.0), WEIGHT_FLOOR);
        assert_eq!(weight(-2.0), 0.5);
        assert_eq!(weight(-100.0), WEIGHT_FLOOR);
    }

    #[test]
    fn feedback_and_scope_reorder_equally_relevant_rules() {
        let mut repo = cand("b-repo", 0.5, 0.0);
        repo.from_repo = true;
        let helped = cand("b-helped", 0.5, 3.0);
        let doubted = cand("b-doubted", 0.5, 0.2);
        let plain = cand("b-plain", 0.5, 0.0);
        let r = rank(vec![plain, doubted, helped, repo], &opts());
        let ids: Vec<_> = r.rules.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["b-helped", "b-repo", "b-doubted", "b-plain"]);
    }

    #[test]
    fn a_net_harmful_rule_is_a_warning_never_a_recommendation() {
        let mut hurt = cand("b-hurt", 0.9, -3.0);
        hurt.bullet.helpful_count = 1;
        hurt.bullet.harmful_count = 1;
        let plain = cand("b-plain", 0.5, 0.0);
        let r = rank(vec![hurt, plain], &opts());
        let ids: Vec<_> = r.rules.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["b-plain"]);
        assert_eq!(r.deprecated[0].id, "b-hurt");
        assert_eq!(
            r.deprecated[0].reason,
            "net harmful: effective score -3.00 (1 helpful / 1 harmful)"
        );
    }

    #[test]
    fn workspace_scope_follows_the_workspace() {
        use crate::memory::bullet::Scope;
        let mut mine = cand("b-mine", 0.4, 0.0);
        mine.bullet.scope = Scope::Workspace;
        mine.bullet.scope_key = Some("/w/app".into());
        let mut other = cand("b-other", 0.4, 0.0);
        other.bullet.scope = Scope::Workspace;
        other.bullet.scope_key = Some("/w/elsewhere".into());
        let global = cand("b-global", 0.4, 0.0);
        let mut strong_other = cand("b-strong-other", 0.6, 0.0);
        strong_other.bullet.scope = Scope::Workspace;
        strong_other.bullet.scope_key = Some("/w/elsewhere".into());
        let r = rank(vec![other, global, mine, strong_other], &opts());
        let ids: Vec<_> = r.rules.iter().map(|r| r.id.as_str()).collect();
        // Another workspace's rule needs strong relevance to be shown at all.
        assert_eq!(ids, ["b-mine", "b-global", "b-strong-other"]);
    }

    #[test]
    fn splits_anti_patterns_and_deprecated() {
        let mut old = cand("b-old", 0.6, 0.0);
        old.bullet.deprecated = true;
        old.bullet.maturity = Maturity::Deprecated;
        old.bullet.deprecation_reason = Some("inverted".into());
        let mut anti = cand("b-anti", 0.6, 0.0);
        anti.bullet.bullet_type = BulletType::AntiPattern;
        anti.bullet.reasoning =
            Some("Inverted from harmful rule b-old (3 harmful / 0 helpful): x".into());
        let weak = cand("b-weak", 0.05, 5.0);
        let r = rank(vec![old, anti, weak], &opts());
        assert!(r.rules.is_empty(), "{:?}", r.rules);
        assert_eq!(r.anti_patterns[0].id, "b-anti");
        assert_eq!(r.deprecated[0].id, "b-old");
        assert_eq!(r.deprecated[0].replaced_by.as_deref(), Some("b-anti"));
    }

    #[test]
    fn the_floor_here_counts_the_rules_text_at_a_quarter() {
        // A rule learned in this workspace whose text shares two task words (lexical 0.4) and
        // whose sessions barely cover the task (evidence 0.05).
        let mut c = cand("b-here", 0.43, 0.0);
        c.places = Places {
            workspaces: vec!["/w/app".into()],
            stacks: vec![],
        };
        c.signals = Signals {
            lexical: 0.4,
            matched: vec!["version".into(), "set".into()],
            evidence: 0.05,
            relevance: 0.43,
            ..Signals::default()
        };
        let here_support = c.situation_support();
        assert!(
            (here_support - (1.0 - 0.9 * 0.95)).abs() < 1e-9,
            "{here_support}"
        );
        assert!((c.support() - 0.43).abs() < 1e-9);
        assert!(!c.place(opts().here).admitted);
        // The same rule whose sessions hold the situation is shown.
        c.signals.evidence = 0.2;
        c.relevance = 1.0 - 0.6 * 0.8;
        c.signals.relevance = c.relevance;
        assert!(c.place(opts().here).admitted);
        // Learned elsewhere, its text still counts in full against the strong bar.
        c.places.workspaces = vec!["/w/other".into()];
        assert!(c.place(opts().here).admitted, "{}", c.support());
    }

    #[test]
    fn reinforcement_is_capped() {
        assert_eq!(reinforcement_factor(0), 1.0);
        assert!((reinforcement_factor(2) - 1.1).abs() < 1e-12);
        assert_eq!(reinforcement_factor(50), reinforcement_factor(4));
    }
}
