//! The one source of "now".
//!
//! Every timestamp the program writes and every age it computes goes through [`now`], which
//! honours `CM_NOW` (RFC 3339). Pinning time is what makes decay, staleness and projections
//! testable.

use chrono::{DateTime, SecondsFormat, Utc};

/// The current time, or the time pinned by `CM_NOW`. An unparseable `CM_NOW` is ignored with a
/// warning on stderr rather than failing every command.
pub fn now() -> DateTime<Utc> {
    match std::env::var("CM_NOW") {
        Ok(v) if !v.trim().is_empty() => match DateTime::parse_from_rfc3339(v.trim()) {
            Ok(t) => t.with_timezone(&Utc),
            Err(e) => {
                eprintln!("cm: ignoring CM_NOW={v:?}: not RFC 3339 ({e})");
                Utc::now()
            }
        },
        _ => Utc::now(),
    }
}

/// `now()` formatted the way every stored timestamp is: RFC 3339, millisecond precision, `Z`.
pub fn now_rfc3339() -> String {
    to_rfc3339(now())
}

pub fn to_rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Parse a stored or user-supplied timestamp. Accepts RFC 3339 and bare dates (`2026-01-31`).
pub fn parse(s: &str) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return d.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
    }
    None
}

/// Age of `t` in fractional days relative to `now`; never negative (future events count as new).
pub fn age_days(t: DateTime<Utc>, now: DateTime<Utc>) -> f64 {
    let secs = (now - t).num_milliseconds() as f64 / 1000.0;
    (secs / 86_400.0).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dates_and_rfc3339() {
        assert!(parse("2026-01-31").is_some());
        assert!(parse("2026-01-31T10:00:00Z").is_some());
        assert!(parse("2026-01-31T10:00:00+02:00").is_some());
        assert!(parse("yesterday").is_none());
    }

    #[test]
    fn age_is_fractional_and_clamped() {
        let a = parse("2026-01-01T00:00:00Z").unwrap();
        let b = parse("2026-01-01T12:00:00Z").unwrap();
        assert!((age_days(a, b) - 0.5).abs() < 1e-9);
        assert_eq!(age_days(b, a), 0.0);
    }
}
