//! A question that names a date lifts the messages written then.
//!
//! "What did we ship on October 13, 2023?", "what did we change in the parser in
//! March": the date is not in the words of the message that answers, it is when the message was
//! written. So a day, a month (with or without its year) or a year named in the query is a
//! period, and among the best [`POOL`] candidates those written inside any named period are
//! lifted: `score x (1 + LIFT)`. Only the pool is lifted (what lies below it is out of reach of
//! the hits anyway), nothing is filtered out, and the date's words stay query terms (a message
//! may say "in March" too).
//!
//! Recognised (English, case-insensitive, commas and ordinal suffixes allowed): `October 13,
//! 2023`, `13 October 2023`, `Oct 13` (a month: the year is not said), `in June`, `July 2023`,
//! `in 2023`. "May", "March" and abbreviations are months only beside a day or a year
//! (otherwise they are a verb, a walk, a name); a year alone only after "in" or "during". Days
//! are UTC calendar days, as message times are stored. Cost, only for a query that names a date: one
//! primary-key lookup per pooled candidate.

use super::Ranked;
use super::statements::MESSAGE_TS_SQL;
use chrono::{Datelike, NaiveDate};
use rusqlite::{Connection, OptionalExtension};

/// Candidates whose time is looked at (and lifted).
pub const POOL: usize = 100;
/// How much a message written in a named period is lifted (x (1 + LIFT)).
pub const LIFT: f64 = 1.0;

/// A stretch of time a query names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Day(NaiveDate),
    /// A month, of one year or of any.
    Month(Option<i32>, u32),
    Year(i32),
}

impl Period {
    pub fn contains(&self, day: NaiveDate) -> bool {
        match *self {
            Period::Day(d) => d == day,
            Period::Month(y, m) => day.month() == m && y.is_none_or(|y| y == day.year()),
            Period::Year(y) => day.year() == y,
        }
    }
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// 1-12 for a month's name or its three-letter abbreviation (`sept` too), and whether it was
/// the full name.
fn month(word: &str) -> Option<(u32, bool)> {
    let w = word.to_lowercase();
    if let Some(i) = MONTHS.iter().position(|m| *m == w) {
        return Some((i as u32 + 1, true));
    }
    let short = if w == "sept" { "sep" } else { w.as_str() };
    MONTHS
        .iter()
        .position(|m| short.len() == 3 && m.starts_with(short))
        .map(|i| (i as u32 + 1, false))
}

/// A day of the month: `13`, `13th`, `1st`.
fn day(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") || digits.is_empty() || digits.len() > 2 {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

fn year(word: &str) -> Option<i32> {
    (word.len() == 4)
        .then(|| word.parse().ok())
        .flatten()
        .filter(|y| (1970..=2100).contains(y))
}

/// Pure: the periods `query` names, in order (none for most queries).
pub fn periods(query: &str) -> Vec<Period> {
    let words: Vec<&str> = query
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '?' | '!' | '(' | ')' | ';'))
        .map(|w| w.trim_matches(|c: char| matches!(c, '.' | '"' | '\'')))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    let mut used = vec![false; words.len()];
    for (i, w) in words.iter().enumerate() {
        let Some((m, full)) = month(w) else { continue };
        let before = i.checked_sub(1).and_then(|j| day(words[j]).map(|d| (j, d)));
        let after = words.get(i + 1).and_then(|w| day(w)).map(|d| (i + 1, d));
        let dayed = after.or(before);
        let y_at = dayed.map_or(i, |(j, _)| j.max(i)) + 1;
        let y = words.get(y_at).and_then(|w| year(w));
        // Alone, "may" and "march" are a verb and a walk, and "dec" or "jan" may be anything.
        let bare = dayed.is_none() && y.is_none();
        if bare && (!full || matches!(m, 3 | 5)) {
            continue;
        }
        used[i] = true;
        if y.is_some() {
            used[y_at] = true;
        }
        match dayed {
            Some((j, d)) => {
                used[j] = true;
                // A day without a year could be any year's: the month is what is known.
                match y.and_then(|y| NaiveDate::from_ymd_opt(y, m, d)) {
                    Some(date) => out.push(Period::Day(date)),
                    None => out.push(Period::Month(y, m)),
                }
            }
            None => out.push(Period::Month(y, m)),
        }
    }
    // A year alone only after "in" or "during": a bare number is more often a count or a port.
    for (i, w) in words.iter().enumerate().skip(1) {
        let after = words[i - 1].to_lowercase();
        if let Some(y) = year(w).filter(|_| !used[i] && matches!(after.as_str(), "in" | "during")) {
            out.push(Period::Year(y));
        }
    }
    out.dedup();
    out
}

/// Lift the best [`POOL`] of `ranked` (best first) written in one of `periods`; best first
/// again.
pub fn apply(
    conn: &Connection,
    mut ranked: Vec<Ranked>,
    periods: &[Period],
) -> rusqlite::Result<Vec<Ranked>> {
    if periods.is_empty() || ranked.is_empty() {
        return Ok(ranked);
    }
    let mut stmt = conn.prepare_cached(MESSAGE_TS_SQL)?;
    let n = ranked.len().min(POOL);
    let mut days = Vec::with_capacity(n);
    for r in &ranked[..n] {
        let ts: Option<i64> = stmt.query_row([r.id], |m| m.get(0)).optional()?.flatten();
        days.push(
            ts.and_then(chrono::DateTime::from_timestamp_millis)
                .map(|t| t.date_naive()),
        );
    }
    lift(&mut ranked[..n], &days, periods);
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
    Ok(ranked)
}

/// Pure: lift each of `pool` whose day (`days[i]`, `None` when unknown) is in a period.
pub fn lift(pool: &mut [Ranked], days: &[Option<NaiveDate>], periods: &[Period]) {
    for (r, d) in pool.iter_mut().zip(days) {
        if d.is_some_and(|d| periods.iter().any(|p| p.contains(d))) {
            r.score *= 1.0 + LIFT;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ymd(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn days_months_and_years_are_read_from_questions() {
        use Period::*;
        let day = |y, m, d| Day(ymd(y, m, d));
        assert_eq!(
            periods("What painting did Melanie show to Caroline on October 13, 2023?"),
            vec![day(2023, 10, 13)]
        );
        assert_eq!(
            periods("What did Gina find for her store on 1 February, 2023?"),
            vec![day(2023, 2, 1)]
        );
        assert_eq!(
            periods("the week before August 3rd 2023"),
            vec![day(2023, 8, 3)]
        );
        assert_eq!(
            periods("When did she go camping in June?"),
            vec![Month(None, 6)]
        );
        assert_eq!(
            periods("kids paint in July 2023"),
            vec![Month(Some(2023), 7)]
        );
        assert_eq!(periods("deploys on Oct 13"), vec![Month(None, 10)]);
        assert_eq!(periods("on May 25, 2023"), vec![day(2023, 5, 25)]);
        assert_eq!(periods("the beach in 2023"), vec![Year(2023)]);
        assert_eq!(
            periods("between March 2023 and in 2024"),
            vec![Month(Some(2023), 3), Year(2024)]
        );
    }

    #[test]
    fn words_that_only_look_like_dates_are_not_periods() {
        for q in [
            "What may Caroline pursue?",
            "the march for rights",
            "fix the timeout 13 times",
            "port 8080 and 12345",
            "a 2048 match probe",
            "jan fixed the dec counter",
            "error 404 in the parser",
            "",
        ] {
            assert!(periods(q).is_empty(), "{q}: {:?}", periods(q));
        }
        // February 30th is no day: the month is still meant.
        assert_eq!(
            periods("February 30, 2023"),
            vec![Period::Month(Some(2023), 2)]
        );
    }

    #[test]
    fn messages_written_in_a_named_period_are_lifted() {
        let r = |id, score| Ranked {
            id,
            score,
            matched: 1,
            mask: 1,
            lent_by: None,
        };
        let mut pool = vec![r(1, 2.0), r(2, 1.5), r(3, 1.0)];
        let days = [Some(ymd(2023, 5, 8)), Some(ymd(2023, 10, 13)), None];
        lift(&mut pool, &days, &[Period::Month(None, 10)]);
        assert_eq!(pool[0].score, 2.0);
        assert!((pool[1].score - 1.5 * (1.0 + LIFT)).abs() < 1e-12);
        assert_eq!(pool[2].score, 1.0);
        assert!(Period::Year(2023).contains(ymd(2023, 1, 1)));
        assert!(!Period::Month(Some(2024), 5).contains(ymd(2023, 5, 8)));
    }
}
