//! `cm stale [--days N] [--project]`: live rules without feedback for N days; with `--project`,
//! the date each one's decaying score falls below the configured minimum (`minScore`).

use super::Ctx;
use crate::clock;
use crate::error::Result;
use crate::memory::playbook::Playbook;
use crate::memory::scoring::{days_until_below, effective_score, round3};
use crate::output::{Report, table, truncate};
use chrono::Duration;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Days without feedback (default: config `staleDays`, 90).
    #[arg(long)]
    pub days: Option<u32>,
    /// Project when each stale rule's score falls below the minimum.
    #[arg(long)]
    pub project: bool,
    /// Show at most N rules (the longest idle first); `total` still counts all.
    #[arg(long)]
    pub limit: Option<usize>,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let now = clock::now();
    let days = args.days.unwrap_or(cfg.stale_days);
    let cutoff = now - Duration::days(days as i64);
    let mut found = Vec::new();
    for e in Playbook::open(ctx.store()?, &ctx.cwd)
        .settled(&cfg.scoring, now)
        .load_all()?
    {
        let b = &e.bullet;
        if !b.is_live() {
            continue;
        }
        let last = clock::parse(b.last_activity()).unwrap_or(now);
        if last > cutoff {
            continue;
        }
        let score = effective_score(b, &cfg.scoring, now);
        let idle = clock::age_days(last, now).floor() as i64;
        let mut item = json!({
            "id": b.id, "content": b.content, "category": b.category,
            "lastFeedback": b.feedback_events.iter().map(|e| e.timestamp.as_str()).max(),
            "daysSinceActivity": idle, "effectiveScore": round3(score), "location": e.location.name(),
        });
        let mut projected = String::new();
        if args.project {
            let (date, note) =
                match days_until_below(score, cfg.min_score, cfg.scoring.decay_half_life_days) {
                    Some(d) if d <= 0.0 => {
                        (Some(clock::to_rfc3339(now)), "already below the minimum")
                    }
                    Some(d) => (
                        Some(clock::to_rfc3339(
                            now + Duration::seconds((d * 86_400.0) as i64),
                        )),
                        "projected",
                    ),
                    None => (None, "does not decay"),
                };
            projected = date
                .clone()
                .map(|d| d[..10].to_string())
                .unwrap_or_else(|| "never".into());
            item["projectedBelowMinimum"] = json!(date);
            item["projection"] = json!(note);
            item["minScore"] = json!(cfg.min_score);
        }
        let mut row = vec![b.id.clone(), format!("{idle}d"), format!("{score:.2}")];
        if args.project {
            row.push(projected);
        }
        row.push(truncate(&b.content, 70));
        found.push((idle, item, row));
    }
    // Longest idle first, so `--limit` keeps the stalest.
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    let total = found.len();
    found.truncate(args.limit.unwrap_or(total));
    let (items, rows): (Vec<_>, Vec<_>) = found.into_iter().map(|(_, i, r)| (i, r)).unzip();
    let headers: Vec<&str> = if args.project {
        vec!["ID", "IDLE", "SCORE", "BELOW MIN", "RULE"]
    } else {
        vec!["ID", "IDLE", "SCORE", "RULE"]
    };
    let human = if rows.is_empty() {
        format!("No rule has gone {days} days without feedback.")
    } else {
        table(&headers, &rows)
    };
    let quiet = items
        .iter()
        .filter_map(|i| i["id"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(
        Report::new(json!({"days": days, "count": items.len(), "total": total, "bullets": items}))
            .human(human)
            .quiet(quiet),
    )
}
