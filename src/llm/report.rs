//! What `cm usage` shows: the LLM's calls, tokens and cost by day, by month and by purpose over
//! a window of days, the budget's limits with what is spent and left today and this month, and
//! whether a call could go out at all (and why not).

use super::budget::{self, Spent};
use super::ledger::{self, Group, Totals};
use super::prices;
use super::settings::LlmSettings;
use crate::error::Result;
use crate::store::Store;
use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

/// The whole report as `cm usage --json` prints it (`data`).
pub fn usage(
    store: &Store,
    settings: &LlmSettings,
    now: DateTime<Utc>,
    days: u32,
) -> Result<Value> {
    let days = days.max(1);
    let (_, to) = budget::day_window(now);
    let from = to - Duration::days(i64::from(days));
    let (months_from, _) = budget::month_window(from);
    let (_, months_to) = budget::month_window(now);
    let by_day = ledger::totals(store, from, to, Group::Day)?;
    let by_month = ledger::totals(store, months_from, months_to, Group::Month)?;
    let by_purpose = ledger::totals(store, from, to, Group::Purpose)?;
    let total = sum(&by_day);
    let spent = ledger::spent(store, now)?;
    let (price, source) = prices::for_settings(settings);
    let ready = super::ready(settings);
    Ok(json!({
        "llm": {
            "configured": settings.provider.is_some(),
            "ready": ready.is_ok(),
            "reason": ready.as_ref().err().map(|e| e.to_string()),
            "provider": settings.provider.map(|p| p.name()),
            "model": settings.provider.map(|_| settings.model.clone()),
            "prices": {
                "inputPerMillion": price.input_per_million,
                "outputPerMillion": price.output_per_million,
                "source": source.name(),
            },
        },
        "days": days,
        "since": from.format("%Y-%m-%d").to_string(),
        "total": row(&total, None),
        "byDay": by_day.iter().map(|t| row(t, Some("day"))).collect::<Vec<_>>(),
        "byMonth": by_month.iter().map(|t| row(t, Some("month"))).collect::<Vec<_>>(),
        "byPurpose": by_purpose.iter().map(|t| row(t, Some("purpose"))).collect::<Vec<_>>(),
        "budget": budget_json(settings, spent),
    }))
}

fn sum(rows: &[Totals]) -> Totals {
    rows.iter().fold(Totals::default(), |mut acc, t| {
        acc.calls += t.calls;
        acc.failed += t.failed;
        acc.pending += t.pending;
        acc.input_tokens += t.input_tokens;
        acc.output_tokens += t.output_tokens;
        acc.cost_usd += t.cost_usd;
        acc
    })
}

/// Dollars rounded to a hundredth of a cent, so sums of floats print as people expect.
fn usd(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn row(t: &Totals, key: Option<&str>) -> Value {
    let mut v = json!({
        "calls": t.calls,
        "failed": t.failed,
        "pending": t.pending,
        "inputTokens": t.input_tokens,
        "outputTokens": t.output_tokens,
        "costUsd": usd(t.cost_usd),
    });
    if let Some(k) = key {
        let mut keyed = serde_json::Map::new();
        keyed.insert(k.into(), Value::String(t.key.clone()));
        keyed.extend(v.as_object().cloned().unwrap_or_default());
        v = Value::Object(keyed);
    }
    v
}

fn budget_json(settings: &LlmSettings, spent: Spent) -> Value {
    let b = &settings.budget;
    let period = |spent: f64, limit: f64| {
        json!({
            "spent": usd(spent),
            "limit": limit,
            "left": usd((limit - spent).max(0.0)),
            "percent": if limit > 0.0 { (spent * 1000.0 / limit).round() / 10.0 } else { 0.0 },
        })
    };
    json!({
        "dailyLimit": b.daily_limit,
        "monthlyLimit": b.monthly_limit,
        "warningThreshold": b.warning_threshold,
        "today": period(spent.day, b.daily_limit),
        "thisMonth": period(spent.month, b.monthly_limit),
        "warnings": budget::warnings(b, spent),
    })
}
