//! `cm playbook pin|unpin|revive ID`: a person's say over a rule's standing.
//!
//! A pinned rule is never deprecated or inverted by its feedback (it still gains and loses
//! score). `revive` lifts a deliberate deprecation (`cm forget`, `cm playbook remove`, an
//! inversion); a rule its own feedback deprecates cannot be revived (that would last until the
//! next mark), only pinned. Each change is recorded, so `cm undo ID` reverts it.

use super::IdArgs;
use crate::cli::{Ctx, view};
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::bullet::{Maturity, State, maturity_name};
use crate::memory::playbook::Playbook;
use crate::memory::scoring;
use crate::output::Report;
use serde_json::json;

pub(super) fn pin(args: &IdArgs, ctx: &Ctx, pinned: bool) -> Result<Report> {
    let cfg = ctx.config()?;
    let now = clock::now();
    let playbook = Playbook::open(ctx.store()?, &ctx.cwd).settled(&cfg.scoring, now);
    let entry = playbook.get(&args.id)?;
    let previous = entry.bullet.maturity;
    let verb = if pinned { "pinned" } else { "unpinned" };
    let changed = entry.bullet.pinned != pinned;
    let (b, location) = if !changed {
        (entry.bullet, entry.location)
    } else {
        let action = if pinned { "pin" } else { "unpin" };
        let stamp = clock::to_rfc3339(now);
        let (b, _, location) = playbook.change(&entry.bullet.id, action, |b| {
            b.pinned = pinned;
            b.updated_at = stamp.clone();
            scoring::settle(b, &cfg.scoring, now);
            Ok(Vec::new())
        })?;
        (b, location)
    };
    let mut human = format!("{} is {verb}; maturity {}", b.id, maturity_name(b.maturity));
    if previous != b.maturity {
        human.push_str(&format!(" (was {})", maturity_name(previous)));
    }
    if pinned && scoring::deprecated_on_purpose(&b) {
        human.push_str(&format!(
            "\nIt stays deprecated ({}); `cm playbook revive {}` brings it back.",
            b.deprecation_reason.as_deref().unwrap_or("deprecated"),
            b.id
        ));
    }
    Ok(Report::new(json!({
        "bullet": view::bullet_json(&b, &location, &cfg.scoring, now),
        "pinned": b.pinned,
        "changed": changed,
        "previousMaturity": maturity_name(previous),
    }))
    .human(human)
    .quiet(b.id.clone()))
}

pub(super) fn revive(args: &IdArgs, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let now = clock::now();
    let stamp = clock::to_rfc3339(now);
    let playbook = Playbook::open(ctx.store()?, &ctx.cwd).settled(&cfg.scoring, now);
    let mut anti = None;
    let (b, _, location) = playbook.change(&args.id, "revive", |b| {
        scoring::settle(b, &cfg.scoring, now);
        if b.is_live() {
            return Err(CmError::usage(
                "NOT_DEPRECATED",
                format!("{} is not deprecated (maturity {})", b.id, maturity_name(b.maturity)),
            )
            .hint("`cm forget ID` deprecates a rule; `cm playbook pin ID` protects one"));
        }
        anti = b
            .deprecation_reason
            .as_deref()
            .and_then(|r| r.split("inverted into anti-pattern ").nth(1))
            .map(|id| id.trim().to_string());
        b.deprecated = false;
        b.state = State::Active;
        b.deprecation_reason = None;
        b.maturity = Maturity::Candidate;
        b.updated_at = stamp.clone();
        scoring::settle(b, &cfg.scoring, now);
        if b.maturity == Maturity::Deprecated {
            return Err(CmError::usage(
                "DEPRECATED_BY_FEEDBACK",
                format!(
                    "{} cannot be revived: its own feedback deprecates it ({})",
                    b.id,
                    b.deprecation_reason.as_deref().unwrap_or("")
                ),
            )
            .hint(format!(
                "pin it to keep it live whatever its feedback (`cm playbook pin {}`), or let helpful marks bring it back; nothing was changed",
                b.id
            )));
        }
        Ok(Vec::new())
    })?;
    let mut human = format!("Revived {}: maturity {}", b.id, maturity_name(b.maturity));
    if let Some(a) = &anti {
        human.push_str(&format!(
            "\nIts anti-pattern {a} is still in the playbook; `cm playbook remove {a}` if it no longer applies."
        ));
    }
    Ok(Report::new(json!({
        "bullet": view::bullet_json(&b, &location, &cfg.scoring, now),
        "antiPattern": anti,
    }))
    .human(human)
    .quiet(b.id.clone()))
}
