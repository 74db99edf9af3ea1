//! Feedback on one rule (`cm mark`, the MCP `cm_feedback` tool): the rule resolved by id or
//! prefix, the event recorded with its reason redacted, maturity moved, and a rule that kept
//! hurting inverted into an anti-pattern, all in one change of the playbook.

use crate::clock;
use crate::config::Config;
use crate::error::Result;
use crate::memory::bullet::{FeedbackSource, FeedbackType, maturity_name};
use crate::memory::feedback::{self, FeedbackInput};
use crate::memory::playbook::Playbook;
use crate::memory::view::bullet_json;
use crate::output::Report;
use crate::store::Store;
use serde_json::json;
use std::path::Path;

/// One verdict on one rule.
pub struct MarkRequest<'a> {
    /// The rule's id or an unambiguous prefix of it.
    pub id: &'a str,
    /// Helpful or harmful.
    pub kind: FeedbackType,
    /// Who gave it (a person, an outcome, the hook, ...).
    pub source: FeedbackSource,
    /// Why; redacted before it is kept.
    pub reason: Option<&'a str>,
    /// The session the verdict is about, as a session reference.
    pub session: Option<&'a str>,
}

/// Record `req` on the playbook seen from `cwd`; the answer is the rule as it is now, the event,
/// its maturity before and the anti-pattern it was inverted into, if any.
pub fn mark(store: &Store, cfg: &Config, cwd: &Path, req: &MarkRequest) -> Result<Report> {
    let now_t = clock::now();
    let now = clock::to_rfc3339(now_t);
    let reason = req.reason.map(|r| crate::redact::redact(r).0);
    let mut effect_out = None;
    let (b, created, location) = Playbook::open(store, cwd).change(req.id, "mark", |b| {
        let effect = feedback::apply(
            b,
            FeedbackInput {
                kind: req.kind,
                source: req.source,
                reason: reason.as_deref(),
                session_path: req.session,
                now: &now,
                weight: None,
            },
            &cfg.scoring,
        );
        let created = effect.inverted_to.iter().cloned().collect();
        effect_out = Some((effect.previous_maturity, effect.event));
        Ok(created)
    })?;
    let (previous, event) = effect_out.expect("change ran the closure");
    let verdict = if req.kind == FeedbackType::Helpful {
        "helpful"
    } else {
        "harmful"
    };
    let mut human = format!(
        "Marked {} {verdict}: score {:.2}, maturity {}",
        b.id,
        crate::memory::scoring::effective_score(&b, &cfg.scoring, now_t),
        maturity_name(b.maturity)
    );
    if previous != b.maturity {
        human.push_str(&format!(" (was {})", maturity_name(previous)));
    }
    let inverted = created.first();
    if let Some(a) = inverted {
        human.push_str(&format!(
            "\nThe rule kept hurting: it is deprecated and inverted into {}: {}",
            a.id, a.content
        ));
    }
    Ok(Report::new(json!({
        "bullet": bullet_json(&b, &location, &cfg.scoring, now_t),
        "event": event,
        "previousMaturity": maturity_name(previous),
        "invertedTo": inverted.map(|a| bullet_json(a, &location, &cfg.scoring, now_t)),
    }))
    .human(human)
    .quiet(b.id.clone()))
}
