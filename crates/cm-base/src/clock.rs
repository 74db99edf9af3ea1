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

/// `t` as the RFC 3339 text every stored timestamp uses (UTC, milliseconds, `Z`).
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

/// A point in time a user names on the command line: a relative duration back from `now`
/// (`30m`, `24h`, `7d`, `2w`), a date (`2026-11-01`) or an RFC 3339 time. One parser for every
/// flag that takes a date, so `--since 7d` works wherever a date does.
pub fn parse_since(s: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Some(t) = parse(s) {
        return Some(t);
    }
    let unit = s.chars().last()?;
    let n: i64 = s[..s.len() - unit.len_utf8()].trim().parse().ok()?;
    if n < 0 {
        return None;
    }
    let d = match unit {
        'm' => chrono::Duration::try_minutes(n)?,
        'h' => chrono::Duration::try_hours(n)?,
        'd' => chrono::Duration::try_days(n)?,
        'w' => chrono::Duration::try_weeks(n)?,
        _ => return None,
    };
    now.checked_sub_signed(d)
}

/// The error for a `--FLAG VALUE` that [`parse_since`] does not read.
pub fn since_error(flag: &str, value: &str) -> crate::error::CmError {
    crate::error::CmError::usage(
        "INVALID_ARGUMENT",
        format!("{flag} {value}: not a date or a duration"),
    )
    .hint(
        "give a duration back from now (30m, 24h, 7d, 2w), a date (2026-11-01) or an RFC 3339 time",
    )
}

/// Age of `t` in fractional days relative to `now`; never negative (future events count as new).
pub fn age_days(t: DateTime<Utc>, now: DateTime<Utc>) -> f64 {
    let secs = (now - t).num_milliseconds() as f64 / 1000.0;
    (secs / 86_400.0).max(0.0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn since_reads_durations_and_dates() {
        let now = super::parse("2026-12-01T12:00:00Z").unwrap();
        for (typed, want) in [
            ("7d", "2026-11-24T12:00:00Z"),
            ("24h", "2026-11-30T12:00:00Z"),
            ("2w", "2026-11-17T12:00:00Z"),
            ("30m", "2026-12-01T11:30:00Z"),
            ("2026-11-01", "2026-11-01T00:00:00Z"),
        ] {
            assert_eq!(
                super::parse_since(typed, now),
                super::parse(want),
                "{typed}"
            );
        }
        for bad in ["", "d", "7x", "-3d", "seven days"] {
            assert!(super::parse_since(bad, now).is_none(), "{bad}");
        }
    }

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
