//! Applying one piece of feedback to a bullet: the event, the counts, maturity, inversion.
//!
//! Pure: the caller loads and stores. Returning the new anti-pattern (if the feedback tipped the
//! rule over) lets the caller store both in one transaction.

use super::bullet::{
    Bullet, FeedbackEvent, FeedbackSource, FeedbackType, Maturity, State, new_bullet_id,
    new_event_id,
};
use super::scoring;
use cm_base::config::Scoring;

pub struct FeedbackInput<'a> {
    pub kind: FeedbackType,
    pub source: FeedbackSource,
    pub reason: Option<&'a str>,
    pub session_path: Option<&'a str>,
    pub now: &'a str,
    /// The event's weight (`None`: 1.0, an ordinary mark).
    pub weight: Option<f64>,
}

/// What a feedback event changed.
#[derive(Debug)]
pub struct FeedbackEffect {
    pub previous_maturity: Maturity,
    pub event: FeedbackEvent,
    /// The anti-pattern created when the rule was inverted.
    pub inverted_to: Option<Bullet>,
}

pub fn apply(bullet: &mut Bullet, input: FeedbackInput, cfg: &Scoring) -> FeedbackEffect {
    let previous_maturity = bullet.maturity;
    let event = FeedbackEvent {
        id: new_event_id(),
        kind: input.kind,
        timestamp: input.now.to_string(),
        source: input.source,
        session_path: input.session_path.map(str::to_string),
        reason: input.reason.map(str::to_string),
        weight: input.weight.and_then(super::bullet::event_weight),
    };
    bullet.feedback_events.push(event.clone());
    match input.kind {
        FeedbackType::Helpful => bullet.helpful_count += 1,
        FeedbackType::Harmful => bullet.harmful_count += 1,
    }
    bullet.updated_at = input.now.to_string();

    let now = cm_base::clock::parse(input.now).unwrap_or_else(cm_base::clock::now);
    let mut inverted_to = None;
    if input.kind == FeedbackType::Harmful
        && may_invert(bullet)
        && scoring::should_invert(bullet, cfg, now)
    {
        let anti = scoring::make_anti_pattern(bullet, new_bullet_id(), input.now);
        deprecate(
            bullet,
            &format!("inverted into anti-pattern {}", anti.id),
            input.now,
        );
        inverted_to = Some(anti);
    } else {
        // Maturity follows the feedback as it stands, both ways: deprecated by its ratio, and
        // back once helpful marks outweigh it. Only a deliberate deprecation stays.
        scoring::settle(bullet, cfg, now);
    }
    FeedbackEffect {
        previous_maturity,
        event,
        inverted_to,
    }
}

/// A live rule, or one deprecated by its feedback, can still be inverted; one the user retired
/// (or already inverted) cannot.
fn may_invert(bullet: &Bullet) -> bool {
    !scoring::deprecated_on_purpose(bullet)
}

/// Mark a bullet deprecated (explicitly or automatically).
pub fn deprecate(bullet: &mut Bullet, reason: &str, now: &str) {
    bullet.deprecated = true;
    bullet.maturity = Maturity::Deprecated;
    bullet.state = State::Retired;
    bullet.deprecation_reason = Some(reason.to_string());
    bullet.updated_at = now.to_string();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bullet::BulletType;

    fn input(kind: FeedbackType) -> FeedbackInput<'static> {
        FeedbackInput {
            kind,
            source: FeedbackSource::Manual,
            reason: None,
            session_path: None,
            now: "2026-01-01T00:00:00.000Z",
            weight: None,
        }
    }

    #[test]
    fn three_helpful_marks_establish_a_rule() {
        let cfg = Scoring::default();
        let mut b = Bullet {
            id: "b-1".into(),
            content: "Always x".into(),
            ..Bullet::default()
        };
        for _ in 0..3 {
            apply(&mut b, input(FeedbackType::Helpful), &cfg);
        }
        assert_eq!(b.maturity, Maturity::Established);
        assert_eq!(b.feedback_events.len(), 3);
    }

    #[test]
    fn deprecation_by_feedback_is_lifted_by_later_helpful_marks() {
        let cfg = Scoring::default();
        let mut b = Bullet {
            id: "b-1".into(),
            content: "Use the staging database for tests".into(),
            ..Bullet::default()
        };
        for kind in [
            FeedbackType::Helpful,
            FeedbackType::Harmful,
            FeedbackType::Helpful,
        ] {
            apply(&mut b, input(kind), &cfg);
        }
        assert_eq!(b.maturity, Maturity::Deprecated);
        assert!(!b.is_live());
        for _ in 0..40 {
            apply(&mut b, input(FeedbackType::Helpful), &cfg);
        }
        assert_eq!(b.maturity, Maturity::Proven);
        assert!(b.is_live());
        assert_eq!(b.deprecation_reason, None);
    }

    #[test]
    fn three_harmful_marks_invert_the_rule() {
        let cfg = Scoring::default();
        let mut b = Bullet {
            id: "b-1".into(),
            content: "Always cache tokens".into(),
            ..Bullet::default()
        };
        let mut last = None;
        for _ in 0..3 {
            last = apply(&mut b, input(FeedbackType::Harmful), &cfg)
                .inverted_to
                .or(last);
        }
        let anti = last.expect("inverted");
        assert_eq!(anti.bullet_type, BulletType::AntiPattern);
        assert_eq!(anti.content, "PITFALL: Don't cache tokens");
        assert!(b.deprecated);
        assert_eq!(b.maturity, Maturity::Deprecated);
    }
}
