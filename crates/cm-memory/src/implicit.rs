//! An outcome's implicit signals turned into one weighted feedback event.
//!
//! A session that ended in success after ten minutes with no errors says more for the rules it
//! used than one that succeeded after two hours and three retries. `cm outcome --duration
//! --errors --retries --sentiment --text` scores those signals the way the original's outcome
//! command does, so a user moving over gets the same verdicts: each signal adds to a helpful or
//! a harmful sum, the larger sum (helpful on a tie) decides the event's type, and that sum,
//! clamped to [0.1, 2.0], is its weight. The weight multiplies the event's decayed value in the
//! score ([`super::scoring`]).
//!
//! Pure: the signals in, the verdict out.

use super::bullet::FeedbackType;
use serde::{Deserialize, Serialize};

/// A session shorter than this (and not a failure) counts as fast.
pub const FAST_SECS: f64 = 600.0;
/// A session longer than this counts as slow.
pub const SLOW_SECS: f64 = 3600.0;
/// The least and most one event can weigh.
pub const MIN_WEIGHT: f64 = 0.1;
pub const MAX_WEIGHT: f64 = 2.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sentiment {
    Positive,
    Negative,
    Neutral,
}

impl Sentiment {
    pub fn parse(s: &str) -> Option<Sentiment> {
        match s.trim().to_ascii_lowercase().as_str() {
            "positive" => Some(Sentiment::Positive),
            "negative" => Some(Sentiment::Negative),
            "neutral" => Some(Sentiment::Neutral),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Sentiment::Positive => "positive",
            Sentiment::Negative => "negative",
            Sentiment::Neutral => "neutral",
        }
    }
}

/// What the session's end looked like, beyond its status.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Signals {
    pub duration_secs: Option<f64>,
    pub errors: Option<u64>,
    pub retries: Option<u64>,
    pub sentiment: Option<Sentiment>,
}

/// The event the signals call for.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub kind: FeedbackType,
    pub weight: f64,
    /// Which signals counted, in the order they were weighed (`success`, `fast`, `errors>=2`).
    pub reasons: Vec<&'static str>,
}

/// Score an outcome: `status` is `success`, `failure` or `mixed` (`partial` is the same).
pub fn score(status: &str, s: &Signals) -> Verdict {
    let (mut helpful, mut harmful) = (0.0f64, 0.0f64);
    let mut reasons = Vec::new();
    let failure = status == "failure";
    match status {
        "success" => {
            helpful += 1.0;
            reasons.push("success");
        }
        "failure" => {
            harmful += 1.0;
            reasons.push("failure");
        }
        _ => {
            helpful += 0.1;
            harmful += 0.1;
            reasons.push("mixed");
        }
    }
    if let Some(d) = s.duration_secs {
        if d > 0.0 && d < FAST_SECS && !failure {
            helpful += 0.5;
            reasons.push("fast");
        } else if d > SLOW_SECS {
            harmful += 0.3;
            reasons.push("slow");
        }
    }
    match s.errors {
        Some(n) if n >= 2 => {
            harmful += 0.7;
            reasons.push("errors>=2");
        }
        Some(1) => {
            harmful += 0.3;
            reasons.push("error");
        }
        _ => {}
    }
    if s.retries.is_some_and(|n| n > 0) {
        harmful += 0.5;
        reasons.push("retries");
    }
    match s.sentiment {
        Some(Sentiment::Positive) => {
            helpful += 0.3;
            reasons.push("sentiment+");
        }
        Some(Sentiment::Negative) => {
            harmful += 0.5;
            reasons.push("sentiment-");
        }
        _ => {}
    }
    let (kind, sum) = if helpful >= harmful {
        (FeedbackType::Helpful, helpful)
    } else {
        (FeedbackType::Harmful, harmful)
    };
    Verdict {
        kind,
        weight: sum.clamp(MIN_WEIGHT, MAX_WEIGHT),
        reasons,
    }
}

const POSITIVE_CUES: &[&str] = &[
    "that worked",
    "perfect",
    "thanks",
    "great",
    "exactly what i needed",
    "solved it",
];
const NEGATIVE_CUES: &[&[&str]] = &[
    &["that's wrong", "that is wrong"],
    &["doesn't work"],
    &["broke"],
    &["not what i wanted"],
    &["try again"],
    &["undo"],
];

/// The sentiment of what the user said at the end: how many positive cues it holds against how
/// many negative ones (each cue counts once, case-insensitive); a tie is neutral.
pub fn detect_sentiment(text: &str) -> Sentiment {
    let t = text.to_lowercase().replace('\u{2019}', "'");
    let positive = POSITIVE_CUES.iter().filter(|c| t.contains(*c)).count();
    let negative = NEGATIVE_CUES
        .iter()
        .filter(|forms| forms.iter().any(|c| t.contains(c)))
        .count();
    match positive.cmp(&negative) {
        std::cmp::Ordering::Greater => Sentiment::Positive,
        std::cmp::Ordering::Less => Sentiment::Negative,
        std::cmp::Ordering::Equal => Sentiment::Neutral,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use FeedbackType::{Harmful, Helpful};

    fn signals() -> Signals {
        Signals::default()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn the_status_alone_is_an_ordinary_mark() {
        let v = score("success", &signals());
        assert_eq!((v.kind, v.reasons.clone()), (Helpful, vec!["success"]));
        assert!(close(v.weight, 1.0));
        let v = score("failure", &signals());
        assert_eq!((v.kind, v.reasons.clone()), (Harmful, vec!["failure"]));
        assert!(close(v.weight, 1.0));
    }

    #[test]
    fn a_mixed_outcome_ties_and_a_tie_is_helpful_at_the_least_weight() {
        let v = score("mixed", &signals());
        assert_eq!(v.kind, Helpful);
        assert!(close(v.weight, 0.1));
        assert_eq!(v.reasons, vec!["mixed"]);
    }

    #[test]
    fn a_fast_session_counts_unless_it_failed() {
        let fast = Signals {
            duration_secs: Some(120.0),
            ..signals()
        };
        let v = score("success", &fast);
        assert!(close(v.weight, 1.5));
        assert_eq!(v.reasons, vec!["success", "fast"]);
        let v = score("failure", &fast);
        assert_eq!((v.kind, v.reasons.clone()), (Harmful, vec!["failure"]));
        assert!(close(v.weight, 1.0));
        // Zero seconds and exactly the threshold are not fast.
        for d in [0.0, FAST_SECS] {
            let v = score(
                "success",
                &Signals {
                    duration_secs: Some(d),
                    ..signals()
                },
            );
            assert_eq!(v.reasons, vec!["success"], "{d}");
        }
    }

    #[test]
    fn a_slow_session_adds_to_the_harm() {
        let slow = Signals {
            duration_secs: Some(SLOW_SECS + 1.0),
            ..signals()
        };
        let v = score("failure", &slow);
        assert_eq!(v.kind, Harmful);
        assert!(close(v.weight, 1.3));
        assert_eq!(v.reasons, vec!["failure", "slow"]);
        // One hour exactly is neither fast nor slow.
        let hour = Signals {
            duration_secs: Some(SLOW_SECS),
            ..signals()
        };
        assert_eq!(score("success", &hour).reasons, vec!["success"]);
    }

    #[test]
    fn errors_weigh_by_how_many() {
        let with = |n| Signals {
            errors: Some(n),
            ..signals()
        };
        let v = score("failure", &with(1));
        assert!(close(v.weight, 1.3));
        assert_eq!(v.reasons, vec!["failure", "error"]);
        let v = score("failure", &with(5));
        assert!(close(v.weight, 1.7));
        assert_eq!(v.reasons, vec!["failure", "errors>=2"]);
        assert_eq!(score("failure", &with(0)).reasons, vec!["failure"]);
    }

    #[test]
    fn any_retry_counts_and_none_does_not() {
        let v = score(
            "mixed",
            &Signals {
                retries: Some(3),
                ..signals()
            },
        );
        assert_eq!(
            (v.kind, v.reasons.clone()),
            (Harmful, vec!["mixed", "retries"])
        );
        assert!(close(v.weight, 0.6));
        let none = Signals {
            retries: Some(0),
            ..signals()
        };
        assert_eq!(score("mixed", &none).reasons, vec!["mixed"]);
    }

    #[test]
    fn sentiment_weighs_unevenly() {
        let with = |s| Signals {
            sentiment: Some(s),
            ..signals()
        };
        let v = score("success", &with(Sentiment::Positive));
        assert!(close(v.weight, 1.3));
        assert_eq!(v.reasons, vec!["success", "sentiment+"]);
        let v = score("mixed", &with(Sentiment::Negative));
        assert_eq!(v.kind, Harmful);
        assert!(close(v.weight, 0.6));
        assert_eq!(
            score("success", &with(Sentiment::Neutral)).reasons,
            vec!["success"]
        );
    }

    #[test]
    fn a_success_full_of_trouble_turns_harmful() {
        let v = score(
            "success",
            &Signals {
                duration_secs: Some(5000.0),
                errors: Some(3),
                retries: Some(1),
                sentiment: Some(Sentiment::Negative),
            },
        );
        assert_eq!(v.kind, Harmful);
        // 0.3 + 0.7 + 0.5 + 0.5 = 2.0 against 1.0.
        assert!(close(v.weight, 2.0));
        assert_eq!(
            v.reasons,
            vec!["success", "slow", "errors>=2", "retries", "sentiment-"]
        );
    }

    #[test]
    fn the_weight_is_clamped_to_two() {
        let v = score(
            "failure",
            &Signals {
                duration_secs: Some(9000.0),
                errors: Some(2),
                retries: Some(2),
                sentiment: Some(Sentiment::Negative),
            },
        );
        // 1 + 0.3 + 0.7 + 0.5 + 0.5 = 3.0.
        assert!(close(v.weight, MAX_WEIGHT));
        let v = score(
            "success",
            &Signals {
                duration_secs: Some(60.0),
                sentiment: Some(Sentiment::Positive),
                ..signals()
            },
        );
        assert!(close(v.weight, 1.8));
    }

    #[test]
    fn an_even_contest_is_helpful() {
        // 1.0 helpful against 0.5 + 0.5 harmful.
        let v = score(
            "success",
            &Signals {
                retries: Some(1),
                sentiment: Some(Sentiment::Negative),
                ..signals()
            },
        );
        assert_eq!(v.kind, Helpful);
        assert!(close(v.weight, 1.0));
    }

    #[test]
    fn sentiment_is_read_from_the_cues_in_the_text() {
        assert_eq!(
            detect_sentiment("Perfect, THANKS - that worked"),
            Sentiment::Positive
        );
        assert_eq!(
            detect_sentiment("That's wrong, it doesn't work"),
            Sentiment::Negative
        );
        assert_eq!(detect_sentiment("that is wrong"), Sentiment::Negative);
        assert_eq!(detect_sentiment("That\u{2019}s wrong"), Sentiment::Negative);
        // One of each is a tie; nothing at all is neutral.
        assert_eq!(detect_sentiment("great, but undo it"), Sentiment::Neutral);
        assert_eq!(detect_sentiment("ran the tests"), Sentiment::Neutral);
        // A cue counts once however often it is said.
        assert_eq!(
            detect_sentiment("thanks thanks thanks, but it broke and try again"),
            Sentiment::Negative
        );
    }

    #[test]
    fn sentiment_names_parse_in_any_case() {
        assert_eq!(Sentiment::parse(" Positive"), Some(Sentiment::Positive));
        assert_eq!(Sentiment::parse("NEUTRAL"), Some(Sentiment::Neutral));
        assert_eq!(Sentiment::parse("happy"), None);
    }
}
