//! `cm why ID`: where a rule came from, every feedback event, its change history and how its
//! score moved (and will decay).

use super::Ctx;
use super::view;
use crate::clock;
use crate::error::Result;
use crate::memory::bullet::{feedback_source_name, feedback_type_name};
use crate::memory::playbook::Playbook;
use crate::memory::scoring::trajectory;
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
    let playbook = Playbook::open(store, &ctx.cwd).settled(&cfg.scoring, now);
    let entry = playbook.get(&args.id)?;
    let b = &entry.bullet;
    let traj = trajectory(b, &cfg.scoring, now);
    let history: Vec<_> = playbook
        .revisions(&b.id)?
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
            "  {}  {:<7}  {:<7}{}{}{}\n",
            e.timestamp,
            feedback_type_name(e.kind),
            feedback_source_name(e.source),
            e.weight
                .map(|w| format!("  weight {w:.2}"))
                .unwrap_or_default(),
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
    let days_ago =
        |at: &str| clock::parse(at).map(|t| (clock::age_days(t, now) * 10.0).round() / 10.0);
    let feedback_history: Vec<_> = b
        .feedback_events
        .iter()
        .map(|e| {
            let age = clock::parse(&e.timestamp).map(|t| clock::age_days(t, now));
            json!({
                "type": feedback_type_name(e.kind),
                "timestamp": e.timestamp,
                "daysAgo": days_ago(&e.timestamp),
                "decayFactor": age.map(|a| crate::memory::scoring::round3(
                    crate::memory::scoring::decay_factor(a, cfg.scoring.decay_half_life_days)
                )),
                "source": feedback_source_name(e.source),
                "weight": e.weight(),
                "reason": e.reason,
                "sessionPath": e.session_path,
            })
        })
        .collect();
    let sessions_of = |kind: crate::memory::bullet::FeedbackType| {
        let mut v: Vec<&str> = b
            .feedback_events
            .iter()
            .filter(|e| e.kind == kind)
            .filter_map(|e| e.session_path.as_deref())
            .collect();
        v.dedup();
        v
    };
    let evidence = json!({
        "sourceSessions": b.source_sessions,
        "helpfulSessions": sessions_of(crate::memory::bullet::FeedbackType::Helpful),
        "harmfulSessions": sessions_of(crate::memory::bullet::FeedbackType::Harmful),
    });
    let diary = diary_entries(store, &b.source_sessions);
    if !diary.is_empty() {
        human.push_str("\nDiary entries\n");
        for d in &diary {
            human.push_str(&format!(
                "  {}  {}  {}\n",
                d["timestamp"].as_str().unwrap_or(""),
                d["status"].as_str().unwrap_or(""),
                d["sessionId"].as_str().unwrap_or("")
            ));
        }
    }
    Ok(Report::new(json!({
        "bullet": view::entry_json(&entry, &cfg.scoring, now),
        "daysAgo": days_ago(&b.created_at),
        "evidence": evidence,
        "diaryEntries": diary,
        "feedbackHistory": feedback_history,
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

/// The diary entries of the sessions a rule came from (looked up by the session file's stem, the
/// id the diary keeps), each in brief.
fn diary_entries(store: &crate::store::Store, sessions: &[String]) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for s in sessions {
        let Some(stem) = std::path::Path::new(s).file_stem().and_then(|n| n.to_str()) else {
            continue;
        };
        for e in crate::reflect::tables::entry(store, stem).unwrap_or_default() {
            if e.session_id != stem && e.session_path.as_deref() != Some(s.as_str()) {
                continue;
            }
            if out
                .iter()
                .any(|o: &serde_json::Value| o["id"] == e.id.as_str())
            {
                continue;
            }
            out.push(json!({
                "id": e.id,
                "sessionId": e.session_id,
                "sessionPath": e.session_path,
                "agent": e.agent,
                "timestamp": e.timestamp,
                "status": e.status.as_str(),
                "keyLearnings": e.key_learnings,
            }));
        }
    }
    out
}
