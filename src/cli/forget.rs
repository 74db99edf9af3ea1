//! `cm forget ID --reason R [--invert]`: deprecate a rule on purpose, optionally turning it into
//! an anti-pattern warning right away.

use super::Ctx;
use super::view;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::bullet::{BulletType, new_bullet_id};
use crate::memory::playbook::Playbook;
use crate::memory::{feedback, scoring};
use crate::output::Report;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    pub id: String,
    #[arg(long)]
    pub reason: String,
    /// Also create the anti-pattern ("PITFALL: ...") that warns against the rule.
    #[arg(long)]
    pub invert: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    if args.reason.trim().is_empty() {
        return Err(
            CmError::usage("INVALID_ARGUMENT", "--reason must not be empty")
                .hint("say why the rule is forgotten"),
        );
    }
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let now_t = clock::now();
    let now = clock::to_rfc3339(now_t);
    let reason = crate::redact::redact(args.reason.trim()).0;
    let (b, created, location) =
        Playbook::open(store, &ctx.cwd).change(&args.id, "forget", |b| {
            if b.deprecated {
                return Err(CmError::usage(
                    "ALREADY_DEPRECATED",
                    format!("{} is already deprecated", b.id),
                )
                .hint("`cm undo ID` brings back a rule"));
            }
            let created = if args.invert && b.bullet_type == BulletType::Rule {
                vec![scoring::make_anti_pattern(b, new_bullet_id(), &now)]
            } else {
                Vec::new()
            };
            let why = match created.first() {
                Some(a) => format!("forgotten: {reason}; inverted into anti-pattern {}", a.id),
                None => format!("forgotten: {reason}"),
            };
            feedback::deprecate(b, &why, &now);
            Ok(created)
        })?;
    let mut human = format!("Forgot {} ({reason}).", b.id);
    if let Some(a) = created.first() {
        human.push_str(&format!("\nAdded anti-pattern {}: {}", a.id, a.content));
    }
    Ok(Report::new(json!({
        "bullet": view::bullet_json(&b, &location, &cfg.scoring, now_t),
        "invertedTo": created.first().map(|a| view::bullet_json(a, &location, &cfg.scoring, now_t)),
    }))
    .human(human)
    .quiet(b.id.clone()))
}
