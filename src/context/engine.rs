//! Building the answer to "what do I need to know for this task": the ranked rules, pitfalls,
//! deprecated warnings, history, suggested searches, gaps and what is degraded.
//!
//! Shared by `cm context`, `cm similar` and both hooks; the caller decides what may be written
//! (the CLI refreshes the term index and reinforcement first; hooks pass a read-only store).

use super::degraded::{Degraded, Issue};
use super::evidence::workspace;
use super::gaps::{self, Gaps};
use super::history::Snippet;
use super::index::Corpus;
use super::rank::{self, Candidate, Ranked};
use super::semantic;
use crate::config::Scoring;
use crate::error::Result;
use crate::memory::bullet::Bullet;
use crate::memory::scoring::effective_score;
use chrono::{DateTime, Utc};
use rusqlite::Connection;
use std::collections::HashMap;

/// At most this many live candidates are loaded and weighed (a safety bound; the pruning in
/// [`rank_bullets`] normally stops after a few dozen).
pub const MAX_CANDIDATES: usize = 400;
/// Semantic-only candidates (no shared term) must reach this cosine.
pub const SEMANTIC_ONLY_MIN: f64 = 0.35;
/// At most this many rules found only through their sessions' words are weighed.
pub const MAX_EVIDENCE_ONLY: usize = 100;

/// What the text of a request is, for how much of it a rule must cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// A task: every word of it counts, those no rule holds too (a rule sharing one word of a
    /// long task covers little of it).
    Task,
    /// A bag of context words (the session-start guess from a workspace's name, branch and
    /// recent titles): only the words some rule holds count.
    Known,
}

pub struct Request<'a> {
    pub task: &'a str,
    pub coverage: Coverage,
    pub limit: usize,
    pub min_relevance: f64,
    pub history: usize,
    pub days: Option<u32>,
    /// Whether the history search may widen the task with term associations
    /// (`history.associations`, on by default).
    pub widen_history: bool,
    /// Whether rules may also match through the concept lexicon ([`super::concepts`];
    /// `context.concepts`, on by default).
    pub concepts: bool,
    /// House rules of the workspace to list apart ([`super::house`]), at most; 0 for none.
    pub house: usize,
    /// Filter for history search (`--workspace`).
    pub history_workspace: Option<String>,
    /// Where the task runs: workspace-scoped rules of this path rank higher.
    pub workspace: Option<String>,
    pub gaps: bool,
    pub now: DateTime<Utc>,
    pub scoring: &'a Scoring,
    /// Cosines from a semantic pass, with the fusion weight.
    pub semantic: Option<(&'a semantic::Outcome, f64)>,
    /// The store's file: history is then searched on a second read-only connection in parallel.
    pub db_path: Option<&'a std::path::Path>,
    /// When the answer is due (hooks): statements still running then are stopped and the
    /// answer holds what was ready ([`Answer::cut`]). The caller installs it on `conn`; the
    /// history connection opened here gets it too.
    pub deadline: Option<std::time::Instant>,
    /// The caller is long-running (a server): task-independent derived data is kept between
    /// calls ([`super::kept`]).
    pub keep: bool,
}

pub struct Answer {
    pub ranked: Ranked,
    /// The workspace's house rules ([`Request::house`]), best first.
    pub house: Vec<super::house::HouseRule>,
    pub history: Vec<Snippet>,
    pub queries: Vec<String>,
    pub gaps: Option<Gaps>,
    pub degraded: Degraded,
    /// Parts cut short by the deadline: "rules" (ranked from the candidates weighed by then, or
    /// none), "history" (the hits found by then, or none).
    pub cut: Vec<&'static str>,
}

pub fn answer(conn: Option<&Connection>, repo: Vec<Bullet>, req: &Request) -> Result<Answer> {
    answer_beside(conn, None, repo, req)
}

/// [`answer`], with history searched by `beside` (a server's thread with a connection of its
/// own, [`history_job`]) while the rules are ranked; `req.db_path` is then not opened.
pub fn answer_beside(
    conn: Option<&Connection>,
    beside: Option<&history_job::Beside>,
    repo: Vec<Bullet>,
    req: &Request,
) -> Result<Answer> {
    // Started first, so it runs while the corpus is loaded too.
    let started = match (req.history, conn, beside) {
        (1.., Some(_), Some(start)) => Some(start(history_job::Ask::of(req))),
        _ => None,
    };
    // One read transaction for the whole answer: a consistent snapshot, and one lock instead of
    // one per statement (hundreds of candidate lookups).
    let _snapshot = match conn {
        Some(c) => Some(
            c.unchecked_transaction()
                .map_err(|e| crate::store::map_err(e, &crate::paths::db_path()))?,
        ),
        None => None,
    };
    let mut degraded = Degraded::default();
    let mut cut = Vec::new();
    // Past the deadline, personal rules are not even looked up (repository rules are in memory).
    let conn_in_time = conn.filter(|_| !expired(req));
    if conn.is_some() && conn_in_time.is_none() {
        cut.push("rules");
    }
    let corpus = match Corpus::load(conn_in_time, repo.clone()) {
        Ok(c) => c,
        Err(e) if e.code == crate::store::INTERRUPTED => {
            cut.push("rules");
            Corpus::load(None, repo)?
        }
        Err(e) => return Err(e),
    };
    if corpus.is_empty() {
        degraded.playbook = Some(Issue::new(
            "EMPTY_PLAYBOOK",
            "the playbook has no rules yet",
            "start from a starter (`cm init --starter general`) or add rules with `cm playbook add \"...\"`",
        ));
    }
    let house = house_rules(&corpus, req, &mut cut)?;
    // History runs on its own read-only connection in a second thread while the rules are
    // ranked: the two are independent, and the search is the slower half.
    let (ranked, (snippets, history_issue)) = match (req.history, conn, req.db_path) {
        (0, _, _) => (rank_bullets(&corpus, req)?, ((Vec::new(), false), None)),
        (_, Some(c), _) if started.is_some() => {
            let ranked = rank_bullets(&corpus, req)?;
            let done = started.and_then(|rx| rx.recv().ok().flatten());
            (
                ranked,
                done.unwrap_or_else(|| history_part(c, &history_job::Ask::of(req))),
            )
        }
        (_, None, _) => (
            rank_bullets(&corpus, req)?,
            (
                (Vec::new(), false),
                Some(Issue::new(
                    "NO_STORE",
                    "no cm store yet: history snippets are unavailable",
                    "run `cm init`, then `cm history index`",
                )),
            ),
        ),
        (_, Some(c), Some(path)) => std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                let store = match req.deadline {
                    Some(at) => crate::store::Store::open_readonly_until(path, at),
                    None => crate::store::Store::open_readonly(path),
                };
                store
                    .ok()
                    .flatten()
                    .map(|store| history_part(&store.conn, &history_job::Ask::of(req)))
            });
            let ranked = rank_bullets(&corpus, req);
            let hist = worker.join().ok().flatten();
            Ok::<_, crate::error::CmError>((
                ranked?,
                hist.unwrap_or_else(|| history_part(c, &history_job::Ask::of(req))),
            ))
        })?,
        (_, Some(c), None) => (
            rank_bullets(&corpus, req)?,
            history_part(c, &history_job::Ask::of(req)),
        ),
    };
    let (ranked, rules_cut) = ranked;
    if rules_cut && !cut.contains(&"rules") {
        cut.push("rules");
    }
    let (snippets, history_cut) = snippets;
    if history_cut {
        cut.push("history");
    }
    degraded.history = history_issue;
    let gaps = if req.gaps {
        Some(gaps::analyse(&category_counts(conn, &corpus)?))
    } else {
        None
    };
    Ok(Answer {
        ranked,
        house,
        history: snippets,
        queries: super::queries::suggested_queries(req),
        gaps,
        degraded,
        cut,
    })
}

pub use super::candidates::{Background, Cand, candidates, candidates_in};

/// The workspace's house rules, when asked for and in time (a statement stopped by the
/// deadline leaves none, and cuts "rules").
fn house_rules(
    corpus: &Corpus,
    req: &Request,
    cut: &mut Vec<&'static str>,
) -> Result<Vec<super::house::HouseRule>> {
    let Some(w) = req.workspace.as_deref().filter(|_| req.house > 0) else {
        return Ok(Vec::new());
    };
    if expired(req) {
        return Ok(Vec::new());
    }
    match super::house::of_workspace(corpus, w, req.scoring, req.now, req.house) {
        Ok(h) => Ok(h),
        Err(e) if e.code == crate::store::INTERRUPTED => {
            if !cut.contains(&"rules") {
                cut.push("rules");
            }
            Ok(Vec::new())
        }
        Err(e) => Err(e),
    }
}

/// Whether the request's deadline has passed.
fn expired(req: &Request) -> bool {
    req.deadline
        .is_some_and(|at| std::time::Instant::now() >= at)
}

/// The task's topic words (stop words dropped) as the history query; the task itself when it
/// has none.
pub(crate) fn keywords_query(task: &str) -> String {
    let k = super::queries::keywords(task);
    if k.is_empty() {
        task.to_string()
    } else {
        k.join(" ")
    }
}

/// The most a document's relevance can be multiplied by: its feedback weight can not exceed
/// that of its undecayed helpful marks, only repository and workspace-scoped rules and rules
/// learned in this workspace (`here`) can earn the place boost, a rule learned only elsewhere
/// weighs at most [`super::place::ELSEWHERE`] when the workspace is known, and its reinforcement
/// is known.
fn factor_bound(info: &super::index::DocInfo, uses: u32, here: bool, workspace_known: bool) -> f64 {
    let scope = if info.memory.is_some() || info.scoped || here {
        super::place::SCOPE_BOOST.max(super::place::HERE)
    } else if info.placed && workspace_known {
        super::place::ELSEWHERE
    } else {
        1.0
    };
    rank::weight(info.helpful) * scope * rank::reinforcement_factor(uses)
}

/// Weigh candidates and rank them. Only as many bullets are loaded as can still make the top
/// `limit` of their list: candidates are visited by an upper bound of their final score
/// (relevance x weight(helpful marks) x best scope x best reinforcement), and the visit stops
/// once the bound falls below the current `limit`-th final score of the list.
///
/// A deadline that stops the scoring leaves no rules; one that stops the weighing leaves the
/// rules weighed by then. Either is reported as cut (the `bool`).
fn rank_bullets(corpus: &Corpus, req: &Request) -> Result<(Ranked, bool)> {
    // A sample of the workspace's rules, which judges its stacks and its setting (empty: no rule
    // was learned there).
    let workspace_rules = match (corpus_conn(corpus), req.workspace.as_deref()) {
        (Some(conn), Some(w)) => match in_time(workspace::sample(conn, w, WORKSPACE_SAMPLE))? {
            Some(sample) => sample,
            None => return Ok((nothing_ranked(req), true)),
        },
        _ => Default::default(),
    };
    let Some(stacks) = in_time(workspace_stacks(
        corpus,
        req.workspace.as_deref(),
        &workspace_rules,
    ))?
    else {
        return Ok((nothing_ranked(req), true));
    };
    let options = rank::Options {
        min_relevance: req.min_relevance,
        limit: req.limit,
        here: super::place::Here {
            workspace: req.workspace.as_deref(),
            stacks: &stacks,
        },
    };
    // The situation of each sampled rule, for the workspace's setting.
    let situations = match corpus_conn(corpus) {
        Some(conn) if !workspace_rules.is_empty() => {
            match in_time(workspace::situations_of(conn, &workspace_rules))? {
                Some(situations) => situations,
                None => return Ok((nothing_ranked(req), true)),
            }
        }
        _ => Default::default(),
    };
    let background = Background {
        situations: req.workspace.as_deref().map(|_| &situations),
        associations: req.widen_history,
        concepts: req.concepts,
    };
    let cands = match candidates_in(
        corpus,
        req.task,
        req.coverage,
        req.semantic,
        req.min_relevance,
        &background,
    ) {
        Ok(c) => c,
        Err(e) if e.code == crate::store::INTERRUPTED => return Ok((nothing_ranked(req), true)),
        Err(e) => return Err(e),
    };
    let mut cut = false;
    let (mut live, dead): (Vec<&Cand>, Vec<&Cand>) = cands.iter().partition(|c| c.2.info.live);
    let uses = corpus_conn(corpus)
        .map(super::reinforce::all_uses)
        .unwrap_or_default();
    let uses_of = |id: &str| -> u32 { uses.get(id).copied().unwrap_or(0) };
    let known = req.workspace.is_some();
    // The bound of a candidate, learned here or not. A rule learned here below the relevance
    // floor, or learned only elsewhere below the strong evidence it needs there, can not be
    // shown (its support is at most its relevance): bound 0, never weighed.
    let bound = |c: &Cand, here: bool| {
        let info = &c.2.info;
        let inferred = !info.scoped && info.memory.is_none();
        let elsewhere = !here && info.placed && known;
        if inferred
            && ((here && c.0 < super::place::PLACE_FLOOR)
                || (elsewhere && c.0 < super::place::STRONG_EVIDENCE))
        {
            0.0
        } else {
            c.0 * factor_bound(info, uses_of(&info.id), here, known)
        }
    };
    // Whether a candidate was learned here is asked only of those the visit reaches (a few
    // dozen of hundreds): they are visited by the larger of their two bounds, which bounds the
    // true one, and a candidate is weighed only if its true bound can still make the list.
    let may_be_here = |c: &Cand| c.2.info.placed && !workspace_rules.is_empty();
    let optimistic = |c: &Cand| {
        let elsewhere = bound(c, false);
        if may_be_here(c) {
            elsewhere.max(bound(c, true))
        } else {
            elsewhere
        }
    };
    live.sort_by(|a, b| optimistic(b).total_cmp(&optimistic(a)));
    let mut out: Vec<Candidate> = Vec::new();
    let mut finals: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let k = req.limit.max(1);
    for c in live.into_iter() {
        if out.len() >= MAX_CANDIDATES {
            break;
        }
        if expired(req) {
            cut = true;
            break;
        }
        let anti = c.2.info.anti as usize;
        let kth = |list: &Vec<f64>| if list.len() >= k { list[k - 1] } else { 0.0 };
        let b = optimistic(c);
        // Sorted by this bound: from the first that can not be shown, none can.
        if b <= 0.0 || (b < kth(&finals[0]) && b < kth(&finals[1])) {
            break;
        }
        if b < kth(&finals[anti]) {
            continue;
        }
        if may_be_here(c) {
            let here = match (corpus_conn(corpus), req.workspace.as_deref()) {
                (Some(conn), Some(w)) => workspace::placed_in(conn, w, &c.2.info.id),
                _ => Ok(false),
            };
            let here = match here {
                Ok(here) => here,
                Err(e) if e.code == crate::store::INTERRUPTED => {
                    cut = true;
                    break;
                }
                Err(e) => return Err(e),
            };
            let b = bound(c, here);
            if b <= 0.0 || b < kth(&finals[anti]) {
                continue;
            }
        }
        let cand = match weigh(corpus, c, req, &uses_of) {
            Ok(Some(cand)) => cand,
            Ok(None) => continue,
            Err(e) if e.code == crate::store::INTERRUPTED => {
                cut = true;
                break;
            }
            Err(e) => return Err(e),
        };
        // A net-harmful rule is only a warning (rank::rank): its score must not raise the bar
        // the others are pruned by.
        let f = if cand.effective >= 0.0 && cand.place(options.here).admitted {
            cand.final_score(options.here)
        } else {
            0.0
        };
        let list = &mut finals[anti];
        let at = list.partition_point(|x| *x >= f);
        list.insert(at, f);
        out.push(cand);
    }
    // Deprecated rules need only relevance: the best few.
    for c in dead.into_iter().take(if cut { 0 } else { 5 }) {
        match weigh(corpus, c, req, &uses_of) {
            Ok(Some(cand)) => out.push(cand),
            Ok(None) => {}
            Err(e) if e.code == crate::store::INTERRUPTED => {
                cut = true;
                break;
            }
            Err(e) => return Err(e),
        }
    }
    Ok((rank::rank(out, &options), cut))
}

/// `None` for a statement stopped at the request's deadline.
fn in_time<T>(result: Result<T>) -> Result<Option<T>> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(e) if e.code == crate::store::INTERRUPTED => Ok(None),
        Err(e) => Err(e),
    }
}

/// The ranking of no candidate, for a deadline that came before the scoring.
fn nothing_ranked(req: &Request) -> Ranked {
    let options = rank::Options {
        min_relevance: req.min_relevance,
        limit: req.limit,
        here: super::place::Here {
            workspace: req.workspace.as_deref(),
            stacks: &[],
        },
    };
    rank::rank(Vec::new(), &options)
}

fn weigh(
    corpus: &Corpus,
    c: &Cand,
    req: &Request,
    uses_of: &dyn Fn(&str) -> u32,
) -> Result<Option<Candidate>> {
    let Some((mut bullet, from_repo)) = corpus.bullet(&c.2.info)? else {
        return Ok(None);
    };
    // Maturity and the reason for a deprecation as the feedback stands now.
    crate::memory::scoring::settle(&mut bullet, req.scoring, req.now);
    let effective = effective_score(&bullet, req.scoring, req.now);
    let places = corpus.places(&c.2.info)?;
    Ok(Some(Candidate {
        uses: uses_of(&bullet.id),
        bullet,
        from_repo,
        relevance: c.0,
        effective,
        matched: c.2.matched.clone(),
        semantic: c.1,
        evidence: c.2.evidence.clone(),
        places,
        signals: c.2.signals.clone(),
    }))
}

/// Rules of the workspace whose stacks and situations are read: a workspace of months holds
/// thousands of rules, and a stack it uses, or a word of its setting, is in more than a few.
const WORKSPACE_SAMPLE: usize = 256;

/// The stacks the task's workspace uses: its top-level files, and the sessions of the rules
/// learned there (`sample`: at most [`WORKSPACE_SAMPLE`] of them, [`workspace::sample`]). Empty
/// when unknown. A failed lookup is a warning (the directory's stacks remain); one stopped at the
/// deadline is returned, for the caller to cut.
fn workspace_stacks(
    corpus: &Corpus,
    workspace: Option<&str>,
    sample: &[String],
) -> Result<Vec<String>> {
    let Some(w) = workspace else {
        return Ok(Vec::new());
    };
    let mut stacks: std::collections::BTreeSet<String> =
        super::evidence::places::of_directory(std::path::Path::new(w), 200)
            .into_iter()
            .map(str::to_string)
            .collect();
    if let Some(conn) = corpus.conn() {
        match workspace::stacks_of(conn, sample) {
            Ok(found) => stacks.extend(found),
            Err(e) if e.code == crate::store::INTERRUPTED => return Err(e),
            Err(e) => eprintln!("cm: warning: workspace stacks unknown: {}", e.message),
        }
    }
    Ok(stacks.into_iter().collect())
}

fn corpus_conn<'c>(corpus: &Corpus<'c>) -> Option<&'c Connection> {
    corpus.conn()
}

/// Live rules per category: personal ones from the store, plus the repository's.
fn category_counts(conn: Option<&Connection>, corpus: &Corpus) -> Result<HashMap<String, usize>> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    if let Some(c) = conn {
        for (cat, n) in crate::memory::tables::bullets::live_per_category(c)? {
            *counts.entry(cat).or_insert(0) += n;
        }
    }
    for m in corpus
        .memory
        .iter()
        .filter(|m| m.from_repo && m.bullet.is_live())
    {
        *counts.entry(m.bullet.category.clone()).or_insert(0) += 1;
    }
    Ok(counts)
}

pub mod history_job;
use history_job::history_part;

/// A task in `/w/app` on a pinned day, history off (the engine's unit tests).
#[cfg(test)]
fn test_request<'a>(task: &'a str, limit: usize, scoring: &'a Scoring) -> Request<'a> {
    Request {
        coverage: Coverage::Task,
        widen_history: true,
        concepts: true,
        house: 0,
        task,
        limit,
        min_relevance: 0.05,
        history: 0,
        days: None,
        history_workspace: None,
        workspace: Some("/w/app".into()),
        gaps: false,
        now: crate::clock::parse("2026-06-01T00:00:00Z").unwrap(),
        scoring,
        semantic: None,
        db_path: None,
        keep: false,
        deadline: None,
    }
}

#[cfg(test)]
mod deadline_tests;
#[cfg(test)]
mod pruning_tests;
