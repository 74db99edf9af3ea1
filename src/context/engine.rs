//! Building the answer to "what do I need to know for this task": the ranked rules, pitfalls,
//! deprecated warnings, history, suggested searches, gaps and what is degraded.
//!
//! Shared by `cm context`, `cm similar` and both hooks; the caller decides what may be written
//! (the CLI refreshes the term index and reinforcement first; hooks pass a read-only store).

use super::bm25;
use super::degraded::{Degraded, Issue};
use super::gaps::{self, Gaps};
use super::history::{self, Snippet};
use super::index::Corpus;
use super::rank::{self, Candidate, Ranked};
use super::semantic;
use super::tokenize;
use crate::config::Scoring;
use crate::episodic::model::SearchQuery;
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

pub struct Request<'a> {
    pub task: &'a str,
    pub limit: usize,
    pub min_relevance: f64,
    pub history: usize,
    pub days: Option<u32>,
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
}

pub struct Answer {
    pub ranked: Ranked,
    pub history: Vec<Snippet>,
    pub queries: Vec<String>,
    pub gaps: Option<Gaps>,
    pub degraded: Degraded,
}

pub fn answer(conn: Option<&Connection>, repo: Vec<Bullet>, req: &Request) -> Result<Answer> {
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
    let corpus = Corpus::load(conn, repo)?;
    if corpus.is_empty() {
        degraded.playbook = Some(Issue::new(
            "EMPTY_PLAYBOOK",
            "the playbook has no rules yet",
            "start from a starter (`cm init --starter general`) or add rules with `cm playbook add \"...\"`",
        ));
    }
    // History runs on its own read-only connection in a second thread while the rules are
    // ranked: the two are independent, and the search is the slower half.
    let (ranked, (snippets, history_issue)) = match (req.history, conn, req.db_path) {
        (0, _, _) => (rank_bullets(&corpus, req)?, (Vec::new(), None)),
        (_, None, _) => (
            rank_bullets(&corpus, req)?,
            (
                Vec::new(),
                Some(Issue::new(
                    "NO_STORE",
                    "no cm store yet: history snippets are unavailable",
                    "run `cm init`, then `cm history index`",
                )),
            ),
        ),
        (_, Some(c), Some(path)) => std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                crate::store::Store::open_readonly(path)
                    .ok()
                    .flatten()
                    .map(|store| history_part(&store.conn, req))
            });
            let ranked = rank_bullets(&corpus, req);
            let hist = worker.join().ok().flatten();
            Ok::<_, crate::error::CmError>((ranked?, hist.unwrap_or_else(|| history_part(c, req))))
        })?,
        (_, Some(c), None) => (rank_bullets(&corpus, req)?, history_part(c, req)),
    };
    degraded.history = history_issue;
    let gaps = if req.gaps {
        Some(gaps::analyse(&category_counts(conn, &corpus)?))
    } else {
        None
    };
    Ok(Answer {
        ranked,
        history: snippets,
        queries: suggested_queries(req),
        gaps,
        degraded,
    })
}

pub type Cand = (f64, Option<f64>, super::index::Scored);

/// The index check and the re-ranked snippets for the task.
fn history_part(conn: &Connection, req: &Request) -> (Vec<Snippet>, Option<Issue>) {
    let mut issue = history::index_issue(conn, req.now);
    let q = SearchQuery {
        query: keywords_query(req.task),
        limit: req.history,
        days: req.days,
        workspace: req.history_workspace.clone(),
        ..SearchQuery::default()
    };
    let (snippets, failed) = history::snippets(conn, &q, req.history, req.now);
    if failed.is_some() {
        issue = failed;
    }
    (snippets, issue)
}

/// The task's topic words (stop words dropped) as the history query; the task itself when it
/// has none.
fn keywords_query(task: &str) -> String {
    let k = keywords(task);
    if k.is_empty() {
        task.to_string()
    } else {
        k.join(" ")
    }
}

/// Documents relevant to `text` (lexical, fused with semantic cosines when given), best first,
/// each at least `min_relevance`.
pub fn candidates(
    corpus: &Corpus,
    text: &str,
    semantic: Option<(&semantic::Outcome, f64)>,
    min_relevance: f64,
) -> Result<Vec<Cand>> {
    let terms = tokenize::query_terms(text);
    let (scored, idf_sum) = corpus.score(&terms)?;
    let mut cands: Vec<Cand> = scored
        .into_iter()
        .map(|s| (bm25::normalize(s.raw, idf_sum), None, s))
        .collect();
    if let Some((sem, w)) = semantic {
        for c in cands.iter_mut() {
            let cos = sem.similarity.get(&c.2.info.id).copied().unwrap_or(0.0);
            c.1 = Some(cos);
            c.0 = semantic::fuse(c.0, cos, w);
        }
        let seen: std::collections::HashSet<&str> =
            cands.iter().map(|c| c.2.info.id.as_str()).collect();
        let extra: Vec<&str> = sem
            .similarity
            .iter()
            .filter(|(id, cos)| **cos >= SEMANTIC_ONLY_MIN && !seen.contains(id.as_str()))
            .map(|(id, _)| id.as_str())
            .collect();
        for info in corpus.infos(&extra)? {
            let cos = sem.similarity[&info.id];
            let scored = super::index::Scored {
                info,
                raw: 0.0,
                matched: Vec::new(),
            };
            cands.push((semantic::fuse(0.0, cos, w), Some(cos), scored));
        }
    }
    cands.retain(|c| c.0 >= min_relevance && c.0 > 0.0);
    cands.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| a.2.info.id.cmp(&b.2.info.id))
    });
    Ok(cands)
}

/// The most a document's relevance can be multiplied by: its feedback weight can not exceed
/// that of its undecayed helpful marks, only repository and workspace rules can earn the scope
/// boost, and its reinforcement is known.
fn factor_bound(info: &super::index::DocInfo, uses: u32) -> f64 {
    let scope = if info.memory.is_some() || info.scoped {
        rank::SCOPE_BOOST
    } else {
        1.0
    };
    rank::weight(info.helpful) * scope * rank::reinforcement_factor(uses)
}

/// Weigh candidates and rank them. Only as many bullets are loaded as can still make the top
/// `limit` of their list: candidates are visited by an upper bound of their final score
/// (relevance x weight(helpful marks) x best scope x best reinforcement), and the visit stops
/// once the bound falls below the current `limit`-th final score of the list.
fn rank_bullets(corpus: &Corpus, req: &Request) -> Result<Ranked> {
    let cands = candidates(corpus, req.task, req.semantic, req.min_relevance)?;
    let (mut live, dead): (Vec<&Cand>, Vec<&Cand>) = cands.iter().partition(|c| c.2.info.live);
    let uses = corpus_conn(corpus)
        .map(super::reinforce::all_uses)
        .unwrap_or_default();
    let uses_of = |id: &str| -> u32 { uses.get(id).copied().unwrap_or(0) };
    let bound = |c: &Cand| c.0 * factor_bound(&c.2.info, uses_of(&c.2.info.id));
    live.sort_by(|a, b| bound(b).total_cmp(&bound(a)));
    let mut out: Vec<Candidate> = Vec::new();
    let mut finals: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let k = req.limit.max(1);
    for c in live.into_iter() {
        if out.len() >= MAX_CANDIDATES {
            break;
        }
        let anti = c.2.info.anti as usize;
        let kth = |list: &Vec<f64>| if list.len() >= k { list[k - 1] } else { 0.0 };
        let b = bound(c);
        if b < kth(&finals[0]) && b < kth(&finals[1]) {
            break;
        }
        if b < kth(&finals[anti]) {
            continue;
        }
        let Some(cand) = weigh(corpus, c, req, &uses_of)? else {
            continue;
        };
        let (scope, _) = rank::scope_factor(&cand.bullet, cand.from_repo, req.workspace.as_deref());
        let f = cand.relevance
            * rank::weight(cand.effective)
            * scope
            * rank::reinforcement_factor(cand.uses);
        let list = &mut finals[anti];
        let at = list.partition_point(|x| *x >= f);
        list.insert(at, f);
        out.push(cand);
    }
    // Deprecated rules need only relevance: the best few.
    for c in dead.into_iter().take(5) {
        if let Some(cand) = weigh(corpus, c, req, &uses_of)? {
            out.push(cand);
        }
    }
    Ok(rank::rank(
        out,
        &rank::Options {
            min_relevance: req.min_relevance,
            limit: req.limit,
            workspace: req.workspace.as_deref(),
        },
    ))
}

fn weigh(
    corpus: &Corpus,
    c: &Cand,
    req: &Request,
    uses_of: &dyn Fn(&str) -> u32,
) -> Result<Option<Candidate>> {
    let Some((bullet, from_repo)) = corpus.bullet(&c.2.info)? else {
        return Ok(None);
    };
    let effective = effective_score(&bullet, req.scoring, req.now);
    Ok(Some(Candidate {
        uses: uses_of(&bullet.id),
        bullet,
        from_repo,
        relevance: c.0,
        effective,
        matched: c.2.matched.clone(),
        semantic: c.1,
    }))
}

fn corpus_conn<'c>(corpus: &Corpus<'c>) -> Option<&'c Connection> {
    corpus.conn()
}

/// Live rules per category: personal ones from the store, plus the repository's.
fn category_counts(conn: Option<&Connection>, corpus: &Corpus) -> Result<HashMap<String, usize>> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    if let Some(c) = conn {
        let mut stmt = c
            .prepare_cached(
                "SELECT category, count(*) FROM bullets
                 WHERE deprecated = 0 AND maturity != 'deprecated' GROUP BY category",
            )
            .map_err(|e| crate::store::map_err(e, &crate::paths::db_path()))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .map_err(|e| crate::store::map_err(e, &crate::paths::db_path()))?;
        for (cat, n) in rows.flatten() {
            *counts.entry(cat).or_insert(0) += n as usize;
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

/// Ready-to-run searches of the session history for this task.
pub fn suggested_queries(req: &Request) -> Vec<String> {
    let words = keywords(req.task);
    if words.is_empty() {
        return Vec::new();
    }
    let days = req.days.unwrap_or(30);
    let mut out = vec![format!(
        "cm history search {} --days {days} --limit 10 --json",
        shell_quote(&words.join(" "))
    )];
    if words.len() > 2 {
        out.push(format!(
            "cm history search {} --limit 10 --json",
            shell_quote(&words[..2].join(" "))
        ));
    }
    if let Some(ws) = req.workspace.as_deref() {
        out.push(format!(
            "cm history search {} --workspace {} --limit 10 --json",
            shell_quote(&words.join(" ")),
            shell_quote(ws)
        ));
    }
    out
}

/// The task's topic words in their original form (no stop words, no duplicates), at most six.
pub fn keywords(task: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    task.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .map(|w| w.trim_matches(|c| c == '.' || c == '-'))
        .filter(|w| w.len() > 1 && !tokenize::is_stop_word(&w.to_lowercase()))
        .filter(|w| seen.insert(w.to_lowercase()))
        .take(6)
        .map(str::to_string)
        .collect()
}

/// Quote for a POSIX shell: bare when safe, else single quotes.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_and_quoting() {
        assert_eq!(
            keywords("Fix the auth token refresh timeout in the API"),
            ["Fix", "auth", "token", "refresh", "timeout", "API"]
        );
        assert_eq!(shell_quote("auth token"), "'auth token'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote("/w/app"), "/w/app");
    }
}

#[cfg(test)]
mod pruning_tests {
    use super::*;
    use crate::memory::bullet::{BulletType, FeedbackEvent, FeedbackSource, FeedbackType, Scope};
    use crate::store::Store;

    /// The pruned ranking equals weighing every candidate, on a playbook with mixed feedback,
    /// scopes and types.
    #[test]
    fn pruning_never_changes_the_answer() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("cm.db")).unwrap();
        let words = [
            "auth", "token", "timeout", "retry", "cache", "test", "parser", "deploy", "lock",
            "queue",
        ];
        let mut seed: u64 = 7;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        store
            .write(|tx| {
                for i in 0..300 {
                    let content = (0..4)
                        .map(|_| words[next() % words.len()])
                        .collect::<Vec<_>>()
                        .join(" ");
                    let mut b = Bullet {
                        id: format!("b-{i:012x}"),
                        content: format!("{content} rule {i}"),
                        created_at: "2026-05-01T00:00:00Z".into(),
                        ..Bullet::default()
                    };
                    if i % 7 == 0 {
                        b.bullet_type = BulletType::AntiPattern;
                    }
                    if i % 11 == 0 {
                        b.scope = Scope::Workspace;
                        b.scope_key = Some(if i % 2 == 0 {
                            "/w/app".into()
                        } else {
                            "/w/other".into()
                        });
                    }
                    for k in 0..(next() % 6) {
                        let harmful = next() % 4 == 0;
                        b.feedback_events.push(FeedbackEvent {
                            id: format!("fb-{i}-{k}"),
                            kind: if harmful {
                                FeedbackType::Harmful
                            } else {
                                FeedbackType::Helpful
                            },
                            timestamp: format!("2026-05-{:02}T00:00:00Z", 1 + next() % 28),
                            source: FeedbackSource::Manual,
                            session_path: None,
                            reason: None,
                        });
                        if harmful {
                            b.harmful_count += 1
                        } else {
                            b.helpful_count += 1
                        }
                    }
                    crate::store::bullets::insert(tx, &b)?;
                }
                Ok(())
            })
            .unwrap();
        super::super::index::refresh(&store).unwrap();
        let scoring = Scoring::default();
        for task in [
            "auth token timeout",
            "retry queue",
            "cache",
            "deploy lock parser test",
        ] {
            for limit in [1, 3, 5] {
                let req = Request {
                    task,
                    limit,
                    min_relevance: 0.05,
                    history: 0,
                    days: None,
                    history_workspace: None,
                    workspace: Some("/w/app".into()),
                    gaps: false,
                    now: crate::clock::parse("2026-06-01T00:00:00Z").unwrap(),
                    scoring: &scoring,
                    semantic: None,
                    db_path: None,
                };
                let pruned = answer(Some(&store.conn), Vec::new(), &req).unwrap().ranked;
                let corpus = Corpus::load(Some(&store.conn), Vec::new()).unwrap();
                let all = candidates(&corpus, task, None, req.min_relevance).unwrap();
                let none = |_: &str| 0u32;
                let weighed: Vec<Candidate> = all
                    .iter()
                    .filter_map(|c| weigh(&corpus, c, &req, &none).unwrap())
                    .collect();
                let full = rank::rank(
                    weighed,
                    &rank::Options {
                        min_relevance: req.min_relevance,
                        limit,
                        workspace: Some("/w/app"),
                    },
                );
                let ids = |v: &Vec<rank::RankedBullet>| {
                    v.iter().map(|r| r.id.clone()).collect::<Vec<_>>()
                };
                assert_eq!(ids(&pruned.rules), ids(&full.rules), "{task} limit {limit}");
                assert_eq!(
                    ids(&pruned.anti_patterns),
                    ids(&full.anti_patterns),
                    "{task} limit {limit}"
                );
            }
        }
    }
}
