//! The playbook as JSON (`cm playbook list --json`, the MCP `cm://playbook` resource): live
//! rules (or all) of a category, each with its score and where it lives, and the repository
//! playbook's problem in `degraded`. Big personal playbooks take the streaming fast path
//! ([`super::list_json`]); otherwise the rules are loaded, scored and streamed out.

use super::list_json;
use crate::clock;
use crate::config::Config;
use crate::error::Result;
use crate::memory::new_rule;
use crate::memory::playbook::{Entry, Playbook};
use crate::memory::view::BulletView;
use crate::output::Report;
use crate::store::Store;
use std::path::Path;

/// Which rules to list.
#[derive(Debug, Default)]
pub struct ListRequest {
    /// Only rules of this category (checked against the built-in and custom ones).
    pub category: Option<String>,
    /// Deprecated and retired rules too.
    pub all: bool,
    /// At most this many (`total` still counts all).
    pub limit: Option<usize>,
}

/// The category `req` names, checked against the built-in and custom ones.
pub fn category(cfg: &Config, req: &ListRequest) -> Result<Option<String>> {
    req.category
        .as_deref()
        .map(|c| new_rule::validate_category(c, &cfg.custom_categories))
        .transpose()
}

/// The rules `req` selects (live ones unless `all`, of `category`), in stored order; `limit`
/// is left to the caller, which also reports the total.
pub fn select(
    playbook: &Playbook,
    req: &ListRequest,
    category: Option<&str>,
) -> Result<Vec<Entry>> {
    Ok(playbook
        .load_all()?
        .into_iter()
        .filter(|e| req.all || e.bullet.is_live())
        .filter(|e| category.is_none_or(|c| e.bullet.category == c))
        .collect())
}

/// The list as a streamed JSON report: `{bullets, count, total, degraded}`.
pub fn json(store: &Store, cfg: &Config, cwd: &Path, req: &ListRequest) -> Result<Report> {
    let now = clock::now();
    let category = category(cfg, req)?;
    let playbook = Playbook::open(store, cwd).settled(&cfg.scoring, now);
    let filter = list_json::Filter {
        all: req.all,
        category: category.as_deref(),
        limit: req.limit,
    };
    if let Some(report) = list_json::list(&playbook, &cfg.scoring, now, &filter)? {
        return Ok(report);
    }
    let degraded = crate::degraded::Degraded {
        repo_playbook: playbook.repo_issue(),
        ..Default::default()
    };
    let entries = select(&playbook, req, category.as_deref())?;
    let total = entries.len();
    let limit = req.limit.unwrap_or(total).min(total);
    let scoring = cfg.scoring.clone();
    Ok(Report::streamed(move |w| {
        #[derive(serde::Serialize)]
        struct ListData<'a> {
            bullets: Vec<BulletView<'a>>,
            count: usize,
            total: usize,
            degraded: serde_json::Value,
        }
        let data = ListData {
            bullets: entries[..limit]
                .iter()
                .map(|e| BulletView::new(e, &scoring, now))
                .collect(),
            count: limit,
            total,
            degraded: degraded.to_json(),
        };
        serde_json::to_writer(&mut *w, &data)?;
        drop(data);
        // The process exits right after printing; freeing thousands of bullets one
        // allocation at a time would cost more than writing them.
        std::mem::forget(entries);
        Ok(())
    }))
}
