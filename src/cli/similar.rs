//! `cm similar "QUERY" [--scores]`: rules ranked by how alike they are to a text (fused with
//! embeddings when semantic search is on). Useful before adding a rule, to find its duplicates.
//!
//! Candidates come from the term index (BM25, as `cm context` finds them); each is then scored
//! by a symmetric similarity, so a rule matching one word of a long text, or a long rule sharing
//! one word with a short text, is not "1.00 similar": `similarity = 2 Σ idf(shared) / (Σ idf(text)
//! + Σ idf(rule))` over distinct stemmed terms, a word no rule holds weighing the most.
//! `relevanceScore` is the BM25 coverage `cm context` uses.

use super::Ctx;
use crate::context::engine;
use crate::context::index::{self, Corpus};
use crate::context::rank::round3;
use crate::context::{semantic, tokenize};
use crate::error::{CmError, Result};
use crate::memory::bullet::{Bullet, maturity_name, type_name};
use crate::memory::playbook::Playbook;
use crate::output::{Report, table, truncate};
use serde_json::json;
use std::collections::{BTreeSet, HashMap};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The text to compare rules with.
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// Rules to return at most.
    #[arg(long, default_value_t = 10, value_parser = super::positive::count)]
    pub limit: usize,
    /// Minimum similarity (0-1).
    #[arg(long, default_value_t = 0.1)]
    pub threshold: f64,
    /// Include deprecated rules.
    #[arg(long)]
    pub all: bool,
    /// Show the scores in the human output: similarity, BM25 relevance, semantic cosine.
    #[arg(long)]
    pub scores: bool,
}

/// Candidates looked at per result asked for (the best by BM25 relevance).
const CANDIDATES_PER_RESULT: usize = 4;

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let query = args.query.join(" ").trim().to_string();
    if query.is_empty() {
        return Err(CmError::usage("EMPTY_QUERY", "the query is empty")
            .hint("cm similar \"refresh auth tokens before they expire\""));
    }
    if !(0.0..=1.0).contains(&args.threshold) {
        return Err(CmError::usage(
            "INVALID_ARGUMENT",
            format!("--threshold {} is outside 0..1", args.threshold),
        ));
    }
    let loaded = ctx.loaded()?;
    let cfg = &loaded.config;
    let store = ctx.store()?;
    index::refresh(store)?;
    let playbook = Playbook::open(store, &ctx.cwd);
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
        .take(args.limit.max(1) * CANDIDATES_PER_RESULT)
    {
        let Some((b, from_repo)) = corpus.bullet(&s.info)? else {
            continue;
        };
        if !args.all && !b.is_live() {
            continue;
        }
        let text = format!("{} {}", b.content, b.tags.join(" "));
        let rule_terms: BTreeSet<String> = tokenize::terms(&text).into_iter().collect();
        let lexical = idf.dice(&query_terms, &rule_terms)?;
        let sim = match (fused, cos) {
            (Some((_, w)), Some(c)) => semantic::fuse(lexical, c, w),
            _ => lexical,
        };
        if sim >= args.threshold && sim > 0.0 {
            scored.push((sim, relevance, cos, s.matched, b, from_repo));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.4.id.cmp(&b.4.id)));
    scored.truncate(args.limit);
    let mut results = Vec::new();
    let mut rows = Vec::new();
    for (sim, relevance, cos, matched, b, from_repo) in scored {
        let shown = crate::context::rank::shown_text(&b, from_repo);
        let mut row = vec![b.id.clone()];
        if args.scores {
            row.push(format!("{sim:.2}"));
            row.push(format!("{relevance:.2}"));
            row.push(cos.map(|c| format!("{c:.2}")).unwrap_or_else(|| "-".into()));
        }
        row.push(b.category.clone());
        row.push(truncate(&shown, 80));
        rows.push(row);
        results.push(json!({
            "id": b.id, "content": shown, "category": b.category,
            "type": type_name(b.bullet_type), "maturity": maturity_name(b.maturity),
            "similarity": round3(sim), "relevanceScore": round3(relevance),
            "semanticScore": cos.map(round3),
            "matched": matched, "location": if from_repo { "repo" } else { "personal" },
        }));
    }
    let degraded = crate::degraded::Degraded {
        semantic: sem.and_then(|o| o.issue),
        repo_playbook: playbook.repo_issue(),
        ..Default::default()
    };
    let human = if rows.is_empty() {
        "No similar rules.".to_string()
    } else if args.scores {
        table(
            &[
                "ID",
                "SIMILARITY",
                "RELEVANCE",
                "SEMANTIC",
                "CATEGORY",
                "RULE",
            ],
            &rows,
        )
    } else {
        table(&["ID", "CATEGORY", "RULE"], &rows)
    };
    let quiet = results
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Report::new(
        json!({"query": query, "results": results, "count": results.len(), "degraded": degraded.to_json()}),
    )
    .human(human)
    .quiet(quiet))
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
