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
use crate::app::record_outcome::{self, RecordRequest};
use crate::error::Result;
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
    let req = RecordRequest {
        status: args.status.clone(),
        ids: args.ids.clone(),
        summary: args.summary.clone(),
        session: args.session.clone(),
        duration: args.duration,
        errors: args.errors,
        retries: args.retries,
        sentiment: args.sentiment.clone(),
        text: args.text.clone(),
    };
    record_outcome::record(ctx.store()?, ctx.config()?, &ctx.cwd, &req)
}

pub fn apply(args: &ApplyArgs, ctx: &Ctx) -> Result<Report> {
    let req = outcomes::ApplyRequest {
        session: args.session.clone(),
        limit: args.limit,
    };
    outcomes::apply(ctx.store()?, ctx.config()?, &ctx.cwd, &req)
}

pub fn clear(_args: &ClearArgs, ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let n = outcomes::clear_pending(store)?;
    Ok(Report::new(json!({"cleared": n}))
        .human(format!("Discarded {n} recorded outcome(s)."))
        .quiet(n.to_string()))
}
