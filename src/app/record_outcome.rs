//! A session's outcome recorded (`cm outcome`, the MCP outcome tool): which rules it used, how
//! it went, and, when given, its implicit signals (duration, errors, retries, sentiment) scored
//! into the verdict the outcome will apply ([`crate::memory::implicit`]). Applying is
//! [`super::outcomes`]'s job.

use crate::clock;
use crate::config::Config;
use crate::error::{CmError, Result};
use crate::memory::implicit::{self, Sentiment};
use crate::memory::playbook::Playbook;
use crate::memory::scoring::{effective_score, round3};
use crate::memory::tables::outcomes::{Outcome, Signals};
use crate::output::Report;
use crate::store::Store;
use serde_json::json;
use std::path::Path;

/// An outcome as given: the raw status word and rule ids are checked here, so every adapter
/// refuses the same input with the same error.
#[derive(Debug, Default)]
pub struct RecordRequest {
    /// success, failure, mixed or partial (another name for mixed).
    pub status: String,
    /// Comma-separated rule ids or prefixes.
    pub ids: String,
    /// What happened (the feedback's reason).
    pub summary: Option<String>,
    /// The session's log file or reference.
    pub session: Option<String>,
    /// How long the session took, in seconds.
    pub duration: Option<f64>,
    /// How many errors it ran into.
    pub errors: Option<i64>,
    /// How many retries it needed.
    pub retries: Option<i64>,
    /// positive, negative or neutral; read from `text` when not given.
    pub sentiment: Option<String>,
    /// What the user said at the end (its sentiment counts; the summary when none is given).
    pub text: Option<String>,
}

/// Record `req` for the playbook seen from `cwd`: the rule ids resolved (prefixes allowed,
/// duplicates dropped), the summary redacted, the implicit signals scored. Nothing is applied:
/// [`super::outcomes::apply`] does that.
pub fn record(store: &Store, cfg: &Config, cwd: &Path, req: &RecordRequest) -> Result<Report> {
    let args = req;
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
    let playbook = Playbook::open(store, cwd);
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
            .map(|s| crate::paths::session_ref(s, cwd)),
        applied: false,
        applied_at: None,
        signals,
    };
    super::outcomes::record(store, &o)?;
    let Some(s) = &o.signals else {
        return Ok(Report::new(json!({"outcome": o}))
            .human(format!(
                "Recorded {status} for {}; `cm outcome-apply` applies it.",
                ids.join(", ")
            ))
            .quiet(o.id.clone()));
    };
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
fn signals(args: &RecordRequest, status: &str) -> Result<Option<Signals>> {
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
