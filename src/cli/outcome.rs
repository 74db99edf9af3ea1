//! `cm outcome STATUS IDS`, `cm outcome-apply`, `cm outcome-clear`.
//!
//! An outcome records which rules a session used and how it went; applying it turns `success`
//! into helpful feedback and `failure` into harmful feedback (source `outcome`). A `mixed`
//! outcome (`partial` is another name for it) is kept for the record but changes no score: it
//! says nothing about any one rule.

use super::Ctx;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::bullet::{FeedbackSource, FeedbackType};
use crate::memory::feedback::{self, FeedbackInput};
use crate::memory::playbook::Playbook;
use crate::memory::tables::outcomes::{self, Outcome};
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
pub struct ApplyArgs {}

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
    store.write(|tx| outcomes::insert(tx, &o))?;
    Ok(Report::new(json!({"outcome": o}))
        .human(format!(
            "Recorded {status} for {}; `cm outcome-apply` applies it.",
            ids.join(", ")
        ))
        .quiet(o.id.clone()))
}

pub fn apply(_args: &ApplyArgs, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let playbook = Playbook::open(store, &ctx.cwd);
    let pending = outcomes::pending(store)?;
    let mut applied = Vec::new();
    let mut missing = Vec::new();
    let mut inverted = Vec::new();
    for o in &pending {
        // Claim and apply in one transaction: another `cm outcome-apply` running now finds the
        // outcome taken and skips it, and a crash part-way leaves it pending with nothing
        // applied, so every outcome is applied exactly once.
        let now = clock::now_rfc3339();
        let done = store.write(|tx| {
            if !outcomes::claim(tx, &o.id, &now)? {
                return Ok(None);
            }
            let mut effects = Effects::default();
            if let Some(kind) = feedback_kind(&o.status) {
                for id in &o.rules_used {
                    apply_one(&playbook, tx, o, id, kind, &now, &cfg.scoring, &mut effects)?;
                }
            }
            Ok(Some(effects))
        })?;
        let Some(effects) = done else { continue };
        missing.extend(effects.missing);
        inverted.extend(effects.inverted);
        applied.push(json!({"id": o.id, "status": o.status, "rules": o.rules_used}));
    }
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

#[derive(Default)]
struct Effects {
    missing: Vec<String>,
    inverted: Vec<String>,
}

fn feedback_kind(status: &str) -> Option<FeedbackType> {
    match status {
        "success" => Some(FeedbackType::Helpful),
        "failure" => Some(FeedbackType::Harmful),
        _ => None,
    }
}

/// The feedback event outcome `outcome` gives rule `rule`: its id is derived from both, so an
/// outcome already applied to a rule (a repository rule whose file was written just before a
/// crash, while the claim rolled back) is recognised and not applied again.
fn event_id(outcome: &str, rule: &str) -> String {
    let h = crate::episodic::index::files::fnv1a(format!("{outcome}\0{rule}").as_bytes());
    format!("fb-{:012x}", h & 0xffff_ffff_ffff)
}

#[allow(clippy::too_many_arguments)]
fn apply_one(
    playbook: &Playbook,
    tx: &rusqlite::Connection,
    o: &Outcome,
    rule: &str,
    kind: FeedbackType,
    now: &str,
    scoring: &crate::config::Scoring,
    effects: &mut Effects,
) -> Result<()> {
    let reason = o
        .summary
        .clone()
        .unwrap_or_else(|| format!("session outcome: {}", o.status));
    let event = event_id(&o.id, rule);
    let result = playbook.change_in(tx, rule, "outcome", |b| {
        if b.feedback_events.iter().any(|e| e.id == event) {
            return Ok(Vec::new());
        }
        let effect = feedback::apply(
            b,
            FeedbackInput {
                kind,
                source: FeedbackSource::Outcome,
                reason: Some(&reason),
                session_path: o.session_path.as_deref(),
                now,
            },
            scoring,
        );
        if let Some(e) = b.feedback_events.last_mut() {
            e.id = event.clone();
        }
        Ok(effect.inverted_to.into_iter().collect())
    });
    match result {
        Ok((_, created, _)) => effects.inverted.extend(created.into_iter().map(|c| c.id)),
        Err(e) if e.code == "RULE_NOT_FOUND" => effects.missing.push(rule.to_string()),
        Err(e) => return Err(e),
    }
    Ok(())
}

pub fn clear(_args: &ClearArgs, ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let n = store.write(|tx| outcomes::clear_pending(tx))?;
    Ok(Report::new(json!({"cleared": n}))
        .human(format!("Discarded {n} recorded outcome(s)."))
        .quiet(n.to_string()))
}
