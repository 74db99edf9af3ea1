//! The budget rule, free of I/O: a call may go out when what was spent in the current UTC day
//! (and month) plus the most this call can cost stays within the limit. A limit of 0 allows
//! only free calls (a local model). Past `warningThreshold` percent the answer carries a
//! warning.

use super::settings::Budget;
use super::unavailable::{LlmUnavailable, Period};
use chrono::{DateTime, Datelike, Months, NaiveDate, Utc};

/// Spent so far in the current day and month (US dollars), reservations included.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    pub day: f64,
    pub month: f64,
}

/// Rounding slack: a sum of float costs may land a hair above a limit it exactly meets.
const SLACK: f64 = 1e-9;

pub fn check(budget: &Budget, spent: Spent, estimate: f64) -> Result<(), LlmUnavailable> {
    for (period, spent, limit) in [
        (Period::Day, spent.day, budget.daily_limit),
        (Period::Month, spent.month, budget.monthly_limit),
    ] {
        if spent + estimate > limit + SLACK {
            return Err(LlmUnavailable::OverBudget {
                period,
                spent,
                estimate,
                limit,
            });
        }
    }
    Ok(())
}

/// A warning for each limit past the threshold.
pub fn warnings(budget: &Budget, spent: Spent) -> Vec<String> {
    [
        ("today", spent.day, budget.daily_limit, "daily"),
        ("this month", spent.month, budget.monthly_limit, "monthly"),
    ]
    .into_iter()
    .filter(|(_, s, limit, _)| *limit > 0.0 && s * 100.0 >= limit * budget.warning_threshold)
    .map(|(when, s, limit, name)| {
        format!(
            "LLM spend {when} is {:.0}% of the ${limit:.2} {name} limit (${s:.4})",
            s * 100.0 / limit
        )
    })
    .collect()
}

/// The UTC day holding `now`: [start, end).
pub fn day_window(now: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
    let start = now.date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
    (start, start + chrono::Duration::days(1))
}

/// The UTC month holding `now`: [start, end).
pub fn month_window(now: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
    let first = NaiveDate::from_ymd_opt(now.year(), now.month(), 1).unwrap();
    let start = first.and_hms_opt(0, 0, 0).unwrap().and_utc();
    (start, start + Months::new(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_must_fit_both_limits() {
        let b = Budget::default();
        assert!(
            check(
                &b,
                Spent {
                    day: 0.05,
                    month: 1.0
                },
                0.05
            )
            .is_ok()
        );
        assert!(matches!(
            check(
                &b,
                Spent {
                    day: 0.06,
                    month: 1.0
                },
                0.05
            ),
            Err(LlmUnavailable::OverBudget {
                period: Period::Day,
                ..
            })
        ));
        assert!(matches!(
            check(
                &b,
                Spent {
                    day: 0.0,
                    month: 1.99
                },
                0.02
            ),
            Err(LlmUnavailable::OverBudget {
                period: Period::Month,
                ..
            })
        ));
        let zero = Budget {
            daily_limit: 0.0,
            ..b
        };
        assert!(
            check(&zero, Spent::default(), 0.0).is_ok(),
            "free calls pass a zero limit"
        );
        assert!(check(&zero, Spent::default(), 0.0001).is_err());
    }

    #[test]
    fn warnings_past_the_threshold() {
        let b = Budget::default();
        assert!(
            warnings(
                &b,
                Spent {
                    day: 0.079,
                    month: 0.1
                }
            )
            .is_empty()
        );
        let w = warnings(
            &b,
            Spent {
                day: 0.085,
                month: 1.9,
            },
        );
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].starts_with("LLM spend today is 85% of the $0.10 daily limit"),
            "{w:?}"
        );
    }

    #[test]
    fn windows_are_utc_days_and_months() {
        let t = crate::clock::parse("2026-12-31T23:59:00Z").unwrap();
        let (s, e) = day_window(t);
        assert_eq!(crate::clock::to_rfc3339(s), "2026-12-31T00:00:00.000Z");
        assert_eq!(crate::clock::to_rfc3339(e), "2027-01-01T00:00:00.000Z");
        let (s, e) = month_window(t);
        assert_eq!(crate::clock::to_rfc3339(s), "2026-12-01T00:00:00.000Z");
        assert_eq!(crate::clock::to_rfc3339(e), "2027-01-01T00:00:00.000Z");
    }
}
