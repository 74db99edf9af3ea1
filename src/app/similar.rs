//! Rules ranked by how alike they are to a text (`cm similar`, the MCP `memory_search` tool's
//! playbook half), fused with embeddings when semantic search is on. Useful before adding a
//! rule, to find its duplicates.
//!
//! Candidates come from the term index (BM25, as `cm context` finds them); each is then scored
//! by a symmetric similarity, so a rule matching one word of a long text, or a long rule sharing
//! one word with a short text, is not "1.00 similar": `similarity = 2 Σ idf(shared) / (Σ idf(text)
//! + Σ idf(rule))` over distinct stemmed terms, a word no rule holds weighing the most.
//! `relevanceScore` is the BM25 coverage `cm context` uses.

use crate::config::Loaded;
use crate::context::engine;
use crate::context::index::{self, Corpus};
use crate::context::rank::round3;
use crate::context::semantic;
use crate::degraded::Degraded;
use crate::error::{CmError, Result};
use crate::memory::bullet::{Bullet, maturity_name, type_name};
use crate::memory::playbook::Playbook;
use crate::store::Store;
use crate::text::tokenize;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// What to compare, and how many rules to return.
#[derive(Debug, Clone)]
pub struct SimilarRequest {
    pub query: String,
    /// Rules to return at most.
    pub limit: usize,
    /// Minimum similarity (0-1).
    pub threshold: f64,
    /// Include deprecated rules.
    pub all: bool,
}

/// One rule found, with its scores.
#[derive(Debug, Clone)]
pub struct SimilarRule {
    pub id: String,
    /// The rule as shown (a repository rule marked as such).
    pub shown: String,
    pub category: String,
    pub bullet_type: &'static str,
    pub maturity: &'static str,
    pub similarity: f64,
    pub relevance: f64,
    pub semantic: Option<f64>,
    pub matched: Vec<String>,
    pub from_repo: bool,
}

/// The rules found, best first, and what was missing.
#[derive(Debug, Clone)]
pub struct SimilarAnswer {
    pub query: String,
    pub rules: Vec<SimilarRule>,
    pub degraded: Degraded,
}

impl SimilarAnswer {
    /// The JSON `cm similar --json` answers with (its `data`).
    pub fn to_json(&self) -> Value {
        let results: Vec<Value> = self
            .rules
            .iter()
            .map(|r| {
                json!({
                    "id": r.id, "content": r.shown, "category": r.category,
                    "type": r.bullet_type, "maturity": r.maturity,
                    "similarity": round3(r.similarity), "relevanceScore": round3(r.relevance),
                    "semanticScore": r.semantic.map(round3),
                    "matched": r.matched, "location": if r.from_repo { "repo" } else { "personal" },
                })
            })
            .collect();
        json!({"query": self.query, "results": results, "count": results.len(), "degraded": self.degraded.to_json()})
    }
}

/// Candidates looked at per result asked for (the best by BM25 relevance).
const CANDIDATES_PER_RESULT: usize = 4;

/// The rules most alike to `req.query`, for a task in `cwd`.
pub fn answer(
    store: &Store,
    loaded: &Loaded,
    cwd: &Path,
    req: &SimilarRequest,
) -> Result<SimilarAnswer> {
    let query = req.query.trim().to_string();
    if query.is_empty() {
        return Err(CmError::usage("EMPTY_QUERY", "the query is empty")
            .hint("cm similar \"refresh auth tokens before they expire\""));
    }
    if !(0.0..=1.0).contains(&req.threshold) {
        return Err(CmError::usage(
            "INVALID_ARGUMENT",
            format!("--threshold {} is outside 0..1", req.threshold),
        ));
    }
    let cfg = &loaded.config;
    index::refresh(store)?;
    let playbook = Playbook::open(store, cwd);
    let repo: Vec<Bullet> = playbook.readable_repo_rules();
    let sem = if cfg.semantic_search_enabled {
        let provider = semantic::provider::from_config(loaded)?;
        Some(semantic::similarities(
            store,
            provider.as_ref(),
            &query,
            &repo,
        ))
    } else {
        None
    };
    let corpus = Corpus::load(Some(store), repo)?;
    let fused = sem
        .as_ref()
        .filter(|o| o.issue.is_none())
        .map(|o| (o, cfg.semantic_weight));
    let cands = engine::candidates(&corpus, &query, engine::Coverage::Task, fused, 0.0)?;
    let mut idf = Idf::new(&corpus);
    let query_terms: BTreeSet<String> = tokenize::query_terms(&query).into_iter().collect();
    let mut scored = Vec::new();
    for (relevance, cos, s) in cands
        .into_iter()
        .take(req.limit.max(1) * CANDIDATES_PER_RESULT)
    {
        let Some((b, from_repo)) = corpus.bullet(&s.info)? else {
            continue;
        };
        if !req.all && !b.is_live() {
            continue;
        }
        let text = format!("{} {}", b.content, b.tags.join(" "));
        let rule_terms: BTreeSet<String> = tokenize::terms(&text).into_iter().collect();
        let lexical = idf.dice(&query_terms, &rule_terms)?;
        let sim = match (fused, cos) {
            (Some((_, w)), Some(c)) => semantic::fuse(lexical, c, w),
            _ => lexical,
        };
        if sim >= req.threshold && sim > 0.0 {
            scored.push((sim, relevance, cos, s.matched, b, from_repo));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.4.id.cmp(&b.4.id)));
    scored.truncate(req.limit);
    let rules = scored
        .into_iter()
        .map(
            |(similarity, relevance, semantic, matched, b, from_repo)| SimilarRule {
                shown: crate::context::rank::shown_text(&b, from_repo),
                id: b.id.clone(),
                category: b.category.clone(),
                bullet_type: type_name(b.bullet_type),
                maturity: maturity_name(b.maturity),
                similarity,
                relevance,
                semantic,
                matched,
                from_repo,
            },
        )
        .collect();
    let degraded = Degraded {
        semantic: sem.and_then(|o| o.issue),
        repo_playbook: playbook.repo_issue(),
        ..Default::default()
    };
    Ok(SimilarAnswer {
        query,
        rules,
        degraded,
    })
}

/// Term idfs over the corpus, each looked up once.
struct Idf<'a, 'c> {
    corpus: &'a Corpus<'c>,
    cache: HashMap<String, f64>,
}

impl<'a, 'c> Idf<'a, 'c> {
    fn new(corpus: &'a Corpus<'c>) -> Self {
        Idf {
            corpus,
            cache: HashMap::new(),
        }
    }

    fn of(&mut self, term: &str) -> Result<f64> {
        if let Some(v) = self.cache.get(term) {
            return Ok(*v);
        }
        let v = self.corpus.idf(term)?;
        self.cache.insert(term.to_string(), v);
        Ok(v)
    }

    /// `2 Σ idf(shared) / (Σ idf(a) + Σ idf(b))`: 1 for the same terms, 0 for none shared.
    fn dice(&mut self, a: &BTreeSet<String>, b: &BTreeSet<String>) -> Result<f64> {
        let mut sum = |set: &BTreeSet<String>| -> Result<f64> {
            set.iter().map(|t| self.of(t)).sum::<Result<f64>>()
        };
        let (sa, sb) = (sum(a)?, sum(b)?);
        let shared: BTreeSet<String> = a.intersection(b).cloned().collect();
        let ss = sum(&shared)?;
        Ok(if sa + sb > 0.0 {
            2.0 * ss / (sa + sb)
        } else {
            0.0
        })
    }
}
