//! `cm forget ID [--reason R] [--invert] [--force]`: deprecate a rule on purpose, optionally
//! turning it into an anti-pattern warning right away.
//!
//! A deliberate deprecation stays until `cm playbook revive` or `cm undo` (feedback does not lift
//! it). A pinned or proven rule is only forgotten with `--force`: someone chose to keep the one,
//! and the other earned its place.

use super::Ctx;
use super::view;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::bullet::{BulletType, Maturity, new_bullet_id};
use crate::memory::playbook::Playbook;
use crate::memory::{feedback, scoring};
use crate::output::Report;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The rule's id (or an unambiguous prefix of it).
    pub id: String,
    /// Why the rule is forgotten (kept with it).
    #[arg(long)]
    pub reason: Option<String>,
    /// Also create the anti-pattern ("PITFALL: ...") that warns against the rule.
    #[arg(long)]
    pub invert: bool,
    /// Forget a pinned or proven rule too (without it, such a rule is refused).
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    if args.reason.as_ref().is_some_and(|r| r.trim().is_empty()) {
        return Err(
            CmError::usage("INVALID_ARGUMENT", "--reason must not be empty")
                .hint("say why the rule is forgotten, or leave --reason out"),
        );
    }
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let now_t = clock::now();
    let now = clock::to_rfc3339(now_t);
    let reason = args
        .reason
        .as_deref()
        .map(|r| crate::redact::redact(r.trim()).0)
        .unwrap_or_else(|| "no reason given".into());
    let (b, created, location) =
        Playbook::open(store, &ctx.cwd).change(&args.id, "forget", |b| {
            scoring::settle(b, &cfg.scoring, now_t);
            if scoring::deprecated_on_purpose(b) {
                return Err(CmError::usage(
                    "ALREADY_DEPRECATED",
                    format!("{} is already deprecated", b.id),
                )
                .hint("`cm playbook revive ID` (or `cm undo ID`) brings back a rule"));
            }
            if !args.force && (b.pinned || b.maturity == Maturity::Proven) {
                let what = if b.pinned { "pinned" } else { "proven" };
                return Err(CmError::usage(
                    "CONFIRMATION_REQUIRED",
                    format!("{} is {what}; forgetting it needs --force", b.id),
                )
                .hint(format!(
                    "cm forget {} --force [--reason R]; nothing was changed",
                    b.id
                )));
            }
            let created = if args.invert && b.bullet_type == BulletType::Rule {
                let mut anti = scoring::make_anti_pattern(b, new_bullet_id(), &now);
                // The user's reason is why the anti-pattern exists.
                anti.reasoning = Some(format!(
                    "Inverted from rule {} by cm forget: {reason}",
                    b.id
                ));
                if !anti.tags.iter().any(|t| t == "inverted") {
                    anti.tags.push("inverted".into());
                }
                vec![anti]
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
