//! Scoring: decayed effective score, maturity transitions and anti-pattern inversion.
//!
//! Pure functions of a bullet, the scoring config and "now", so every number is testable with a
//! pinned clock. The formulas are the seed's:
//! `effectiveScore = Σ_helpful 0.5^(age/halfLife) − harmfulMultiplier · Σ_harmful 0.5^(age/halfLife)`;
//! maturity from raw counts and the harmful ratio; inversion at ≥3 harmful with ratio > 50%.
//! An event's weight (1.0 unless an outcome's implicit signals gave it another) multiplies its
//! decayed value in both sums.

use super::bullet::{Bullet, BulletType, FeedbackType, Kind, Maturity, State};
use chrono::{DateTime, Duration, Utc};
use cm_base::clock;
use cm_base::config::Scoring;

/// Weight of one event of age `age_days` under a half-life.
pub fn decay_factor(age_days: f64, half_life_days: f64) -> f64 {
    if half_life_days <= 0.0 {
        return 1.0;
    }
    0.5f64.powf(age_days / half_life_days)
}

/// Decayed helpful and harmful sums (before the harmful multiplier).
pub fn decayed_sums(bullet: &Bullet, cfg: &Scoring, now: DateTime<Utc>) -> (f64, f64) {
    decayed_sums_of(
        bullet
            .feedback_events
            .iter()
            .map(|e| (e.kind, e.timestamp.as_str(), e.weight())),
        (bullet.helpful_count, bullet.harmful_count),
        &bullet.created_at,
        cfg,
        now,
    )
}

/// The same sums from a bullet's parts: its events as (type, timestamp, weight), its raw (helpful,
/// harmful) counts and its creation time. Lets a caller score a rule without building a
/// [`Bullet`] (the `list --json` fast path).
pub fn decayed_sums_of<'a>(
    events: impl Iterator<Item = (FeedbackType, &'a str, f64)>,
    counts: (u32, u32),
    created_at: &str,
    cfg: &Scoring,
    now: DateTime<Utc>,
) -> (f64, f64) {
    let (mut helpful, mut harmful) = (0.0, 0.0);
    let (mut n_helpful, mut n_harmful) = (0u32, 0u32);
    for (kind, timestamp, weight) in events {
        match kind {
            FeedbackType::Helpful => n_helpful += 1,
            FeedbackType::Harmful => n_harmful += 1,
        }
        let Some(t) = clock::parse(timestamp) else {
            continue;
        };
        let w = weight * decay_factor(clock::age_days(t, now), cfg.decay_half_life_days);
        match kind {
            FeedbackType::Helpful => helpful += w,
            FeedbackType::Harmful => harmful += w,
        }
    }
    // Counts imported without their events (older files) still count, undecayed from creation.
    let missing_h = counts.0.saturating_sub(n_helpful) as f64;
    let missing_x = counts.1.saturating_sub(n_harmful) as f64;
    if missing_h > 0.0 || missing_x > 0.0 {
        let w = clock::parse(created_at)
            .map(|t| decay_factor(clock::age_days(t, now), cfg.decay_half_life_days))
            .unwrap_or(1.0);
        helpful += missing_h * w;
        harmful += missing_x * w;
    }
    (helpful, harmful)
}

pub fn effective_score(bullet: &Bullet, cfg: &Scoring, now: DateTime<Utc>) -> f64 {
    let (h, x) = decayed_sums(bullet, cfg, now);
    h - cfg.harmful_multiplier * x
}

/// Share of harmful feedback among all feedback (raw counts); 0 without feedback.
pub fn harmful_ratio(helpful: u32, harmful: u32) -> f64 {
    let total = helpful + harmful;
    if total == 0 {
        0.0
    } else {
        harmful as f64 / total as f64
    }
}

/// Share of harmful feedback by weight: each event weighs `0.5^(age/halfLife)`, so an old
/// harmful mark counts for less than fresh helpful ones. Every weight decays by the same
/// factor as time passes, so this ratio only changes when feedback arrives (a maturity computed
/// from it at one mark holds until the next).
pub fn weighted_harmful_ratio(decayed: (f64, f64)) -> f64 {
    let (h, x) = decayed;
    if h + x <= 0.0 { 0.0 } else { x / (h + x) }
}

/// The harmful ratio above which a rule is deprecated (with enough feedback).
pub const DEPRECATE_RATIO: f64 = 0.25;
/// Helpful marks needed for `established`.
pub const ESTABLISHED_MIN_HELPFUL: u32 = 3;
/// How a deprecation by feedback is worded; it also marks a deprecation as not deliberate.
pub const AUTO_DEPRECATED: &str = "harmful ratio";

/// Whether a person (or an inversion) retired the rule, as opposed to its feedback: `cm forget`,
/// `cm playbook remove`, an inversion into an anti-pattern. Such a rule stays deprecated until
/// `cm playbook revive` or `cm undo`; one deprecated by its feedback follows its feedback.
pub fn deprecated_on_purpose(b: &Bullet) -> bool {
    on_purpose(b.deprecated, b.state, b.deprecation_reason.as_deref())
}

/// [`deprecated_on_purpose`] from a bullet's stored fields.
pub fn on_purpose(deprecated: bool, state: State, reason: Option<&str>) -> bool {
    let by_feedback = reason.is_some_and(|r| r.starts_with(AUTO_DEPRECATED));
    (deprecated || state == State::Retired) && !by_feedback
}

/// A rule's maturity as its feedback stands now, and why when it is deprecated.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    pub maturity: Maturity,
    /// Why it is deprecated: the person's reason, or the feedback as it stands now.
    pub reason: Option<String>,
}

/// The maturity a rule has now. Deliberate deprecation wins; otherwise the current feedback
/// decides, with nothing sticky: a rule deprecated by its feedback comes back once helpful
/// marks bring the ratio down.
/// - deprecated: at least `minFeedbackForActive` events and a weighted harmful ratio above 25%
///   (never for a pinned rule);
/// - proven: `minHelpfulForProven` helpful marks and a ratio below `maxHarmfulRatioForProven`;
/// - established: 3 helpful marks and a ratio below 25%;
/// - candidate otherwise.
///
/// Counts are the raw numbers of marks (a threshold on decayed sums would demote a rule a
/// minute after its third mark); the ratio is weighted by age, see [`weighted_harmful_ratio`].
pub fn assess(b: &Bullet, cfg: &Scoring, now: DateTime<Utc>) -> Assessment {
    if deprecated_on_purpose(b) {
        return Assessment {
            maturity: Maturity::Deprecated,
            reason: b
                .deprecation_reason
                .clone()
                .or_else(|| Some("deprecated".into())),
        };
    }
    assess_feedback(
        b.pinned,
        (b.helpful_count, b.harmful_count),
        decayed_sums(b, cfg, now),
        cfg,
    )
}

/// [`assess`] for a rule not deprecated on purpose, from its parts: pinned, raw (helpful,
/// harmful) counts and their decayed sums.
pub fn assess_feedback(
    pinned: bool,
    counts: (u32, u32),
    decayed: (f64, f64),
    cfg: &Scoring,
) -> Assessment {
    let ratio = weighted_harmful_ratio(decayed);
    let (h, x) = counts;
    let maturity = if !pinned && h + x >= cfg.min_feedback_for_active && ratio > DEPRECATE_RATIO {
        Maturity::Deprecated
    } else if h >= cfg.min_helpful_for_proven && ratio < cfg.max_harmful_ratio_for_proven {
        Maturity::Proven
    } else if h >= ESTABLISHED_MIN_HELPFUL && ratio < DEPRECATE_RATIO {
        Maturity::Established
    } else {
        Maturity::Candidate
    };
    let reason = (maturity == Maturity::Deprecated).then(|| {
        format!(
            "{AUTO_DEPRECATED} {:.0}% exceeds {:.0}% ({h} helpful / {x} harmful, weighted by age)",
            ratio * 100.0,
            DEPRECATE_RATIO * 100.0
        )
    });
    Assessment { maturity, reason }
}

/// Bring a rule's stored maturity and deprecation fields in line with [`assess`] at `now`.
/// Returns whether anything changed.
pub fn settle(b: &mut Bullet, cfg: &Scoring, now: DateTime<Utc>) -> bool {
    if deprecated_on_purpose(b) {
        let changed = !b.deprecated || b.maturity != Maturity::Deprecated;
        b.deprecated = true;
        b.maturity = Maturity::Deprecated;
        return changed;
    }
    let a = assess(b, cfg, now);
    let deprecated = a.maturity == Maturity::Deprecated;
    let before = (
        b.maturity,
        b.deprecated,
        b.state,
        b.deprecation_reason.clone(),
    );
    b.maturity = a.maturity;
    b.deprecated = deprecated;
    b.deprecation_reason = a.reason;
    // Older versions retired a rule deprecated by feedback; its state follows it back.
    if b.state == State::Retired {
        b.state = State::Active;
    }
    before
        != (
            b.maturity,
            b.deprecated,
            b.state,
            b.deprecation_reason.clone(),
        )
}

/// Whether a rule has hurt often enough to be inverted into an anti-pattern: at least 3
/// harmful marks and more than half of its feedback, by weight, harmful. Never a pinned rule.
pub fn should_invert(bullet: &Bullet, cfg: &Scoring, now: DateTime<Utc>) -> bool {
    bullet.bullet_type == BulletType::Rule
        && !bullet.pinned
        && !is_negative_rule(bullet)
        && bullet.harmful_count >= 3
        && weighted_harmful_ratio(decayed_sums(bullet, cfg, now)) > 0.5
}

/// The anti-pattern wording, which must warn against what the rule advised and never read as
/// advice to do harm: "Always X" and an imperative "Use X" become "PITFALL: Don't X" ("Don't use
/// X"); a rule that already warns ("Never X", "Don't X", "Avoid X") is not turned around into
/// "Avoid - Never X" (which reads as "do X") but flagged as itself misleading; anything else is
/// "PITFALL: Avoid - X".
pub fn invert_wording(content: &str) -> String {
    let text = strip_warning_prefix(content.trim());
    if negative_wording(text) {
        return format!("PITFALL: Don't rely on \"{text}\"");
    }
    if let Some(rest) = strip_prefix_ci(text, "always ") {
        let rest = rest.trim_start();
        return format!("PITFALL: Don't {}", lower_first(rest));
    }
    let first = text
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    if IMPERATIVES.contains(&first.as_str()) {
        return format!("PITFALL: Don't {}", lower_first(text));
    }
    format!("PITFALL: Avoid - {text}")
}

/// Verbs a rule starts with when it gives an order ("Run cargo fmt ..."), so its opposite is
/// "Don't run cargo fmt ...".
const IMPERATIVES: &[&str] = &[
    "use",
    "run",
    "prefer",
    "keep",
    "add",
    "put",
    "call",
    "check",
    "write",
    "commit",
    "push",
    "cache",
    "store",
    "set",
    "make",
    "wrap",
    "mock",
    "create",
    "install",
    "test",
    "disable",
    "enable",
    "skip",
    "ignore",
    "pin",
    "retry",
    "validate",
    "log",
    "return",
    "throw",
    "catch",
    "handle",
    "split",
    "merge",
    "rebase",
    "rename",
    "move",
    "delete",
    "remove",
    "update",
    "upgrade",
    "pass",
    "read",
    "load",
    "start",
    "stop",
    "close",
    "open",
    "lock",
    "release",
    "name",
    "document",
    "declare",
    "define",
    "export",
    "import",
    "format",
    "lint",
    "build",
    "deploy",
    "configure",
    "measure",
    "profile",
    "limit",
    "bump",
    "tag",
    "sort",
    "clean",
    "reset",
    "restart",
    "await",
    "spawn",
    "annotate",
    "type",
    "quote",
    "escape",
    "sanitize",
    "hash",
    "encrypt",
    "compare",
    "match",
    "guard",
    "prefix",
    "suffix",
    "favor",
    "favour",
    "treat",
    "let",
    "give",
    "send",
    "fetch",
    "query",
    "index",
    "batch",
    "stream",
];

/// Wording that already warns: "Never ...", "Don't ...", "Do not ...", "Avoid ...", "No ...".
pub fn negative_wording(content: &str) -> bool {
    let text = strip_warning_prefix(content.trim()).to_ascii_lowercase();
    [
        "never ",
        "don't ",
        "don\u{2019}t ",
        "do not ",
        "avoid ",
        "no ",
        "stop ",
        "not ",
    ]
    .iter()
    .any(|p| text.starts_with(p))
}

/// A rule that warns (marked `isNegative` or worded as a warning): harmful feedback deprecates
/// it; inverting it would advise the very thing it warns about.
pub fn is_negative_rule(b: &Bullet) -> bool {
    b.is_negative || negative_wording(&b.content)
}

/// The text after an anti-pattern's own label ("PITFALL:", "AVOID:", "ANTI-PATTERN:").
pub fn strip_warning_prefix(text: &str) -> &str {
    for p in ["PITFALL:", "AVOID:", "ANTI-PATTERN:", "WARNING:"] {
        if let Some(rest) = strip_prefix_ci(text, p) {
            return rest.trim_start();
        }
    }
    text
}

fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// Lower-case the first letter unless the word is an acronym ("API", "CI").
fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a.is_uppercase() && b.is_uppercase() => s.to_string(),
        (Some(a), _) => {
            let mut out: String = a.to_lowercase().collect();
            out.push_str(&s[a.len_utf8()..]);
            out
        }
        _ => String::new(),
    }
}

/// Build the anti-pattern that replaces `original`. The caller deprecates the original.
pub fn make_anti_pattern(original: &Bullet, new_id: String, now: &str) -> Bullet {
    let why = original
        .reasoning
        .as_deref()
        .unwrap_or("no recorded reasoning");
    Bullet {
        id: new_id,
        content: invert_wording(&original.content),
        category: original.category.clone(),
        scope: original.scope,
        scope_key: original.scope_key.clone(),
        bullet_type: BulletType::AntiPattern,
        kind: Kind::AntiPattern,
        is_negative: true,
        state: State::Active,
        maturity: Maturity::Candidate,
        helpful_count: 0,
        harmful_count: 0,
        feedback_events: Vec::new(),
        source_sessions: original.source_sessions.clone(),
        source_agents: original.source_agents.clone(),
        reasoning: Some(format!(
            "Inverted from harmful rule {} ({} harmful / {} helpful): {why}",
            original.id, original.harmful_count, original.helpful_count
        )),
        tags: original.tags.clone(),
        contradicts: Vec::new(),
        pinned: false,
        deprecated: false,
        deprecation_reason: None,
        created_at: now.to_string(),
        updated_at: now.to_string(),
    }
}

/// Days from `now` until a score that decays from `score` falls below `min`. Every term decays by
/// the same factor, so `score(now + d) = score(now) · 0.5^(d/halfLife)`. `Some(0)` when already
/// below; `None` when the score never decays (non-positive half-life).
pub fn days_until_below(score: f64, min: f64, half_life_days: f64) -> Option<f64> {
    if score < min || score <= 0.0 {
        return Some(0.0);
    }
    if half_life_days <= 0.0 || min <= 0.0 {
        return None;
    }
    Some(half_life_days * (score / min).log2())
}

/// The score at several instants, for `cm why`: each feedback event, now, and 30/90/180 days on.
pub fn trajectory(
    bullet: &Bullet,
    cfg: &Scoring,
    now: DateTime<Utc>,
) -> Vec<(String, String, f64)> {
    let mut points: Vec<(String, DateTime<Utc>)> = Vec::new();
    if let Some(t) = clock::parse(&bullet.created_at) {
        points.push(("created".into(), t));
    }
    for e in &bullet.feedback_events {
        if let Some(t) = clock::parse(&e.timestamp) {
            let label = match e.kind {
                FeedbackType::Helpful => "helpful",
                FeedbackType::Harmful => "harmful",
            };
            points.push((label.into(), t));
        }
    }
    points.push(("now".into(), now));
    for d in [30, 90, 180] {
        points.push((format!("+{d}d"), now + Duration::days(d)));
    }
    points.sort_by_key(|(_, t)| *t);
    points
        .into_iter()
        .map(|(label, t)| {
            if t >= now {
                return (
                    label,
                    clock::to_rfc3339(t),
                    round3(effective_score(bullet, cfg, t)),
                );
            }
            // The score as it stood at `t`: only events up to `t` count.
            let mut past = bullet.clone();
            past.feedback_events
                .retain(|e| clock::parse(&e.timestamp).is_some_and(|et| et <= t));
            past.helpful_count = past
                .feedback_events
                .iter()
                .filter(|e| e.kind == FeedbackType::Helpful)
                .count() as u32;
            past.harmful_count = past
                .feedback_events
                .iter()
                .filter(|e| e.kind == FeedbackType::Harmful)
                .count() as u32;
            (
                label,
                clock::to_rfc3339(t),
                round3(effective_score(&past, cfg, t)),
            )
        })
        .collect()
}

pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Each feedback event's age, decay factor and contribution to the score at `now` (what
/// `cm stats --trace-decay` and `cm top --debug` show).
pub fn decay_trace(b: &Bullet, cfg: &Scoring, now: DateTime<Utc>) -> Vec<serde_json::Value> {
    b.feedback_events
        .iter()
        .filter_map(|ev| {
            let age = cm_base::clock::age_days(cm_base::clock::parse(&ev.timestamp)?, now);
            let f = decay_factor(age, cfg.decay_half_life_days);
            let w = ev.weight()
                * match ev.kind {
                    FeedbackType::Harmful => -cfg.harmful_multiplier * f,
                    FeedbackType::Helpful => f,
                };
            Some(serde_json::json!({"type": ev.kind, "timestamp": ev.timestamp, "ageDays": round3(age), "decayFactor": round3(f), "weight": ev.weight(), "contribution": round3(w)}))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bullet::{FeedbackEvent, FeedbackSource};

    fn at(s: &str) -> DateTime<Utc> {
        clock::parse(s).unwrap()
    }

    fn event(kind: FeedbackType, ts: &str) -> FeedbackEvent {
        FeedbackEvent {
            id: "fb-1".into(),
            kind,
            timestamp: ts.into(),
            source: FeedbackSource::Manual,
            session_path: None,
            reason: None,
            weight: None,
        }
    }

    fn bullet_with(events: Vec<FeedbackEvent>) -> Bullet {
        let helpful = events
            .iter()
            .filter(|e| e.kind == FeedbackType::Helpful)
            .count() as u32;
        let harmful = events.len() as u32 - helpful;
        Bullet {
            id: "b-test".into(),
            content: "Always run the tests".into(),
            created_at: "2026-01-01T00:00:00Z".into(),
            helpful_count: helpful,
            harmful_count: harmful,
            feedback_events: events,
            ..Bullet::default()
        }
    }

    #[test]
    fn helpful_event_decays_with_a_90_day_half_life() {
        let cfg = Scoring::default();
        let b = bullet_with(vec![event(FeedbackType::Helpful, "2026-01-01T00:00:00Z")]);
        let cases = [(0, 1.0), (45, 0.5f64.sqrt()), (90, 0.5), (180, 0.25)];
        for (days, expected) in cases {
            let now = at("2026-01-01T00:00:00Z") + Duration::days(days);
            let got = effective_score(&b, &cfg, now);
            assert!(
                (got - expected).abs() < 1e-9,
                "day {days}: got {got}, want {expected}"
            );
        }
    }

    #[test]
    fn one_harmful_outweighs_four_helpful_minus_epsilon() {
        let cfg = Scoring::default();
        let ts = "2026-01-01T00:00:00Z";
        let mut events: Vec<_> = (0..4).map(|_| event(FeedbackType::Helpful, ts)).collect();
        events.push(event(FeedbackType::Harmful, ts));
        let b = bullet_with(events);
        assert!((effective_score(&b, &cfg, at(ts)) - 0.0).abs() < 1e-9);
        let custom = Scoring {
            harmful_multiplier: 2.0,
            ..Scoring::default()
        };
        assert!((effective_score(&b, &custom, at(ts)) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn harmful_weight_also_decays() {
        let cfg = Scoring::default();
        let b = bullet_with(vec![event(FeedbackType::Harmful, "2026-01-01T00:00:00Z")]);
        let now = at("2026-01-01T00:00:00Z") + Duration::days(90);
        assert!((effective_score(&b, &cfg, now) + 2.0).abs() < 1e-9);
    }

    #[test]
    fn configurable_half_life() {
        let cfg = Scoring {
            decay_half_life_days: 30.0,
            ..Scoring::default()
        };
        let b = bullet_with(vec![event(FeedbackType::Helpful, "2026-01-01T00:00:00Z")]);
        let now = at("2026-01-31T00:00:00Z");
        assert!((effective_score(&b, &cfg, now) - 0.5).abs() < 1e-9);
    }

    fn counts(h: u32, x: u32) -> Bullet {
        Bullet {
            helpful_count: h,
            harmful_count: x,
            ..Bullet::default()
        }
    }

    fn now() -> DateTime<Utc> {
        at("2026-06-01T00:00:00Z")
    }

    fn next_maturity(b: &Bullet, cfg: &Scoring) -> Maturity {
        assess(b, cfg, now()).maturity
    }

    #[test]
    fn maturity_transitions() {
        let cfg = Scoring::default();
        let cases = [
            ((0, 0), Maturity::Candidate),
            ((2, 0), Maturity::Candidate),
            ((3, 0), Maturity::Established),
            ((3, 1), Maturity::Candidate), // exactly 25%: not deprecated, not established (< 25%)
            ((9, 0), Maturity::Established),
            ((10, 0), Maturity::Proven),
            ((10, 1), Maturity::Proven),      // 9.1% < 10%
            ((10, 2), Maturity::Established), // 16.7%: not proven, still < 25%
            ((2, 1), Maturity::Deprecated),   // 33% with 3 events
            ((1, 1), Maturity::Candidate),    // 50% but below minFeedbackForActive
        ];
        for ((h, x), want) in cases {
            let got = next_maturity(&counts(h, x), &cfg);
            assert_eq!(got, want, "helpful {h} harmful {x}");
        }
    }

    #[test]
    fn pinned_rules_never_auto_deprecate_and_deliberate_deprecation_is_sticky() {
        let cfg = Scoring::default();
        let mut b = counts(0, 5);
        b.pinned = true;
        assert_ne!(next_maturity(&b, &cfg), Maturity::Deprecated);
        assert!(!should_invert(&b, &cfg, now()));
        let mut d = counts(20, 0);
        d.deprecated = true;
        d.deprecation_reason = Some("forgotten: superseded".into());
        assert_eq!(next_maturity(&d, &cfg), Maturity::Deprecated);
        assert_eq!(
            assess(&d, &cfg, now()).reason.as_deref(),
            Some("forgotten: superseded")
        );
    }

    #[test]
    fn deprecation_by_feedback_wears_off_and_its_reason_is_current() {
        let cfg = Scoring::default();
        // Deprecated at its third event: 1 harmful, 2 helpful (33%), as an older version stored it.
        let mut b = counts(2, 1);
        b.deprecated = true;
        b.state = State::Retired;
        b.maturity = Maturity::Deprecated;
        b.deprecation_reason = Some("harmful ratio 33% exceeds 25%".into());
        assert_eq!(next_maturity(&b, &cfg), Maturity::Deprecated);
        // 40 more helpful marks: 1 of 43.
        b.helpful_count += 40;
        let a = assess(&b, &cfg, now());
        assert_eq!(a.maturity, Maturity::Proven);
        assert_eq!(a.reason, None);
        assert!(settle(&mut b, &cfg, now()));
        assert!(b.is_live(), "{b:?}");
        assert_eq!((b.deprecated, b.state), (false, State::Active));
        // And back: the reason shown is the ratio as it stands.
        b.harmful_count += 20;
        settle(&mut b, &cfg, now());
        assert!(!b.is_live());
        assert_eq!(
            b.deprecation_reason.as_deref(),
            Some("harmful ratio 33% exceeds 25% (42 helpful / 21 harmful, weighted by age)")
        );
    }

    #[test]
    fn an_old_harmful_mark_weighs_less_than_fresh_helpful_ones() {
        let cfg = Scoring::default();
        let b = bullet_with(vec![
            event(FeedbackType::Harmful, "2026-01-01T00:00:00Z"),
            event(FeedbackType::Harmful, "2026-01-01T00:00:00Z"),
            event(FeedbackType::Helpful, "2026-05-30T00:00:00Z"),
            event(FeedbackType::Helpful, "2026-05-31T00:00:00Z"),
            event(FeedbackType::Helpful, "2026-05-31T00:00:00Z"),
        ]);
        // Raw: 2 of 5 (40%). Weighted: two marks five months old against three fresh ones.
        let a = assess(&b, &cfg, now());
        assert_eq!(a.maturity, Maturity::Established, "{a:?}");
        // The weighted ratio does not drift with time alone.
        let later = now() + Duration::days(400);
        assert_eq!(assess(&b, &cfg, later).maturity, Maturity::Established);
    }

    #[test]
    fn inversion_threshold() {
        let cfg = Scoring::default();
        let inv = |b: &Bullet| should_invert(b, &cfg, now());
        assert!(!inv(&counts(0, 2)));
        assert!(inv(&counts(0, 3)));
        assert!(inv(&counts(2, 3)));
        assert!(!inv(&counts(3, 3))); // exactly 50% is not > 50%
    }

    #[test]
    fn inversion_wording() {
        assert_eq!(
            invert_wording("Always cache auth tokens"),
            "PITFALL: Don't cache auth tokens"
        );
        assert_eq!(
            invert_wording("always Use mocks"),
            "PITFALL: Don't use mocks"
        );
        assert_eq!(
            invert_wording("Always API-first design"),
            "PITFALL: Don't API-first design"
        );
        assert_eq!(
            invert_wording("Use global state for config"),
            "PITFALL: Don't use global state for config"
        );
        assert_eq!(invert_wording("  Prefer X  "), "PITFALL: Don't prefer X");
        assert_eq!(
            invert_wording("Tests live beside the code"),
            "PITFALL: Avoid - Tests live beside the code"
        );
        // A warning is never turned into advice to do the harm.
        for negative in [
            "Never commit secrets",
            "Don't force-push to main",
            "Do not skip the tests",
            "Avoid global state",
            "PITFALL: Never run migrations by hand",
        ] {
            let inverted = invert_wording(negative);
            assert!(
                !inverted.contains("Avoid - ") && inverted.starts_with("PITFALL: Don't rely on"),
                "{negative} -> {inverted}"
            );
        }
    }

    #[test]
    fn anti_pattern_links_back() {
        let mut b = counts(0, 3);
        b.id = "b-orig".into();
        b.content = "Always cache tokens".into();
        let a = make_anti_pattern(&b, "b-new".into(), "2026-01-01T00:00:00.000Z");
        assert_eq!(a.bullet_type, BulletType::AntiPattern);
        assert!(a.is_negative);
        assert_eq!(a.helpful_count + a.harmful_count, 0);
        assert!(a.reasoning.unwrap().contains("b-orig"));
    }

    #[test]
    fn projection_to_minimum() {
        assert_eq!(days_until_below(0.05, 0.1, 90.0), Some(0.0));
        let d = days_until_below(0.4, 0.1, 90.0).unwrap();
        assert!((d - 180.0).abs() < 1e-9);
    }
}
