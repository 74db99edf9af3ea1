//! `cm outcome STATUS IDS`, `cm outcome-apply`, `cm outcome-clear`.
//!
//! An outcome records which rules a session used and how it went; applying it turns `success`
//! into helpful feedback and `failure` into harmful feedback (source `outcome`). A `mixed`
//! outcome (`partial` is another name for it) is kept for the record but changes no score: it
//! says nothing about any one rule.

use super::Ctx;
use crate::app::outcomes;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::playbook::Playbook;
use crate::memory::tables::outcomes::Outcome;
use crate::output::Report;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// success, failure, or mixed (partial is another name for mixed).
    pub status: String,
    /// Comma-separated rule ids the session used.
    pub ids: String,
    /// What happened in the session (becomes the feedback's reason).
    #[arg(long)]
    pub summary: Option<String>,
    /// The session's log file (provenance).
    #[arg(long)]
    pub session: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct ApplyArgs {
    /// Only the outcomes recorded for this session (its log file, as `outcome --session` took).
    #[arg(long)]
    session: Option<String>,
    /// Apply at most N outcomes (the oldest first); the rest wait for the next run.
    #[arg(long)]
    limit: Option<usize>,
}

#[derive(clap::Args, Debug)]
pub struct ClearArgs {}

pub fn record(args: &Args, ctx: &Ctx) -> Result<Report> {
    let status = match args.status.trim().to_ascii_lowercase().as_str() {
        s @ ("success" | "failure" | "mixed") => s.to_string(),
        "partial" => "mixed".to_string(),
        _ => {
            return Err(CmError::usage(
                "INVALID_ARGUMENT",
                format!("unknown outcome \"{}\"", args.status),
            )
            .hint("use success, failure, mixed or partial (the same as mixed)"));
        }
    };
    let store = ctx.store()?;
    let playbook = Playbook::open(store, &ctx.cwd);
    let mut ids = Vec::new();
    for raw in args.ids.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (id, _) = playbook.resolve(raw)?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.is_empty() {
        return Err(CmError::usage("INVALID_ARGUMENT", "no rule ids given")
            .hint("cm outcome success b-abc,b-def"));
    }
    let o = Outcome {
        id: format!("o-{}", &crate::fsutil::unique_suffix()[..12]),
        timestamp: clock::now_rfc3339(),
        status: status.clone(),
        rules_used: ids.clone(),
        summary: args.summary.as_deref().map(|s| crate::redact::redact(s).0),
        session_path: args
            .session
            .as_deref()
            .map(|s| crate::paths::session_ref(s, &ctx.cwd)),
        applied: false,
        applied_at: None,
    };
    outcomes::record(store, &o)?;
    Ok(Report::new(json!({"outcome": o}))
        .human(format!(
            "Recorded {status} for {}; `cm outcome-apply` applies it.",
            ids.join(", ")
        ))
        .quiet(o.id.clone()))
}

pub fn apply(args: &ApplyArgs, ctx: &Ctx) -> Result<Report> {
    if args.limit == Some(0) {
        return Err(
            CmError::usage("INVALID_ARGUMENT", "--limit 0 applies nothing")
                .hint("give --limit 1 or more, or leave it out to apply every pending outcome"),
        );
    }
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let playbook = Playbook::open(store, &ctx.cwd);
    let which = outcomes::Which {
        session: args
            .session
            .as_deref()
            .map(|s| crate::paths::session_ref(s, &ctx.cwd)),
        limit: args.limit,
    };
    let done = outcomes::apply_pending(store, &playbook, &cfg.scoring, clock::now_rfc3339, &which)?;
    let applied: Vec<_> = done
        .applied
        .iter()
        .map(|o| json!({"id": o.id, "status": o.status, "rules": o.rules}))
        .collect();
    let (missing, inverted) = (done.missing, done.inverted);
    let count = applied.len();
    let human = if count == 0 {
        "No recorded outcomes to apply.".to_string()
    } else {
        let mut s = format!("Applied {count} outcome(s).");
        if !missing.is_empty() {
            s.push_str(&format!(
                " Skipped rules that no longer exist: {}.",
                missing.join(", ")
            ));
        }
        if !inverted.is_empty() {
            s.push_str(&format!(" New anti-patterns: {}.", inverted.join(", ")));
        }
        s
    };
    Ok(Report::new(json!({"applied": applied, "count": count, "missingRules": missing, "invertedTo": inverted}))
        .human(human)
        .quiet(count.to_string()))
}

pub fn clear(_args: &ClearArgs, ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let n = outcomes::clear_pending(store)?;
    Ok(Report::new(json!({"cleared": n}))
        .human(format!("Discarded {n} recorded outcome(s)."))
        .quiet(n.to_string()))
}
