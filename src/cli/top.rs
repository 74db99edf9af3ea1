//! `cm top [N] [--category C] [--debug]`: the live rules with the highest effective score.
//!
//! `--debug` shows how each score was reached: the decayed helpful and harmful weights, the
//! harmful multiplier, the weighted harmful ratio that decides maturity, and every event's age
//! and weight.

use super::Ctx;
use super::view;
use crate::clock;
use crate::error::Result;
use crate::memory::bullet::Bullet;
use crate::memory::playbook::Playbook;
use crate::memory::scoring::{decayed_sums, effective_score, round3, weighted_harmful_ratio};
use crate::output::{Report, table};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How many rules to show.
    #[arg(default_value_t = 10, value_parser = super::positive::count)]
    pub n: usize,
    /// Only rules of this category.
    #[arg(long)]
    pub category: Option<String>,
    /// Same as N (wins over it when both are given).
    #[arg(long, value_parser = super::positive::count)]
    pub limit: Option<usize>,
    /// Show how each score was reached (decayed weights, ratio, every event).
    #[arg(long)]
    pub debug: bool,
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
    let all = Playbook::open(ctx.store()?, &ctx.cwd)
        .settled(&cfg.scoring, now)
        .load_all()?;
    let stored = all.len();
    let mut entries: Vec<_> = all
        .into_iter()
        .filter(|e| e.bullet.is_live() && !e.bullet.is_anti_pattern())
        .filter(|e| category.as_ref().is_none_or(|c| &e.bullet.category == c))
        .map(|e| (effective_score(&e.bullet, &cfg.scoring, now), e))
        // Net harmful rules are what `cm context` only warns of: never "most effective".
        .filter(|(score, _)| *score >= 0.0)
        .collect();
    entries.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| a.1.bullet.id.cmp(&b.1.bullet.id))
    });
    let total = entries.len();
    entries.truncate(args.limit.unwrap_or(args.n));
    let rows: Vec<_> = entries
        .iter()
        .map(|(_, e)| view::table_row(e, &cfg.scoring, now, 80))
        .collect();
    let mut human = if stored == 0 {
        "No rules yet.".to_string()
    } else if total == 0 {
        match &category {
            Some(c) => format!("No live rule in category {c} ({stored} rule(s) in the playbook)."),
            None => format!(
                "No live rule ({stored} rule(s) in the playbook, all deprecated or pitfalls)."
            ),
        }
    } else {
        table(&view::TABLE_HEADERS, &rows)
    };
    let bullets: Vec<Value> = entries
        .iter()
        .map(|(_, e)| {
            let mut v = view::entry_json(e, &cfg.scoring, now);
            if args.debug {
                v["debug"] = debug(&e.bullet, &cfg.scoring, now);
            }
            v
        })
        .collect();
    if args.debug {
        for (_, e) in &entries {
            human.push_str(&debug_text(&e.bullet, &cfg.scoring, now));
        }
    }
    Ok(Report::new(json!({
        "bullets": bullets,
        "count": entries.len(),
        "total": total,
    }))
    .human(human)
    .quiet(
        entries
            .iter()
            .map(|(_, e)| e.bullet.id.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    ))
}

/// How a rule's score and maturity were reached, at `now`.
fn debug(b: &Bullet, cfg: &crate::config::Scoring, now: DateTime<Utc>) -> Value {
    let (h, x) = decayed_sums(b, cfg, now);
    let events = crate::memory::scoring::decay_trace(b, cfg, now);
    json!({
        "helpfulWeight": round3(h),
        "harmfulWeight": round3(x),
        "harmfulMultiplier": cfg.harmful_multiplier,
        "halfLifeDays": cfg.decay_half_life_days,
        "weightedHarmfulRatio": round3(weighted_harmful_ratio((h, x))),
        "formula": format!("{:.3} - {} x {:.3} = {:.3}", h, cfg.harmful_multiplier, x, h - cfg.harmful_multiplier * x),
        "events": events,
    })
}

fn debug_text(b: &Bullet, cfg: &crate::config::Scoring, now: DateTime<Utc>) -> String {
    let d = debug(b, cfg, now);
    let mut s = format!(
        "\n{}: score {} (helpful weight - {} x harmful weight), weighted harmful ratio {}, maturity {}\n",
        b.id,
        d["formula"].as_str().unwrap_or(""),
        cfg.harmful_multiplier,
        d["weightedHarmfulRatio"],
        crate::memory::bullet::maturity_name(b.maturity)
    );
    if let Some(events) = d["events"].as_array() {
        s.push_str(&view::decay_trace_lines(events, "  "));
    }
    s
}
