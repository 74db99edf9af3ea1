//! Measuring each query term before deciding what to score: how many of its newest matches
//! exist (up to [`PROBE`]), and how far back they reach. Reading a term's newest postings costs
//! a few hundredths of a microsecond each, so a probe costs at most about 0.1 ms per term.

use super::plan::TermStat;
use super::statements::{PROBE_SQL, SPAN_SQL, Statement, quote};
use rusqlite::Connection;
use rusqlite::types::Value;

/// The lowest and highest message rowid (0, 0 when empty).
pub fn span(conn: &Connection) -> rusqlite::Result<(i64, i64)> {
    conn.prepare_cached(SPAN_SQL)?.query_row([], |r| {
        Ok((
            r.get::<_, Option<i64>>(0)?.unwrap_or(0),
            r.get::<_, Option<i64>>(1)?.unwrap_or(0),
        ))
    })
}

/// Probe every term, reading at most `budget.probe` matches of each of the first `asked` (the
/// query's own) and `budget.expansion_probe` of each expansion (`u64::MAX`: count them all);
/// the first probe statement is recorded in `ran`, for its plan.
pub fn terms(
    conn: &Connection,
    terms: &[String],
    asked: usize,
    budget: super::plan::Budget,
    ran: &mut Vec<Statement>,
) -> rusqlite::Result<Vec<TermStat>> {
    let mut stmt = conn.prepare_cached(PROBE_SQL)?;
    let mut out = Vec::with_capacity(terms.len());
    for (i, t) in terms.iter().enumerate() {
        // An expansion term needs only to be known as specific or not.
        let probe = if i < asked {
            budget.probe
        } else {
            budget.probe.min(budget.expansion_probe)
        };
        let limit = i64::try_from(probe).unwrap_or(-1);
        let q = quote(t);
        let (seen, oldest): (i64, Option<i64>) =
            stmt.query_row(rusqlite::params![q, limit], |r| Ok((r.get(0)?, r.get(1)?)))?;
        if i == 0 {
            ran.push(Statement {
                stage: "probe",
                sql: PROBE_SQL.into(),
                params: vec![Value::Text(q), Value::Integer(limit)],
            });
        }
        let seen = seen.max(0) as u64;
        out.push(TermStat {
            term: t.clone(),
            seen,
            oldest_seen: oldest,
            exact: seen < probe,
        });
    }
    Ok(out)
}
