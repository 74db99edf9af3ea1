//! The `llm_usage` table (migration 005): one row per call. The budget is checked and the call
//! reserved in one `BEGIN IMMEDIATE` transaction ([`reserve`]), so two processes reflecting at
//! once cannot both spend the last cents; [`finish`] then writes what the call really used. A
//! process that dies mid-call leaves its reservation, at the estimated cost, counted.

use super::budget::{self, Spent};
use super::providers::Tokens;
use super::settings::Budget;
use super::unavailable::LlmUnavailable;
use crate::clock;
use crate::error::Result;
use crate::store::Store;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};

/// A call about to go out.
pub struct Pending<'a> {
    pub at: DateTime<Utc>,
    pub purpose: &'a str,
    pub provider: &'a str,
    pub model: &'a str,
    pub session: Option<&'a str>,
    /// The most it can cost (US dollars).
    pub estimate: f64,
}

/// How a call ended.
pub enum Ended<'a> {
    Ok,
    Error(&'a str),
}

const SPENT: &str = "SELECT COALESCE(SUM(cost_usd), 0) FROM llm_usage WHERE at >= ?1 AND at < ?2";

fn spent_between(
    conn: &Connection,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> rusqlite::Result<f64> {
    conn.query_row(
        SPENT,
        params![clock::to_rfc3339(from), clock::to_rfc3339(to)],
        |r| r.get(0),
    )
}

fn spent_at(conn: &Connection, now: DateTime<Utc>) -> rusqlite::Result<Spent> {
    let (ds, de) = budget::day_window(now);
    let (ms, me) = budget::month_window(now);
    Ok(Spent {
        day: spent_between(conn, ds, de)?,
        month: spent_between(conn, ms, me)?,
    })
}

/// What was spent in the day and month holding `now`.
pub fn spent(store: &Store, now: DateTime<Utc>) -> Result<Spent> {
    spent_at(&store.conn, now).map_err(|e| store.map_err(e))
}

/// Check the budget and reserve the call; its row id. Nothing is written when it does not fit.
pub fn reserve(
    store: &Store,
    call: &Pending,
    limits: &Budget,
) -> std::result::Result<i64, LlmUnavailable> {
    let mut over = None;
    let id = store.write(|tx| {
        let spent = spent_at(tx, call.at).map_err(|e| store.map_err(e))?;
        if let Err(e) = budget::check(limits, spent, call.estimate) {
            over = Some(e);
            return Ok(0);
        }
        tx.execute(
            "INSERT INTO llm_usage (at, purpose, provider, model, cost_usd, status, session)
             VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6)",
            params![
                clock::to_rfc3339(call.at),
                call.purpose,
                call.provider,
                call.model,
                call.estimate,
                call.session
            ],
        )
        .map_err(|e| store.map_err(e))?;
        Ok(tx.last_insert_rowid())
    })?;
    match over {
        Some(e) => Err(e),
        None => Ok(id),
    }
}

/// Replace a reservation with what the call used.
pub fn finish(store: &Store, id: i64, tokens: Tokens, cost: f64, ended: Ended) -> Result<()> {
    let (status, error) = match ended {
        Ended::Ok => ("ok", None),
        Ended::Error(m) => ("error", Some(m.chars().take(500).collect::<String>())),
    };
    store.write(|tx| {
        tx.execute(
            "UPDATE llm_usage SET input_tokens = ?2, output_tokens = ?3, cost_usd = ?4, status = ?5, error = ?6
             WHERE id = ?1",
            params![id, tokens.input as i64, tokens.output as i64, cost, status, error],
        )
        .map_err(|e| store.map_err(e))?;
        Ok(())
    })
}

/// Calls, tokens and cost of one group of rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    /// The day (`2026-01-31`), month (`2026-01`) or purpose the row sums.
    pub key: String,
    pub calls: u64,
    pub failed: u64,
    pub pending: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
}

/// How rows are grouped.
#[derive(Debug, Clone, Copy)]
pub enum Group {
    Day,
    Month,
    Purpose,
}

/// Totals per group for calls in [from, to), newest day or month first (purposes by name).
pub fn totals(
    store: &Store,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    group: Group,
) -> Result<Vec<Totals>> {
    let (key, order) = match group {
        Group::Day => ("substr(at, 1, 10)", "k DESC"),
        Group::Month => ("substr(at, 1, 7)", "k DESC"),
        Group::Purpose => ("purpose", "k"),
    };
    let sql = format!(
        "SELECT {key} AS k, COUNT(*), SUM(status = 'error'), SUM(status = 'pending'),
                SUM(input_tokens), SUM(output_tokens), SUM(cost_usd)
         FROM llm_usage WHERE at >= ?1 AND at < ?2 GROUP BY k ORDER BY {order}"
    );
    let run = || -> rusqlite::Result<Vec<Totals>> {
        let mut stmt = store.conn.prepare(&sql)?;
        let rows = stmt.query_map(
            params![clock::to_rfc3339(from), clock::to_rfc3339(to)],
            |r| {
                Ok(Totals {
                    key: r.get(0)?,
                    calls: r.get::<_, i64>(1)? as u64,
                    failed: r.get::<_, i64>(2)? as u64,
                    pending: r.get::<_, i64>(3)? as u64,
                    input_tokens: r.get::<_, i64>(4)? as u64,
                    output_tokens: r.get::<_, i64>(5)? as u64,
                    cost_usd: r.get(6)?,
                })
            },
        )?;
        rows.collect()
    };
    run().map_err(|e| store.map_err(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        clock::parse(s).unwrap()
    }

    fn call<'a>(t: &str, cost: f64) -> Pending<'a> {
        Pending {
            at: at(t),
            purpose: "reflect",
            provider: "anthropic",
            model: "m",
            session: Some("s1"),
            estimate: cost,
        }
    }

    #[test]
    fn reservations_count_and_the_budget_refuses_without_writing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("cm.db")).unwrap();
        let limits = Budget::default();
        let a = reserve(&store, &call("2026-03-10T08:00:00Z", 0.04), &limits).unwrap();
        let b = reserve(&store, &call("2026-03-10T09:00:00Z", 0.04), &limits).unwrap();
        finish(
            &store,
            a,
            Tokens {
                input: 1000,
                output: 100,
            },
            0.01,
            Ended::Ok,
        )
        .unwrap();
        // b is still pending at its estimate: 0.01 + 0.04 spent.
        let s = spent(&store, at("2026-03-10T12:00:00Z")).unwrap();
        assert!((s.day - 0.05).abs() < 1e-12, "{s:?}");
        let err = reserve(&store, &call("2026-03-10T10:00:00Z", 0.06), &limits).unwrap_err();
        assert!(matches!(err, LlmUnavailable::OverBudget { .. }), "{err}");
        // The next day starts from zero; the month still counts.
        let s = spent(&store, at("2026-03-11T00:00:00Z")).unwrap();
        assert_eq!(s.day, 0.0);
        assert!((s.month - 0.05).abs() < 1e-12);
        finish(&store, b, Tokens::default(), 0.0, Ended::Error("HTTP 500")).unwrap();
        let days = totals(
            &store,
            at("2026-03-01T00:00:00Z"),
            at("2026-04-01T00:00:00Z"),
            Group::Day,
        )
        .unwrap();
        assert_eq!(days.len(), 1);
        assert_eq!(
            (
                days[0].key.as_str(),
                days[0].calls,
                days[0].failed,
                days[0].input_tokens
            ),
            ("2026-03-10", 2, 1, 1000)
        );
    }

    #[test]
    fn concurrent_callers_cannot_both_spend_the_last_cents() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cm.db");
        drop(Store::open(&path).unwrap());
        let limits = Budget::default();
        let granted: usize = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    let path = path.clone();
                    scope.spawn(move || {
                        let store = Store::open(&path).unwrap();
                        reserve(&store, &call("2026-03-10T08:00:00Z", 0.06), &limits).is_ok()
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap() as usize)
                .sum()
        });
        assert_eq!(granted, 1, "0.06 fits the $0.10 day once");
    }
}
