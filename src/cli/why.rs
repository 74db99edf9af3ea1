//! `cm why ID`: where a rule came from, every feedback event, its change history and how its
//! score moved (and will decay).

use super::Ctx;
use super::view;
use crate::clock;
use crate::error::Result;
use crate::memory::bullet::{feedback_source_name, feedback_type_name};
use crate::memory::playbook::Playbook;
use crate::memory::scoring::trajectory;
use crate::memory::tables::bullets as rows;
use crate::output::Report;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The rule's id (or an unambiguous prefix of it).
    pub id: String,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let now = clock::now();
    let entry = Playbook::open(store, &ctx.cwd)
        .settled(&cfg.scoring, now)
        .get(&args.id)?;
    let b = &entry.bullet;
    let traj = trajectory(b, &cfg.scoring, now);
    let history: Vec<_> = rows::revisions(store, &b.id)?
        .into_iter()
        .map(|(action, at)| json!({"action": action.trim_start_matches("repo:"), "at": at}))
        .collect();
    let mut human = view::describe(&entry, &cfg.scoring, now);
    human.push_str("\nProvenance\n");
    if b.source_sessions.is_empty() && b.source_agents.is_empty() {
        human.push_str("  added by hand (no source session recorded)\n");
    }
    for s in &b.source_sessions {
        human.push_str(&format!("  session {s}\n"));
    }
    if !b.source_agents.is_empty() {
        human.push_str(&format!("  agents {}\n", b.source_agents.join(", ")));
    }
    human.push_str("\nFeedback\n");
    if b.feedback_events.is_empty() {
        human.push_str("  none yet\n");
    }
    for e in &b.feedback_events {
        human.push_str(&format!(
            "  {}  {:<7}  {:<7}{}{}\n",
            e.timestamp,
            feedback_type_name(e.kind),
            feedback_source_name(e.source),
            e.reason
                .as_deref()
                .map(|r| format!("  \"{r}\""))
                .unwrap_or_default(),
            e.session_path
                .as_deref()
                .map(|s| format!("  ({s})"))
                .unwrap_or_default()
        ));
    }
    human.push_str("\nScore trajectory\n");
    for (label, at, score) in &traj {
        human.push_str(&format!("  {:<8} {}  {score:>8.3}\n", label, &at[..10]));
    }
    Ok(Report::new(json!({
        "bullet": view::entry_json(&entry, &cfg.scoring, now),
        "provenance": {"sourceSessions": b.source_sessions, "sourceAgents": b.source_agents, "reasoning": b.reasoning},
        "feedback": b.feedback_events,
        "history": history,
        "trajectory": traj.iter().map(|(l, at, s)| json!({"label": l, "at": at, "score": s})).collect::<Vec<_>>(),
        "halfLifeDays": cfg.scoring.decay_half_life_days,
        "harmfulMultiplier": cfg.scoring.harmful_multiplier,
    }))
    .human(human)
    .quiet(b.id.clone()))
}
