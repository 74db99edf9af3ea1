//! Full-text search over the session index, ranked by BM25 within a bounded amount of work.
//!
//! The question becomes quoted terms ([`super::query`]). Each term's newest matches are counted
//! ([`probe`]); from those counts [`plan`] decides which messages are scored: every message
//! holding a rare term (scored on the whole query), and the newest holding the common ones.
//! Scores are BM25 exactly as FTS5 defines it ([`bm25`]), computed from per-row counts an FTS5
//! auxiliary function reports ([`tf`]), weighting what the user and the assistant said above tool
//! calls and output. Among the best candidates, messages holding more of the query's terms come
//! first; ties (to two decimals) go to the newest. Snippets and titles are fetched for the hits
//! only ([`hits`]). Scaffolding is never in the full-text index, so it is never found.
//!
//! Every statement starts from the full-text table ([`statements`]), so no plan depends on
//! planner statistics. A caller with a deadline installs a progress handler
//! ([`cm_store::deadline`]); an interrupted search answers with what it had scored and says
//! which stage was cut ([`Outcome::cut`]).

pub mod bm25;
pub mod dated;
pub mod feedback;
mod hits;
pub mod neighbours;
pub mod plan;
mod probe;
pub mod session_prior;
pub mod spread;
pub mod statements;
pub mod tf;

pub use statements::WEIGHTS;

use super::model::{Hit, SearchQuery};
use cm_base::error::{CmError, Result};
use plan::Plan;
use rusqlite::Connection;
use serde::Serialize;
use statements::{Statement, expression, interrupted};
use std::collections::HashMap;

pub const DEFAULT_LIMIT: usize = 10;
/// Distinct query terms probed, at most (long prompts): the first ones.
pub const MAX_PROBED: usize = 24;
/// Associated terms a query is widened with, at most; only queries of at most
/// [`EXPAND_UP_TO`] terms are widened (a long prompt has words enough, and the terms the
/// ranking scores are bounded).
pub const MAX_EXPANSIONS: usize = 4;
pub const EXPAND_UP_TO: usize = 8;
/// Queries of fewer terms are lookups (an identifier, a word or two), answered with the
/// messages holding them only: neither widened nor lent neighbours' scores. Questions and
/// descriptions, whose answers use other words, have more.
pub const WIDEN_FROM: usize = 3;
/// An expansion's BM25 counts for this share of an original term's, times its weight.
pub const EXPANSION_WEIGHT: f64 = 0.4;

#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Score every match of every term (slow on common words; the reference the bounded
    /// ranking is measured against).
    pub exhaustive: bool,
    /// Keep each statement's query plan.
    pub explain: bool,
    /// Pure BM25: no re-order by the number of query terms a message holds.
    pub no_coverage: bool,
    /// No score lent by neighbouring turns ([`neighbours`]).
    pub no_neighbours: bool,
    /// Do not widen the query with associated terms ([`crate::assoc`]).
    pub no_expand: bool,
    /// No lift for messages whose session holds many of the query's terms ([`session_prior`]).
    pub no_session_prior: bool,
    /// No second pass widened with the first pass's words ([`feedback`]).
    pub no_feedback: bool,
    /// No lift for messages written in a period the query names ([`dated`]).
    pub no_dates: bool,
}

/// A search's answer and how it was reached.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub hits: Vec<Hit>,
    /// "exact" (every match scored), "bounded" (rare terms everywhere, common ones in the
    /// newest messages), "exhaustive" (FTS5 bm25 over every match), or "none".
    pub strategy: &'static str,
    /// Terms the ranking used, rarest first, and those left out.
    pub terms: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub terms_dropped: Vec<String>,
    /// Associated terms the query was widened with (scored at a lower weight).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expanded: Vec<crate::assoc::Expansion>,
    /// Words of the first pass's best hits the second pass added (pseudo-relevance feedback).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub feedback: Vec<feedback::Added>,
    /// Messages scored.
    pub scored: usize,
    /// The stage a deadline interrupted (probe, expand, rare, recent, all, dates, sessions,
    /// neighbours, feedback, hits), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plans: Vec<StatementPlan>,
}

impl Default for Outcome {
    fn default() -> Self {
        Outcome {
            hits: Vec::new(),
            strategy: "none",
            terms: Vec::new(),
            terms_dropped: Vec::new(),
            expanded: Vec::new(),
            feedback: Vec::new(),
            scored: 0,
            cut: None,
            plans: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct StatementPlan {
    pub stage: &'static str,
    pub plan: Vec<String>,
}

pub fn search(conn: &Connection, query: &SearchQuery) -> Result<Vec<Hit>> {
    Ok(run(conn, query, Options::default())?.hits)
}

pub fn run(conn: &Connection, query: &SearchQuery, opts: Options) -> Result<Outcome> {
    // A corrupt, locked or vanished store is reported as such (with the store's path and a
    // hint), like every other store error; anything else is an internal failure of the search.
    let err = |e: rusqlite::Error| match conn.path().filter(|p| !p.is_empty()) {
        Some(path) if e.sqlite_error_code().is_some() => {
            cm_store::map_err(e, std::path::Path::new(path))
        }
        _ => CmError::internal(format!("session search failed: {e}")),
    };
    let mut terms = super::query::terms(&query.query);
    terms.truncate(MAX_PROBED);
    let mut out = Outcome::default();
    if terms.is_empty() {
        return Ok(out);
    }
    let limit = if query.limit == 0 {
        DEFAULT_LIMIT
    } else {
        query.limit
    };
    // One read transaction for the whole search: every stage reads the same snapshot, and the
    // hundreds of lookups by rowid do not each take and drop the file's shared lock.
    let _snapshot = match conn.is_autocommit() {
        true => match conn.unchecked_transaction() {
            Ok(tx) => Some(tx),
            Err(e) if interrupted(&e) => {
                out.cut = Some("probe");
                return Ok(out);
            }
            Err(e) => return Err(err(e)),
        },
        false => None,
    };
    match tf::ensure(conn) {
        Ok(()) => {}
        Err(e) if interrupted(&e) => {
            out.cut = Some("probe");
            return Ok(out);
        }
        Err(e) => return Err(err(e)),
    }
    let asked = terms.len();
    let mut weights = vec![1.0; asked];
    let question = asked >= WIDEN_FROM;
    if !opts.no_expand && question && asked <= EXPAND_UP_TO {
        match widen(conn, &terms) {
            Ok(found) => {
                for e in found {
                    let Some(t) = super::query::terms(&e.word).into_iter().next() else {
                        continue;
                    };
                    if terms.contains(&t) {
                        continue;
                    }
                    terms.push(t);
                    weights.push(EXPANSION_WEIGHT * e.weight);
                    out.expanded.push(e);
                }
            }
            Err(e) if interrupted(&e) => {
                out.cut = Some("expand");
                return Ok(out);
            }
            // A store without the layer's tables (or a damaged layer) searches unwidened.
            Err(_) => {}
        }
    }
    let mut ran: Vec<Statement> = Vec::new();
    let want = hits::candidates_wanted(limit);
    let scope = Scope {
        weights: &weights,
        asked,
    };
    let mut scorer: Option<Scorer> = None;
    let result = rank(
        conn,
        query,
        &terms,
        scope,
        want,
        opts,
        &mut out,
        &mut ran,
        &mut scorer,
    );
    let ranked = match result {
        Ok(r) => r,
        Err(Stop::Cut(stage, partial)) => {
            out.cut = Some(stage);
            partial
        }
        Err(Stop::Failed(e)) => return Err(err(e)),
    };
    let mut ranked = refine(conn, query, ranked, asked, opts, &mut out).map_err(err)?;
    if let Some(scorer) = scorer
        .as_mut()
        .filter(|_| !opts.no_feedback && question && out.cut.is_none())
    {
        let room = plan::BOUNDED.terms.saturating_sub(terms.len());
        match feedback::words(conn, &ranked, &terms, asked, room) {
            Ok((added, stats)) if !added.is_empty() => {
                let pass = feedback_pass(conn, query, scorer, &added, stats, &mut ran);
                // `out.terms` stays the first pass's; the added words are `out.feedback`.
                terms.extend(added.iter().map(|a| a.word.clone()));
                out.feedback = added;
                ranked = match pass {
                    Ok(r) => r,
                    Err(Stop::Cut(stage, partial)) => {
                        out.cut = Some(stage);
                        partial
                    }
                    Err(Stop::Failed(e)) => return Err(err(e)),
                };
                out.scored = scorer.rows.len();
                ranked = refine(conn, query, ranked, asked, opts, &mut out).map_err(err)?;
            }
            Ok(_) => {}
            Err(e) if interrupted(&e) => out.cut = Some("feedback"),
            Err(e) => return Err(err(e)),
        }
    }
    if opts.explain {
        for s in &ran {
            out.plans.push(StatementPlan {
                stage: s.stage,
                plan: s.plan(conn).map_err(err)?,
            });
        }
    }
    match hits::fetch(conn, ranked, &terms, asked, limit, !opts.no_coverage) {
        Ok(h) => out.hits = h,
        Err(e) if interrupted(&e) => out.cut = out.cut.or(Some("hits")),
        Err(e) => return Err(err(e)),
    }
    Ok(out)
}

/// A question's first-pass ranking refined: sessions that hold many of its terms lift their
/// messages, then neighbouring turns lend each other score. A deadline met on the way is
/// recorded in `out.cut` (and what was refined by then is kept).
fn refine(
    conn: &Connection,
    query: &SearchQuery,
    ranked: Vec<Ranked>,
    asked: usize,
    opts: Options,
    out: &mut Outcome,
) -> rusqlite::Result<Vec<Ranked>> {
    if asked < WIDEN_FROM || out.cut.is_some() {
        return Ok(ranked);
    }
    let periods = match opts.no_dates {
        true => Vec::new(),
        false => dated::periods(&query.query),
    };
    let ranked = match dated::apply(conn, ranked, &periods) {
        Ok(r) => r,
        Err(e) if interrupted(&e) => {
            out.cut = Some("dates");
            return Ok(Vec::new());
        }
        Err(e) => return Err(e),
    };
    let ranked = if opts.no_session_prior {
        ranked
    } else {
        match session_prior::apply(conn, ranked, asked) {
            Ok(r) => r,
            Err(e) if interrupted(&e) => {
                out.cut = Some("sessions");
                return Ok(Vec::new());
            }
            Err(e) => return Err(e),
        }
    };
    if opts.no_neighbours {
        return Ok(ranked);
    }
    match neighbours::spread(conn, query, ranked) {
        Ok(r) => Ok(r),
        Err(e) if interrupted(&e) => {
            out.cut = Some("neighbours");
            Ok(Vec::new())
        }
        Err(e) => Err(e),
    }
}

/// Associated terms for the query's words.
fn widen(conn: &Connection, terms: &[String]) -> rusqlite::Result<Vec<crate::assoc::Expansion>> {
    use crate::assoc;
    let stems: Vec<String> = terms
        .iter()
        .map(|t| assoc::terms::of_query_word(t))
        .collect();
    assoc::expand(conn, &stems, MAX_EXPANSIONS)
}

/// Per-term weights (1 for the query's own terms, lower for expansions) and how many of the
/// terms the query itself asked for (they come first).
#[derive(Clone, Copy)]
pub struct Scope<'a> {
    pub weights: &'a [f64],
    pub asked: usize,
}

/// Why ranking stopped early: a deadline (with what was ranked by then) or a failure.
enum Stop {
    Cut(&'static str, Vec<Ranked>),
    Failed(rusqlite::Error),
}

/// A scored message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    pub id: i64,
    pub score: f64,
    /// Query terms the message holds.
    pub matched: usize,
    /// Which scored terms it holds (bit i: term i).
    pub mask: u64,
    /// The neighbouring message that lent it score ([`neighbours`]), if any.
    pub lent_by: Option<i64>,
}

/// Candidates, best first.
#[allow(clippy::too_many_arguments)]
fn rank(
    conn: &Connection,
    q: &SearchQuery,
    terms: &[String],
    scope: Scope,
    want: usize,
    opts: Options,
    out: &mut Outcome,
    ran: &mut Vec<Statement>,
    keep: &mut Option<Scorer>,
) -> std::result::Result<Vec<Ranked>, Stop> {
    let stop = |stage: &'static str| {
        move |e: rusqlite::Error| {
            if interrupted(&e) {
                Stop::Cut(stage, Vec::new())
            } else {
                Stop::Failed(e)
            }
        }
    };
    let span = probe::span(conn).map_err(stop("probe"))?;
    let budget = if opts.exhaustive {
        plan::EXHAUSTIVE
    } else {
        plan::BOUNDED
    };
    let stats = probe::terms(conn, terms, scope.asked, budget, ran).map_err(stop("probe"))?;
    let plan = plan::plan(&stats, scope.asked, budget);
    out.terms = plan
        .rare
        .iter()
        .chain(&plan.common)
        .map(|&i| terms[i].clone())
        .collect();
    out.terms_dropped = plan.dropped.iter().map(|&i| terms[i].clone()).collect();
    if plan.is_empty() {
        return Ok(Vec::new());
    }
    out.strategy = match (opts.exhaustive, plan.exhaustive()) {
        (true, _) => "exhaustive",
        (false, true) => "exact",
        (false, false) => "bounded",
    };
    let stages = stages(q, &plan, terms, want);
    let mut scorer = Scorer::new(stats, span, scope);
    for (s, phrase_terms) in stages {
        // The newest messages holding every common term are looked for further back only when
        // the recent ones did not already give enough of them.
        if s.stage == "all" && scorer.holding_all(&plan.common) >= want {
            continue;
        }
        ran.push(s.clone());
        match s.rows(conn) {
            Ok(rows) => scorer.add(rows, &phrase_terms),
            Err(e) if interrupted(&e) => {
                out.scored = scorer.rows.len();
                return Err(Stop::Cut(s.stage, scorer.ranked()));
            }
            Err(e) => return Err(Stop::Failed(e)),
        }
    }
    out.scored = scorer.rows.len();
    let ranked = scorer.ranked();
    *keep = Some(scorer);
    Ok(ranked)
}

/// The feedback pass: `added` (with their probes' `stats`, every one exact) join the scored
/// terms; the messages holding any of them are scored, and the messages the first pass scored
/// gain the added terms' counts. What the first pass scored is not scored again. A message
/// found only through the added terms is scored on them alone: when the first pass was exact it
/// holds none of the query's terms (it would have been scored), and seeking a bounded pass's
/// common terms from every such row cost milliseconds on 250k messages.
fn feedback_pass(
    conn: &Connection,
    q: &SearchQuery,
    scorer: &mut Scorer,
    added: &[feedback::Added],
    stats: Vec<plan::TermStat>,
    ran: &mut Vec<Statement>,
) -> std::result::Result<Vec<Ranked>, Stop> {
    let first = scorer.stats.len();
    let words: Vec<&str> = added.iter().map(|a| a.word.as_str()).collect();
    let map: Vec<Option<usize>> = (first..first + words.len()).map(Some).collect();
    let expr = expression(&words, " OR ");
    scorer.extend(stats, added.iter().map(|a| a.weight));
    let s = Statement::counts("feedback", q, expr, 0, -1);
    ran.push(s.clone());
    match s.rows(conn) {
        Ok(rows) => scorer.merge(rows, &map, first),
        Err(e) if interrupted(&e) => return Err(Stop::Cut("feedback", scorer.ranked())),
        Err(e) => return Err(Stop::Failed(e)),
    }
    Ok(scorer.ranked())
}

/// The statements to run for `plan`, each with the term index of every phrase of its MATCH
/// expression (in the order FTS5 numbers them; `None` for a phrase repeated for structure).
fn stages(
    q: &SearchQuery,
    plan: &Plan,
    terms: &[String],
    want: usize,
) -> Vec<(Statement, Vec<Option<usize>>)> {
    let words = |ix: &[usize]| -> Vec<&str> { ix.iter().map(|&i| terms[i].as_str()).collect() };
    let rare = expression(&words(&plan.rare), " OR ");
    let common_or = expression(&words(&plan.common), " OR ");
    let mut out = Vec::new();
    if !plan.rare.is_empty() {
        // Rows holding a rare term, with the common terms counted in the same rows: the second
        // branch repeats the rare phrases only to make the common ones count where they co-occur
        // (it is walked by seeking from the rare rows, never over the common terms' postings).
        let (expr, mut map): (String, Vec<Option<usize>>) = if plan.common.is_empty() {
            (rare.clone(), plan.rare.iter().map(|&i| Some(i)).collect())
        } else {
            (
                format!("({rare}) OR (({rare}) AND ({common_or}))"),
                plan.rare.iter().map(|&i| Some(i)).collect(),
            )
        };
        if !plan.common.is_empty() {
            map.extend(plan.rare.iter().map(|_| None));
            map.extend(plan.common.iter().map(|&i| Some(i)));
        }
        out.push((Statement::counts("rare", q, expr, 0, -1), map));
    }
    if !plan.common.is_empty() {
        let map: Vec<Option<usize>> = plan.common.iter().map(|&i| Some(i)).collect();
        out.push((
            Statement::counts(
                "recent",
                q,
                common_or,
                plan.recent_floor,
                plan::RECENT_ROWS as i64,
            ),
            map.clone(),
        ));
        if plan.common.len() > 1 {
            out.push((
                Statement::counts(
                    "all",
                    q,
                    expression(&words(&plan.common), " AND "),
                    plan.all_floor,
                    plan::ALL_ROWS.min(want) as i64,
                ),
                map,
            ));
        }
    }
    out
}

/// Per-row weighted term frequencies, folded into BM25 scores at the end.
struct Scorer {
    stats: Vec<plan::TermStat>,
    /// Per-term weights, and how many terms the query asked for (they come first).
    weights: Vec<f64>,
    asked: usize,
    span: (i64, i64),
    /// rowid -> (row length, weighted frequency per probed term).
    rows: HashMap<i64, (u32, Vec<f64>)>,
    table_rows: u64,
    table_tokens: u64,
}

impl Scorer {
    fn new(stats: Vec<plan::TermStat>, span: (i64, i64), scope: Scope) -> Self {
        Scorer {
            stats,
            weights: scope.weights.to_vec(),
            asked: scope.asked,
            span,
            rows: HashMap::new(),
            table_rows: 0,
            table_tokens: 0,
        }
    }

    /// Fold in a stage's rows. A row already seen keeps its counts: the rare stage, which runs
    /// first, counts every term; a later stage only finds rows without rare terms.
    fn add(&mut self, rows: Vec<(i64, tf::RowCounts)>, phrase_terms: &[Option<usize>]) {
        for (id, counts) in rows {
            self.table_rows = counts.rows;
            self.table_tokens = counts.tokens;
            if self.rows.contains_key(&id) {
                continue;
            }
            let freq = self.frequencies(&counts, phrase_terms);
            self.rows.insert(id, (counts.len, freq));
        }
    }

    /// More terms to score (their counts start at 0 in the rows already seen).
    fn extend(&mut self, stats: Vec<plan::TermStat>, weights: impl Iterator<Item = f64>) {
        self.stats.extend(stats);
        self.weights.extend(weights);
        self.weights.resize(self.stats.len(), 0.0);
        let len = self.stats.len();
        for (_, freq) in self.rows.values_mut() {
            freq.resize(len, 0.0);
        }
    }

    /// Fold in rows of a statement over the terms from `first` on: a row seen before gains
    /// those terms' counts; a new row is counted on every term.
    fn merge(
        &mut self,
        rows: Vec<(i64, tf::RowCounts)>,
        phrase_terms: &[Option<usize>],
        first: usize,
    ) {
        let (seen, new): (Vec<_>, Vec<_>) = rows
            .into_iter()
            .partition(|(id, _)| self.rows.contains_key(id));
        for (id, counts) in seen {
            let fresh = self.frequencies(&counts, phrase_terms);
            if let Some((_, freq)) = self.rows.get_mut(&id) {
                for t in first..freq.len() {
                    freq[t] = freq[t].max(fresh[t]);
                }
            }
        }
        self.add(new, phrase_terms);
    }

    /// A row's weighted frequency per term.
    fn frequencies(&self, counts: &tf::RowCounts, phrase_terms: &[Option<usize>]) -> Vec<f64> {
        let mut freq = vec![0.0; self.stats.len()];
        for (p, term) in phrase_terms.iter().enumerate() {
            let Some(t) = term else { continue };
            let mut f = 0.0;
            for (c, w) in WEIGHTS.iter().enumerate().take(counts.columns) {
                f += *w * counts.count(p, c) as f64;
            }
            if f > freq[*t] {
                freq[*t] = f;
            }
        }
        freq
    }

    /// Rows seen so far that hold every one of `terms`.
    fn holding_all(&self, terms: &[usize]) -> usize {
        self.rows
            .values()
            .filter(|(_, freq)| terms.iter().all(|&t| freq[t] > 0.0))
            .count()
    }

    /// Best first; ties to the newest rowid.
    fn ranked(&self) -> Vec<Ranked> {
        let n = self.table_rows as f64;
        let avg = if self.table_rows > 0 {
            self.table_tokens as f64 / n
        } else {
            0.0
        };
        let idf: Vec<f64> = self
            .stats
            .iter()
            .map(|s| bm25::idf(plan::document_frequency(s, self.span.1, self.span.0, n), n))
            .collect();
        let mut out: Vec<Ranked> = self
            .rows
            .iter()
            .map(|(&id, (len, freq))| Ranked {
                id,
                score: freq
                    .iter()
                    .zip(&idf)
                    .zip(&self.weights)
                    .map(|((f, i), w)| w * bm25::term_score(*i, *f, *len as f64, avg))
                    .sum(),
                matched: freq.iter().take(self.asked).filter(|f| **f > 0.0).count(),
                mask: freq
                    .iter()
                    .enumerate()
                    .filter(|(i, f)| **f > 0.0 && *i < 64)
                    .fold(0, |m, (i, _)| m | 1 << i),
                lent_by: None,
            })
            .collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
        out
    }
}

#[cfg(test)]
mod tests;
