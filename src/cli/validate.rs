//! `cm validate "RULE"`: what the validator makes of a rule before anyone adds it: the sessions
//! of the history where its situation occurred, how they ended, and the verdict.

use super::Ctx;
use crate::error::Result;
use crate::output::Report;
use crate::reflect::validate::Verdict;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The rule's text.
    rule: String,
    /// Only sessions in this workspace or a directory under it.
    #[arg(long)]
    workspace: Option<String>,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let rule = crate::app::reflect::validation_text(&args.rule)?;
    let store = ctx.store()?;
    let (verdict, evidence, sessions) =
        crate::app::reflect::validate_text(store, &rule, args.workspace.as_deref())?;
    let indexed = crate::episodic::sessions::has_index(store);
    let human = match &verdict {
        Verdict::Accept => format!(
            "Accept: the situation occurred in {} session(s) ({} succeeded, {} failed).",
            evidence.sessions, evidence.succeeded, evidence.failed
        ),
        Verdict::Candidate => "Candidate: no session of the history shows this situation yet; it would start as a candidate.".to_string(),
        Verdict::Reject { reason } => format!("Reject: {reason}."),
    };
    let degraded = if indexed {
        serde_json::Value::Null
    } else {
        json!({"history": {"code": "NO_INDEX", "message": "no sessions are indexed, so there is no evidence to weigh", "fix": "run `cm history index`"}})
    };
    let list: Vec<_> = sessions
        .iter()
        .map(|(agent, id)| json!({"agent": agent, "sessionId": id}))
        .collect();
    let (name, reason) = match &verdict {
        Verdict::Accept => ("accept", None),
        Verdict::Candidate => ("candidate", None),
        Verdict::Reject { reason } => ("reject", Some(reason.as_str())),
    };
    Ok(Report::new(json!({
        "rule": rule, "verdict": name, "reason": reason, "evidence": evidence, "sessions": list,
        "degraded": degraded,
    }))
    .human(human))
}
