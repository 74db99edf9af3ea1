//! `cm outcome STATUS IDS`, `cm outcome-apply`, `cm outcome-clear`.
//!
//! An outcome records which rules a session used and how it went; applying it turns `success`
//! into helpful feedback and `failure` into harmful feedback (source `outcome`). A `mixed`
//! outcome (`partial` is another name for it) is kept for the record but changes no score: it
//! says nothing about any one rule.
//!
//! `--duration`, `--errors`, `--retries`, `--sentiment` and `--text` record the session's
//! implicit signals with it; they are scored when the outcome is recorded
//! ([`crate::memory::implicit`]) and the verdict (type, weight, reasons) rides with the queued
//! outcome until `cm outcome-apply` gives each rule that event.

use super::Ctx;
use crate::app::outcomes;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::implicit::{self, Sentiment};
use crate::memory::playbook::Playbook;
use crate::memory::scoring::{effective_score, round3};
use crate::memory::tables::outcomes::{Outcome, Signals};
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
    /// How long the session took, in seconds (under 600 and not a failure: fast; over 3600: slow).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub duration: Option<f64>,
    /// How many errors the session ran into (1 counts against the rules, 2 or more more so).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub errors: Option<i64>,
    /// The session needed retries (optionally how many; 0 is none).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "1", allow_negative_numbers = true)]
    pub retries: Option<i64>,
    /// positive, negative or neutral; without it, read from --text.
    #[arg(long)]
    pub sentiment: Option<String>,
    /// What the user said at the end of the session (its sentiment counts; the summary when
    /// --summary is not given).
    #[arg(long)]
    pub text: Option<String>,
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
    let signals = signals(args, &status)?;
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
        summary: args
            .summary
            .as_deref()
            .or(args.text.as_deref())
            .map(|s| crate::redact::redact(s).0),
        session_path: args
            .session
            .as_deref()
            .map(|s| crate::paths::session_ref(s, &ctx.cwd)),
        applied: false,
        applied_at: None,
        signals,
    };
    outcomes::record(store, &o)?;
    let Some(s) = &o.signals else {
        return Ok(Report::new(json!({"outcome": o}))
            .human(format!(
                "Recorded {status} for {}; `cm outcome-apply` applies it.",
                ids.join(", ")
            ))
            .quiet(o.id.clone()));
    };
    let cfg = ctx.config()?;
    let now = clock::now();
    let mut recorded = Vec::new();
    for id in &ids {
        let b = playbook.get(id)?.bullet;
        recorded.push(json!({
            "id": id,
            "type": s.kind,
            "weight": s.weight,
            "reasons": s.reasons,
            "score": round3(effective_score(&b, &cfg.scoring, now)),
        }));
    }
    let verdict = crate::memory::bullet::feedback_type_name(s.kind);
    Ok(Report::new(json!({
        "outcome": o,
        "recorded": recorded,
        "sentiment": s.sentiment,
    }))
    .human(format!(
        "Recorded {status} for {}: {verdict} feedback weighing {:.2} ({}); `cm outcome-apply` applies it.",
        ids.join(", "),
        s.weight,
        s.reasons.join(", ")
    ))
    .quiet(o.id.clone()))
}

/// The implicit signals given with the outcome, scored; `None` when none was given (a plain
/// outcome). Bad values are refused before anything is stored.
fn signals(args: &Args, status: &str) -> Result<Option<Signals>> {
    let given = args.duration.is_some()
        || args.errors.is_some()
        || args.retries.is_some()
        || args.sentiment.is_some()
        || args.text.is_some();
    if !given {
        return Ok(None);
    }
    if let Some(d) = args.duration
        && (!d.is_finite() || d < 0.0)
    {
        return Err(
            invalid(format!("--duration {d} is not a number of seconds"))
                .hint("give the session's length in seconds, 0 or more: --duration 420"),
        );
    }
    let count = |flag: &str, n: Option<i64>| -> Result<Option<u64>> {
        match n {
            Some(n) if n < 0 => Err(invalid(format!("{flag} {n} is negative"))
                .hint(format!("give a count of 0 or more: {flag} 2"))),
            n => Ok(n.map(|n| n as u64)),
        }
    };
    let errors = count("--errors", args.errors)?;
    let retries = count("--retries", args.retries)?;
    let sentiment = match args.sentiment.as_deref() {
        Some(s) => Sentiment::parse(s).ok_or_else(|| {
            invalid(format!("unknown sentiment \"{s}\""))
                .hint("use positive, negative or neutral, or leave it out to read it from --text")
        })?,
        None => args
            .text
            .as_deref()
            .map_or(Sentiment::Neutral, implicit::detect_sentiment),
    };
    let input = implicit::Signals {
        duration_secs: args.duration,
        errors,
        retries,
        sentiment: Some(sentiment),
    };
    let v = implicit::score(status, &input);
    Ok(Some(Signals {
        kind: v.kind,
        weight: round3(v.weight),
        reasons: v.reasons.iter().map(|r| r.to_string()).collect(),
        sentiment,
        duration_secs: args.duration,
        errors,
        retries,
    }))
}

fn invalid(message: String) -> CmError {
    CmError::usage("INVALID_ARGUMENT", message)
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
        .map(|o| {
            let mut a = json!({"id": o.id, "status": o.status, "rules": o.rules});
            if let Some(s) = &o.signals {
                a["type"] = json!(s.kind);
                a["weight"] = json!(s.weight);
                a["reasons"] = json!(s.reasons);
            }
            a
        })
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
