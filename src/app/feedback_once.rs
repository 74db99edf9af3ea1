//! Feedback that counts once: each event's id is derived from what gave it (an outcome, a
//! session's inline comment), so applying the same thing again (a second `cm outcome-apply`
//! after a crash, a session reflected again) finds the event present and changes nothing.

use crate::config::Scoring;
use crate::error::Result;
use crate::memory::bullet::{FeedbackSource, FeedbackType};
use crate::memory::feedback::{self, FeedbackInput};
use crate::memory::playbook::Playbook;

/// One piece of feedback on one rule.
pub struct Once<'a> {
    pub rule: &'a str,
    /// The change as the rule's history names it (`outcome`, `reflect`).
    pub action: &'a str,
    /// What gave it (an outcome id, a session key with the comment): hashed into the event id.
    pub given_by: &'a str,
    pub kind: FeedbackType,
    pub source: FeedbackSource,
    pub reason: Option<&'a str>,
    pub session_path: Option<&'a str>,
    pub now: &'a str,
    pub scoring: &'a Scoring,
    /// The event's weight (`None`: an ordinary mark, 1.0).
    pub weight: Option<f64>,
}

/// What [`give`] did.
#[derive(Debug, Default, PartialEq)]
pub struct Given {
    /// False when the event was already there.
    pub applied: bool,
    /// The rule does not exist.
    pub missing: bool,
    /// Anti-patterns created because the rule crossed the inversion threshold.
    pub inverted: Vec<String>,
}

/// The feedback event id for `given_by` on `rule`.
pub fn event_id(given_by: &str, rule: &str) -> String {
    let h = crate::episodic::index::files::fnv1a(format!("{given_by}\0{rule}").as_bytes());
    format!("fb-{:012x}", h & 0xffff_ffff_ffff)
}

/// Apply `once` inside the transaction `tx`, unless its event is already recorded.
pub fn give(playbook: &Playbook, tx: &rusqlite::Connection, once: &Once) -> Result<Given> {
    let event = event_id(once.given_by, once.rule);
    let mut applied = false;
    let result = playbook.change_in(tx, once.rule, once.action, |b| {
        if b.feedback_events.iter().any(|e| e.id == event) {
            return Ok(Vec::new());
        }
        applied = true;
        let effect = feedback::apply(
            b,
            FeedbackInput {
                kind: once.kind,
                source: once.source,
                reason: once.reason,
                session_path: once.session_path,
                now: once.now,
                weight: once.weight,
            },
            once.scoring,
        );
        if let Some(e) = b.feedback_events.last_mut() {
            e.id = event.clone();
        }
        Ok(effect.inverted_to.into_iter().collect())
    });
    match result {
        Ok((_, created, _)) => Ok(Given {
            applied,
            missing: false,
            inverted: created.into_iter().map(|c| c.id).collect(),
        }),
        Err(e) if e.code == "RULE_NOT_FOUND" => Ok(Given {
            missing: true,
            ..Given::default()
        }),
        Err(e) => Err(e),
    }
}
