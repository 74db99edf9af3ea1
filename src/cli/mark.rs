//! `cm mark ID --helpful|--harmful`: record feedback on a rule.

use super::Ctx;
use crate::app::mark::MarkRequest;
use crate::error::Result;
use crate::memory::bullet::{FeedbackSource, FeedbackType};
use crate::output::Report;

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
    let req = MarkRequest {
        id,
        kind,
        source,
        reason,
        session,
    };
    crate::app::mark::mark(ctx.store()?, ctx.config()?, &ctx.cwd, &req)
}
