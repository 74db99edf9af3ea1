//! `cm undo ID`: revert the newest feedback or curation on a rule.

use super::Ctx;
use crate::error::Result;
use crate::memory::bullet::maturity_name;
use crate::memory::playbook::Playbook;
use crate::output::Report;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The rule's id (or an unambiguous prefix of it).
    pub id: String,
    /// Only a feedback change (a mark, an outcome, inline feedback): refuse when the newest
    /// change is a curation (remove, forget, pin, ...).
    #[arg(long)]
    pub feedback: bool,
}

/// The actions that record feedback on a rule.
const FEEDBACK_ACTIONS: &[&str] = &["mark", "outcome", "reflect", "audit"];

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let now = crate::clock::now();
    let u = Playbook::open(store, &ctx.cwd).undo_if(&args.id, |action| {
        !args.feedback || FEEDBACK_ACTIONS.contains(&action)
    })?;
    let mut human = format!("Undid \"{}\" on {}", u.action, u.id);
    match &u.bullet {
        Some(b) => human.push_str(&format!(
            ": back to {} helpful / {} harmful, {}",
            b.helpful_count,
            b.harmful_count,
            maturity_name(b.maturity)
        )),
        None => human.push_str(": the rule is removed again"),
    }
    if !u.removed.is_empty() {
        human.push_str(&format!("; removed {}", u.removed.join(", ")));
    }
    Ok(Report::new(json!({
        "id": u.id,
        "undone": u.action,
        "bullet": u.bullet.as_ref().map(|b| super::view::bullet_json(b, &u.location, &cfg.scoring, now)),
        "removedBullets": u.removed,
        "location": u.location.name(),
    }))
    .human(human)
    .quiet(u.id.clone()))
}
