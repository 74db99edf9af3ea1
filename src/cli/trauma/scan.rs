//! `cm trauma scan [--days N]`: propose traumas from the session index.
//!
//! Proposals only: nothing is added until the user runs the suggested `cm trauma add`. Without
//! a session index the command succeeds with no proposals and says why in `degraded.history`.

use super::store;
use crate::cli::Ctx;
use crate::degraded::{Degraded, Issue};
use crate::episodic::replay;
use crate::episodic::trauma_scan;
use crate::error::Result;
use crate::guard::scan;
use crate::install::command::shell_quote;
use crate::output::Report;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only sessions from the last N days (all when not given).
    #[arg(long)]
    pub days: Option<u32>,
}

pub fn run(a: &Args, ctx: &Ctx) -> Result<Report> {
    let since = a.days.map(|d| {
        crate::clock::to_rfc3339(crate::clock::now() - chrono::Duration::days(i64::from(d)))
    });
    let db = crate::paths::db_path();
    let mut incidents = Vec::new();
    let mut examined = 0;
    let mut degraded = Degraded::default();
    let store_ = if db.is_file() {
        Some(ctx.store()?)
    } else {
        None
    };
    match store_ {
        Some(st) if replay::available(st) && crate::episodic::sessions::has_index(st) => {
            let (found, n) = trauma_scan::scan(st, since.as_deref()).map_err(|e| st.map_err(e))?;
            incidents = found;
            examined = n;
        }
        _ => {
            degraded.history = Some(Issue::new(
                "NO_INDEX",
                "no sessions are indexed yet, so there is nothing to scan",
                "index agents' sessions first (`cm history index`), then scan again",
            ));
        }
    }

    // Group by proposed pattern; skip patterns the user already has.
    let (existing, bad) = store::load_all(ctx)?;
    let warnings = store::report_bad(&bad);
    let mut groups: BTreeMap<String, Vec<&scan::Incident>> = BTreeMap::new();
    for i in &incidents {
        if existing.iter().any(|l| l.trauma.pattern == i.pattern) {
            continue;
        }
        groups.entry(i.pattern.clone()).or_default().push(i);
    }
    // Built-in packs already block some of these; say which, so the user adds only what is new.
    let builtin = crate::guard::Policy::default();
    let mut proposals: Vec<Value> = groups
        .into_iter()
        .map(|(pattern, list)| {
            let first = list[0];
            let mut sessions: Vec<&str> = list.iter().map(|i| i.session_id.as_str()).collect();
            sessions.dedup();
            let message = format!(
                "{} caused harm before (session {}): {}",
                first.label, first.session_id, first.evidence
            );
            let decision = crate::guard::evaluate(&first.command, &builtin);
            let covered_by = (decision.verdict == crate::guard::Verdict::Deny)
                .then(|| decision.hit.map(|h| h.rule))
                .flatten();
            json!({
                "pattern": pattern,
                "coveredBy": covered_by,
                "label": first.label,
                "example": first.command,
                "occurrences": list.len(),
                "sessions": sessions,
                "signals": list.iter().map(|i| i.signal).collect::<Vec<_>>(),
                "evidence": first.evidence,
                "lastSeen": list.iter().filter_map(|i| i.timestamp.clone()).max(),
                "suggestedCommand": format!(
                    "cm trauma add {} --message {}",
                    shell_quote(&pattern),
                    shell_quote(&crate::output::truncate(&message, 160))
                ),
            })
        })
        .collect();
    // New protection first, then the most frequent.
    proposals.sort_by_key(|p| {
        (
            !p["coveredBy"].is_null(),
            std::cmp::Reverse(p["occurrences"].as_u64().unwrap_or(0)),
        )
    });

    let mut human = String::new();
    for line in degraded.lines() {
        let _ = writeln!(human, "degraded: {line}");
    }
    if proposals.is_empty() {
        let _ = writeln!(
            human,
            "no trauma candidates ({examined} destructive command(s) examined)"
        );
    }
    for p in &proposals {
        let _ = writeln!(
            human,
            "{} x{}: {}\n  evidence: {}\n  add with: {}",
            p["label"].as_str().unwrap_or(""),
            p["occurrences"],
            p["example"].as_str().unwrap_or(""),
            p["evidence"].as_str().unwrap_or(""),
            p["suggestedCommand"].as_str().unwrap_or("")
        );
        if let Some(rule) = p["coveredBy"].as_str() {
            let _ = writeln!(human, "  (already blocked by the built-in rule {rule})");
        }
    }
    Ok(Report::new(json!({
        "days": a.days,
        "examined": examined,
        "proposals": proposals,
        "degraded": degraded.to_json(),
        "warnings": warnings,
    }))
    .human(human))
}
