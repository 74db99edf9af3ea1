//! `cm mark ID --helpful|--harmful`: record feedback on a rule.

use super::Ctx;
use super::view;
use crate::clock;
use crate::error::Result;
use crate::memory::bullet::{FeedbackSource, FeedbackType, maturity_name};
use crate::memory::feedback::{self, FeedbackInput};
use crate::memory::playbook::Playbook;
use crate::output::Report;
use serde_json::json;

#[derive(clap::Args, Debug)]
#[command(group = clap::ArgGroup::new("verdict").required(true).args(["helpful", "harmful"]))]
pub struct Args {
    /// The rule's id (or an unambiguous prefix of it).
    pub id: String,
    /// The rule helped.
    #[arg(long)]
    pub helpful: bool,
    /// The rule misled or hurt (weighs harmfulMultiplier helpful marks).
    #[arg(long)]
    pub harmful: bool,
    /// Why (kept with the feedback event).
    #[arg(long)]
    pub reason: Option<String>,
    /// The session where the rule helped or hurt.
    #[arg(long)]
    pub session: Option<String>,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let kind = if args.harmful {
        FeedbackType::Harmful
    } else {
        FeedbackType::Helpful
    };
    mark(
        ctx,
        &args.id,
        kind,
        FeedbackSource::Manual,
        args.reason.as_deref(),
        args.session
            .as_deref()
            .map(|s| crate::paths::session_ref(s, &ctx.cwd))
            .as_deref(),
    )
}

/// Shared by `mark` and anything else that records feedback from the command line.
pub fn mark(
    ctx: &Ctx,
    id: &str,
    kind: FeedbackType,
    source: FeedbackSource,
    reason: Option<&str>,
    session: Option<&str>,
) -> Result<Report> {
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let now_t = clock::now();
    let now = clock::to_rfc3339(now_t);
    let reason = reason.map(|r| crate::redact::redact(r).0);
    let mut effect_out = None;
    let (b, created, location) = Playbook::open(store, &ctx.cwd).change(id, "mark", |b| {
        let effect = feedback::apply(
            b,
            FeedbackInput {
                kind,
                source,
                reason: reason.as_deref(),
                session_path: session,
                now: &now,
                weight: None,
            },
            &cfg.scoring,
        );
        let created = effect.inverted_to.iter().cloned().collect();
        effect_out = Some((effect.previous_maturity, effect.event));
        Ok(created)
    })?;
    let (previous, event) = effect_out.expect("change ran the closure");
    let verdict = if kind == FeedbackType::Helpful {
        "helpful"
    } else {
        "harmful"
    };
    let mut human = format!(
        "Marked {} {verdict}: score {:.2}, maturity {}",
        b.id,
        crate::memory::scoring::effective_score(&b, &cfg.scoring, now_t),
        maturity_name(b.maturity)
    );
    if previous != b.maturity {
        human.push_str(&format!(" (was {})", maturity_name(previous)));
    }
    let inverted = created.first();
    if let Some(a) = inverted {
        human.push_str(&format!(
            "\nThe rule kept hurting: it is deprecated and inverted into {}: {}",
            a.id, a.content
        ));
    }
    Ok(Report::new(json!({
        "bullet": view::bullet_json(&b, &location, &cfg.scoring, now_t),
        "event": event,
        "previousMaturity": maturity_name(previous),
        "invertedTo": inverted.map(|a| view::bullet_json(a, &location, &cfg.scoring, now_t)),
    }))
    .human(human)
    .quiet(b.id.clone()))
}
