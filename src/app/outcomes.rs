//! Session outcomes turned into feedback: `cm outcome-apply` today, the post-session reflection
//! later. Each pending outcome is claimed and applied in one transaction, so two runs at once
//! or a crash part-way never apply an outcome twice or half.

use super::feedback_once::{self, Once};
use crate::config::Config;
use crate::config::Scoring;
use crate::error::CmError;
use crate::error::Result;
use crate::memory::bullet::{FeedbackSource, FeedbackType};
use crate::memory::playbook::Playbook;
use crate::memory::tables::outcomes::{self, Outcome};
use crate::output::Report;
use crate::store::Store;
use serde_json::json;
use std::path::Path;

/// One outcome applied by [`apply_pending`].
#[derive(Debug)]
pub struct Applied {
    pub id: String,
    pub status: String,
    pub rules: Vec<String>,
    /// The implicit signals' verdict it was applied with, if it had one.
    pub signals: Option<outcomes::Signals>,
}

/// What [`apply_pending`] did.
#[derive(Debug, Default)]
pub struct Applying {
    pub applied: Vec<Applied>,
    /// Rules named by an outcome that no longer exist.
    pub missing: Vec<String>,
    /// Anti-patterns created because a rule crossed the inversion threshold.
    pub inverted: Vec<String>,
}

/// Apply every pending outcome: `success` becomes helpful feedback and `failure` harmful
/// feedback (source `outcome`) on each rule it used; `mixed` is marked applied and changes no
/// score. An outcome recorded with implicit signals gives the event its signals call for, with
/// their weight, whatever its status.
pub fn apply_pending(
    store: &Store,
    playbook: &Playbook,
    scoring: &Scoring,
    now: impl Fn() -> String,
    which: &Which,
) -> Result<Applying> {
    let mut out = Applying::default();
    let pending: Vec<Outcome> = outcomes::pending(store)?
        .into_iter()
        .filter(|o| {
            which
                .session
                .as_ref()
                .is_none_or(|s| o.session_path.as_ref() == Some(s))
        })
        .take(which.limit.unwrap_or(usize::MAX))
        .collect();
    for o in &pending {
        let now = now();
        let done = store.write(|tx| {
            if !outcomes::claim(tx, &o.id, &now)? {
                return Ok(None);
            }
            let mut effects = Applying::default();
            if let Some(kind) = feedback_kind(o) {
                for rule in &o.rules_used {
                    let one = OneRule {
                        outcome: o,
                        rule,
                        kind,
                        now: &now,
                        scoring,
                    };
                    one.apply(playbook, tx, &mut effects)?;
                }
            }
            Ok(Some(effects))
        })?;
        let Some(effects) = done else { continue };
        out.missing.extend(effects.missing);
        out.inverted.extend(effects.inverted);
        out.applied.push(Applied {
            id: o.id.clone(),
            status: o.status.clone(),
            rules: o.rules_used.clone(),
            signals: o.signals.clone(),
        });
    }
    Ok(out)
}

/// Which pending outcomes to apply: only those of one session, at most `limit` (oldest first).
#[derive(Debug, Default)]
pub struct Which {
    pub session: Option<String>,
    pub limit: Option<usize>,
}

/// Record an outcome for later application.
pub fn record(store: &Store, outcome: &Outcome) -> Result<()> {
    store.write(|tx| outcomes::insert(tx, outcome))
}

/// Discard every pending outcome; returns how many.
pub fn clear_pending(store: &Store) -> Result<usize> {
    store.write(|tx| outcomes::clear_pending(tx))
}

fn feedback_kind(o: &Outcome) -> Option<FeedbackType> {
    if let Some(s) = &o.signals {
        return Some(s.kind);
    }
    match o.status.as_str() {
        "success" => Some(FeedbackType::Helpful),
        "failure" => Some(FeedbackType::Harmful),
        _ => None,
    }
}

/// One outcome's feedback on one rule.
struct OneRule<'a> {
    outcome: &'a Outcome,
    rule: &'a str,
    kind: FeedbackType,
    now: &'a str,
    scoring: &'a Scoring,
}

impl OneRule<'_> {
    /// The event's id is derived from the outcome and the rule, so an outcome already applied
    /// to a rule (a repository rule whose file was written just before a crash, while the claim
    /// rolled back) is recognised and not applied again.
    fn apply(
        &self,
        playbook: &Playbook,
        tx: &rusqlite::Connection,
        effects: &mut Applying,
    ) -> Result<()> {
        let o = self.outcome;
        let mut reason = o
            .summary
            .clone()
            .unwrap_or_else(|| format!("session outcome: {}", o.status));
        if let Some(s) = &o.signals {
            reason.push_str(&format!(" ({})", s.reasons.join(", ")));
        }
        let given = feedback_once::give(
            playbook,
            tx,
            &Once {
                rule: self.rule,
                action: "outcome",
                given_by: &o.id,
                kind: self.kind,
                source: FeedbackSource::Outcome,
                reason: Some(&reason),
                session_path: o.session_path.as_deref(),
                now: self.now,
                scoring: self.scoring,
                weight: o.signals.as_ref().map(|s| s.weight),
            },
        )?;
        if given.missing {
            effects.missing.push(self.rule.to_string());
        }
        effects.inverted.extend(given.inverted);
        Ok(())
    }
}

/// Which pending outcomes `cm outcome-apply` applies.
#[derive(Debug, Default)]
pub struct ApplyRequest {
    /// Only those recorded for this session (its log file or reference).
    pub session: Option<String>,
    /// At most this many, the oldest first.
    pub limit: Option<usize>,
}

/// `cm outcome-apply`: apply the pending outcomes `req` selects, answering with what was
/// applied, the rules that no longer exist and the anti-patterns created.
pub fn apply(store: &Store, cfg: &Config, cwd: &Path, req: &ApplyRequest) -> Result<Report> {
    let args = req;
    if args.limit == Some(0) {
        return Err(
            CmError::usage("INVALID_ARGUMENT", "--limit 0 applies nothing")
                .hint("give --limit 1 or more, or leave it out to apply every pending outcome"),
        );
    }
    let playbook = Playbook::open(store, cwd);
    let which = Which {
        session: args
            .session
            .as_deref()
            .map(|s| crate::paths::session_ref(s, cwd)),
        limit: args.limit,
    };
    let done = apply_pending(
        store,
        &playbook,
        &cfg.scoring,
        crate::clock::now_rfc3339,
        &which,
    )?;
    let applied: Vec<_> = done
        .applied
        .iter()
        .map(|o| {
            let mut a = json!({"id": o.id, "status": o.status, "rules": o.rules});
            if let Some(s) = &o.signals {
                a["type"] = json!(s.kind);
                a["weight"] = json!(s.weight);
                a["reasons"] = json!(s.reasons);
            }
            a
        })
        .collect();
    let (missing, inverted) = (done.missing, done.inverted);
    let count = applied.len();
    let human = if count == 0 {
        "No recorded outcomes to apply.".to_string()
    } else {
        let mut s = format!("Applied {count} outcome(s).");
        if !missing.is_empty() {
            s.push_str(&format!(
                " Skipped rules that no longer exist: {}.",
                missing.join(", ")
            ));
        }
        if !inverted.is_empty() {
            s.push_str(&format!(" New anti-patterns: {}.", inverted.join(", ")));
        }
        s
    };
    Ok(Report::new(json!({"applied": applied, "count": count, "missingRules": missing, "invertedTo": inverted}))
        .human(human)
        .quiet(count.to_string()))
}
