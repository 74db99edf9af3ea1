//! From ranked rowids to hits: the best candidates' rows are read by rowid (one primary-key
//! lookup each), re-ordered so that messages holding more of the query's terms come first, and
//! given a snippet. Only [`candidates_wanted`] rows are ever read.

use super::Ranked;
use super::statements::{FILE_PATH_SQL, HIT_SQL, LINE_SQL, SESSION_TITLE_SQL};
use crate::model::{Hit, Origin};
use crate::snippet;
use rusqlite::Connection;
use rusqlite::OptionalExtension;

/// Candidates read for `limit` hits: a few more than asked for, for the coverage re-order.
pub fn candidates_wanted(limit: usize) -> usize {
    (limit * 5).max(50)
}

struct Row {
    hit: Hit,
    body: String,
    args: Option<String>,
    ts: Option<i64>,
    id: i64,
}

/// Hits for the best of `ranked` (best first). With `coverage`, a message's score is raised by
/// the share of the query's terms it holds (`score x (1 + matched / terms)`) before the final
/// order.
pub fn fetch(
    conn: &Connection,
    ranked: Vec<Ranked>,
    terms: &[String],
    asked: usize,
    limit: usize,
    coverage: bool,
) -> rusqlite::Result<Vec<Hit>> {
    let mut stmt = conn.prepare_cached(HIT_SQL)?;
    let mut path = conn.prepare_cached(FILE_PATH_SQL)?;
    let mut title = conn.prepare_cached(SESSION_TITLE_SQL)?;
    let mut rows = Vec::new();
    let n = asked.max(1) as f64;
    let mut line = conn.prepare_cached(LINE_SQL)?;
    for Ranked {
        id,
        score,
        matched,
        lent_by,
        mask,
    } in ranked.into_iter().take(candidates_wanted(limit))
    {
        let score = if coverage && asked > 1 {
            score * (1.0 + matched as f64 / n)
        } else {
            score
        };
        let row = stmt
            .query_row([id], |r| {
                Ok((
                    r.get::<_, i64>(2)?,
                    Row {
                        hit: Hit {
                            agent: r.get(0)?,
                            session_id: r.get(1)?,
                            source_path: String::new(),
                            line_number: r.get::<_, i64>(3)? as u64,
                            workspace: r.get(4)?,
                            role: r.get(5)?,
                            created_at: r.get(6)?,
                            title: None,
                            snippet: String::new(),
                            // No -0.0.
                            score: score + 0.0,
                            origin: Origin::local(),
                            expanded: Vec::new(),
                            neighbour_of: None,
                        },
                        body: r.get(7)?,
                        args: r.get(8)?,
                        ts: r.get(9)?,
                        id,
                    },
                ))
            })
            .optional()?;
        // None: deleted by a re-index since it was scored.
        let Some((file_id, mut row)) = row else {
            continue;
        };
        row.hit.expanded = (asked..terms.len().min(64))
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| terms[i].clone())
            .collect();
        if let Some(by) = lent_by {
            row.hit.neighbour_of = line
                .query_row([by], |r| r.get::<_, i64>(0))
                .optional()?
                .map(|l| l as u64);
        }
        row.hit.source_path = path
            .query_row([file_id], |r| r.get(0))
            .optional()?
            .unwrap_or_default();
        row.hit.title = title
            .query_row([&row.hit.agent, &row.hit.session_id], |r| r.get(0))
            .optional()?
            .flatten();
        rows.push(row);
    }
    let round2 = |s: f64| (s * 100.0).round() as i64;
    rows.sort_by(|a, b| {
        round2(b.hit.score)
            .cmp(&round2(a.hit.score))
            .then(b.ts.cmp(&a.ts))
            .then(b.id.cmp(&a.id))
    });
    rows.truncate(limit);
    Ok(rows
        .into_iter()
        .map(|mut r| {
            r.hit.snippet = snippet::snippet(&r.body, terms);
            if !r.hit.snippet.contains("**")
                && let Some(args) = &r.args
            {
                let s = snippet::snippet(args, terms);
                if s.contains("**") || r.hit.snippet.is_empty() {
                    r.hit.snippet = s;
                }
            }
            r.hit.score = (r.hit.score * 1000.0).round() / 1000.0;
            r.hit
        })
        .collect())
}
