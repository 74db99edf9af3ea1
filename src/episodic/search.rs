//! Full-text search over the session index.
//!
//! The question becomes a quoted OR query ([`super::query`]); FTS5 ranks matches with BM25,
//! weighting what the user and the assistant said above tool calls and tool output; messages
//! whose scores tie (to two decimals) come newest first. Filters (agent, workspace prefix, age,
//! role) are applied in the same statement. Snippets and titles are fetched for the returned hits
//! only (see [`super::snippet`]). Scaffolding is never in the full-text index, so it is never
//! found.

use super::model::{Hit, Origin, SearchQuery};
use crate::error::{CmError, Result};
use rusqlite::{Connection, ToSql};

/// BM25 column weights: conversation text, tool calls and results.
pub const WEIGHTS: (f64, f64) = (1.0, 0.35);
pub const DEFAULT_LIMIT: usize = 10;
/// Up to this many indexed messages, every match is ranked.
const RANK_ALL_UP_TO: i64 = 50_000;
/// A term matching more messages than this is "common" in a large index (see [`plan`]).
const COMMON_TERM_DOCS: i64 = 1_000;

/// Which terms go into the MATCH expression, and how matches are ordered.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub terms: Vec<String>,
    pub mode: Mode,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Any term matches; BM25 ranks every match.
    Ranked,
    /// Every term is common: messages holding all of them (then any), newest first, unscored.
    Newest,
}

/// BM25 has to score every match (and to count each term's matches for its IDF), and that is
/// what costs: an OR of words found in a third of all messages scores a third of the index. In
/// a large index each term's matches are counted, stopping at [`COMMON_TERM_DOCS`]. Terms above
/// it carry little weight (low IDF) and are dropped when rarer terms exist, which bounds the
/// work by the rare terms' postings. When every term is common, ranking would cost the most and
/// tell the least, so the newest messages holding all of the terms come first. Small indexes
/// rank every match.
pub fn plan(conn: &Connection, terms: Vec<String>) -> rusqlite::Result<Plan> {
    let size: i64 = conn.query_row(
        "SELECT coalesce(max(id), 0) FROM episodic_messages",
        [],
        |r| r.get(0),
    )?;
    if size <= RANK_ALL_UP_TO {
        return Ok(Plan {
            terms,
            mode: Mode::Ranked,
        });
    }
    let mut probe = conn.prepare_cached(
        "SELECT count(*) FROM (SELECT 1 FROM episodic_fts WHERE episodic_fts MATCH ?1 LIMIT ?2)",
    )?;
    let (mut rare, mut present) = (Vec::new(), Vec::new());
    for t in terms {
        let n: i64 = probe.query_row(rusqlite::params![quote(&t), COMMON_TERM_DOCS + 1], |r| {
            r.get(0)
        })?;
        if n > 0 && n <= COMMON_TERM_DOCS {
            rare.push(t.clone());
        }
        if n > 0 {
            present.push(t);
        }
    }
    Ok(if rare.is_empty() {
        Plan {
            terms: present,
            mode: Mode::Newest,
        }
    } else {
        Plan {
            terms: rare,
            mode: Mode::Ranked,
        }
    })
}

fn quote(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

pub fn search(conn: &Connection, query: &SearchQuery) -> Result<Vec<Hit>> {
    let terms = super::query::terms(&query.query);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let err = |e: rusqlite::Error| CmError::internal(format!("session search failed: {e}"));
    let highlight = terms.clone();
    let plan = plan(conn, terms).map_err(err)?;
    if plan.terms.is_empty() {
        return Ok(Vec::new());
    }
    let quoted: Vec<String> = plan.terms.iter().map(|t| quote(t)).collect();
    // Any of the terms. In `Newest` mode all of them are tried first (see below).
    let fts = quoted.join(" OR ");
    let all_terms = quoted.join(" AND ");
    let limit = if query.limit == 0 {
        DEFAULT_LIMIT
    } else {
        query.limit
    };
    let mut filters = String::new();
    let mut params: Vec<Box<dyn ToSql>> = vec![Box::new(fts.clone())];
    if let Some(agent) = &query.agent {
        params.push(Box::new(agent.clone()));
        filters.push_str(&format!(" AND m.agent = ?{}", params.len()));
    }
    if let Some(role) = query.role {
        params.push(Box::new(role.as_str()));
        filters.push_str(&format!(" AND m.role = ?{}", params.len()));
    }
    if let Some(ws) = query.workspace.as_deref().filter(|w| !w.is_empty()) {
        params.push(Box::new(ws.to_string()));
        let n = params.len();
        filters.push_str(&format!(" AND substr(m.workspace, 1, length(?{n})) = ?{n}"));
    }
    if let Some(days) = query.days {
        let since = crate::clock::now().timestamp_millis() - days as i64 * 86_400_000;
        params.push(Box::new(since));
        filters.push_str(&format!(" AND m.ts >= ?{}", params.len()));
    }
    params.push(Box::new(match plan.mode {
        Mode::Ranked => -1,
        Mode::Newest => limit as i64,
    }));
    let newest = params.len();
    // Ranked: a few more candidates than asked for, re-ordered by how many of the terms they hold.
    let fetch_n = match plan.mode {
        Mode::Ranked => (limit * 5).max(50),
        Mode::Newest => limit,
    };
    params.push(Box::new(fetch_n as i64));
    let limit_param = params.len();
    let (w0, w1) = WEIGHTS;
    let score = match plan.mode {
        Mode::Ranked => format!("bm25(episodic_fts, {w0}, {w1})"),
        Mode::Newest => "0.0".to_string(),
    };
    if plan.mode == Mode::Newest {
        // Try the AND first; fall back to the OR when it finds too little.
        params[0] = Box::new(all_terms.clone());
    }
    let sql = format!(
        "SELECT m.id, m.agent, m.session_id, f.path, m.line_number, m.workspace, m.role,
                m.created_at, h.score, s.title, coalesce(m.text, m.tool_text, ''), m.tool_args
         FROM (SELECT episodic_fts.rowid AS id, {score} AS score, m.ts AS ts
               FROM episodic_fts JOIN episodic_messages m ON m.id = episodic_fts.rowid
               WHERE episodic_fts MATCH ?1{filters}
               ORDER BY episodic_fts.rowid DESC LIMIT ?{newest}) h
         JOIN episodic_messages m ON m.id = h.id
         JOIN episodic_files f ON f.id = m.file_id
         LEFT JOIN episodic_sessions s ON s.agent = m.agent AND s.session_id = m.session_id
         ORDER BY round(h.score, 2), h.ts DESC LIMIT ?{limit_param}"
    );
    let mut found = fetch(conn, &sql, &params).map_err(err)?;
    if plan.mode == Mode::Newest && found.len() < limit && plan.terms.len() > 1 {
        params[0] = Box::new(fts.clone());
        for (id, hit, body) in fetch(conn, &sql, &params).map_err(err)? {
            if found.len() < limit && !found.iter().any(|(f, _, _)| *f == id) {
                found.push((id, hit, body));
            }
        }
    }
    if plan.mode == Mode::Ranked && highlight.len() > 1 {
        let n = highlight.len() as f64;
        let mut keyed: Vec<(f64, usize)> = found
            .iter()
            .enumerate()
            .map(|(i, (_, hit, (body, args)))| {
                let c = super::snippet::coverage(body, &highlight).max(
                    args.as_deref()
                        .map_or(0, |a| super::snippet::coverage(a, &highlight)),
                );
                (hit.score * (1.0 + c as f64 / n), i)
            })
            .collect();
        keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut slots: Vec<Option<_>> = found.into_iter().map(Some).collect();
        found = keyed
            .into_iter()
            .filter_map(|(score, i)| {
                slots[i].take().map(|mut f| {
                    f.1.score = score;
                    f
                })
            })
            .collect();
    }
    found.truncate(limit);
    let mut hits = Vec::new();
    for (_, mut hit, (body, args)) in found {
        hit.snippet = super::snippet::snippet(&body, &highlight);
        if !hit.snippet.contains("**")
            && let Some(args) = args
        {
            let s = super::snippet::snippet(&args, &highlight);
            if s.contains("**") || hit.snippet.is_empty() {
                hit.snippet = s;
            }
        }
        hit.score = (hit.score * 1000.0).round() / 1000.0;
        hits.push(hit);
    }
    Ok(hits)
}

fn fetch(
    conn: &Connection,
    sql: &str,
    params: &[Box<dyn ToSql>],
) -> rusqlite::Result<Vec<(i64, Hit, Body)>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let refs: Vec<&dyn ToSql> = params.iter().map(|p| p.as_ref()).collect();
    let rows = stmt.query_map(refs.as_slice(), |r| {
        Ok((
            r.get::<_, i64>(0)?,
            Hit {
                agent: r.get(1)?,
                session_id: r.get(2)?,
                source_path: r.get(3)?,
                line_number: r.get::<_, i64>(4)? as u64,
                workspace: r.get(5)?,
                role: r.get(6)?,
                created_at: r.get(7)?,
                // BM25 is lower-is-better; hits carry higher-is-better (and no -0.0).
                score: 0.0 - r.get::<_, f64>(8)? + 0.0,
                title: r.get(9)?,
                snippet: String::new(),
                origin: Origin::local(),
            },
            (r.get(10)?, r.get(11)?),
        ))
    })?;
    rows.collect()
}

/// A hit's stored body and tool arguments, for its snippet.
type Body = (String, Option<String>);

/// How much the index holds: lets callers say "no index yet" instead of "nothing found".
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexStatus {
    pub files: u64,
    pub messages: u64,
    pub sessions: u64,
    pub last_indexed_at: Option<String>,
}

/// The index's size. A store without the episodic tables counts as empty.
pub fn status(conn: &Connection) -> IndexStatus {
    let q = |sql: &str| -> Option<u64> {
        conn.query_row(sql, [], |r| r.get::<_, i64>(0))
            .ok()
            .map(|n| n as u64)
    };
    IndexStatus {
        files: q("SELECT count(*) FROM episodic_files").unwrap_or(0),
        messages: q("SELECT count(*) FROM episodic_messages").unwrap_or(0),
        sessions: q("SELECT count(*) FROM episodic_sessions").unwrap_or(0),
        last_indexed_at: conn
            .query_row("SELECT max(indexed_at) FROM episodic_files", [], |r| {
                r.get(0)
            })
            .ok()
            .flatten(),
    }
}

/// Whether anything has been indexed yet (cheap: one row lookup).
pub fn has_index(conn: &Connection) -> bool {
    conn.query_row("SELECT EXISTS(SELECT 1 FROM episodic_messages)", [], |r| {
        r.get::<_, bool>(0)
    })
    .unwrap_or(false)
}
