//! `cm top [N] [--category C]`: the live rules with the highest effective score.

use super::Ctx;
use super::view;
use crate::clock;
use crate::error::Result;
use crate::memory::playbook::Playbook;
use crate::memory::scoring::effective_score;
use crate::output::{Report, table};
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(default_value_t = 10)]
    pub n: usize,
    #[arg(long)]
    pub category: Option<String>,
    /// Same as N (wins over it when both are given).
    #[arg(long)]
    pub limit: Option<usize>,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let now = clock::now();
    let category = match &args.category {
        Some(c) => Some(crate::memory::new_rule::validate_category(
            c,
            &cfg.custom_categories,
        )?),
        None => None,
    };
    let mut entries: Vec<_> = Playbook::open(ctx.store()?, &ctx.cwd)
        .settled(&cfg.scoring, now)
        .load_all()?
        .into_iter()
        .filter(|e| e.bullet.is_live() && !e.bullet.is_anti_pattern())
        .filter(|e| category.as_ref().is_none_or(|c| &e.bullet.category == c))
        .map(|e| (effective_score(&e.bullet, &cfg.scoring, now), e))
        .collect();
    entries.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| a.1.bullet.id.cmp(&b.1.bullet.id))
    });
    entries.truncate(args.limit.unwrap_or(args.n));
    let rows: Vec<_> = entries
        .iter()
        .map(|(_, e)| view::table_row(e, &cfg.scoring, now, 80))
        .collect();
    let human = if rows.is_empty() {
        "No rules yet.".to_string()
    } else {
        table(&view::TABLE_HEADERS, &rows)
    };
    Ok(Report::new(json!({
        "bullets": entries.iter().map(|(_, e)| view::entry_json(e, &cfg.scoring, now)).collect::<Vec<_>>(),
        "count": entries.len(),
    }))
    .human(human)
    .quiet(entries.iter().map(|(_, e)| e.bullet.id.as_str()).collect::<Vec<_>>().join("\n")))
}
