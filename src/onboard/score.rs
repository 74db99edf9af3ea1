//! How worth reading a session is. Two parts, both shown to the user:
//!
//! - the gap score: for each category the session touches, +3 when the playbook has no rule in
//!   it (critical), +2 when it has one or two (underrepresented), +1 when it has 3-10
//!   (adequate), nothing when it is well covered;
//! - richness: longer sessions, sessions with failed tool calls and sessions where the user
//!   corrected the agent hold more to learn (each capped, so one long log does not win alone).
//!
//! `--fill-gaps` ranks by the gap score first; otherwise richness ranks and the gap score
//! breaks ties.

use serde::Serialize;

/// What sampling knows about one session.
#[derive(Debug, Clone, Default)]
pub struct Signals {
    pub messages: i64,
    pub errors: usize,
    pub corrections: usize,
    pub topics: Vec<&'static str>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Score {
    pub gap: u32,
    pub richness: f64,
    pub total: f64,
    pub reasons: Vec<String>,
}

/// Points a category's gap status is worth.
pub fn gap_points(status: &str) -> u32 {
    match status {
        "critical" => 3,
        "underrepresented" => 2,
        "adequate" => 1,
        _ => 0,
    }
}

/// Score `s` against `status_of` (a category's gap status).
pub fn score(s: &Signals, status_of: impl Fn(&str) -> &'static str, fill_gaps: bool) -> Score {
    let mut reasons = Vec::new();
    let mut gap = 0;
    for t in &s.topics {
        let st = status_of(t);
        let p = gap_points(st);
        if p > 0 {
            reasons.push(format!("{t} ({st}, +{p})"));
        }
        gap += p;
    }
    let length = (s.messages as f64 / 20.0).min(2.0);
    let errors = (s.errors as f64 * 0.5).min(1.5);
    let corrections = (s.corrections as f64).min(2.0);
    if s.errors > 0 {
        reasons.push(format!("{} failed tool call(s)", s.errors));
    }
    if s.corrections > 0 {
        reasons.push(format!("{} user correction(s)", s.corrections));
    }
    let richness = round2(length + errors + corrections);
    let total = if fill_gaps {
        gap as f64 * 10.0 + richness
    } else {
        richness * 10.0 + gap as f64
    };
    Score {
        gap,
        richness,
        total: round2(total),
        reasons,
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(c: &str) -> &'static str {
        match c {
            "security" => "critical",
            "git" => "underrepresented",
            "testing" => "adequate",
            _ => "well-covered",
        }
    }

    #[test]
    fn gap_points_follow_the_status() {
        let s = Signals {
            topics: vec!["security", "git", "testing", "debugging"],
            ..Default::default()
        };
        assert_eq!(score(&s, status, true).gap, 3 + 2 + 1);
    }

    #[test]
    fn fill_gaps_ranks_gaps_over_richness() {
        let gappy = Signals {
            messages: 4,
            topics: vec!["security"],
            ..Default::default()
        };
        let rich = Signals {
            messages: 200,
            errors: 9,
            corrections: 5,
            topics: vec!["debugging"],
        };
        assert!(score(&gappy, status, true).total > score(&rich, status, true).total);
        assert!(score(&gappy, status, false).total < score(&rich, status, false).total);
        assert_eq!(score(&rich, status, false).richness, 2.0 + 1.5 + 2.0);
    }
}
