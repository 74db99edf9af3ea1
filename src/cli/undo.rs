//! `cm undo ID`: revert the newest feedback or curation on a rule.

use super::Ctx;
use crate::error::Result;
use crate::memory::playbook::Playbook;
use crate::output::Report;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    pub id: String,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let now = crate::clock::now();
    let (action, restored, removed) = Playbook::open(store, &ctx.cwd).undo(&args.id)?;
    let mut human = format!("Undid \"{action}\" on {}", args.id);
    match &restored {
        Some(b) => human.push_str(&format!(
            ": back to {} helpful / {} harmful, {}",
            b.helpful_count,
            b.harmful_count,
            crate::memory::bullet::maturity_name(b.maturity)
        )),
        None => human.push_str(": the rule is removed again"),
    }
    if !removed.is_empty() {
        human.push_str(&format!("; removed {}", removed.join(", ")));
    }
    Ok(Report::new(json!({
        "id": args.id,
        "undone": action,
        "bullet": restored.as_ref().map(|b| super::view::bullet_json(b, &crate::memory::playbook::Location::Personal, &cfg.scoring, now)),
        "removedBullets": removed,
    }))
    .human(human)
    .quiet(args.id.clone()))
}
