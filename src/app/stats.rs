//! Playbook health in numbers (`cm stats`, the MCP `cm://stats` resource): counts by
//! category, maturity, type, location, scope, state and kind; the average score, stale and
//! at-risk rules, the score distribution, the best performers and likely duplicates; with
//! `trace_decay`, each live rule's events with their decay.

use crate::clock;
use crate::config::Config;
use crate::error::Result;
use crate::memory::bullet::{maturity_name, scope_name, state_name, type_name};
use crate::memory::health;
use crate::memory::playbook::Playbook;
use crate::memory::scoring::{effective_score, round3};
use crate::store::Store;
use chrono::Duration;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// The statistics of the playbooks seen from `cwd`, as `cm stats --json` answers (its `data`).
pub fn answer(store: &Store, cfg: &Config, cwd: &Path, trace_decay: bool) -> Result<Value> {
    let now = clock::now();
    let entries = Playbook::open(store, cwd)
        .settled(&cfg.scoring, now)
        .load_all()?;
    let mut by_category: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_maturity: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_type: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_location: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_scope: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_state: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut scored: Vec<(&crate::memory::bullet::Bullet, f64)> = Vec::new();
    let (mut sum, mut live, mut stale, mut anti) = (0.0, 0usize, 0usize, 0usize);
    let cutoff = now - Duration::days(cfg.stale_days as i64);
    let mut traces = Vec::new();
    for e in &entries {
        let b = &e.bullet;
        *by_maturity.entry(maturity_name(b.maturity)).or_default() += 1;
        *by_location.entry(e.location.name()).or_default() += 1;
        *by_state.entry(state_name(b.state)).or_default() += 1;
        if !b.is_live() {
            continue;
        }
        live += 1;
        *by_scope.entry(scope_name(b.scope)).or_default() += 1;
        let kind = serde_json::to_value(b.kind).unwrap_or_default();
        *by_kind
            .entry(kind.as_str().unwrap_or("").to_string())
            .or_default() += 1;
        *by_category.entry(b.category.clone()).or_default() += 1;
        *by_type.entry(type_name(b.bullet_type)).or_default() += 1;
        if b.is_anti_pattern() {
            anti += 1;
        }
        let score = effective_score(b, &cfg.scoring, now);
        scored.push((b, score));
        sum += score;
        if clock::parse(b.last_activity()).is_some_and(|t| t <= cutoff) {
            stale += 1;
        }
        if trace_decay {
            let events = crate::memory::scoring::decay_trace(b, &cfg.scoring, now);
            traces.push(json!({"id": b.id, "effectiveScore": round3(score), "events": events}));
        }
    }
    let avg = if live > 0 { sum / live as f64 } else { 0.0 };
    let scores: Vec<f64> = scored.iter().map(|(_, s)| *s).collect();
    let top = health::top_performers(&scored, 5);
    let at_risk = scored
        .iter()
        .filter(|(b, s)| health::at_risk(b, *s))
        .count();
    let live_rules: Vec<&crate::memory::bullet::Bullet> = scored.iter().map(|(b, _)| *b).collect();
    let merges = health::merge_candidates(&live_rules, cfg.dedup_similarity_threshold, 20);
    let to_map = |m: &BTreeMap<&str, usize>| {
        m.iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect::<Map<_, _>>()
    };
    let mut data = json!({
        "total": entries.len(),
        "live": live,
        "byCategory": by_category,
        "byMaturity": to_map(&by_maturity),
        "byType": to_map(&by_type),
        "byLocation": to_map(&by_location),
        "averageScore": round3(avg),
        "staleCount": stale,
        "staleDays": cfg.stale_days,
        "antiPatternCount": anti,
        "byScope": to_map(&by_scope),
        "byState": to_map(&by_state),
        "byKind": by_kind,
        "scoreDistribution": to_map(&health::score_distribution(&scores)),
        "topPerformers": top,
        "atRiskCount": at_risk,
        "mergeCandidates": merges,
    });
    if trace_decay {
        data["decayTrace"] = json!(traces);
    }
    Ok(data)
}
