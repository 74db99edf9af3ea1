//! Neighbouring turns lend each other score: a message answering the turn before it often
//! lacks the words of the question ("They were scared but we reassured them" answers a turn
//! about an accident), and a question is often asked in the words of the turn it answers.
//!
//! For the best [`SPREAD_FROM`] candidates, the messages just before and after each one in the
//! same session and file (rowid +- 1, skipping scaffolding, which is never searched) receive a
//! share of its score: `score(m) = own(m) + max(share x own(n))` over its scored neighbours `n`,
//! where the share is [`LEND_AFTER`] when `m` follows `n` (a reply to a turn that matched: what
//! answers a question, or what came of a request) and [`LEND_BEFORE`] when it precedes it.
//! A neighbour that matched nothing becomes a candidate with the lent score alone. The query's
//! role and day filters hold for lent candidates too (agent and workspace are the session's).
//! Cost: at most 3 x [`SPREAD_FROM`] primary-key lookups.

use super::Ranked;
use crate::model::SearchQuery;
use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;

/// Candidates whose neighbours are looked at.
pub const SPREAD_FROM: usize = 30;
/// The share of a candidate's score the message after it receives (its reply).
pub const LEND_AFTER: f64 = 0.7;
/// The share of a candidate's score the message before it receives.
pub const LEND_BEFORE: f64 = 0.35;
/// Rows looked at on each side for the neighbour (scaffolding in between is skipped).
const REACH: i64 = 2;

/// One message's placement, by rowid: (file, session, role, ts, searchable).
pub const ROW_SQL: &str = "SELECT file_id, session_id, role, ts, hidden_text IS NULL
     FROM episodic_messages WHERE id = ?1";

struct Place {
    file: i64,
    session: String,
    role: String,
    ts: Option<i64>,
    searchable: bool,
}

/// `ranked` (best first) with neighbours' shares folded in, best first again.
pub fn spread(
    conn: &Connection,
    q: &SearchQuery,
    ranked: Vec<Ranked>,
) -> rusqlite::Result<Vec<Ranked>> {
    if ranked.is_empty() {
        return Ok(ranked);
    }
    let mut stmt = conn.prepare_cached(ROW_SQL)?;
    let mut place = |id: i64| -> rusqlite::Result<Option<Place>> {
        stmt.query_row([id], |r| {
            Ok(Place {
                file: r.get(0)?,
                session: r.get(1)?,
                role: r.get(2)?,
                ts: r.get(3)?,
                searchable: r.get(4)?,
            })
        })
        .optional()
    };
    let since = q
        .days
        .map(|d| cm_base::clock::now().timestamp_millis() - d as i64 * 86_400_000);
    let allowed = |p: &Place| {
        p.searchable
            && q.role.is_none_or(|r| r.as_str() == p.role)
            && since.is_none_or(|s| p.ts.is_some_and(|t| t >= s))
    };
    // rowid -> (best lent score, lender)
    let mut lent: HashMap<i64, (f64, i64)> = HashMap::new();
    for c in ranked.iter().take(SPREAD_FROM) {
        let Some(home) = place(c.id)? else { continue };
        for (dir, lend) in [(-1i64, LEND_BEFORE), (1, LEND_AFTER)] {
            for step in 1..=REACH {
                let id = c.id + dir * step;
                let Some(p) = place(id)? else { break };
                if p.file != home.file || p.session != home.session {
                    break;
                }
                if !p.searchable {
                    continue;
                }
                if allowed(&p) {
                    let share = lend * c.score;
                    let e = lent.entry(id).or_insert((0.0, c.id));
                    if share > e.0 {
                        *e = (share, c.id);
                    }
                }
                break;
            }
        }
    }
    let mut out: Vec<Ranked> = ranked
        .into_iter()
        .map(|mut r| {
            if let Some((share, by)) = lent.remove(&r.id) {
                r.score += share;
                r.lent_by = Some(by);
            }
            r
        })
        .collect();
    out.extend(lent.into_iter().map(|(id, (score, by))| Ranked {
        id,
        score,
        matched: 0,
        mask: 0,
        lent_by: Some(by),
    }));
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
    Ok(out)
}
