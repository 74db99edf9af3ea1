//! `cm similar "QUERY"`: rules ranked by similarity to a text (BM25 relevance, fused with
//! embeddings when semantic search is on). Useful before adding a rule, to find its duplicates.

use super::Ctx;
use crate::context::engine;
use crate::context::index::{self, Corpus};
use crate::context::rank::round3;
use crate::context::semantic;
use crate::error::{CmError, Result};
use crate::memory::bullet::{Bullet, maturity_name, type_name};
use crate::memory::playbook::Playbook;
use crate::output::{Report, table, truncate};
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The text to compare rules with.
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Minimum similarity (0-1).
    #[arg(long, default_value_t = 0.1)]
    pub threshold: f64,
    /// Include deprecated rules.
    #[arg(long)]
    pub all: bool,
}

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
    let corpus = Corpus::load(Some(&store.conn), repo)?;
    let fused = sem
        .as_ref()
        .filter(|o| o.issue.is_none())
        .map(|o| (o, cfg.semantic_weight));
    let cands = engine::candidates(&corpus, &query, fused, args.threshold)?;
    let mut results = Vec::new();
    let mut rows = Vec::new();
    for (sim, cos, s) in cands {
        if results.len() >= args.limit {
            break;
        }
        let Some((b, from_repo)) = corpus.bullet(&s.info)? else {
            continue;
        };
        if !args.all && !b.is_live() {
            continue;
        }
        rows.push(vec![
            b.id.clone(),
            format!("{sim:.2}"),
            b.category.clone(),
            truncate(&crate::context::rank::shown_text(&b, from_repo), 80),
        ]);
        results.push(json!({
            "id": b.id, "content": crate::context::rank::shown_text(&b, from_repo), "category": b.category,
            "type": type_name(b.bullet_type), "maturity": maturity_name(b.maturity),
            "similarity": round3(sim), "semanticScore": cos.map(round3),
            "matched": s.matched, "location": if from_repo { "repo" } else { "personal" },
        }));
    }
    let degraded = crate::degraded::Degraded {
        semantic: sem.and_then(|o| o.issue),
        repo_playbook: playbook.repo_issue(),
        ..Default::default()
    };
    let human = if rows.is_empty() {
        "No similar rules.".to_string()
    } else {
        table(&["ID", "SIMILARITY", "CATEGORY", "RULE"], &rows)
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
