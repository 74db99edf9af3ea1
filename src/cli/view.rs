//! How bullets look in command output: the JSON object (the stored fields plus
//! `effectiveScore` and `location`) and the one-line human form.

use crate::config::Scoring;
use crate::memory::bullet::{maturity_name, type_name};
use crate::memory::playbook::{Entry, Location};
use crate::memory::scoring::effective_score;
use crate::output::{Style, paint, truncate};
use chrono::{DateTime, Utc};
use serde_json::Value;

pub use crate::memory::view::{BulletView, bullet_json, entry_json};

/// Rows for `output::table`: id, score, maturity, category, content.
pub fn table_row(e: &Entry, cfg: &Scoring, now: DateTime<Utc>, width: usize) -> Vec<String> {
    let b = &e.bullet;
    let mut id = b.id.clone();
    if matches!(e.location, Location::Repo(_)) {
        id.push_str(" (repo)");
    }
    let content = if b.is_anti_pattern() {
        paint(&truncate(&b.content, width), Style::Yellow)
    } else {
        truncate(&b.content, width)
    };
    vec![
        id,
        format!("{:.2}", effective_score(b, cfg, now)),
        maturity_name(b.maturity).to_string(),
        b.category.clone(),
        content,
    ]
}

pub const TABLE_HEADERS: [&str; 5] = ["ID", "SCORE", "MATURITY", "CATEGORY", "RULE"];

/// A multi-line human description of one bullet.
pub fn describe(e: &Entry, cfg: &Scoring, now: DateTime<Utc>) -> String {
    let b = &e.bullet;
    let mut s = format!("{}  {}\n", paint(&b.id, Style::Bold), b.content);
    s.push_str(&format!(
        "  type {}  category {}  scope {}{}  maturity {}  state {}\n",
        type_name(b.bullet_type),
        b.category,
        crate::memory::bullet::scope_name(b.scope),
        b.scope_key
            .as_deref()
            .map(|k| format!(":{k}"))
            .unwrap_or_default(),
        maturity_name(b.maturity),
        crate::memory::bullet::state_name(b.state)
    ));
    s.push_str(&format!(
        "  score {:.3}  helpful {}  harmful {}{}{}\n",
        effective_score(b, cfg, now),
        b.helpful_count,
        b.harmful_count,
        if b.pinned { "  pinned" } else { "" },
        match &e.location {
            Location::Personal => String::new(),
            Location::Repo(p) => format!("  in {}", p.display()),
        }
    ));
    if !b.tags.is_empty() {
        s.push_str(&format!("  tags {}\n", b.tags.join(", ")));
    }
    if let Some(r) = &b.reasoning {
        s.push_str(&format!("  why {r}\n"));
    }
    if let Some(r) = &b.deprecation_reason {
        s.push_str(&format!("  deprecated: {r}\n"));
    }
    s.push_str(&format!(
        "  created {}  updated {}\n",
        b.created_at, b.updated_at
    ));
    s
}

/// [`crate::memory::scoring::decay_trace`] as indented human lines.
pub fn decay_trace_lines(events: &[Value], indent: &str) -> String {
    events
        .iter()
        .map(|ev| {
            let weight = ev["weight"].as_f64().unwrap_or(1.0);
            format!(
                "{indent}{} {}  age {}d  factor {}{}  {:+}\n",
                ev["timestamp"].as_str().unwrap_or(""),
                ev["type"].as_str().unwrap_or(""),
                ev["ageDays"],
                ev["decayFactor"],
                if weight == 1.0 {
                    String::new()
                } else {
                    format!("  weight {weight}")
                },
                ev["contribution"].as_f64().unwrap_or(0.0)
            )
        })
        .collect()
}
